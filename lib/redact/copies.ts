/**
 * Every copy of a found secret goes. A rule finds a secret where its context
 * is (`password=…`, `ghp_…`); the same value printed again elsewhere in the
 * record (an echo, a URL, another field, a JSON dump of the config) has no
 * context there. So once a call has found its secrets, one more pass masks
 * every remaining occurrence of each, and of its JSON-escaped, URL-encoded
 * and base64 forms, with the same kind and tag.
 */

import { nameCased } from "./keys.ts";
import { codeUnits, doubled } from "./runs.ts";

/** Shortest found value whose copies are masked; shorter finds are masked where found only. */
export const COPY_MIN = 4;
/** Below this length a copy must stand alone (no letter or digit either side): `abcd` inside `abcdef` is no copy. */
export const COPY_BOUNDED_BELOW = 10;
/**
 * Longest find whose copies are searched. Longer finds (a Secret's whole
 * base64 value, a key body) have rules of their own wherever they appear;
 * the cap keeps the copy search linear in the text.
 */
export const COPY_MAX = 512;

/** A found secret as copies of it are rendered. */
export interface Known {
  readonly kind: string;
  readonly tag: string;
}

interface Variant {
  readonly text: string;
  readonly known: Known;
  readonly bounded: boolean;
}

/**
 * Whether copies of a find are worth masking: a value with the look of a
 * credential. A word or identifier a context rule took for a value
 * (`otp = await …`, `Secret: secretValue`) must not be masked across the
 * whole record on top: that turns one doubtful find into dozens.
 */
export function copyWorthy(secret: string): boolean {
  if (secret.length < COPY_MIN || /^[\s\W_]*$/.test(secret)) return false;
  // Letters only, or an identifier without digits (`SecretsCollection`, `api_key`): a word, not a
  // credential; unless its case flips at every other letter or so (`vZrEclFwOqeA`), which no name does.
  if (/^[A-Za-z_$][A-Za-z_$.]*$/.test(secret)) return secret.length >= 12 && !nameCased(secret);
  return true;
}

const isWordCode = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * The forms a secret takes when re-printed: as is, JSON-escaped, `\/`-escaped, URL-encoded, base64.
 * One pass over the secret says which forms differ from it; an ASCII secret's
 * forms are then written by hand (encodeURIComponent and btoa cost half a
 * microsecond a call, and a record dense with secrets registers thousands).
 */
function formsOf(secret: string): string[] {
  const forms = [secret];
  let seen = 0;
  for (let i = 0; i < secret.length; i++) {
    const c = secret.charCodeAt(i);
    seen |= c < 128 ? FORM_BITS[c]! : PAST_ASCII;
  }
  // Most secrets are token characters: their escaped forms are the secret itself (thousands per 5 MB).
  if ((seen & NOT_AS_IS) !== 0) {
    const ascii = (seen & NON_ASCII) === 0;
    // JSON escapes `"`, `\`, control characters and lone surrogates (which only a non-ASCII secret has).
    const json = ascii && (seen & JSON_ESCAPED) === 0 ? secret : JSON.stringify(secret).slice(1, -1);
    addForm(forms, json);
    if ((seen & SLASH) !== 0) addForm(forms, json.replaceAll("/", "\\/"));
    if (ascii) addForm(forms, (seen & URL_ESCAPED) === 0 ? secret : urlEncodedAscii(secret));
    else {
      try {
        addForm(forms, encodeURIComponent(secret));
      } catch {
        // lone surrogate: no URL form
      }
    }
  }
  if (secret.length >= 12) {
    // Unpadded; for ASCII its bytes are its code units. The URL-safe alphabet only differs where the
    // standard one printed `+` or `/`.
    if ((seen & NON_ASCII) === 0) {
      const n = base64AsciiBytes(secret);
      addForm(forms, formText(n));
      if (urlSafeBytes(n)) addForm(forms, formText(n));
    } else {
      let b64 = Buffer.from(secret, "utf8").toString("base64");
      let end = b64.length;
      while (end > 0 && b64.charCodeAt(end - 1) === 61) end--;
      if (end < b64.length) b64 = b64.slice(0, end);
      addForm(forms, b64);
      if (b64.includes("+") || b64.includes("/")) addForm(forms, b64.replaceAll("+", "-").replaceAll("/", "_"));
    }
  }
  return forms;
}

