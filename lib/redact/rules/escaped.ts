/**
 * Text escaped for another syntax, a level the key/value reading does not
 * see through:
 *
 * - **JSON escaped twice**: a JSON string that holds JSON, inside another
 *   JSON string. A log line that carries a serialized event, or a transcript
 *   file whose tool results were JSON, reads
 *   `{"message":"{\"body\":\"{\\\"password\\\":\\\"hunter2\\\"}\"}"}` on
 *   disk, and an agent that `cat`s or `grep`s it hands that text on. Each
 *   quote of the inner object is `\\\"`, which no key/value reading takes for
 *   a quote.
 * - **HTML entities**: a page that embeds JSON in an attribute or a `<pre>`
 *   (`data-page="{&quot;token&quot;:&quot;…&quot;}"`, a framework's props,
 *   a debug page) writes each quote as `&quot;`.
 * - **`=` and `&` as `\u` escapes**: Java's Gson (by default) and some other
 *   JSON writers escape them, so a URL or a form body in such JSON reads
 *   `?access_token\u003d…\u0026state\u003d…` and a setting
 *   `"password\u003dhunter2"`: no `=` for the key/value reading to stop at.
 *
 * So the text from the find's line on (whole lines, up to 64 KB) is read
 * back one level down, each character keeping its place, and the result is
 * scanned like decoded text. A secret found there is masked on the
 * characters that spell it (dump.ts's maskReadBack), with the tag it has anywhere
 * else. A deeper level is read by the rescan in turn, to the nesting limit,
 * on the call's decoding budget.
 */
import { hexValue, isHexUnit } from "../decode.ts";
import { type Dump, maskReadBack, ReadBack } from "./dump.ts";
import type { Rule, ScanCtx } from "../types.ts";

/** Most characters read back at once. */
const WINDOW = 1 << 16;

/** Adds `ch` (one character, one or two code units) shown by the text's `[at, end)`. */
function pushChar(out: ReadBack, ch: string, at: number, end: number): void {
  for (let k = 0; k < ch.length; k++) out.push(ch.charCodeAt(k), at, end, 0);
}

/** A reading back: the text `s[a..b)` one level down, each character with its place. */
type Unescape = (s: string, a: number, b: number) => Dump;

/** The escapes one JSON level has, by the letter after the backslash. */
const JSON_ESCAPED: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" };

/** The four hex digits from `i` as a code unit, or -1. */
function hex4(s: string, i: number, b: number): number {
  if (i + 4 > b) return -1;
  let v = 0;
  for (let k = i; k < i + 4; k++) {
    if (!isHexUnit(s.charCodeAt(k))) return -1;
    v = (v << 4) | hexValue(s.charCodeAt(k));
  }
  return v;
}

/**
 * `s[a..b)` read back one JSON escaping level down (`\\` to `\`, `\"` to
 * `"`, `\n`, `\t`, `\u0041` to their characters), each character with the
 * place it came from. Pure.
 *
 * @example
 * ```ts
 * unescapeJson('{\\\\\\"k\\\\\\":1}', 0, 13).text; // '{\\"k\\":1}'
 * ```
 */
export function unescapeJson(s: string, a: number, b: number): Dump {
  const out = new ReadBack();
  for (let i = a; i < b; ) {
    let ch = s[i]!;
    let n = 1;
    if (ch === "\\" && i + 1 < b) {
      const next = s[i + 1]!;
      const u = next === "u" ? hex4(s, i + 2, b) : -1;
      if (JSON_ESCAPED[next] !== undefined) {
        ch = JSON_ESCAPED[next]!;
        n = 2;
      } else if (u >= 0) {
        ch = String.fromCharCode(u);
        n = 6;
      }
    }
    pushChar(out, ch, i, i + n);
    i += n;
  }
  return out.done(b);
}

