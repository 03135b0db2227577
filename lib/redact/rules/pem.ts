/** PEM private-key blocks: BEGIN…PRIVATE KEY, raw, JSON-escaped, line-numbered, one line or cut off. */
import { nextIndexOf, push } from "./push.ts";
import type { Rule, ScanCtx } from "../types.ts";

const PEM_HEAD = /-----BEGIN ([A-Z0-9 ]{0,40})PRIVATE KEY( BLOCK)?-----|---- BEGIN SSH2 (ENCRYPTED )?PRIVATE KEY ----/y;
/** Longest key body read: 4096-bit RSA is ~3.2 KB, large PGP blocks more. */
const PEM_MAX = 16384;
const PEM_HEADER = /[A-Za-z][A-Za-z-]{0,40}: [^\n\\]{0,200}/y;
const PEM_B64 = /[A-Za-z0-9+/=]{0,16384}/y;
// A line break as tool output gives it: raw, CRLF, or JSON-escaped once or
// twice; then the line number `cat -n` ("     2\t"), the Read tool ("     2→",
// "2\t", a JSON-escaped "2\\t") or an editor gutter ("2 | ", "2: ") puts before it.
const BREAK = String.raw`(?:\r?\n|(?:\\{1,3}r)?\\{1,3}n)`;
const GUTTER = String.raw`(?:[ \t]{0,8}\d{1,7}(?:\t|\\{1,3}t|→|[ \t]{0,2}[|:])[ \t]?)?`;
// Or, on one line (newlines flattened to spaces), a space before the next base64 chunk.
const PEM_EOL = new RegExp(String.raw`[ \t]{0,8}${BREAK}${GUTTER}[ \t]{0,8}|[ \t]{1,4}(?=[A-Za-z0-9+/]{16})`, "y");
/** What sits between the body and its `-----END`: separators and the END line's gutter. */
const TAIL = /(?:[ \t\r\n]|\\{1,3}[nrt]|\d{1,7}(?:\t|→|[|:]))*$/;
/**
 * The openings of private-key bodies, as base64 at most a few characters
 * into the body: a key pasted or printed without its BEGIN line (`head -c`,
 * a copied middle, a service-account field stripped of its header) is still
 * a private key. [base64 literal, kind, how far into the body it starts at most].
 */
const KEY_OPENINGS: readonly (readonly [string, string, number])[] = [
  ["b3BlbnNzaC1rZXktdjE", "openssh-private-key", 0], // base64 of `openssh-key-v1`
  ["IBADANBgkqhkiG9w0BAQEFAAS", "rsa-private-key", 8], // PKCS#8 RSA
  ["IBAAKCAQEA", "rsa-private-key", 8], // PKCS#1 RSA 2048
  ["IBAAKCAgEA", "rsa-private-key", 8], // PKCS#1 RSA 4096
  ["AgEAMBMGByqGSM49AgEGCCqGSM49", "ec-private-key", 8], // PKCS#8 EC
  ["MHcCAQEEI", "ec-private-key", 0], // SEC1 P-256
  ["MIGkAgEBBDA", "ec-private-key", 0], // SEC1 P-384
  ["MC4CAQAwBQYDK2VwBCIEI", "private-key", 0], // PKCS#8 Ed25519
];
/** Each opening by its keyword (the engine's keywords are lowercase). */
const OPENING_BY_KEYWORD = new Map(KEY_OPENINGS.map((o) => [o[0].toLowerCase(), o] as const));
const B64_CHAR = /[A-Za-z0-9+/]/;

/**
 * Whether `s[at - 1]` ends what is before a key body: not base64, or the
 * letter of a JSON/C escape (`\n` before the body in a JSON string).
 */
function bodyBoundary(s: string, at: number): boolean {
  if (at === 0 || !B64_CHAR.test(s[at - 1]!)) return true;
  return at >= 2 && s[at - 2] === "\\" && /[nrt]/.test(s[at - 1]!);
}

/**
 * End of a key block's body read line by line, for a block with no END in
 * reach (cut off by `head`, a byte cap or a JSON string): lines that look like
 * base64 or, before the base64, PEM headers (`Proc-Type: …`), at most 16 KB.
 * Stops at a blank line after the base64 and at a `Key: value` or prose line
 * after it, so the text after a cut-off key stays.
 */
function pemBodyEnd(s: string, start: number, inBody = false): number {
  const lim = Math.min(s.length, start + PEM_MAX);
  let i = start;
  let end = start;
  let blank = 0;
  let body = inBody;
  PEM_EOL.lastIndex = i;
  if (!inBody && PEM_EOL.test(s)) i = PEM_EOL.lastIndex;
  while (i < lim) {
    PEM_HEADER.lastIndex = i;
    const header = !body && PEM_HEADER.test(s);
    let lineEnd: number;
    if (header) lineEnd = PEM_HEADER.lastIndex;
    else {
      PEM_B64.lastIndex = i;
      PEM_B64.test(s);
      lineEnd = PEM_B64.lastIndex;
    }
    PEM_EOL.lastIndex = lineEnd;
    if (PEM_EOL.test(s)) {
      if (lineEnd === i) {
        // PGP armour has a blank line after its headers; after the base64, a blank line ends the block.
        if (body || ++blank > 1) break;
      } else {
        blank = 0;
        if (!header) body = true;
        end = lineEnd;
      }
      i = PEM_EOL.lastIndex;
    } else {
      // A line cut by the end of the output (or of a JSON string, or by a
      // `...` marker) is part of the key; a short word that goes on with prose is not.
      if (lineEnd > i && (lineEnd >= s.length || s[lineEnd] === '"' || s[lineEnd] === "\\" || lineEnd - i >= 16)) end = lineEnd;
      break;
    }
  }
  return Math.min(end, lim);
}