// formsOf's classes of ASCII character, as bits.
/** Outside `[A-Za-z0-9_.~-]`: JSON, `\/` escaping or URL encoding may change it. */
const NOT_AS_IS = 1;
/** What encodeURIComponent escapes: all but `A-Za-z0-9-_.!~*'()`. */
const URL_ESCAPED = 2;
/** What JSON.stringify escapes: `"`, `\` and control characters. */
const JSON_ESCAPED = 4;
const SLASH = 8;
const NON_ASCII = 16;
/** What a unit past ASCII sets: the forms differ from the secret, and are not written by hand. */
const PAST_ASCII = NOT_AS_IS | URL_ESCAPED | NON_ASCII;
const FORM_BITS = new Uint8Array(128).fill(NOT_AS_IS | URL_ESCAPED);
{
  const asIs = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.~-";
  for (let i = 0; i < asIs.length; i++) FORM_BITS[asIs.charCodeAt(i)] = 0;
  for (const ch of "!*'()") FORM_BITS[ch.charCodeAt(0)] = NOT_AS_IS;
  for (let c = 0; c < 32; c++) FORM_BITS[c] = FORM_BITS[c]! | JSON_ESCAPED;
  FORM_BITS[34] = FORM_BITS[34]! | JSON_ESCAPED;
  FORM_BITS[92] = FORM_BITS[92]! | JSON_ESCAPED;
  FORM_BITS[47] = FORM_BITS[47]! | SLASH;
}

/** Where formsOf writes a form before it becomes a string: a form is at most three bytes per unit of a COPY_MAX secret. */
const formBytes = new Uint8Array(3 * COPY_MAX);
/**
 * The form's bytes (ASCII) as a string: a TextDecoder takes ~0.1 us where
 * Buffer's toString("latin1") took ~0.4.
 */
const ASCII_TEXT = new TextDecoder();
const formText = (length: number): string => ASCII_TEXT.decode(formBytes.subarray(0, length));
const HEX_UPPER = "0123456789ABCDEF";
const B64_ALPHABET = new TextEncoder().encode("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");

/**
 * encodeURIComponent of an ASCII string.
 *
 * @example
 * ```ts
 * urlEncodedAscii("a b/c+d") === encodeURIComponent("a b/c+d"); // true
 * ```
 */
export function urlEncodedAscii(s: string): string {
  let o = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((FORM_BITS[c]! & URL_ESCAPED) === 0) formBytes[o++] = c;
    else {
      formBytes[o++] = 37;
      formBytes[o++] = HEX_UPPER.charCodeAt(c >> 4);
      formBytes[o++] = HEX_UPPER.charCodeAt(c & 15);
    }
  }
  return formText(o);
}

/**
 * Base64 of an ASCII string's bytes, unpadded: btoa's output less its `=`.
 *
 * @example
 * ```ts
 * base64Ascii("hunter2hunter2") === btoa("hunter2hunter2").replace(/=+$/, ""); // true
 * ```
 */
export function base64Ascii(s: string): string {
  return formText(base64AsciiBytes(s));
}

/** base64Ascii written to formBytes: its length. */
function base64AsciiBytes(s: string): number {
  const n = s.length;
  let o = 0;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (s.charCodeAt(i) << 16) | (s.charCodeAt(i + 1) << 8) | s.charCodeAt(i + 2);
    formBytes[o++] = B64_ALPHABET[v >>> 18]!;
    formBytes[o++] = B64_ALPHABET[(v >>> 12) & 63]!;
    formBytes[o++] = B64_ALPHABET[(v >>> 6) & 63]!;
    formBytes[o++] = B64_ALPHABET[v & 63]!;
  }
  if (i < n) {
    const v = (s.charCodeAt(i) << 16) | (i + 1 < n ? s.charCodeAt(i + 1) << 8 : 0);
    formBytes[o++] = B64_ALPHABET[v >>> 18]!;
    formBytes[o++] = B64_ALPHABET[(v >>> 12) & 63]!;
    if (i + 1 < n) formBytes[o++] = B64_ALPHABET[(v >>> 6) & 63]!;
  }
  return o;
}

