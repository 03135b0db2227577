/**
 * Secrets hidden by an encoding (issue 11, "raw text kept undecoded"): a
 * base64 run, a hex run, a percent-encoded run or a run of JSON `\uXXXX` escapes is
 * decoded and the plaintext rescanned with every rule; when the plaintext
 * holds a secret, the whole encoded run goes, named by what it held
 * (`github-pat` within `base64`). Decoding is charged to the call's decode
 * budget, so a payload of encoded runs stays linear.
 */
import { decodeBase64Text, DECODED_PRIORITY, hexValue, isHexUnit, mayOpenText, NOT_TEXT } from "../decode.ts";
import { spaceOrQuote } from "../keys.ts";
import { RUN_DIGIT, RUN_LOWER, RUN_UPPER } from "../runs.ts";
import { onlySeparatorEscapes } from "./escaped.ts";
import type { Rule, ScanCtx } from "../types.ts";

const ALL_CLASSES = RUN_DIGIT | RUN_UPPER | RUN_LOWER;

const B64_MIN = 24;
const RUN_MAX = 65536;

function push(ctx: ScanCtx, start: number, end: number, plain: string | undefined, within: string): void {
  if (plain === undefined || plain.length < 8 || !ctx.inner) return;
  const inner = ctx.inner(plain);
  // Only a named find counts (an entropy hit on decoded bytes names nothing).
  if (!inner || inner.priority < 1) return;
  ctx.out.push({ from: start, start, end, kind: inner.kind, priority: Math.max(DECODED_PRIORITY, inner.priority), within });
}

/** Whether `s[i..j)` has capitals, lower case and digits (base64 of text nearly always does). */
function mixed(u: Uint16Array, i: number, j: number): boolean {
  let digit = false;
  let upper = false;
  let lower = false;
  for (let x = i; x < j; x++) {
    const d = u[x]!;
    if (d >= 48 && d <= 57) digit = true;
    else if (d >= 65 && d <= 90) upper = true;
    else if (d >= 97 && d <= 122) lower = true;
    if (digit && upper && lower) return true;
  }
  return false;
}

/** Shortest hex run decoded (8 bytes). */
const HEX_MIN = 16;

/** Whether `u[i..j)` is hex digits of one case (what `xxd -p`, `.hex()` and `%x` print). */
function hexOnly(u: Uint16Array, i: number, j: number): boolean {
  let lower = false;
  let upper = false;
  for (let x = i; x < j; x++) {
    const c = u[x]!;
    if (!isHexUnit(c)) return false;
    if (c >= 97) lower = true;
    else if (c >= 65) upper = true;
  }
  return !(lower && upper);
}

/** Whether the first four bytes hex `u[i..)` spells are text (printable ASCII, tab, newline): most hex is a digest, whose bytes are not. */
function hexOpensText(u: Uint16Array, i: number): boolean {
  for (let k = 0; k < 8; k += 2) {
    const b = (hexValue(u[i + k]!) << 4) | hexValue(u[i + k + 1]!);
    if (!((b >= 32 && b < 127) || b === 9 || b === 10 || b === 13)) return false;
  }
  return true;
}

/**
 * Hex of text: a run of hex digits, or lines of them (`xxd -p` prints 60 a
 * line), that spells text is decoded and rescanned like base64; the whole
 * run, every line of it, goes when the text holds a secret
 * (`echo -n 'password=…' | xxd -p`, `xxd -p .env`, Python's `.hex()`).
 */
function hexRuns(ctx: ScanCtx): void {
  const { s, units: u, runs } = ctx;
  for (let r = 0; r < runs.length; r += 3) {
    const i = runs[r]!;
    let j = runs[r + 1]!;
    if (j - i < HEX_MIN || (runs[r + 2]! & RUN_DIGIT) === 0 || !hexOnly(u, i, j) || !hexOpensText(u, i)) continue;
    // The lines that follow on: each hex, the one before it of an even length.
    let hex = s.slice(i, j);
    let line = i;
    while (r + 3 < runs.length && (j - line) % 2 === 0 && u[j] === 10 && runs[r + 3] === j + 1 && hexOnly(u, j + 1, runs[r + 4]!) && hex.length < RUN_MAX) {
      r += 3;
      line = runs[r]!;
      j = runs[r + 1]!;
      hex += s.slice(line, j);
    }
    // A last line shorter than a token run (xxd -p's tail): hex to its end.
    if ((j - line) % 2 === 0 && u[j] === 10) {
      let k = j + 1;
      while (k < u.length && k - j <= HEX_MIN && isHexUnit(u[k]!)) k++;
      if (k > j + 1 && (k === u.length || u[k] === 10 || u[k] === 13) && (k - j - 1) % 2 === 0 && hexOnly(u, j + 1, k)) {
        hex += s.slice(j + 1, k);
        j = k;
      }
    }
    if (hex.length % 2 !== 0) continue;
    const plain = Buffer.from(hex, "hex").toString("utf8");
    if (!NOT_TEXT.test(plain)) push(ctx, i, j, plain, "hex");
  }
}

