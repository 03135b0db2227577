/**
 * git's binary patch format ("GIT binary patch"): each side's bytes deflated
 * with zlib and written in git's base85 alphabet, 52 bytes a line, each line
 * led by a letter giving its byte count (A-Z: 1-26, a-z: 27-52). Only the
 * `literal` form is written; `git apply` accepts it for any change, and it
 * checks the result against the full blob ids on the index line.
 *
 * @example
 * ```ts
 * literalHunk(new Uint8Array(0)); // "literal 0\nHcmV?d00001\n\n"
 * ```
 */
import type * as Zlib from "node:zlib";

// node:zlib costs about 14 ms to load and most diffs have no binary file:
// load it on the first binary hunk. Its output (zlib, level 1) is byte for
// byte what git writes.
let zlib: typeof Zlib | null = null;
const deflateSync = (data: Uint8Array, opts: Zlib.ZlibOptions): Buffer =>
  (zlib ??= process.getBuiltinModule("node:zlib")).deflateSync(data, opts);

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/** git's base85 of up to 52 bytes: 5 characters for every 4 bytes, zero-padded. */
export function encode85(data: Uint8Array): string {
  let out = "";
  for (let i = 0; i < data.length; i += 4) {
    let acc = 0;
    for (let j = 0; j < 4; j++) acc = acc * 256 + (i + j < data.length ? data[i + j]! : 0);
    const chars = new Array<string>(5);
    for (let k = 4; k >= 0; k--) {
      chars[k] = ALPHABET[acc % 85]!;
      acc = Math.floor(acc / 85);
    }
    out += chars.join("");
  }
  return out;
}

/** One `literal` hunk with its terminating blank line. */
export function literalHunk(data: Uint8Array): string {
  // Level 1 is what git uses (core.compression unset), so the bytes match git's.
  const z = deflateSync(data, { level: 1 });
  const parts: string[] = [`literal ${data.length}\n`];
  for (let i = 0; i < z.length; i += 52) {
    const chunk = z.subarray(i, Math.min(i + 52, z.length));
    const n = chunk.length;
    parts.push(n <= 26 ? String.fromCharCode(64 + n) : String.fromCharCode(96 + n - 26), encode85(chunk), "\n");
  }
  parts.push("\n");
  return parts.join("");
}