/** formBytes' first `n` base64 characters in the URL-safe alphabet (`+` to `-`, `/` to `_`): whether any changed. */
function urlSafeBytes(n: number): boolean {
  let changed = false;
  for (let i = 0; i < n; i++) {
    const c = formBytes[i]!;
    if (c === 43) formBytes[i] = 45;
    else if (c === 47) formBytes[i] = 95;
    else continue;
    changed = true;
  }
  return changed;
}

/** Adds form `f` to `forms` unless it is there. */
function addForm(forms: string[], f: string): void {
  if (!forms.includes(f)) forms.push(f);
}

/**
 * Finds and masks copies of known secrets in strings.
 *
 * @example
 * ```ts
 * const c = new Copies();
 * c.add("hunter2hunter2", { kind: "password", tag: "1a2b" });
 * c.mask("echo hunter2hunter2"); // "echo [REDACTED:password:1a2b]"
 * ```
 */
export class Copies {
  private readonly variants = new Map<string, Variant>();
  /** The variants in the order added: what the index is built from (spreading the map's iterator made an object per step). */
  private readonly added: Variant[] = [];
  private index: Index | undefined;
  private minLen = Infinity;

  /** How many distinct secrets (with their forms) are known. */
  get size(): number {
    return this.variants.size;
  }

  /** Registers a found secret; values shorter than COPY_MIN are ignored. */
  add(secret: string, known: Known): void {
    if (secret.length < COPY_MIN || secret.length > COPY_MAX || this.variants.has(secret)) return;
    if (secret.includes("[REDACTED:") || !copyWorthy(secret)) return;
    for (const text of formsOf(secret)) {
      if (text.length < COPY_MIN || this.variants.has(text)) continue;
      const v = { text, known, bounded: text.length < COPY_BOUNDED_BELOW };
      this.variants.set(text, v);
      this.added.push(v);
      this.minLen = Math.min(this.minLen, text.length);
    }
    this.index = undefined;
  }

  /**
   * Spans `[start, end, known]` of copies in `s`, non-overlapping, longest
   * form first at each position; none inside an existing `[REDACTED:…]` tag.
   * `units` is `s` as code units when the caller already has them (the scan
   * made them): making them again costs more than the search on 5 MB.
   */
  find(s: string, units?: Uint16Array): [number, number, Known][] {
    if (this.variants.size === 0 || s.length < this.minLen) return [];
    const hits: [number, number, Known][] = [];
    const ix = (this.index ??= this.buildIndex());
    // A short string and few forms: the native search, once per form (JSC's indexOf reads a
    // UTF-16 text at about a code unit per nanosecond, so this is the cheap side of NATIVE_MAX).
    // Each call also costs a fixed ~20 ns, so a record of thousands of short strings and
    // thousands of forms, searched form by form, was quadratic: the indexed passes instead.
    const native = s.length * this.variants.size <= NATIVE_MAX && this.variants.size <= NATIVE_FORMS;
    for (const v of native ? ix.all : ix.searched) {
      for (let i = s.indexOf(v.text); i !== -1; i = s.indexOf(v.text, i + 1)) {
        if (this.accept(s, i, v)) hits.push([i, i + v.text.length, v.known]);
      }
    }
    if (!native && (ix.long.length > 0 || ix.searched !== ix.short)) {
      const u = units ?? codeUnits(s);
      // The compare budget keeps a payload built to collide linear anyway.
      const budget = { left: 64 * s.length + 1_000_000 };
      if (ix.long.length > 0) this.sampledCopies(s, u, (ix.sampled ??= buildSampled(ix.long)), budget, hits);
      if (ix.searched !== ix.short) {
        const t = (ix.tables ??= buildTables(ix.short));
        this.verify(s, passing(u, t.minLen, t), t.heads, budget, hits);
      }
    }
    if (hits.length === 0) return hits;
    hits.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const tags = redactedTags(s);
    const out: [number, number, Known][] = [];
    let end = 0;
    let t = 0;
    for (const h of hits) {
      if (h[0] < end) continue;
      while (t < tags.length && tags[t]![1] <= h[0]) t++;
      if (t < tags.length && tags[t]![0] < h[1]) continue;
      out.push(h);
      end = h[1];
    }
    return out;
  }