/**
 * The base64 runs (`A-Z a-z 0-9 + / = _ -`, B64_MIN+) are the token runs
 * the scan already found, cut at `.` and `~`.
 */
function base64Runs(ctx: ScanCtx): void {
  const { s, units: u, runs } = ctx;
  for (let r = 0; r < runs.length; r += 3) {
    const end = runs[r + 1]!;
    // No piece of a run has a class the whole run lacks (mixed() below).
    if (end - runs[r]! < B64_MIN || (runs[r + 2]! & ALL_CLASSES) !== ALL_CLASSES) continue;
    for (let i = runs[r]!; i < end; ) {
      let j = i;
      while (j < end && u[j] !== 46 && u[j] !== 126) j++;
      if (j - i >= B64_MIN) base64Run(ctx, s, u, i, j);
      i = j + 1;
    }
  }
}

function base64Run(ctx: ScanCtx, s: string, u: Uint16Array, i: number, j: number): void {
  // Cheapest first: most runs (digests, random ids, images) cannot open text.
  if (j - i > RUN_MAX || !mayOpenText(s, i) || !mixed(u, i, j)) return;
  const prev = i > 0 ? s[i - 1] : "";
  // Not a fragment of a longer word, path or URL.
  // A base64 PEM (`LS0tLS1CRUdJTi…`) has its own prefix rule and kind.
  if (prev === "/" || prev === "." || prev === "\\" || s.startsWith("LS0tLS1CRUdJTi", i) || DIGEST_BEFORE.test(s.slice(Math.max(0, i - 16), i))) return;
  // Decode a short head first, then the whole run.
  const head = s.slice(i, i + Math.min(64, (j - i) & ~3));
  if (decodeBase64Text(head) === undefined) return;
  push(ctx, i, j, decodeBase64Text(s.slice(i, j)), "base64");
}

// A percent-encoded run ends where a query string or markup does: `?state=<run>&page=2`.
/** Digests and data URIs: base64 of bytes, never of text. */
const DIGEST_BEFORE = /(?:sha\d{1,3}[-:]|md5[-:]|h1:|base64,|integrity\W{1,4})$/i;

/** `[\s"'<>\`]`: where a run of `\u` escapes ends. */
const endsEscapes = (c: number): boolean => spaceOrQuote(c) || c === 60 || c === 62 || c === 96;
/** `[\s"'<>\`\\?&=]`: where a percent-encoded run ends (a query string's separators too). Code units, not a regex per character: this reads back up to 1 KB at every `%`. */
const endsPercent = (c: number): boolean => endsEscapes(c) || c === 92 || c === 63 || c === 38 || c === 61;

/** Runs with at least two `%XX` escapes, decoded; and runs of JSON `\u00XX` escapes. */
function escapedRuns(ctx: ScanCtx): void {
  const s = ctx.s;
  let from = 0;
  for (let p = s.indexOf("%", from); p !== -1 && p < s.length; p = s.indexOf("%", from)) {
    let a = p;
    while (a > 0 && p - a < 1024 && !endsPercent(s.charCodeAt(a - 1))) a--;
    let b = p;
    while (b < s.length && b - a < RUN_MAX && !endsPercent(s.charCodeAt(b))) b++;
    from = Math.max(b, p + 1);
    const run = s.slice(a, b);
    if ((run.match(/%[0-9A-Fa-f]{2}/g) ?? []).length < 2) continue;
    let plain: string;
    try {
      plain = decodeURIComponent(run.replace(/\+/g, " "));
    } catch {
      continue;
    }
    if (plain !== run) push(ctx, a, b, plain, "url-encoded");
  }
  from = 0;
  for (let p = s.indexOf("\\u", from); p !== -1; p = s.indexOf("\\u", from)) {
    let b = p;
    // A run of text with \u escapes in it, up to a quote or whitespace.
    while (b < s.length && b - p < RUN_MAX && !endsEscapes(s.charCodeAt(b))) b++;
    from = Math.max(b, p + 2);
    const run = s.slice(p, b);
    if (!/\\u00[2-7][0-9a-fA-F]/.test(run)) continue;
    // Escapes of `=` and `&` only (Gson's `?a\u003d1\u0026token\u003d…`): rules/escaped.ts reads
    // the line back and masks the secret alone, where this masked the whole run after the first `=`.
    if (onlySeparatorEscapes(run)) continue;
    let plain: string;
    try {
      plain = JSON.parse(`"${run.replace(/"/g, '\\"')}"`) as string;
    } catch {
      continue;
    }
    push(ctx, p, b, plain, "json-escaped");
  }
}

/** See the module comment. */
export const encodedRule: Rule = {
  kinds: [],
  keywords: [],
  scan() {
    // Keyword-free: everything happens in scanHits.
  },
  scanHits(ctx) {
    if (!ctx.inner) return;
    base64Runs(ctx);
    hexRuns(ctx);
    escapedRuns(ctx);
  },
};
