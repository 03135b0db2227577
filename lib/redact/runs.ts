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

/** Up to this length codeUnits copies with a loop. */
const SHORT_UNITS = 512;

/**
 * `s` as code units (the same indices as `s`).
 *
 * @example
 * ```ts
 * codeUnits("ab")[1]; // 98
 * ```
 */
export function codeUnits(s: string): Uint16Array {
  // A short string (most of a record's): a plain loop into a small array. Buffer.from and a view of
  // its ArrayBuffer cost more there than the copy (a small typed array has no ArrayBuffer until one
  // is asked for, and asking makes one).
  if (s.length <= SHORT_UNITS) {
    const u = new Uint16Array(s.length);
    for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    return u;
  }
  const b = Buffer.from(s, "utf16le");
  // A small string's Buffer can sit at an odd offset in the shared pool: copy it then.
  return b.byteOffset % 2 === 0 ? new Uint16Array(b.buffer, b.byteOffset, b.length >> 1) : new Uint16Array(new Uint8Array(b).buffer);
}

/**
 * Longest string whose code units go in the spare buffer (16 MB); a longer
 * one gets a buffer of its own, freed with it, so a long-lived process never
 * holds more than this.
 */
const SPARE_MAX = 1 << 23;
let spare: Uint16Array | undefined;
let spareBytes: Buffer | undefined;
let spareLent = false;

/**
 * `s` as code units, like codeUnits, written into the process's one spare
 * buffer when it is free: give it back with `giveBackUnits` once nothing
 * reads it. On 5 MB a fresh 10 MB buffer per call costs more in garbage
 * collection than everything it saves (a tenth of a redaction, measured),
 * while writing into a kept one takes half a millisecond.
 *
 * @example
 * ```ts
 * const u = lendUnits("ab");
 * u[1]; // 98
 * giveBackUnits(u);
 * ```
 */
export function lendUnits(s: string): Uint16Array {
  if (spareLent || s.length > SPARE_MAX) return codeUnits(s);
  if (spare === undefined || spare.length < s.length) {
    spare = new Uint16Array(Math.min(SPARE_MAX, Math.max(s.length, 1 << 16) * 2));
    spareBytes = Buffer.from(spare.buffer, spare.byteOffset, spare.byteLength);
  }
  spareBytes!.write(s, 0, s.length * 2, "utf16le");
  spareLent = true;
  return spare.subarray(0, s.length);
}

/** Ends a `lendUnits` loan (a buffer of its own is just dropped). */
export function giveBackUnits(u: Uint16Array | undefined): void {
  if (u !== undefined && spare !== undefined && u.buffer === spare.buffer) spareLent = false;
}

/** `a` copied into an array twice its length: the growth step of the position lists built in hot loops. */
export function doubled(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(a.length * 2);
  grown.set(a);
  return grown;
}

/** Longest run list (entries) kept between calls: 16 MB, a text of about 50 MB. */
const SPARE_RUNS_MAX = 1 << 22;
let spareRuns: Int32Array<ArrayBuffer> | undefined;
let spareRunsLent = false;

/**
 * tokenRuns written into the process's one kept list when it is free (a
 * nested scan of decoded text, while it is lent, gets its own); give it back
 * with `giveBackRuns` once nothing reads it. A 5 MB text's list grew by
 * doubling into fresh arrays on every call, and on a virtual machine that
 * returns freed memory to its host each fresh page is a fault: a quarter of
 * the page faults of a warm redaction, and half of tokenRuns' time.
 *
 * @example
 * ```ts
 * const r = lendRuns(codeUnits("a b0123456789c d"), 10);
 * r[0]; // 2
 * giveBackRuns(r);
 * ```
 */
