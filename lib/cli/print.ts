/**
 * The one place user commands write to stdout and stderr. Hook code never
 * imports this module (a source-scan test pins that): the hook runtime's
 * single stdout writer is `lib/hook/stdout.ts`.
 */
import { writeSync } from "node:fs";

function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text, "utf8");
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      // A closed pipe (`tracegate show x | head`) is not an error worth a stack trace.
      if ((e as NodeJS.ErrnoException).code === "EPIPE") return;
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") continue;
      throw e;
    }
  }
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
