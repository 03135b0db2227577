/**
 * JSON escaped twice: a JSON string that holds JSON, inside another JSON
 * string. A log line that carries a serialized event, or a transcript file
 * whose tool results were JSON, reads
 * `{"message":"{\"body\":\"{\\\"password\\\":\\\"hunter2\\\"}\"}"}` on disk,
 * and an agent that `cat`s or `grep`s it hands that text on. Each quote of
 * the inner object is `\\\"`, which no key/value reading takes for a quote.
 *
 * So the text from that line on (whole lines, up to 64 KB) is read back one
 * escaping level down (`\\` to `\`, `\"` to `"`, `\n`, `\t`, `\u00XX` to
 * their characters), each character keeping its place, and the result is
 * scanned like decoded text: what is still escaped once is what the
 * key/value rule reads. A secret found there is masked on
 * the characters that spell it (dump.ts's pieces). A third level is read by
 * the rescan in turn, to the nesting limit.
 */
import { hexValue, isHexUnit } from "../decode.ts";
import { type Dump, dumpPieces } from "./dump.ts";
import type { Rule, ScanCtx } from "../types.ts";

/** Most characters read back at once. */
const WINDOW = 1 << 16;

/** The escapes one JSON level has, by the letter after the backslash. */
const ESCAPED: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" };

/**
 * `s[a..b)` read back one JSON escaping level down, each character with
 * the place it came from. Pure.
 *
 * @example
 * ```ts
 * unescapeOnce('{\\\\\\"k\\\\\\":1}', 0, 13).text; // '{\\"k\\":1}'
 * ```
 */
export function unescapeOnce(s: string, a: number, b: number): Dump {
  let text = "";
  const at: number[] = [];
  const end: number[] = [];
  for (let i = a; i < b; ) {
    let ch = s[i]!;
    let n = 1;
    if (ch === "\\" && i + 1 < b) {
      const next = s[i + 1]!;
      if (ESCAPED[next] !== undefined) {
        ch = ESCAPED[next]!;
        n = 2;
      } else if (next === "u" && i + 5 < b && isHexUnit(s.charCodeAt(i + 2)) && isHexUnit(s.charCodeAt(i + 3)) && isHexUnit(s.charCodeAt(i + 4)) && isHexUnit(s.charCodeAt(i + 5))) {
        ch = String.fromCharCode((hexValue(s.charCodeAt(i + 2)) << 12) | (hexValue(s.charCodeAt(i + 3)) << 8) | (hexValue(s.charCodeAt(i + 4)) << 4) | hexValue(s.charCodeAt(i + 5)));
        n = 6;
      }
    }
    text += ch;
    at.push(i);
    end.push(i + n);
    i += n;
  }
  return { text, at: Int32Array.from(at), end: Int32Array.from(end), charAt: new Int32Array(at.length).fill(-1), line: new Int32Array(at.length), stop: b };
}

/** See the module comment. */
export const nestedJsonRule: Rule = {
  kinds: [],
  // `\\\"`: a quote escaped twice.
  keywords: ['\\\\\\"'],
  scan(ctx: ScanCtx, pos: number) {
    if (pos < (ctx.memo.nestedJsonEnd ?? -1)) return;
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
    ctx.memo.nestedJsonEnd = b;
    const d = unescapeOnce(s, a, b);
    const segs = ctx.segments?.(d.text);
    if (segs === undefined) return;
    for (const g of segs) dumpPieces(d, g.start, g.end, g.kind, d.text.slice(g.start, g.end), ctx.out);
  },
};