export function lendRuns(u: Uint16Array, min: number): Int32Array<ArrayBuffer> {
  if (spareRunsLent) return tokenRuns(u, min);
  // Made at the most entries the text can need (capped), not grown by doubling: pages the list
  // never fills are never touched, while each doubling wrote all it had into fresh ones. A cold
  // 5 MB redaction paid about a thousand page faults for the copies (13 µs each here).
  const bound = Math.min(SPARE_RUNS_MAX, 3 * (Math.floor(u.length / (min + 1)) + 1));
  if (spareRuns === undefined || spareRuns.length < bound) spareRuns = new Int32Array(Math.max(1536, bound));
  const r = tokenRuns(u, min, spareRuns);
  // Keep what the list grew into, up to the bound; past it the list is the caller's alone.
  if (r.buffer.byteLength <= SPARE_RUNS_MAX * 4) {
    spareRuns = new Int32Array(r.buffer);
    spareRunsLent = true;
  }
  return r;
}

/** Ends a `lendRuns` loan (a list of its own is just dropped). */
export function giveBackRuns(r: Int32Array | undefined): void {
  if (r !== undefined && spareRuns !== undefined && r.buffer === spareRuns.buffer) spareRunsLent = false;
}

/** Bits of a run's shape (tokenRuns): which classes of character it holds. */
export const RUN_DIGIT = 1;
export const RUN_UPPER = 2;
export const RUN_LOWER = 4;
export const RUN_EQUALS = 8;
/** A run's letter count sits above the class bits, capped (the cap is past anything a rule scores). */
const LETTERS_SHIFT = 4;
const LETTERS_CAP = 1 << 20;

/** How many letters a run's shape says it holds (at most 2^20). */
export const runLetters = (shape: number): number => shape >>> LETTERS_SHIFT;

/** Per token character: its class bit; letters carry the bit and count one (LETTER). */
const BIT = new Uint8Array(128);
const LETTER = new Uint8Array(128);
for (let c = 48; c <= 57; c++) BIT[c] = RUN_DIGIT;
for (let c = 65; c <= 90; c++) ((BIT[c] = RUN_UPPER), (LETTER[c] = 1));
for (let c = 97; c <= 122; c++) ((BIT[c] = RUN_LOWER), (LETTER[c] = 1));
BIT[61] = RUN_EQUALS;
/**
 * The three tables above in one byte per unit below 128, for the loop that
 * reads every unit of a text: bit 7 set for a token character, its class
 * bits below, and bit 4 (the letter count's unit) for a letter. One load
 * where the loop made three.
 */
const UNIT = new Uint8Array(128);
for (let c = 0; c < 128; c++) UNIT[c] = TOKEN[c] ? 0x80 | BIT[c]! | (LETTER[c]! << LETTERS_SHIFT) : 0;

/**
 * Every maximal run of token characters of at least `min` units, as flat
 * `[start, end, shape, start, end, shape, …]` triples in order; a shape is
 * the run's class bits (RUN_DIGIT…) and letter count (runLetters), counted
 * in the same pass, so a rule can rule a run out without reading it again.
 *
 * @example
 * ```ts
 * const r = tokenRuns(codeUnits("a b0123456789c d"), 10);
 * [r[0], r[1], runLetters(r[2]!)]; // [2, 14, 2]
 * ```
 */
export function tokenRuns(u: Uint16Array, min: number, into?: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  // Runs are at least `min` long with a stop between: a short string's list is short (a record of
  // thousands of short strings made 6 KB of garbage each at a fixed 1,536 entries).
  let out = into ?? new Int32Array(Math.min(1536, 3 * (Math.floor(u.length / (min + 1)) + 1)));
  let n = 0;
  const len = u.length;
  let i = 0;
  while (i < len) {
    const c = u[i]!;
    if (c >= 128 || UNIT[c] === 0) {
      i++;
      continue;
    }
    const a = i;
    // Class bits OR-ed in the low nibble; 16 summed per letter (bit 4), divided out below.
    let bits = 0;
    let sum = 0;
    for (; i < len; i++) {
      const d = u[i]!;
      const k = d < 128 ? UNIT[d]! : 0;
      if (k === 0) break;
      // Table lookups, not branches: inside a random token every class branch is mispredicted.
      bits |= k;
      sum += k & 0x10;
    }
    if (i - a < min) continue;
    if (n + 3 > out.length) out = doubled(out);
    out[n++] = a;
    out[n++] = i;
    out[n++] = (Math.min(sum / 16, LETTERS_CAP) << LETTERS_SHIFT) | (bits & 0x0f);
  }
  return out.subarray(0, n);
}
