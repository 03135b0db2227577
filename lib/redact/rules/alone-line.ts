/**
 * A password alone on its line, symbols and all: what a script that makes or
 * fetches one prints (`$ ./scripts/new-db-user.sh` then `dB2yF6@qL9vZm1P#4J`),
 * with no label and no command that says so. The entropy rule reads token
 * runs (letters, digits, `+/=_.~-`), and a symbol outside them (`@ # $ ! % ^ &
 * * ( ) < > | :`) cuts such a password into pieces too short to judge, so the
 * whole line is judged here instead.
 *
 * A line counts when it is one word of 8-64 characters (after indentation)
 * in a text of several lines, holds a symbol outside the token characters,
 * letters in both cases and a digit (or, from 16 characters, three of the four
 * classes), is mostly letters and digits, and reads as random. What else is one
 * symbol-bearing word on a line is ruled out by shape: paths, URLs, e-mail
 * addresses, prompts (`/`, `\`, `://`), code (brackets after a name, `;` `{`
 * `}` `,` at the end, operators, `$`/`@`/`#` at the start, quotes), key/value
 * pairs (`=`), digests and fingerprints (hex between the symbols, `sha256:`),
 * timestamps (fewer than four letters) and placeholders (plausibleSecret).
 *
 * A string of one line is left alone: a JSON value is the value walk's to
 * judge by its key.
 */
import { entropy, plausibleSecret, wideSpace } from "../keys.ts";
import { ENCLOSED } from "../printed.ts";
import { codeUnits } from "../runs.ts";
import type { Rule, ScanCtx } from "../types.ts";
import { wordCover } from "./entropy.ts";

const MIN = 8;
const MAX = 64;
/** The priority of an unlabelled find (the entropy rule's tokens): any labelled find outranks it. */
const PRIORITY = 0.5;
/** The most of the word that letter runs reading as words may cover (entropy.ts wordCover). */
const WORDS_MAX = 0.4;

/** JavaScript's `\s`: ASCII first, the rest only above 127. */
const isSpace = (c: number): boolean => (c <= 32 ? c === 32 || (c >= 9 && c <= 13) : c > 127 && wideSpace(c));

