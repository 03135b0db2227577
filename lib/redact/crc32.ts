/**
 * CRC32 (IEEE) and the base62 checksum GitHub and npm append to their tokens:
 * the last 6 characters are base62(CRC32(the 30-character random body)),
 * zero-padded, alphabet digits, then upper case, then lower case.
 *
 * The check only raises confidence in a finding; a token that fails it is
 * still redacted (test tokens and look-alikes are worth masking too).
 */

let table: Uint32Array | undefined;

function crcTable(): Uint32Array {
  if (table) return table;
  table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/**
 * CRC32 (IEEE 802.3) of a string's UTF-8 bytes; token bodies are ASCII.
 *
 * @example
 * ```ts
 * crc32("123456789"); // 0xcbf43926
 * ```
 */
export function crc32(s: string): number {
  const t = crcTable();
  let c = 0xffffffff;
  for (const b of Buffer.from(s, "utf8")) c = t[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * A number in base62, left-padded with "0" to `width`.
 *
 * @example
 * ```ts
 * base62(61, 2); // "0z"
 * ```
 */
export function base62(n: number, width: number): string {
  let out = "";
  let v = n;
  while (v > 0) {
    out = B62[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out.padStart(width, "0");
}

/**
 * Whether a GitHub/npm style token body (random part + 6-char checksum) is
 * self-consistent.
 *
 * @example
 * ```ts
 * const body = "a".repeat(30);
 * checksumOk(body + base62(crc32(body), 6)); // true
 * ```
 */
export function checksumOk(body36: string): boolean {
  if (body36.length !== 36) return false;
  return base62(crc32(body36.slice(0, 30)), 6) === body36.slice(30);
}
