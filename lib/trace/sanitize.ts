/**
 * The one path every record takes to disk: bound the depth, redact, cap.
 * Redaction runs on the whole value before the cap so a secret can never
 * straddle the cut and leave its first half in the head; the digest stored
 * beside a cut value is therefore of the redacted value, and nothing on disk
 * lets anyone confirm a guess at a secret.
 *
 * Every string in a record passes redaction and a cap, header fields too: a
 * `session_id` of `ghp_...` is stored redacted (and the session's file is
 * named from the redacted id), a 10 MB `session_id` is cut to HEADER_BYTES.
 *
 * Budget: redaction is synchronous, and while it runs the hook's hard timer
 * cannot fire, so a 30 MB payload dense with secrets once ran past its cap.
 * The work is therefore done in pieces (a subtree or a slice of a long string
 * of at most PIECE_CHARS at a time, through the same Redactor interface), and
 * `sanitizeWithin` checks the clock between pieces, yields to the event loop
 * so timers can run, and throws BudgetExceeded once the deadline passes. The
 * runtime then keeps a record saying what was cut instead (see
 * lib/hook/run.ts).
 */
import { OUTPUT_KEYS, printingCommandOf, type Redactor } from "../redact/index.ts";
import { capFields, capRecord, DEFAULT_FIELD_BYTES, DEFAULT_RECORD_BYTES, utf8Head } from "./cap.ts";
import { boundDepth } from "./depth.ts";
import { sha256Hex } from "./digest.ts";
import { HEADER_FIELDS, type TraceRecord, VERDICT_EVIDENCE_FIELDS } from "./record.ts";

export interface Caps {
  readonly fieldBytes: number;
  readonly recordBytes: number;
}

export const DEFAULT_CAPS: Caps = { fieldBytes: DEFAULT_FIELD_BYTES, recordBytes: DEFAULT_RECORD_BYTES };

/** Header strings (ids, event names) longer than this are cut and suffixed with their digest. */
export const HEADER_BYTES = 256;

/** The most text handed to the redactor in one call. */
export const PIECE_CHARS = 256 * 1024;

/** When the work must stop: `deadline` on the clock `now` (ms). */
export interface Budget {
  readonly deadline: number;
  now(): number;
}

/** Sanitising did not finish inside its budget; nothing of the record was written. */
export class BudgetExceeded extends Error {
  override name = "BudgetExceeded";
}

/**
 * A header string redacted and capped: over HEADER_BYTES it keeps its head
 * and the first 16 hex digits of the redacted value's sha256, so two long ids
 * stay apart and one id always maps to one value.
 *
 * @example
 * ```ts
 * import { sanitizeHeaderText } from "./sanitize.ts";
 * import { defaultRedactor } from "../redact/index.ts";
 * sanitizeHeaderText("s".repeat(10_000), defaultRedactor).length; // 218
 * ```
 */
export function sanitizeHeaderText(s: string, redactor: Redactor): string {
  // Longer than this cannot fit whatever the redactor does; redact a bounded head only.
  // The whole string is not redacted here (it may be megabytes): its digest is keyed, so the suffix
  // keeps two long ids apart without letting anyone test a guess at a secret in it.
  const bounded = s.length > PIECE_CHARS ? `${s.slice(0, PIECE_CHARS)}#${redactor.digest(s).slice(0, 16)}` : s;
  const r = redactor.text(bounded);
  if (r.length * 3 <= HEADER_BYTES || Buffer.byteLength(r, "utf8") <= HEADER_BYTES) return r;
  return `${utf8Head(r, HEADER_BYTES - 40)}…${sha256Hex(r).slice(0, 16)}`;
}

/**
 * Decode JSON string escapes (`\u0041`, `\n`, `\"` ...) in raw text, so the
 * redactor sees `AKIA...` where the payload said `\u0041KIA...`. Used on
 * the head kept for a payload that did not parse; an escape cut short at the
 * end of the text is left as it is.
 *
 * @example
 * ```ts
 * import { decodeJsonEscapes } from "./sanitize.ts";
 * decodeJsonEscapes('{"k":"\\u0041KIA\\n"}'); // '{"k":"AKIA\n"}'
 * ```
 */
