/**
 * Field and record caps. A string longer than the field cap keeps its head
 * plus the full value's sha256 and byte length, so a reader knows exactly
 * what was cut; the cap is what a reader should believe rather than the
 * addition. A record still larger than the record cap after that has its
 * largest members replaced by cut JSON text, deepest first, so the shape of
 * the rest survives.
 */
import { sha256Hex } from "./digest.ts";
import { HEADER_FIELDS, type CutString } from "./record.ts";

export const DEFAULT_FIELD_BYTES = 256 * 1024;
export const DEFAULT_RECORD_BYTES = 2 * 1024 * 1024;

const encoder = new TextEncoder();

/** The first `maxBytes` of `s` as UTF-8, never splitting a character. */
export function utf8Head(s: string, maxBytes: number): string {
  // maxBytes bytes never hold more than maxBytes characters: encode only those.
  let part = s.length > maxBytes ? s.slice(0, maxBytes) : s;
  // Never end on half a surrogate pair (it would encode as U+FFFD).
  if (part.length < s.length && /[\uD800-\uDBFF]$/.test(part)) part = part.slice(0, -1);
  const buf = Buffer.from(part, "utf8");
  if (buf.length <= maxBytes && part.length === s.length) return s;
  if (buf.length <= maxBytes) return buf.toString("utf8");
  let end = maxBytes;
  // Step back over continuation bytes so the head stays valid UTF-8.
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString("utf8");
}

/**
 * Cut one string if it is over the cap.
 *
 * @example
 * ```ts
 * cutString("abcdef", 4); // { cut: true, head: "abcd", sha256: "bef5...", bytes: 6 }
 * cutString("abc", 4);    // "abc"
 * ```
 */
export function cutString(s: string, maxBytes: number): string | CutString {
  // Most strings are far below the cap: skip the byte count when even
  // all-3-byte characters would fit.
  if (s.length * 3 <= maxBytes) return s;
  const full = encoder.encode(s);
  if (full.length <= maxBytes) return s;
  return {
    cut: true,
    head: utf8Head(s, maxBytes),
    sha256: sha256Hex(full),
    bytes: full.length,
  };
}

/** Cut every string leaf over the cap; depth must already be bounded. */
export function capFields(v: unknown, maxBytes: number): unknown {
  if (typeof v === "string") return cutString(v, maxBytes);
  if (Array.isArray(v)) return v.map((x) => capFields(x, maxBytes));
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, capFields(x, maxBytes)]));
  }
  return v;
}

interface Slot {
  readonly parent: Record<string, unknown> | unknown[];
  readonly key: string | number;
  readonly size: number;
  readonly depth: number;
}

function jsonBytes(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v) ?? "", "utf8");
}

/**
 * Shrink a record under `maxBytes` by replacing its largest members (two
 * levels deep) with cut JSON text. Returns the record unchanged when it fits.
 */
export function capRecord<T extends Record<string, unknown>>(record: T, maxBytes: number, fieldBytes: number): T {
  let total = jsonBytes(record);
  if (total <= maxBytes) return record;
  const out: Record<string, unknown> = { ...record };
  const slots: Slot[] = [];
  for (const [k, v] of Object.entries(out)) {
    if (HEADER_FIELDS.has(k)) continue;
    if (v && typeof v === "object") {
      const copy: Record<string, unknown> | unknown[] = Array.isArray(v) ? [...v] : { ...(v as object) };
      out[k] = copy;
      for (const [ck, cv] of Object.entries(copy)) {
        slots.push({ parent: copy, key: Array.isArray(copy) ? Number(ck) : ck, size: jsonBytes(cv), depth: 2 });
      }
    }
    slots.push({ parent: out, key: k, size: jsonBytes(out[k]), depth: 1 });
  }
  // Deeper first, then larger: cutting output.content keeps output.filePath.
  slots.sort((a, b) => b.depth - a.depth || b.size - a.size);
  for (const slot of slots) {
    if (total <= maxBytes) break;
    const current = (slot.parent as Record<string | number, unknown>)[slot.key];
    const text = JSON.stringify(current) ?? "null";
    const head = Math.min(fieldBytes, Math.floor(maxBytes / 8));
    const cut = cutString(text, head);
    if (typeof cut === "string") continue;
    // `json: true` tells a reader the head is JSON text, not the original string.
    const replacement = { ...cut, json: true };
    (slot.parent as Record<string | number, unknown>)[slot.key] = replacement;
    total -= slot.size - jsonBytes(replacement);
  }
  return out as T;
}
