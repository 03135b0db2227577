/**
 * Bounded decoding for rescans: base64 values that hide a secret's real
 * shape (Kubernetes Secret `data`, `.dockerconfigjson`, Docker `auths.*.auth`).
 * Each decode is capped, and only text (UTF-8 without control characters)
 * is handed back, so binary blobs and certificates are never rescanned.
 */
import type { Finding, ScanCtx } from "./types.ts";

/** Largest base64 value decoded for a rescan (~48 KiB of plaintext). */
export const DECODE_MAX = 65536;
/** Decoded bytes one top-level redaction may rescan, across every nesting level. */
export const DECODE_BUDGET = 2 * 1024 * 1024;
/** Decode levels: Secret data -> .dockerconfigjson -> auths.*.auth. */
export const DECODE_DEPTH = 3;

const B64 = /^[A-Za-z0-9+/_-]{4,65536}={0,2}$/;
/**
 * Whether code unit `c` is a hex digit, either case.
 *
 * @example
 * ```ts
 * isHexUnit("F".charCodeAt(0)); // true
 * ```
 */
export const isHexUnit = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
/**
 * The value of hex digit `c` (isHexUnit).
 *
 * @example
 * ```ts
 * hexValue("f".charCodeAt(0)); // 15
 * ```
 */
export const hexValue = (c: number): number => (c <= 57 ? c - 48 : (c | 32) - 87);

// Control characters other than tab/newline/CR, and the replacement character
// Buffer emits for invalid UTF-8: the plaintext is binary, not text.
export const NOT_TEXT = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]/;

/**
 * The UTF-8 text a base64 (or base64url) value encodes, or undefined when it
 * is not base64, too long, or decodes to binary.
 *
 * @example
 * ```ts
 * decodeBase64Text("YWRtaW4="); // "admin"
 * decodeBase64Text("not base64!"); // undefined
 * ```
 */
export function decodeBase64Text(v: string, max = DECODE_MAX): string | undefined {
  const s = v.trim();
  if (s.length < 4 || s.length > max || !B64.test(s)) return undefined;
  const body = s.replace(/=+$/, "");
  if (body.length % 4 === 1) return undefined;
  const text = Buffer.from(body, /[-_]/.test(body) ? "base64url" : "base64").toString("utf8");
  if (text.length === 0 || NOT_TEXT.test(text)) return undefined;
  return text;
}

/**
 * Docker's `auths.*.auth`: base64 of `user:password`. The plaintext when it
 * decodes to text with a non-empty user and password, else undefined.
 *
 * @example
 * ```ts
 * dockerAuthText(btoa("me:s3cret-pass")); // "me:s3cret-pass"
 * dockerAuthText(btoa("no colon"));       // undefined
 * ```
 */
export function dockerAuthText(v: string): string | undefined {
  const t = decodeBase64Text(v);
  if (t === undefined) return undefined;
  const colon = t.indexOf(":");
  if (colon <= 0 || colon === t.length - 1) return undefined;
  return t;
}

/**
 * Priority of a container value whose decoded plaintext held a known secret:
 * above every rule, so the whole value is one redaction carrying the inner kind.
 */
export const DECODED_PRIORITY = 3.5;

/**
 * A finding over `[start, end)`, a container's value (`plain` text or base64
 * to decode): the kind a rescan of the plaintext finds, within `container`,
 * else `fallback` (undefined: no finding without an inner secret).
 *
 * @example
 * ```ts
 * // base64 of "ghp_…" under a Secret's data:
 * containerFinding(ctx, 10, 10, 70, decoded, "k8s-secret", "k8s-secret");
 * // { kind: "github-pat", within: "k8s-secret", priority: 3.5, … }
 * ```
 */
export function containerFinding(ctx: ScanCtx, from: number, start: number, end: number, plain: string | undefined, container: string, fallback: string | undefined, priority = 2): Finding | undefined {
  const inner = plain !== undefined && ctx.inner ? ctx.inner(plain) : undefined;
  if (inner) return { from, start, end, kind: inner.kind, priority: Math.max(DECODED_PRIORITY, inner.priority), within: container };
  return fallback === undefined ? undefined : { from, start, end, kind: fallback, priority };
}

/** Base64 digit values (standard and URL-safe); 255 for anything else. */
const B64_VALUE = new Uint8Array(128).fill(255);
const B64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
for (let k = 0; k < B64_DIGITS.length; k++) B64_VALUE[B64_DIGITS.charCodeAt(k)] = k;
B64_VALUE[43] = B64_VALUE[45] = 62; // + -
B64_VALUE[47] = B64_VALUE[95] = 63; // / _

/**
 * Whether the nine bytes the twelve characters at `i` decode to could open
 * text: no control byte, no broken UTF-8 sequence. A necessary condition for
 * decodeBase64Text to accept the run, checked without allocating: random
 * bytes fail it nineteen times in twenty, and most runs are random.
 *
 * @example
 * ```ts
 * mayOpenText("aGVsbG8gd29ybGQh", 0); // true ("hello world!")
 * mayOpenText("AAECAwQFBgcICQoL", 0); // false (control bytes)
 * ```
 */
export function mayOpenText(s: string, i: number): boolean {
  let need = 0; // continuation bytes still owed by a UTF-8 lead
  for (let q = 0; q < 12; q += 4) {
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const c = s.charCodeAt(i + q + k);
      const d = c < 128 ? B64_VALUE[c]! : 255;
      if (d === 255) return true; // padding or a short run: the full decode decides
      v = v * 64 + d;
    }
    for (let shift = 16; shift >= 0; shift -= 8) {
      const byte = (v >> shift) & 255;
      if (need > 0) {
        if (byte < 0x80 || byte > 0xbf) return false;
        need--;
      } else if (byte < 0x80) {
        if ((byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 13) || byte === 0x7f) return false;
      } else if (byte >= 0xc2 && byte <= 0xdf) need = 1;
      else if (byte >= 0xe0 && byte <= 0xef) need = 2;
      else if (byte >= 0xf0 && byte <= 0xf4) need = 3;
      else return false;
    }
  }
  return true;
}