/** The named entities a page escapes JSON and text with. */
const HTML_NAMED: Record<string, string> = { quot: '"', apos: "'", amp: "&", lt: "<", gt: ">", nbsp: "\u00a0" };
/** `&name;`, `&#34;`, `&#x22;` at a position (sticky). */
const ENTITY = /&(?:([a-z]{2,4})|#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6}));/y;

/**
 * `s[a..b)` with its HTML character references read back (`&quot;` to `"`,
 * `&#39;` to `'`, `&amp;` to `&`), each character with the place it came
 * from. Pure.
 *
 * @example
 * ```ts
 * unescapeHtml("{&quot;k&quot;:1}", 0, 17).text; // '{"k":1}'
 * ```
 */
export function unescapeHtml(s: string, a: number, b: number): Dump {
  const out = new ReadBack();
  for (let i = a; i < b; ) {
    if (s.charCodeAt(i) === 38) {
      ENTITY.lastIndex = i;
      const m = ENTITY.exec(s);
      const ch = m && m.index + m[0].length <= b ? (m[1] !== undefined ? HTML_NAMED[m[1]] : String.fromCodePoint(Math.min(0x10ffff, parseInt(m[2] ?? m[3]!, m[2] !== undefined ? 10 : 16)))) : undefined;
      if (ch !== undefined) {
        pushChar(out, ch, i, i + m![0].length);
        i += m![0].length;
        continue;
      }
    }
    pushChar(out, s[i]!, i, i + 1);
    i++;
  }
  return out.done(b);
}

/**
 * Reads the window from the line of `pos` one level down with `unescape`
 * and masks what the rescan finds there; `memo` names the rule's own
 * furthest window, so each stretch is read once.
 */
function rescanWindow(ctx: ScanCtx, pos: number, memo: string, unescape: Unescape): void {
  if (pos < (ctx.memo[memo] ?? -1)) return;
  const s = ctx.s;
  // From the find's line on, whole lines up to WINDOW characters: a log of such lines is one
  // rescan per window, not one per line. A line longer than that is read in a window around the find.
  let a = s.lastIndexOf("\n", pos) + 1;
  let b = s.indexOf("\n", pos);
  if (b < 0) b = s.length;
  if (b - a > WINDOW) {
    a = Math.max(a, pos - WINDOW / 2);
    b = Math.min(b, a + WINDOW);
  } else if (a + WINDOW >= s.length) b = s.length;
  else b = Math.max(b, s.lastIndexOf("\n", a + WINDOW));
  ctx.memo[memo] = b;
  maskReadBack(ctx, unescape(s, a, b));
}

/** JSON escaped twice: see the module comment. */
export const nestedJsonRule: Rule = {
  kinds: [],
  // `\\\"`: a quote escaped twice.
  keywords: ['\\\\\\"'],
  scan: (ctx, pos) => rescanWindow(ctx, pos, "nestedJsonEnd", unescapeJson),
};

/** The `\u` escapes unicodeEscapedRule reads a line back at (lower case): `=` and `&`. */
const SEPARATOR_ESCAPES = ["\\u003d", "\\u0026"];

/**
 * Whether every `\u` escape in `run` is one unicodeEscapedRule reads back:
 * such a run is that rule's, which masks the secret alone, not the encoded
 * rule's, which masks the whole run.
 *
 * @example
 * ```ts
 * onlySeparatorEscapes("a\\u003d1\\u0026b\\u003D2"); // true
 * onlySeparatorEscapes("\\u0041\\u003d1"); // false
 * ```
 */
export function onlySeparatorEscapes(run: string): boolean {
  for (let i = run.indexOf("\\u"); i !== -1; i = run.indexOf("\\u", i + 2)) {
    if (!SEPARATOR_ESCAPES.includes(run.slice(i, i + 6).toLowerCase())) return false;
  }
  return true;
}

/** `=` and `&` written as JSON `\u` escapes: see the module comment. */
export const unicodeEscapedRule: Rule = {
  kinds: [],
  keywords: SEPARATOR_ESCAPES,
  scan: (ctx, pos) => rescanWindow(ctx, pos, "unicodeEscapedEnd", unescapeJson),
};

/** HTML entities: see the module comment. */
export const htmlEscapedRule: Rule = {
  kinds: [],
  // A quote as a page writes it in an attribute or text: where escaped JSON (or a `key="value"`) opens.
  keywords: ["&quot;", "&#34;", "&#x22;"],
  scan: (ctx, pos) => rescanWindow(ctx, pos, "htmlEscapedEnd", unescapeHtml),
};
