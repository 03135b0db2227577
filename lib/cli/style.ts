/**
 * Terminal styling for user commands: colour and human times on a terminal,
 * plain text and ISO times when piped or with NO_COLOR, and plurals.
 */
import { isatty } from "../runtime/builtins.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** Whether output on `fd` is a terminal that wants colour (https://no-color.org). */
export function colorEnabled(fd = 1, env: Env = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.TERM === "dumb") return false;
  return isatty(fd);
}

/** Whether `fd` is a terminal (times are then shown relative or local). */
export function isTerminal(fd = 1): boolean {
  return isatty(fd);
}

/** SGR wrappers; identity functions when colour is off. */
export interface Paint {
  readonly on: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

/**
 * Colour functions for one output.
 *
 * @example
 * ```ts
 * paint(false).red("FAIL"); // "FAIL"
 * paint(true).red("FAIL");  // "\x1b[31mFAIL\x1b[39m"
 * ```
 */
export function paint(on: boolean): Paint {
  const w = (open: number, close: number) => (s: string) => (on ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return { on, bold: w(1, 22), dim: w(2, 22), red: w(31, 39), green: w(32, 39), yellow: w(33, 39), cyan: w(36, 39) };
}

/**
 * `n word` with the right plural.
 *
 * @example
 * ```ts
 * plural(1, "record"); // "1 record"
 * plural(2, "record"); // "2 records"
 * plural(0, "entry", "entries"); // "0 entries"
 * ```
 */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/**
 * A relative time such as "3 min ago" or "2 days ago"; older than a week, the local date.
 *
 * @example
 * ```ts
 * relativeTime("2026-12-01T10:00:00Z", Date.parse("2026-12-01T10:05:00Z")); // "5 min ago"
 * ```
 */
export function relativeTime(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso;
  const s = Math.round((now - t) / 1000);
  if (s < 0) return localTime(iso, now);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return plural(Math.floor(s / 3600), "hour") + " ago";
  if (s < 7 * 86400) return plural(Math.floor(s / 86400), "day") + " ago";
  return localTime(iso, now);
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Local wall-clock time: `HH:MM:SS` today, `YYYY-MM-DD HH:MM` otherwise.
 *
 * @example
 * ```ts
 * localTime(new Date().toISOString()); // "14:03:22"
 * ```
 */
export function localTime(iso: string, now = Date.now()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const today = new Date(now);
  const sameDay = d.getFullYear() === today.getFullYear() && d.getMonth() === today.getMonth() && d.getDate() === today.getDate();
  const hms = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return sameDay ? hms : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${hms.slice(0, 5)}`;
}

/**
 * Parse an age (`30d`, `12h`, `90m`, `2w`, `45s`) into milliseconds; null when it is not one.
 *
 * @example
 * ```ts
 * parseAge("30d"); // 2592000000
 * parseAge("soon"); // null
 * ```
 */
export function parseAge(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|min|h|d|w)$/i.exec(text.trim());
  if (!m) return null;
  const unit = { s: 1e3, m: 6e4, min: 6e4, h: 36e5, d: 864e5, w: 6048e5 }[m[2]!.toLowerCase() as "s"]!;
  return Number(m[1]) * unit;
}

/** Cut a one-line string to `max` characters with an ellipsis. */
export function clip(s: string, max: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, Math.max(0, max - 1))}…` : one;
}