  /** The kind and tag a find registered for exactly `text`, if any. */
  lookup(text: string): Known | undefined {
    return this.variants.get(text)?.known;
  }

  /** `s` with every copy replaced by `[REDACTED:<kind>:<tag>]`. */
  mask(s: string): string {
    const spans = this.find(s);
    if (spans.length === 0) return s;
    let out = "";
    let at = 0;
    for (const [a, b, k] of spans) {
      out += s.slice(at, a) + `[REDACTED:${k.kind}:${k.tag}]`;
      at = b;
    }
    return out + s.slice(at);
  }

  private accept(s: string, i: number, v: Variant): boolean {
    if (!v.bounded) return true;
    const before = i > 0 ? s.charCodeAt(i - 1) : 32;
    const after = i + v.text.length < s.length ? s.charCodeAt(i + v.text.length) : 32;
    return !isWordCode(before) && !isWordCode(after);
  }

  /** Candidate starts `at` checked against the index: first four, length, last four, then the text. */
  private verify(s: string, at: Int32Array, heads: Heads, budget: { left: number }, hits: [number, number, Known][]): void {
    for (let c = 0; c < at.length && budget.left > 0; c++) {
      const i = at[c]!;
      const byLen = heads.get(key4(s, i));
      if (!byLen) continue;
      for (let x = 0; x < byLen.length; x++) {
        const { len, byKey } = byLen[x]!;
        budget.left--;
        if (i + len > s.length) continue;
        const list = byKey.get(key4(s, i + len - 4));
        if (!list) continue;
        budget.left -= list.length * 16;
        for (const v of list) if (s.startsWith(v.text, i) && this.accept(s, i, v)) hits.push([i, i + v.text.length, v.known]);
      }
    }
  }

  /**
   * Copies of the long forms: the text's windows at every `stride`-th
   * position; where one's bit is set, the starts it may be window
   * 0..stride-1 of (every start is reached from exactly one sampled
   * position), narrowed to the offsets at which a form has a window of its
   * hash (`offsets`: most passes are chance, one in 32, and each start
   * costs a lookup in a table of a quarter megabyte), look their first
   * eight units up among the forms' heads, then, for each length a form
   * with that head has, its last four units: a form is compared with the
   * text only when head, length and tail all agree.
   */
  private sampledCopies(s: string, u: Uint16Array, ix: SampledIndex, budget: { left: number }, hits: [number, number, Known][]): void {
    const { stride, windows, windowShift, offsets, offsetShift } = ix;
    const n = u.length;
    const last = n - 4;
    for (let p = 0; p <= last && budget.left > 0; p += stride) {
      const h = mix4(key4u(u, p));
      const x = h >>> windowShift;
      if ((windows[x >>> 5]! & (1 << (x & 31))) === 0) continue;
      const mask = offsets[h >>> offsetShift]!;
      for (let b = 0; b < 8; b++) {
        if ((mask & (1 << b)) === 0) continue;
        for (let o = b; o < stride; o += 8) if (p - o >= 0) this.startsAt(s, u, ix, p - o, budget, hits);
      }
    }
  }

  /** The forms that start at `i`: head, then each length the head's group has, then tail, then body, then the text. */
  private startsAt(s: string, u: Uint16Array, ix: SampledIndex, i: number, budget: { left: number }, hits: [number, number, Known][]): void {
    const { groupSlots, groupShift, groupHeads, lenOff, lenFlat, tails, tailShift, formBuckets, formShift, formNext, formKeys, forms, minLen } = ix;
    const n = u.length;
    if (i + minLen > n) return;
    const groupMask = groupSlots.length - 1;
    const h = mix8(key4u(u, i), key4u(u, i + 4));
    let slot = h >>> groupShift;
    let g = groupSlots[slot]!;
    while (g !== 0 && groupHeads[g] !== h) {
      slot = (slot + 1) & groupMask;
      g = groupSlots[slot]!;
    }
    if (g === 0) return;
    for (let l = lenOff[g - 1]!, end = lenOff[g]!; l < end; l++) {
      const len = lenFlat[l]!;
      budget.left--;
      if (i + len > n) continue;
      // The tail first (one lookup); the whole body is hashed only where some form has this head, length and tail.
      const t = mix3(h, len, key4u(u, i + len - 4)) >>> tailShift;
      if ((tails[t >>> 5]! & (1 << (t & 31))) === 0) continue;
      const k = mix3(h, len, bodyHashU(u, i, len));
      for (let f = formBuckets[k >>> formShift]!; f !== 0; f = formNext[f]!) {
        if (formKeys[f] !== k) continue;
        budget.left -= 16;
        const v = forms[f]!;
        if (v.text.length === len && s.startsWith(v.text, i) && this.accept(s, i, v)) hits.push([i, i + len, v.known]);
      }
    }
  }