/**
 * The body's end when the block's own `-----END …PRIVATE KEY` is in reach
 * with no other BEGIN before it: everything up to it, whatever the line
 * breaks, numbers or spaces between; else -1.
 */
function endMarker(ctx: ScanCtx, bodyStart: number): number {
  const s = ctx.s;
  const lim = Math.min(s.length, bodyStart + PEM_MAX + 64);
  // The markers in reach: BEGIN lines with no END each searched the whole window (16 KB per
  // 32-byte line), so the next of each marker is remembered across the scan's blocks (nextIndexOf).
  const within = (at: number, needle: string): number => (at >= 0 && at + needle.length <= lim ? at : -1);
  const end = within(nextIndexOf(ctx, "-----END ", bodyStart), "-----END ");
  const end2 = within(nextIndexOf(ctx, "---- END SSH2 ", bodyStart), "---- END SSH2 ");
  const at = end < 0 ? end2 : end2 < 0 ? end : Math.min(end, end2);
  if (at < 0) return -1;
  if (!/^-{4,5} ?END [A-Z0-9 ]{0,40}PRIVATE KEY/.test(s.slice(at, at + 64))) return -1;
  const begin = nextIndexOf(ctx, "-----BEGIN", bodyStart);
  if (begin >= 0 && begin < at) return -1;
  const tail = TAIL.exec(s.slice(Math.max(bodyStart, at - 256), at));
  return at - (tail ? tail[0].length : 0);
}

/** Whether [a, b) holds at least `min` base64 characters (stops counting early). */
function hasBase64Run(s: string, a: number, b: number, min: number): boolean {
  let n = 0;
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47) {
      if (++n >= min) return true;
    }
  }
  return false;
}

function pemKind(label: string): string {
  if (/OPENSSH/.test(label)) return "openssh-private-key";
  if (/PGP/.test(label)) return "pgp-private-key";
  if (/ENCRYPTED/.test(label)) return "encrypted-private-key";
  if (/RSA/.test(label)) return "rsa-private-key";
  if (/EC/.test(label)) return "ec-private-key";
  if (/DSA/.test(label)) return "dsa-private-key";
  return "private-key";
}

/**
 * BEGIN…PRIVATE KEY… body in every shape tool output gives it: raw or CRLF,
 * JSON-escaped, line-numbered, flattened onto one line, or cut off (up to
 * 16 KB); OpenSSH, PKCS#1, PKCS#8 (plain and encrypted), EC, DSA, PGP, SSH2.
 */
export const pemRule: Rule = {
  kinds: ["private-key", "rsa-private-key", "ec-private-key", "dsa-private-key", "openssh-private-key", "pgp-private-key", "encrypted-private-key"],
  keywords: ["-----begin ", "---- begin ssh2 ", ...OPENING_BY_KEYWORD.keys()],
  scan(ctx, pos, kw) {
    if (pos < (ctx.memo.pem ?? 0)) return;
    const opening = OPENING_BY_KEYWORD.get(kw);
    if (opening) {
      // A body on its own. Case matters in base64; the body starts where the base64 run does, at most `opening[2]` before.
      const [literal, kind, offset] = opening;
      if (!ctx.s.startsWith(literal, pos)) return;
      let start = pos;
      while (pos - start < offset && !bodyBoundary(ctx.s, start)) start--;
      if (!bodyBoundary(ctx.s, start)) return; // inside a longer base64 run: not an opening
      if (offset > 0 && !ctx.s.startsWith("MI", start)) return;
      const end = pemBodyEnd(ctx.s, start, true);
      if (end - start < 40) return;
      ctx.memo.pem = end;
      push(ctx, { from: start, start, end, kind, priority: 2.8 });
      return;
    }
    PEM_HEAD.lastIndex = pos;
    const m = PEM_HEAD.exec(ctx.s);
    if (!m) return;
    const bodyStart = pos + m[0].length;
    // Up to this block's own END when it is in reach; else line by line, so a
    // truncated block does not swallow the text after it.
    const marked = endMarker(ctx, bodyStart);
    const bodyEnd = marked >= 0 ? marked : pemBodyEnd(ctx.s, bodyStart);
    // Docs stubs (`...`) hold nothing to leak.
    if (!hasBase64Run(ctx.s, bodyStart, bodyEnd, 20)) return;
    ctx.memo.pem = bodyEnd;
    const label = m[3] !== undefined || m[0].startsWith("---- ") ? `SSH2 ${m[3] ?? ""}` : m[1]! + (m[2] ?? "");
    push(ctx, { from: pos, start: bodyStart, end: bodyEnd, kind: pemKind(label), priority: 2.8 });
  },
};
