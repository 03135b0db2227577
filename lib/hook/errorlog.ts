/**
 * The bounded error log: `<data dir>/errors.log`, rotated once to
 * `errors.log.1` when it passes the bound, so two files of at most ~1 MB each
 * are all it ever takes. A line holds the time, the event, a stage label and
 * the error's class and (for tracegate's own errors) message: never payload
 * content, because parser errors quote the input they choked on.
 *
 * The log is opened like a session file (lib/fs/safe-open.ts): never through
 * a symlink or hard link, never a FIFO, only in a real directory of the user's.
 */
import { closeSync, lstatSync, mkdirSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { openAppend } from "../fs/safe-open.ts";

export const ERROR_LOG_MAX_BYTES = 1024 * 1024;
export const ERROR_LOG = "errors.log";

/** An error whose message is ours and safe to log verbatim. */
export class TracegateError extends Error {
  override name = "TracegateError";
}

/**
 * Describe an error without payload content: our own messages are kept,
 * everything else keeps only its class and the code location that threw.
 *
 * @example
 * ```ts
 * describeError(new SyntaxError('Unexpected "ghp_..."')); // "SyntaxError"
 * ```
 */
export function describeError(e: unknown): string {
  if (e instanceof TracegateError) return `${e.name}: ${e.message}`;
  if (e instanceof Error) {
    const code = (e as NodeJS.ErrnoException).code;
    const frame = e.stack?.split("\n").find((l) => /^\s+at /.test(l))?.trim();
    return [e.name, code, frame].filter(Boolean).join(" ");
  }
  return typeof e;
}

/** Append one line; never throws (an unwritable data dir leaves nowhere to complain). */
export function logError(home: string, event: string, stage: string, e: unknown): void {
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    const path = join(home, ERROR_LOG);
    try {
      // lstat: a symlink planted here is rotated away (renamed), never followed.
      if (lstatSync(path).size > ERROR_LOG_MAX_BYTES) renameSync(path, `${path}.1`);
    } catch {
      // no log yet
    }
    const line = `${new Date().toISOString()} pid=${process.pid} event=${event} stage=${stage} ${describeError(e)}`;
    // The data dir itself may be a symlink the user made; the log in it may not.
    const fd = openAppend(path, 0o600, { dirMayBeLink: true });
    try {
      writeSync(fd, Buffer.from(`${line.replace(/[\r\n]+/g, " ").slice(0, 2000)}\n`, "utf8"));
    } finally {
      closeSync(fd);
    }
  } catch {
    // nothing left to do
  }
}
