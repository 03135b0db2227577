/**
 * The per-session hash chain. Every line the store appends starts with
 * `{"prev_sha256":"<64 hex>",` where the hex is the sha256 of the previous
 * line's bytes (without its newline); the first line of a file chains to
 * `chainStart(session_id)`. The Stop gate sends the head (the hash of the last
 * line at the time of the Stop) to the oracle, which signs it with the
 * verdict: any line edited, removed, reordered or inserted before that point
 * then no longer hashes to what was signed.
 *
 * The link is read from a fixed prefix, not from a parsed object, so checking
 * a chain never JSON-parses megabytes of tool output; a line whose link is not
 * at the very start simply has no link.
 *
 * @example
 * ```ts
 * import { chainStart, lineHash, prevOf } from "./chain.ts";
 * const line = Buffer.from(`{"prev_sha256":"${chainStart("s1")}","type":"session_start"}`);
 * prevOf(line) === chainStart("s1"); // true
 * lineHash(line); // the prev_sha256 the next line carries
 * ```
 */
import { sha256Hex } from "./digest.ts";

/** The field every appended record starts with. */
export const PREV_FIELD = "prev_sha256";

const PREFIX = Buffer.from(`{"${PREV_FIELD}":"`, "utf8");
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The value the first line of a session file chains to: fixed per session id,
 * so an empty file and a file whose first record was removed are told apart.
 */
export function chainStart(sessionId: string): string {
  return sha256Hex(`tracegate-chain-v1\0${sessionId}`);
}

/** sha256 (hex) of one line's bytes, newline excluded. */
export function lineHash(line: Uint8Array): string {
  return sha256Hex(line);
}

/** The link a line carries, or null when it does not start with one. */
export function prevOf(line: Uint8Array): string | null {
  if (line.length < PREFIX.length + 65) return null;
  for (let i = 0; i < PREFIX.length; i++) if (line[i] !== PREFIX[i]) return null;
  const hex = Buffer.from(line.subarray(PREFIX.length, PREFIX.length + 64)).toString("latin1");
  if (line[PREFIX.length + 64] !== 0x22 || !HEX64.test(hex)) return null;
  return hex;
}

/**
 * Serialise a record as one chained line (no newline): the link first, then
 * every other field in its own order. A `prev_sha256` the record carried is
 * replaced, never trusted.
 */
export function chainedLine(record: object, prev: string): Buffer {
  const { [PREV_FIELD]: _drop, ...rest } = record as Record<string, unknown>;
  return Buffer.from(JSON.stringify({ [PREV_FIELD]: prev, ...rest }), "utf8");
}

/**
 * Split a file's bytes into lines. The last element is the bytes after the
 * final newline (empty when the file ends with one): a non-empty tail is a
 * torn fragment.
 */
export function splitLines(buf: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (;;) {
    const nl = buf.indexOf(0x0a, start);
    if (nl < 0) break;
    out.push(buf.subarray(start, nl));
    start = nl + 1;
  }
  out.push(buf.subarray(start));
  return out;
}