  /**
   * The forms by how a long string is searched for them (a short one is
   * searched natively, form by form: NATIVE_MAX): SAMPLED_MIN+ characters
   * through the sampled pass, shorter ones natively when there are few and
   * through the every-position pass (passing) when there are many.
   */
  private buildIndex(): Index {
    const all = this.added;
    const short = all.filter((v) => v.text.length < SAMPLED_MIN);
    return { all, long: all.filter((v) => v.text.length >= SAMPLED_MIN), short, searched: short.length <= SEARCHED_MAX ? short : [] };
  }
}

/**
 * Up to this many characters times forms, a string is searched form by form
 * natively (indexOf): about a millisecond. Past it, the sampled pass (about
 * 2 ms per MB, whatever the number of forms) costs less.
 */
const NATIVE_MAX = 1 << 20;
/** Up to this many forms a short string is searched form by form; more go to the indexed passes, whose cost is the string's length. */
const NATIVE_FORMS = 16;
/** Up to this many short forms, each is searched for natively in a long string; more go to the every-position pass. */
const SEARCHED_MAX = 8;
/**
 * From this length a form is found through a sample of the text's positions:
 * a form of L characters holds L - 3 four-character windows, so reading the
 * text every L - 3 positions meets every copy in one of its first L - 3.
 */
const SAMPLED_MIN = 8;

/** The forms by how a long string is searched for them; the tables are built on the first long string. */
interface Index {
  readonly all: readonly Variant[];
  /** SAMPLED_MIN+ characters: the sampled pass. */
  readonly long: readonly Variant[];
  readonly short: readonly Variant[];
  /** The short forms searched for one by one (`short` itself, or none when there are too many). */
  readonly searched: readonly Variant[];
  sampled?: SampledIndex;
  tables?: CopyIndex;
}

/** Variants by first four characters, then length, then last four: what verify confirms a candidate start against. */
type Heads = Map<number, LengthBucket[]>;

function bucketed(variants: readonly Variant[]): Heads {
  const heads = new Map<number, LengthBucket[]>();
  for (const v of variants) {
    const t = v.text;
    const h = key4(t, 0);
    let byLen = heads.get(h);
    if (!byLen) heads.set(h, (byLen = []));
    let byKey = byLen.find((x) => x.len === t.length)?.byKey;
    if (!byKey) byLen.push({ len: t.length, byKey: (byKey = new Map()) });
    const k = key4(t, t.length - 4);
    let l = byKey.get(k);
    if (!l) byKey.set(k, (l = []));
    l.push(v);
  }
  return heads;
}

/** The tables passing reads (every form here has COPY_MIN+ characters). */
function buildTables(variants: readonly Variant[]): CopyIndex {
  const bits = Math.min(20, Math.max(16, Math.ceil(Math.log2(variants.length * 64))));
  const mask = (1 << bits) - 1;
  const pairs = new Uint8Array(1 << bits);
  const shift = 32 - bits;
  let second: Uint8Array | undefined = new Uint8Array(1 << bits);
  let minLen = Infinity;
  for (const v of variants) {
    const t = v.text;
    const h = key4(t, 0);
    pairs[h & mask] = 1;
    if (t.length < 8) second = undefined;
    else if (second) second[mix8(h, key4(t, 4)) >>> shift] = 1;
    minLen = Math.min(minLen, t.length);
  }
  return { pairs, mask, second, shift, heads: bucketed(variants), minLen };
}

