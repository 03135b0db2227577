/**
 * The one path every record takes to disk: bound the depth, redact, cap.
 * Redaction runs on the whole value before the cap so a secret can never
 * straddle the cut and leave its first half in the head; the digest stored
 * beside a cut value is therefore of the redacted value, and nothing on disk
 * lets anyone confirm a guess at a secret.
 */
import type { Redactor } from "../redact/index.ts";
import { capFields, capRecord, DEFAULT_FIELD_BYTES, DEFAULT_RECORD_BYTES } from "./cap.ts";
import { boundDepth } from "./depth.ts";
import { HEADER_FIELDS, type TraceRecord } from "./record.ts";

export interface Caps {
  readonly fieldBytes: number;
  readonly recordBytes: number;
}

export const DEFAULT_CAPS: Caps = { fieldBytes: DEFAULT_FIELD_BYTES, recordBytes: DEFAULT_RECORD_BYTES };

/**
 * A record ready for disk.
 *
 * @example
 * ```ts
 * sanitize(record, defaultRedactor, DEFAULT_CAPS);
 * ```
 */
export function sanitize(record: TraceRecord, redactor: Redactor, caps: Caps = DEFAULT_CAPS): TraceRecord {
  const header: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    if (HEADER_FIELDS.has(k)) header[k] = v;
    else Object.defineProperty(body, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  const redacted = redactor.value(boundDepth(body)) as Record<string, unknown>;
  const capped = capFields(redacted, caps.fieldBytes) as Record<string, unknown>;
  return capRecord({ ...header, ...capped }, caps.recordBytes, caps.fieldBytes) as unknown as TraceRecord;
}
