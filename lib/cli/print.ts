/**
 * The one place user commands write to stdout and stderr. Hook code never
 * imports this module (a source-scan test pins that): the hook runtime's
 * single stdout writer is `lib/hook/stdout.ts`.
 */
import { writeSync } from "node:fs";

function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text, "utf8");
  writeBytes(fd, buf, buf.length);
}

/** `buf[0..n)` to `fd`; false when the reader has gone (EPIPE). */
function writeBytes(fd: number, buf: Uint8Array, n: number): boolean {
  let off = 0;
  while (off < n) {
    try {
      off += writeSync(fd, buf, off, n - off);
    } catch (e) {
      // A closed pipe (`tracegate show x | head`) is not an error worth a stack trace.
      if ((e as NodeJS.ErrnoException).code === "EPIPE") return false;
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") continue;
      throw e;
    }
  }
  return true;
}

/** How much of a piece is encoded at once (UTF-16 units; at most three bytes each). */
const PIECE_UNITS = 1 << 16;
/** The kept output buffer: five parts' worth at three bytes a unit, so one always fits after a flush. */
const PIECE_BUFFER_BYTES = 5 * 3 * PIECE_UNITS;

/**
 * Stdout for output made of many pieces (`tracegate redact` on megabytes):
 * each piece encoded into one kept 1 MB buffer, written when it fills. The
 * output is never one string: building it, flattening it and encoding it
 * whole cost a 5 MB redaction about 45 ms of a 600 ms process, mostly the
 * fresh memory. A piece is cut only between code units that are not a
 * surrogate pair, so every byte is what encoding the whole would give.
 *
 * @example
 * ```ts
 * const w = stdoutPieces();
 * w.put("a=");
 * w.put("[REDACTED:password:1a2b]");
 * w.end();
 * ```
 */
export function stdoutPieces(): { put(piece: string): void; end(): void } {
  const buf = Buffer.allocUnsafe(PIECE_BUFFER_BYTES);
  let n = 0;
  let gone = false;
  const flush = (): void => {
    if (n > 0 && !gone) gone = !writeBytes(1, buf, n);
    n = 0;
  };
  return {
    put(piece) {
      for (let i = 0; i < piece.length && !gone; ) {
        let j = Math.min(piece.length, i + PIECE_UNITS);
        // A high surrogate at the cut goes with its low one into the next part.
        if (j < piece.length && (piece.charCodeAt(j - 1) & 0xfc00) === 0xd800) j--;
        const part = i === 0 && j === piece.length ? piece : piece.slice(i, j);
        if (n + part.length * 3 > buf.length) flush();
        n += buf.write(part, n, "utf8");
        i = j;
      }
    },
    end: flush,
  };
}

/** Write text to stdout. */
export function out(text: string): void {
  writeAll(1, text);
}

/** Write text to stderr. */
export function err(text: string): void {
  writeAll(2, text);
}

/** A failed user command: message on stderr, then the exit code to return. */
export function fail(message: string, code = 1): number {
  err(`tracegate: ${message}\n`);
  return code;
}

// C0 controls but tab and newline, DEL, C1 controls (0x9b is a CSI on some
// terminals), and the bidi overrides that make text read other than it is.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Stored text made safe to print on a terminal: control characters (an ESC
 * sequence in a tool output could retitle or clear the user's terminal)
 * become visible escapes. `show`, `sessions`, `doctor` and the dry-run diff
 * pass every piece of stored or foreign text through it.
 *
 * @example
 * ```ts
 * import { escapeControl } from "./print.ts";
 * escapeControl("ok\x1b]0;pwned\x07"); // "ok\\x1b]0;pwned\\x07"
 * escapeControl('{"a":"\u009b"}', { json: true }); // '{"a":"\\u009b"}'
 * ```
 */
export function escapeControl(text: string, opts: { json?: boolean } = {}): string {
  return text.replace(CONTROL, (c) => {
    const n = c.charCodeAt(0);
    // In JSON text these can only sit inside strings, where \uXXXX keeps it valid JSON.
    if (opts.json || n > 0xff) return `\\u${n.toString(16).padStart(4, "0")}`;
    return `\\x${n.toString(16).padStart(2, "0")}`;
  });
}

/** Width of the terminal on stdout, for tables; 120 when it is not a terminal. */
export function outputColumns(): number {
  return process.stdout.columns || 120;
}
