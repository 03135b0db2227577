/** PEM private-key blocks: BEGIN…PRIVATE KEY, raw, JSON-escaped, line-numbered, one line or cut off. */
import { push } from "./push.ts";
import type { Rule } from "../types.ts";

const PEM_HEAD = /-----BEGIN ([A-Z0-9 ]{0,40})PRIVATE KEY( BLOCK)?-----/y;
/** Longest key body read: 4096-bit RSA is ~3.2 KB, large PGP blocks more. */
const PEM_MAX = 16384;
const PEM_HEADER = /[A-Za-z][A-Za-z-]{0,40}: [^\n\\]{0,200}/y;
const PEM_B64 = /[A-Za-z0-9+/=]{0,120}/y;
const PEM_EOL = /[ \t]{0,8}(?:\r?\n|\\r\\n|\\n)/y;

/**
 * End of a key block's body: line by line while lines look like base64 or,
 * before the base64, PEM headers (`Proc-Type: …`), at most 16 KB. Stops
 * before `-----END`, at a blank line after the base64, and at a `Key: value`
 * line after it, so the text after a cut-off key stays.
 */
function pemBodyEnd(s: string, start: number): number {
  const lim = Math.min(s.length, start + PEM_MAX);
  let i = start;
  let end = start;
  let blank = 0;
  let body = false;
  PEM_EOL.lastIndex = i;
  if (PEM_EOL.test(s)) i = PEM_EOL.lastIndex;
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
      // A line cut by the end of the output (or of a JSON string) is part of
      // the key; a line that goes on with prose (or "-----END") is not.
      if (lineEnd > i && (lineEnd >= s.length || s[lineEnd] === '"' || s[lineEnd] === "\\")) end = lineEnd;
      break;
    }
  }
  return Math.min(end, lim);
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

/** BEGIN…PRIVATE KEY… body, raw or with JSON `\n` escapes, terminated or cut off (up to 16 KB). */
export const pemRule: Rule = {
  kinds: ["private-key", "rsa-private-key", "ec-private-key", "dsa-private-key", "openssh-private-key", "pgp-private-key", "encrypted-private-key"],
  keywords: ["-----begin "],
  scan(ctx, pos) {
    PEM_HEAD.lastIndex = pos;
    const m = PEM_HEAD.exec(ctx.s);
    if (!m) return;
    const bodyStart = pos + m[0].length;
    // Line by line rather than "up to the next END": a truncated block must
    // not swallow the text (and other blocks) between it and a later END.
    const bodyEnd = pemBodyEnd(ctx.s, bodyStart);
    // Docs stubs (`...`) hold nothing to leak.
    if (!hasBase64Run(ctx.s, bodyStart, bodyEnd, 20)) return;
    push(ctx, { from: pos, start: bodyStart, end: bodyEnd, kind: pemKind(m[1]! + (m[2] ?? "")), priority: 2.8 });
  },
};