/** Characters that end code or structure when they end the word, or open it. */
const CODE_END = /[;{},(\[:)\].]$/;
const CODE_START = /^(?:[$@#%&*<>|\\!?:;.,=})\]-]|\/\/|\/\*|this\.|self\.)/;
/** Operators, calls, member chains and interpolations: code or templates, not a password. */
const OPERATOR = /=>|==|!=|&&|\|\||->|::|\?\.|\$\{|\{\{|\$\(|\(\)|\+\+|--|<\/|\/>|\w\(.*\)|\{.*\}/;
/** A name followed by a call, an index, a generic or a member: code. */
const CALL_OR_INDEX = /^[A-Za-z_][\w.]*[(\[<]/;
/** A C++ symbol as linkers and valgrind print it (`fun:_ZN4node5StartEiPPc`). */
const MANGLED = /(?:^|[:@])_Z[A-Z\d]/;
const EMAIL = /^[^@\s]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/;
/** A digest with its algorithm (`SHA256:…`, `md5:…`, `sha512-…`). */
const DIGEST = /^(?:sha\d{0,3}|md5|h1)[-:~]/i;

/**
 * Whether `t` (one word, no spaces) is a password printed alone on its line:
 * the test aloneLines makes of each one-word line.
 *
 * @example
 * ```ts
 * looksLikeLonePassword("dB2yF6@qL9vZm1P#4J");      // true
 * looksLikeLonePassword("user@example.com");        // false
 * looksLikeLonePassword("getUser(id);");            // false
 * looksLikeLonePassword("ssl-cert:x:103:postgres"); // false (words)
 * ```
 */
export function looksLikeLonePassword(t: string): boolean {
  return lonePassword(t, codeUnits(t), 0, t.length);
}

/**
 * `s[from..to)` (its code units `u`) as looksLikeLonePassword judges it: the
 * classes first, from code units, then whether words cover it (words joined by
 * symbols, `Memcheck:Value8`, `site-policy@w3.org`, are names: random
 * characters hold no word of any length), and last its shape, from a slice.
 */
function lonePassword(s: string, u: Uint16Array, from: number, to: number): boolean {
  return classesFit(u, from, to) && wordCover(u, from, to, WORDS_MAX) <= WORDS_MAX && shapeFits(s.slice(from, to));
}

/**
 * The character classes of `u[from..to)`, counted from code units before
 * anything is sliced (most one-word lines stop here): 8-64 units; a symbol
 * outside the token characters; letters in both cases and a digit, or three
 * of the four classes from 16 units; mostly letters and digits; some letter
 * that is not a hex digit; none of `/ \ " ' \` ,`, no space, and `=` only as
 * end padding.
 */
function classesFit(u: Uint16Array, from: number, to: number): boolean {
  const n = to - from;
  if (n < MIN || n > MAX) return false;
  let upper = 0;
  let lower = 0;
  let digit = 0;
  let outside = 0;
  let nonHex = 0;
  for (let i = from; i < to; i++) {
    const c = u[i]!;
    if (c >= 65 && c <= 90) {
      upper++;
      if (c > 70) nonHex++;
    } else if (c >= 97 && c <= 122) {
      lower++;
      if (c > 102) nonHex++;
    } else if (c >= 48 && c <= 57) digit++;
    // `/` and `\` make a path, a URL or a prompt; quotes and `,` make code or CSV.
    else if (c === 47 || c === 92 || c === 34 || c === 39 || c === 96 || c === 44 || c <= 32 || c >= 127) return false;
    else if (c === 61) {
      // `=` makes a pair, unless it only pads the end.
      for (let j = i + 1; j < to; j++) if (u[j] !== 61) return false;
      break;
    }
    // Token characters (`+ _ . ~ -`) are the entropy rule's: only a symbol outside them brings a word here.
    else if (c !== 43 && c !== 95 && c !== 46 && c !== 126 && c !== 45) outside++;
  }
  const letters = upper + lower;
  if (outside === 0 || letters < 4 || nonHex === 0) return false;
  const classes = (upper > 0 ? 1 : 0) + (lower > 0 ? 1 : 0) + (digit > 0 ? 1 : 0) + 1;
  if (!(classes === 4 || (classes === 3 && n >= 16))) return false;
  // Mostly letters and digits: a regex source or ASCII art is mostly symbols.
  return (letters + digit) * 10 >= n * 6;
}

/** What the classes leave to rule out, read from the word itself: code, addresses, digests, placeholders; and it reads as random. */
function shapeFits(t: string): boolean {
  if (CODE_END.test(t) || CODE_START.test(t) || OPERATOR.test(t) || CALL_OR_INDEX.test(t) || EMAIL.test(t) || DIGEST.test(t) || ENCLOSED.test(t) || MANGLED.test(t)) return false;
  if (t.includes("[REDACTED:")) return false;
  // Random: most characters distinct (a word with a symbol in it repeats letters).
  if (entropy(t) < Math.min(3.0, Math.log2(t.length) * 0.85)) return false;
  return plausibleSecret(t, true);
}

/**
 * Each line of `ctx.s` that is one word looksLikeLonePassword takes. Read
 * from each line's end backwards: the last word is found first, and a line
 * whose last word is too short or too long, or has anything but indentation
 * before it, is done after a few code units (most lines of code and prose),
 * so the pass costs little more than finding the line breaks.
 */
function aloneLines(ctx: ScanCtx): void {
  const { s, units: u } = ctx;
  const n = s.length;
  let b = s.indexOf("\n");
  // One line: a value, judged by its key; no line is alone in it.
  if (b < 0) return;
  for (let a = 0; a < n; a = b + 1, b = s.indexOf("\n", a)) {
    if (b < 0) b = n;
    if (b - a < MIN) continue;
    let y = b;
    while (y > a && isSpace(u[y - 1]!)) y--;
    let x = y;
    while (x > a && y - x <= MAX && !isSpace(u[x - 1]!)) x--;
    if (y - x < MIN || y - x > MAX) continue;
    let w = x;
    while (w > a && isSpace(u[w - 1]!)) w--;
    if (w > a) continue;
    if (lonePassword(s, u, x, y)) ctx.out.push({ from: x, start: x, end: y, kind: "password", priority: PRIORITY });
  }
}

/** See the module comment. */
export const aloneLineRule: Rule = {
  kinds: ["password"],
  keywords: [],
  scan() {
    // Keyword-free: everything happens in scanHits.
  },
  scanHits: aloneLines,
};