export function decodeJsonEscapes(text: string): string {
  if (!text.includes("\\")) return text;
  const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", '"': '"', "\\": "\\", "/": "/" };
  return text.replace(/\\(u[0-9a-fA-F]{4}|["\\/bfnrt])/g, (m, e: string) =>
    e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (simple[e] ?? m),
  );
}

/** Whether the strings and keys in `v` add up to at most `limit` characters. */
function within(v: unknown, limit: number): boolean {
  let total = 0;
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === "string") total += x.length;
    else if (x && typeof x === "object") {
      for (const [k, c] of Object.entries(x)) {
        total += k.length + 8;
        stack.push(c);
      }
    } else total += 8;
    if (total > limit) return false;
  }
  return true;
}

const SEPARATOR = /[\s,;"'<>(){}[\]|&]/;

/**
 * Where to end a piece of `s` that starts at `start`: after a newline near
 * the target if there is one, else after a separator, so a token is rarely
 * split; never inside a PEM block that opens in the piece.
 */
function pieceEnd(s: string, start: number): number {
  let end = Math.min(s.length, start + PIECE_CHARS);
  if (end === s.length) return end;
  const nl = s.lastIndexOf("\n", end - 1);
  if (nl >= end - 16 * 1024 && nl > start) end = nl + 1;
  else {
    for (let i = end - 1; i > end - 4096 && i > start; i--) {
      if (SEPARATOR.test(s[i]!)) {
        end = i + 1;
        break;
      }
    }
  }
  // A private key block cut in two would leave its second half unrecognised: when the piece's
  // last BEGIN has no END after it in the piece, the cut moves past the END. Forward searches
  // in the piece: a backward one cost four times as much (~10 ms over 5 MB of output).
  const piece = s.slice(start, end);
  let begin = -1;
  for (let at = piece.indexOf("-----BEGIN"); at >= 0; at = piece.indexOf("-----BEGIN", at + 10)) begin = at;
  if (begin >= 0 && piece.indexOf("-----END", begin) < 0) {
    // From 7 before the cut: an END that straddles it is this block's.
    const close = s.indexOf("-----END", Math.max(start + begin, end - 7));
    if (close >= 0 && close - end < 64 * 1024) {
      const after = s.indexOf("-----", close + 8);
      end = Math.min(s.length, after >= 0 ? after + 5 : close + 8);
    }
  }
  return end;
}

/**
 * Redact one value with its key as context (the key/value rules need it),
 * and with the command of the tool call it is the output of, when that
 * command prints a secret (redact/printed.ts reads the two side by side).
 */
function redactIn(redactor: Redactor, v: unknown, key: string | undefined, command: Command | undefined): unknown {
  if (key === undefined) return redactor.value(v);
  if (command) {
    // Under an `output` of our own beside the command: the piece's key may be redacted (it is read positionally).
    const out = redactor.value({ ...command, output: { [key]: v } }) as { output?: unknown };
    return out.output && typeof out.output === "object" ? Object.values(out.output)[0] : out.output;
  }
  const out = redactor.value({ [key]: v });
  return out && typeof out === "object" ? Object.values(out)[0] : out;
}

/** A tool call's command, as an object the redactor reads beside a piece of its output. */
type Command = { readonly input: { readonly command: string } };

/** `{input: {command}}` when `o`'s command prints a secret and `k` holds its output. */
function printingCommand(o: Record<string, unknown>, k: string): Command | undefined {
  if (!OUTPUT_KEYS.has(k)) return undefined;
  const command = printingCommandOf(o);
  return command === undefined ? undefined : { input: { command } };
}

function setOwn(target: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  // defineProperty, not assignment: a payload key "__proto__" stays a plain key.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Redact `v` in pieces of at most PIECE_CHARS, yielding between them. A
 * small value goes to the redactor whole (its structure is the context the
 * rules need); a large container is redacted as a skeleton with its large
 * members left out, then each large member on its own with its key; a long
 * string is redacted slice by slice.
 */
function* redactPieces(redactor: Redactor, v: unknown, key?: string, command?: Command): Generator<void, unknown> {
  if (typeof v === "string") {
    if (v.length <= PIECE_CHARS) return redactIn(redactor, v, key, command);
    const parts: string[] = [];
    for (let at = 0; at < v.length; ) {
      const end = pieceEnd(v, at);
      parts.push(String(redactIn(redactor, v.slice(at, end), key, command)));
      at = end;
      yield;
    }
    return parts.join("");
  }
  if (!v || typeof v !== "object" || within(v, PIECE_CHARS)) {
    const out = redactIn(redactor, v, key, command);
    yield;
    return out;
  }
  const entries = Object.entries(v);
  const large = entries.map(([, c]) => typeof c === "string" ? c.length > PIECE_CHARS : !!c && typeof c === "object" && !within(c, PIECE_CHARS));
  // The skeleton keeps every key and small member: the context key rules need.
  const skeleton: Record<string, unknown> | unknown[] = Array.isArray(v) ? [] : {};
  entries.forEach(([k, c], i) => setOwn(skeleton, Array.isArray(v) ? i : k, large[i] ? null : c));
  const red = redactor.value(skeleton);
  yield;
  const redEntries = red && typeof red === "object" ? Object.entries(red) : [];
  const out: Record<string, unknown> | unknown[] = Array.isArray(v) ? [] : {};
  for (let i = 0; i < entries.length; i++) {
    const [k, c] = entries[i]!;
    // Positional: the redactor may have replaced a key that was itself a secret.
    const [rk, rv] = redEntries.length === entries.length ? redEntries[i]! : [k, null];
    let value = rv;
    if (large[i]) {
      // The output of a command that prints a secret keeps its command beside it, however deep the piece.
      const inner = Array.isArray(v) ? command : printingCommand(v as Record<string, unknown>, k) ?? command;
      value = yield* redactPieces(redactor, c, Array.isArray(v) ? key : k, inner);
    }
    setOwn(out, Array.isArray(v) ? i : rk, value);
  }
  return out;
}

function* sanitizeSteps(record: TraceRecord, redactor: Redactor, caps: Caps): Generator<void, TraceRecord> {
  const header: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  const evidence = record.type === "oracle_verdict";
  for (const [k, v] of Object.entries(record)) {
    if (HEADER_FIELDS.has(k)) header[k] = typeof v === "string" ? sanitizeHeaderText(v, redactor) : v;
    else if (evidence && VERDICT_EVIDENCE_FIELDS.has(k)) header[k] = v;
    else setOwn(body, k, v);
  }
  const bounded = boundDepth(body);
  yield;
  const redacted = (yield* redactPieces(redactor, bounded)) as Record<string, unknown>;
  yield;
  const capped = capFields(redacted, caps.fieldBytes) as Record<string, unknown>;
  yield;
  const out = capRecord({ ...header, ...capped }, caps.recordBytes, caps.fieldBytes) as Record<string, unknown>;
  if (!evidence) return out as unknown as TraceRecord;
  // A verdict's evidence was set aside with the header: put the record back in its own field order,
  // so a stored verdict line reads as the gate built it.
  const ordered: Record<string, unknown> = {};
  for (const k of Object.keys(record)) if (Object.hasOwn(out, k)) setOwn(ordered, k, out[k]);
  for (const k of Object.keys(out)) if (!Object.hasOwn(ordered, k)) setOwn(ordered, k, out[k]);
  return ordered as unknown as TraceRecord;
}

/**
 * A record ready for disk, however long it takes (tests, user commands).
 *
 * @example
 * ```ts
 * import { sanitize } from "./sanitize.ts";
 * import { defaultRedactor } from "../redact/index.ts";
 * sanitize({ id: "1", type: "message", session_id: "s", harness: "claude", ts: "t", role: "user", text: "hi" }, defaultRedactor);
 * ```
 */
export function sanitize(record: TraceRecord, redactor: Redactor, caps: Caps = DEFAULT_CAPS): TraceRecord {
  const steps = sanitizeSteps(record, redactor, caps);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** How long the work runs between turns of the event loop. */
const SLICE_MS = 20;

/**
 * A record ready for disk, or BudgetExceeded once `budget.deadline` passes.
 * Between pieces it lets the event loop run, so the hook's hard timer fires
 * even if a piece overran.
 *
 * @example
 * ```ts
 * import { sanitizeWithin } from "./sanitize.ts";
 * import { defaultRedactor } from "../redact/index.ts";
 * const rec = { id: "1", type: "message", session_id: "s", harness: "claude", ts: "t", role: "user", text: "hi" } as const;
 * await sanitizeWithin(rec, defaultRedactor, undefined, { deadline: performance.now() + 1000, now: () => performance.now() });
 * ```
 */
export async function sanitizeWithin(record: TraceRecord, redactor: Redactor, caps: Caps = DEFAULT_CAPS, budget: Budget): Promise<TraceRecord> {
  const steps = sanitizeSteps(record, redactor, caps);
  let last = budget.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    const t = budget.now();
    if (t > budget.deadline) throw new BudgetExceeded(`sanitising ${record.type} ran past its budget`);
    if (t - last > SLICE_MS) {
      await yieldToLoop();
      last = budget.now();
    }
  }
}