/**
 * The sampled index of forms of SAMPLED_MIN+ characters: with `stride` the
 * shortest form's length less 3, a bit for each of every form's first
 * `stride` four-character windows (a hash of key4 into `bits`, sized for
 * about one window in 32 to pass by chance), and by a coarser hash the
 * offsets those windows sit at. Then, in typed arrays, the
 * forms' heads (mix8 of the first eight units; forms sharing one are a
 * group) with each group's lengths, a bit per head, length and last four
 * units, and the forms by head, length and a hash of their whole body
 * (mix3): a prefix family's forms (`ghp_…`, JWTs, which share dozens of
 * characters) mostly part at the tail bit in one lookup, and those that share
 * a tail too (sequential ids) at the body's hash, so a record full of them
 * stays linear.
 */
interface SampledIndex {
  /** The forms, numbered from 1 (0 ends a chain). */
  readonly forms: readonly Variant[];
  /** The shortest form's length. */
  readonly minLen: number;
  readonly stride: number;
  readonly windows: Int32Array;
  readonly windowShift: number;
  /**
   * Per window hash (its top `32 - offsetShift` bits), the offsets within a form (mod 8, as bits) at
   * which a window with that hash begins: a passing window is looked up only as those starts.
   */
  readonly offsets: Uint8Array;
  readonly offsetShift: number;
  /** Open addressing on a head's top bits: group numbers from 1, 0 for an empty slot. */
  readonly groupSlots: Int32Array;
  readonly groupShift: number;
  /** Group -> its head (mix8). */
  readonly groupHeads: Int32Array;
  /** Group `g`'s distinct form lengths are `lenFlat[lenOff[g - 1]..lenOff[g])`. */
  readonly lenOff: Int32Array;
  readonly lenFlat: Int32Array;
  /** A bit per mix3(head, length, tail): whether a form's body is worth hashing at a start. */
  readonly tails: Int32Array;
  readonly tailShift: number;
  /** mix3(head, length, body)'s top bits -> the first form of its chain, or 0; `formNext` goes on. */
  readonly formBuckets: Int32Array;
  readonly formShift: number;
  readonly formNext: Int32Array;
  /** Form -> its mix3 (head, length, body). */
  readonly formKeys: Int32Array;
}

const bitTable = (entries: number, perEntry: number): { bits: Int32Array; shift: number } => {
  const log = Math.min(24, Math.max(16, Math.ceil(Math.log2(entries * perEntry))));
  return { bits: new Int32Array(1 << (log - 5)), shift: 32 - log };
};
const setBit = (t: Int32Array, x: number): void => {
  t[x >>> 5] = t[x >>> 5]! | (1 << (x & 31));
};
/** A 32-bit hash of a key4 whose top bits depend on all four units. */
const mix4 = (h: number): number => Math.imul(h, 0x9e3779b1);
/** One 32-bit hash of a head, a length and a body hash. */
const mix3 = (h: number, len: number, body: number): number => Math.imul(Math.imul(h ^ len, 0x85ebca6b) ^ body, 0x9e3779b1);
/**
 * FNV-1a over every unit of `u[i..i+len)`. A head and a tail alone did not
 * tell apart forms that share both (sequential ids, `ghp_0000…0001ab` and
 * `ghp_0000…0002ab`): every one of them fell in one chain, and a record of
 * 150,000 such secrets compared each copy with all of them.
 */
const bodyHashU = (u: Uint16Array, i: number, len: number): number => {
  let h = 0x811c9dc5 | 0;
  for (let k = i, end = i + len; k < end; k++) h = Math.imul(h ^ u[k]!, 0x01000193);
  return h;
};
/** bodyHashU of a whole string. */
const bodyHash = (t: string): number => {
  let h = 0x811c9dc5 | 0;
  for (let k = 0; k < t.length; k++) h = Math.imul(h ^ t.charCodeAt(k), 0x01000193);
  return h;
};
const NO_LENGTHS: readonly number[] = [];
/** log2 of a table of at least `slots` entries (at least 2^10). */
const tableLog = (slots: number): number => Math.min(24, Math.max(10, Math.ceil(Math.log2(slots))));

function buildSampled(variants: readonly Variant[]): SampledIndex {
  let minLen = Infinity;
  for (const v of variants) minLen = Math.min(minLen, v.text.length);
  const b = new SampledBuilder(variants.length, minLen, variants[0]!);
  for (const v of variants) b.add(v);
  return b.index();
}

