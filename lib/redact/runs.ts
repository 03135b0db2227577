/**
 * The text as UTF-16 code units in a typed array, and the runs of token
 * characters in it: what the keyword-free rules (entropy, encoded) walk.
 * Indexing a typed array costs a fraction of `charCodeAt` on a long UTF-16
 * string, and one loop over it finds the runs in half the time the regex
 * engine takes; both rules share the one list instead of each running a
 * regex over the whole text.
 */

/** Shortest run the keyword-free rules see: the entropy rule's shortest labelled token. */
export const RUN_MIN = 10;

/** Token characters: A-Z a-z 0-9 + / = _ - . ~ (a run of them is what the entropy rule scores). */
const TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~";
const TOKEN = new Uint8Array(128);
for (const c of TOKEN_CHARS) TOKEN[c.charCodeAt(0)] = 1;

/** Whether code unit `c` is a token character. */
export const isTokenUnit = (c: number): boolean => c < 128 && TOKEN[c] === 1;

/**
 * `s` as code units (the same indices as `s`).
 *
 * @example
 * ```ts
 * codeUnits("ab")[1]; // 98
 * ```
 */
export function codeUnits(s: string): Uint16Array {
  const b = Buffer.from(s, "utf16le");
  // A small string's Buffer can sit at an odd offset in the shared pool: copy it then.
  return b.byteOffset % 2 === 0 ? new Uint16Array(b.buffer, b.byteOffset, b.length >> 1) : new Uint16Array(new Uint8Array(b).buffer);
}

/**
 * Every maximal run of token characters of at least `min` units, as flat
 * `[start, end, start, end, …]` pairs in order.
 *
 * @example
 * ```ts
 * [...tokenRuns(codeUnits("a b0123456789c d"), 10)]; // [2, 14]
 * ```
 */
export function tokenRuns(u: Uint16Array, min: number): Int32Array {
  let out = new Int32Array(1024);
  let n = 0;
  const len = u.length;
  let i = 0;
  while (i < len) {
    const c = u[i]!;
    if (c >= 128 || TOKEN[c] === 0) {
      i++;
      continue;
    }
    const a = i;
    i++;
    while (i < len) {
      const d = u[i]!;
      if (d >= 128 || TOKEN[d] === 0) break;
      i++;
    }
    if (i - a < min) continue;
    if (n + 2 > out.length) {
      const grown = new Int32Array(out.length * 2);
      grown.set(out);
      out = grown;
    }
    out[n++] = a;
    out[n++] = i;
  }
  return out.subarray(0, n);
}
