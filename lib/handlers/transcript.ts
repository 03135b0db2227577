/**
 * A bounded read of the end of a harness's transcript file: the one place
 * tracegate reads a transcript, for a harness whose Stop payload carries no
 * final text (Copilot). The file is opened without following a final
 * symlink and without blocking (a FIFO planted at the path cannot hang the
 * hook), must be a regular file, and at most `maxBytes` of its end are read.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/** How much of a transcript's end is read. */
export const TRANSCRIPT_TAIL_BYTES = 256 * 1024;

/**
 * The last `maxBytes` of a regular file, decoded, and whether that is the
 * whole file; null when it cannot be read safely.
 *
 * @example
 * ```ts
 * readTail("/home/me/.copilot/session-state/s/events.jsonl"); // { text: "...", fromStart: false }
 * ```
 */
export function readTail(path: string, maxBytes = TRANSCRIPT_TAIL_BYTES): { text: string; fromStart: boolean } | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const start = Math.max(0, st.size - maxBytes);
    const buf = Buffer.alloc(Math.min(st.size, maxBytes));
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, start + off);
      if (n <= 0) break;
      off += n;
    }
    return { text: buf.subarray(0, off).toString("utf8"), fromStart: start === 0 };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