/**
 * The sampled index as it is filled, one form per `add`. A method per form
 * rather than one loop inside buildSampled: a function called once runs its
 * loop in the JIT's first tier until the whole function is compiled, while a
 * small method called per form is optimized after a few hundred. A cold 5 MB
 * redaction's 10,512 forms took 19.5-29.3 ms to index as one loop and
 * 13.6-27.1 ms this way (the JIT's queue decides); the whole process 0.975x
 * (30 pairs), warm calls level (nineteenth session, bench/redact/README.md).
 */
class SampledBuilder {
  private readonly stride: number;
  private readonly w: { bits: Int32Array; shift: number };
  private readonly offsets: Uint8Array;
  private readonly offsetShift: number;
  private readonly forms: Variant[];
  private readonly formKeys: Int32Array;
  private readonly tb: { bits: Int32Array; shift: number };
  // Groups by head, found through the table the search reads (open addressing on the head's top
  // bits, at most a quarter full: a chance start ends at an empty slot); a Map of heads cost more
  // than the rest of the build. A group's lengths are kept distinct (a form's length is at most
  // COPY_MAX's base64).
  private readonly groupSlots: Int32Array;
  private readonly groupShift: number;
  private readonly heads: number[] = [0];
  // Each group's first length, and any further distinct ones (few groups have two: a secret and
  // another of its length that shares its first eight characters).
  private readonly firstLen: number[] = [0];
  private readonly moreLens = new Map<number, number[]>();

  constructor(
    private readonly count: number,
    private readonly minLen: number,
    first: Variant,
  ) {
    this.stride = minLen - 3;
    this.w = bitTable(count * this.stride, 32);
    const offsetLog = Math.min(20, Math.max(12, Math.ceil(Math.log2(count * this.stride * 4))));
    this.offsets = new Uint8Array(1 << offsetLog);
    this.offsetShift = 32 - offsetLog;
    // Forms are numbered from 1: slot 0 ends a chain, and holds a form only so the array holds one type.
    this.forms = [first];
    this.formKeys = new Int32Array(count + 1);
    this.tb = bitTable(count + 1, 32);
    const groupLog = tableLog(count * 4);
    this.groupSlots = new Int32Array(1 << groupLog);
    this.groupShift = 32 - groupLog;
  }

  add(v: Variant): void {
    const t = v.text;
    const { w, offsets, offsetShift, groupSlots, heads, firstLen } = this;
    for (let o = 0; o < this.stride; o++) {
      const h = mix4(key4(t, o));
      setBit(w.bits, h >>> w.shift);
      offsets[h >>> offsetShift] = offsets[h >>> offsetShift]! | (1 << (o & 7));
    }
    const f = this.forms.length;
    this.forms.push(v);
    const h = mix8(key4(t, 0), key4(t, 4));
    const groupMask = groupSlots.length - 1;
    let slot = h >>> this.groupShift;
    let g = groupSlots[slot]!;
    while (g !== 0 && heads[g] !== h) {
      slot = (slot + 1) & groupMask;
      g = groupSlots[slot]!;
    }
    if (g === 0) {
      g = heads.length;
      groupSlots[slot] = g;
      heads.push(h);
      firstLen.push(t.length);
    } else if (firstLen[g] !== t.length) {
      const more = this.moreLens.get(g);
      if (more === undefined) this.moreLens.set(g, [t.length]);
      else if (!more.includes(t.length)) more.push(t.length);
    }
    setBit(this.tb.bits, mix3(h, t.length, key4(t, t.length - 4)) >>> this.tb.shift);
    this.formKeys[f] = mix3(h, t.length, bodyHash(t));
  }

