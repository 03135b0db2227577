/**
 * Secrets hidden by an encoding (issue 11, "raw text kept undecoded"): a
 * base64 run, a percent-encoded run or a run of JSON `\uXXXX` escapes is
 * decoded and the plaintext rescanned with every rule; when the plaintext
 * holds a secret, the whole encoded run goes, named by what it held
 * (`github-pat` within `base64`). Decoding is charged to the call's decode
 * budget, so a payload of encoded runs stays linear.
 */
import { decodeBase64Text, DECODED_PRIORITY, mayOpenText } from "../decode.ts";
import { spaceOrQuote } from "../keys.ts";
import { RUN_DIGIT, RUN_LOWER, RUN_UPPER } from "../runs.ts";
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
    escapedRuns(ctx);
  },
};
