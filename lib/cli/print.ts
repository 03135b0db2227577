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

/**
 * Make text from records, settings or the network safe to print on a
 * terminal: C0 controls (except newline and tab), DEL and C1 controls become
 * visible `\xNN` escapes, so a payload cannot move the cursor, retitle the
 * window or hide lines.
 *
 * @example
 * ```ts
 * escapeControl("a\x1b[2Jb\n"); // "a\\x1b[2Jb\n"
 * ```
 */
export function escapeControl(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** Width of the terminal on stdout, for tables; 120 when it is not a terminal. */
export function outputColumns(): number {
  return process.stdout.columns || 120;
}