  index(): SampledIndex {
    const { heads, firstLen, moreLens, formKeys, w, tb } = this;
    const count = this.count + 1;
    const groups = heads.length - 1;
    const groupHeads = new Int32Array(groups + 1);
    const lenOff = new Int32Array(groups + 1);
    let total = groups;
    for (const more of moreLens.values()) total += more.length;
    const lenFlat = new Int32Array(total);
    for (let g = 1, at = 0; g <= groups; g++) {
      groupHeads[g] = heads[g]!;
      lenFlat[at++] = firstLen[g]!;
      for (const len of moreLens.get(g) ?? NO_LENGTHS) lenFlat[at++] = len;
      lenOff[g] = at;
    }
    const formLog = tableLog(count * 2);
    const formBuckets = new Int32Array(1 << formLog);
    const formShift = 32 - formLog;
    const formNext = new Int32Array(count);
    for (let f = 1; f < count; f++) {
      const b = formKeys[f]! >>> formShift;
      formNext[f] = formBuckets[b]!;
      formBuckets[b] = f;
    }
    const { forms, minLen, stride, offsets, offsetShift, groupSlots, groupShift } = this;
    return { forms, minLen, stride, windows: w.bits, windowShift: w.shift, offsets, offsetShift, groupSlots, groupShift, groupHeads, lenOff, lenFlat, tails: tb.bits, tailShift: tb.shift, formBuckets, formShift, formNext, formKeys };
  }
}

/**
 * A bit table of first-four-character hashes; when every form has eight
 * characters, a second of first-eight hashes read from the top `32 - shift`
 * bits; then variants by first four, length and last four characters.
 */
interface CopyIndex {
  readonly pairs: Uint8Array;
  readonly mask: number;
  readonly second: Uint8Array | undefined;
  readonly shift: number;
  readonly heads: Heads;
  /** The shortest form's length. */
  readonly minLen: number;
}

/** The variants of one length under one first-four key, by their last four characters. */
interface LengthBucket {
  readonly len: number;
  readonly byKey: Map<number, Variant[]>;
}

/**
 * Positions in `u` where a form may start: the first four units' key is in
 * the first table and, when there is one, the first eight's hash in the
 * second. A loop of its own over the code units (a typed array, int32
 * arithmetic): it visits every position of the text, and as a small
 * function the JIT compiles it to a few instructions per position.
 */
function passing(u: Uint16Array, minLen: number, ix: CopyIndex): Int32Array {
  const { pairs, mask, second, shift } = ix;
  let out = new Int32Array(256);
  let n = 0;
  const last = u.length - minLen;
  if (last < 0) return out.subarray(0, 0);
  // key4 rolled along: drop the leaving unit's term, shift, add the next one. Wrapping int32
  // steps give key4 mod 2^32, which is key4 itself (below 2^31).
  let h = key4u(u, 0);
  for (let i = 0; i <= last; i++) {
    if (i > 0) h = (Math.imul(h - Math.imul(u[i - 1]!, 29791), 31) + u[i + 3]!) | 0;
    if (pairs[h & mask] !== 1) continue;
    // Most passes are chance (about one position in 64): the second table turns all but a few away.
    if (second !== undefined && second[mix8(h, key4u(u, i + 4)) >>> shift] !== 1) continue;
    if (n === out.length) out = doubled(out);
    out[n++] = i;
  }
  return out.subarray(0, n);
}

/**
 * A number for the four characters at `i` (collisions only cost a compare):
 * c0·31³ + c1·31² + c2·31 + c3, below 2^31 for UTF-16 code units, so exact
 * and cheap to roll along the text (find).
 */
const key4 = (s: string, i: number): number =>
  ((s.charCodeAt(i) * 31 + s.charCodeAt(i + 1)) * 31 + s.charCodeAt(i + 2)) * 31 + s.charCodeAt(i + 3);

/** key4 read from code units (passing's loop). */
const key4u = (u: Uint16Array, i: number): number => ((u[i]! * 31 + u[i + 1]!) * 31 + u[i + 2]!) * 31 + u[i + 3]!;

/** One 32-bit hash of two key4s (multiply, xor, multiply: its top bits depend on all eight units). */
const mix8 = (h: number, g: number): number => Math.imul(Math.imul(h, 0x9e3779b1) ^ g, 0x85ebca6b);

const TAG = /\[REDACTED:[a-z0-9-]{1,64}:[0-9a-f]{4}\]/g;

function redactedTags(s: string): [number, number][] {
  if (!s.includes("[REDACTED:")) return [];
  const out: [number, number][] = [];
  for (const m of s.matchAll(TAG)) out.push([m.index, m.index + m[0].length]);
  return out;
}
