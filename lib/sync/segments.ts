/**
 * How a session file is cut into segments, pure. A segment is a run of
 * complete lines: it starts where the previous one ended (0 for the first)
 * and ends after the last newline that fits in `maxBytes` (a single longer
 * line becomes its own segment). A torn last line (no newline yet) is never
 * part of a segment, so appending to it later cannot change synced bytes.
 */

/** Default segment ceiling: far below S3's 5 GB single-PUT limit, and bounded memory. */
export const DEFAULT_SEGMENT_BYTES = 8 * 1024 * 1024;

const NL = 0x0a;

/**
 * The end (exclusive) of the segment that starts at `start`, given `window`,
 * the file's bytes from `start`, ending at the file's complete end or beyond
 * `maxBytes`; null when the window holds no complete line.
 *
 * @example
 * ```ts
 * segmentEnd(Buffer.from('{"a":1}\n{"b":2}\n{"c"'), 0, 1 << 20); // 16
 * ```
 */
export function segmentEnd(window: Uint8Array, start: number, maxBytes: number): number | null {
  const limit = Math.min(window.length, maxBytes);
  const lastInLimit = window.subarray(0, limit).lastIndexOf(NL);
  if (lastInLimit >= 0) return start + lastInLimit + 1;
  const first = window.indexOf(NL);
  return first >= 0 ? start + first + 1 : null;
}
