/**
 * A private key printed as its numbers: `openssl rsa -text`, `openssl pkey
 * -text -noout`, `openssl ec -text`, `openssl genpkey -text` (what an agent
 * runs to "look at" a key) print no PEM block, only each component as lines
 * of colon-separated hex under its name:
 *
 *     privateExponent:
 *         00:b5:6a:31:9c:7e:11:f0:2a:8d:44:e1:93:0b:7c:52:
 *         …
 *
 * The private components (RSA's `privateExponent`, `prime1`, `prime2`,
 * `exponent1`, `exponent2`, `coefficient`; EC's, DSA's, DH's and Ed25519's
 * `priv`) go from their first hex digit to their last; the names, `modulus`,
 * `publicExponent` and `pub` stay. `priv:` counts only below a `Private-Key:`
 * heading: a bare `priv:` is any label.
 */
import { isHexUnit } from "../decode.ts";
import type { Rule, ScanCtx } from "../types.ts";
import { push } from "./push.ts";

/**
 * The hex lines of one component: each indented, two hex digits and a colon
 * at a time. Lines may end in `\n` escapes: the output inside a JSON string,
 * as a transcript file keeps it.
 */
const HEX_LINES = /(?:(?:\r?\n|(?:\\r)?\\n)[ \t]{2,}[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){0,63}:?[ \t]*(?=\r?\n|\\[rn]|["']|$))+/y;
/** How far above `priv:` its `Private-Key:` heading may be (a DSA key's p, q and g come first: a few KB). */
const HEADING_WINDOW = 8192;
const HEADING = "Private-Key:";

/** The private components' names as openssl prints them (RSA's, then `priv` of the rest), by their keyword (lower case). */
const NAMES = new Map(["privateExponent:", "prime1:", "prime2:", "exponent1:", "exponent2:", "coefficient:", "priv:"].map((n) => [n.toLowerCase(), n]));

function scanKeyText(ctx: ScanCtx, pos: number, keyword: string): void {
  const s = ctx.s;
  // The name opens its line (after indentation), as openssl prints it: after a line break, a `\n`
  // escape or the quote that opens a JSON string.
  let ls = pos;
  while (ls > 0 && (s.charCodeAt(ls - 1) === 32 || s.charCodeAt(ls - 1) === 9)) ls--;
  const before = ls > 0 ? s.charCodeAt(ls - 1) : 10;
  if (before !== 10 && before !== 34 && !(before === 110 && s.charCodeAt(ls - 2) === 92)) return;
  const rsa = keyword !== "priv:";
  // The names are matched as openssl prints them (the keyword pass folds case).
  if (!s.startsWith(NAMES.get(keyword)!, pos)) return;
  if (!rsa && !headingAbove(ctx, pos)) return;
  HEX_LINES.lastIndex = pos + keyword.length;
  const m = HEX_LINES.exec(s);
  if (!m) return;
  let start = m.index;
  while (start < s.length && !isHexUnit(s.charCodeAt(start))) start++;
  let end = m.index + m[0].length;
  while (end > start && !isHexUnit(s.charCodeAt(end - 1))) end--;
  push(ctx, { from: pos, start, end, kind: rsa ? "rsa-private-key" : "private-key", priority: 2.8 });
}

/**
 * Whether a `Private-Key:` heading sits at most HEADING_WINDOW above `pos`.
 * The headings are found going forward from the last one met (a rule's hits
 * come in ascending order), so a text of many `priv:` lines is read once.
 */
function headingAbove(ctx: ScanCtx, pos: number): boolean {
  const s = ctx.s;
  const m = ctx.memo;
  let last = m.keyTextLast ?? -1;
  let next = m.keyTextNext ?? s.indexOf(HEADING);
  if (last >= pos) return s.slice(Math.max(0, pos - HEADING_WINDOW), pos).includes(HEADING);
  while (next !== -1 && next < pos) {
    last = next;
    next = s.indexOf(HEADING, next + 1);
  }
  m.keyTextLast = last;
  m.keyTextNext = next;
  return last >= 0 && pos - last <= HEADING_WINDOW;
}

/** See the module comment. */
export const keyTextRule: Rule = {
  kinds: ["rsa-private-key", "private-key"],
  keywords: [...NAMES.keys()],
  scan: scanKeyText,
};
