/**
 * The scan engine: one case-insensitive pass finds every rule's literal
 * keywords; only the rules whose keyword occurred run, at the positions it
 * occurred; then resolve overlapping findings and render the replacement.
 */
import { contextRule } from "./context.ts";
import { encodedRule } from "./rules/encoded.ts";
import { entropyRule } from "./rules/entropy.ts";
import { prefixRule } from "./prefix.ts";
import { type Printed, printedLines } from "./printed.ts";
import { STRUCTURAL_NAMES, STRUCTURAL_RULES } from "./structural.ts";
import { DECODE_BUDGET, DECODE_DEPTH } from "./decode.ts";
import { codeUnits, giveBackRuns, lendRuns, RUN_MIN } from "./runs.ts";
import type { UserPattern } from "./pattern.ts";
import type { Finding, Inner, Rule, ScanCtx } from "./types.ts";

/** Every built-in rule. */
export const BUILTIN_RULES: readonly Rule[] = [prefixRule, ...STRUCTURAL_RULES, contextRule, encodedRule, entropyRule];

let kinds: readonly string[] | undefined;
/**
 * Every built-in finding kind, sorted: built on first ask, not at start-up,
 * where every hook process would pay for it before the JIT runs.
 *
 * @example
 * ```ts
 * builtinKinds().includes("github-pat"); // true
 * ```
 */
export function builtinKinds(): readonly string[] {
  return (kinds ??= [...new Set(BUILTIN_RULES.flatMap((r) => r.kinds))].sort());
}

/** A user-supplied pattern (config `redact.extra`), compiled by RE2 (pattern.ts): runs over the whole text in linear time. */
export type ExtraRule = UserPattern;

const MAX_HITS_PER_KEYWORD = 200_000;

interface KeywordIndex {
  readonly words: readonly string[];
  /**
   * Each code unit's 6-bit code: 1-63 for the (case-folded) characters that
   * open some keyword's first three, 0 for every other unit. Past ASCII they
   * share one code (a keyword in another script: `пароль`, `密码`), and so do
   * the ASCII characters past the first 62 (`>` of `>>> `, the rarer digits
   * of `*7`, `*9`), so such a keyword's triple does not vouch for its first
   * three: see verifyFrom.
   */
  readonly code: Uint8Array;
  /**
   * The triples that open keywords, (code0 << 12 | code1 << 6 | code2) + 1,
   * hashed (tripleSlot) into a table of twice their number or more, 0 for an
   * empty slot; `tripleLists` holds each one's list number. A two-character
   * keyword sits under every third code. A dense table of all 2^18 triples
   * was 512 KB, which a hook's first scan touched page by page while
   * numbering some 500 of them (the index built in 2.8-3.0 ms against
   * 2.6 now, a 10 KB hook's peak RSS 0.5 MB more), and the pass reads a
   * slot only where tripleBits says one is listed.
   */
  readonly tripleKeys: Int32Array;
  readonly tripleLists: Uint16Array;
  /** log2 of the hash table's size. */
  readonly slotBits: number;
  /** One bit per triple: whether any keyword is listed under it (32 KB, read at every unit). */
  readonly tripleBits: Int32Array;
  /** Keyword indices sharing a triple, ascending: list `l` is `listFlat[listOff[l - 1]..listOff[l])`. */
  readonly listOff: Int32Array;
  readonly listFlat: Int32Array;
  /** Keyword `k`'s characters are `wordChars[wordOff[k]..wordOff[k + 1])`. */
  readonly wordOff: Int32Array;
  readonly wordChars: Uint16Array;
  /** Where keyword `k`'s comparison starts: 3 when its triple's codes are its own first three, 0 when one is the shared code. */
  readonly verifyFrom: Uint8Array;
  /**
   * findKeywords' hit list per keyword while it runs, empty between calls (it
   * clears the slots it filled): one array of every keyword's length made per
   * call cost each of a record's strings an allocation the size of the index.
   */
  readonly byWord: (number[] | undefined)[];
}

const indexCache = new WeakMap<readonly Rule[], KeywordIndex>();

/**
 * Built on the first scan of every process, before the JIT has run, so a
 * hook pays the interpreter's price for every step: the per-character work
 * is two native calls, the rest short loops over typed arrays, counted then
 * filled, with no nested arrays, closures or iterators.
 */
function keywordIndex(rules: readonly Rule[]): KeywordIndex {
  let ix = indexCache.get(rules);
  if (ix) return ix;
  const words = [...new Set(rules.flatMap((r) => r.keywords))];
  // Native calls for the per-character work: one check, one copy.
  const joined = words.join("");
  // Lower case (the pass folds capitals and compares the rest as is).
  if (joined.toLowerCase() !== joined) throw new Error("a keyword is not lower case");
  const wordChars = codeUnits(joined);
  const wordOff = new Int32Array(words.length + 1);
  const verifyFrom = new Uint8Array(words.length).fill(3);
  const code = new Uint8Array(65536);
  let codes = 0;
  // The one code shared by every unit past ASCII that opens a keyword, and by the ASCII characters
  // past the first 62 (in keyword order) that do: six bits number 63 codes. 0 until one needs it.
  let shared = 0;
  for (let k = 0; k < words.length; k++) {
    const len = words[k]!.length;
    if (len < 2) throw new Error(`bad keyword ${words[k]}`);
    wordOff[k + 1] = wordOff[k]! + len;
    for (let j = 0; j < 3 && j < len; j++) {
      const c = wordChars[wordOff[k]! + j]!;
      if (code[c] === 0) {
        // One code is kept for the shared one until it is given out.
        const own = c < 128 && codes < (shared === 0 ? 62 : 63);
        const v = own ? ++codes : (shared ||= ++codes);
        code[c] = v;
        if (c >= 97 && c <= 122) code[c - 32] = v;
        else if (c >= 128) code[capitalOf(c)] = v;
      }
      // A shared code vouches for no character: the keyword is compared from its first.
      if (code[c] === shared) verifyFrom[k] = 0;
    }
  }
  // Number the triples in first-use order and count each one's keywords; then lay the lists out
  // flat. A three-character keyword has one triple; a two-character one (three of them) all 64.
  let triplesAtMost = 0;
  for (let k = 0; k < words.length; k++) triplesAtMost += wordOff[k + 1]! - wordOff[k]! === 2 ? 64 : 1;
  let slotBits = 4;
  while (1 << slotBits < 2 * triplesAtMost) slotBits++;
  const tripleKeys = new Int32Array(1 << slotBits);
  const tripleLists = new Uint16Array(1 << slotBits);
  const tripleBits = new Int32Array(1 << 13);
  const counts = new Int32Array(triplesAtMost + 1);
  // Each keyword's slot per triple, in the order counted, for the fill below.
  const slotOf = new Int32Array(triplesAtMost);
  let lists = 0;
  for (let k = 0, t = 0; k < words.length; k++) {
    const from = wordOff[k]!;
    const two = wordOff[k + 1]! - from === 2;
    const key = (code[wordChars[from]!]! << 12) | (code[wordChars[from + 1]!]! << 6) | (two ? 0 : code[wordChars[from + 2]!]!);
    for (let x = 0; x < (two ? 64 : 1); x++, t++) {
      const slot = tripleSlot(tripleKeys, slotBits, key + x);
      if (tripleKeys[slot] === 0) {
        if (++lists > 65535) throw new Error("more than 65,535 keyword triples");
        tripleKeys[slot] = key + x + 1;
        tripleLists[slot] = lists;
        tripleBits[(key + x) >>> 5]! |= 1 << ((key + x) & 31);
      }
      counts[tripleLists[slot]!]!++;
      slotOf[t] = slot;
    }
  }
  const listOff = new Int32Array(lists + 1);
  for (let l = 1; l <= lists; l++) listOff[l] = listOff[l - 1]! + counts[l]!;
  const listFlat = new Int32Array(listOff[lists]!);
  // Filled in keyword order, so each list is ascending; `counts` becomes each list's next slot.
  for (let l = 1; l <= lists; l++) counts[l] = listOff[l - 1]!;
  for (let k = 0, t = 0; k < words.length; k++) {
    const n = wordOff[k + 1]! - wordOff[k]! === 2 ? 64 : 1;
    for (let x = 0; x < n; x++, t++) listFlat[counts[tripleLists[slotOf[t]!]!]!++] = k;
  }
  ix = { words, code, tripleKeys, tripleLists, slotBits, tripleBits, listOff, listFlat, wordOff, wordChars, verifyFrom, byWord: new Array(words.length) };
  indexCache.set(rules, ix);
  return ix;
}

/**
 * The slot of `key` (a triple) in a hash table of 2^bits slots: its own, or
 * the empty one where it goes. Linear probing from a multiplicative hash; the
 * table is at most half full, so a probe is a step or two.
 */
function tripleSlot(keys: Int32Array, bits: number, key: number): number {
  const mask = (1 << bits) - 1;
  let slot = Math.imul(key, 0x9e3779b1) >>> (32 - bits);
  while (keys[slot] !== 0 && keys[slot] !== key + 1) slot = (slot + 1) & mask;
  return slot;
}

/** ASCII letters folded to lower case, every other unit below 128 as it is (units past ASCII are foldBeyond's: a 64K table cost every process 0.3-0.5 ms to fill at load). */
const FOLD = new Uint8Array(128);
for (let c = 0; c < 128; c++) FOLD[c] = c >= 65 && c <= 90 ? c + 32 : c;

/**
 * A unit past ASCII folded to lower case: Latin-1's capitals (`Ñ`, `Ö`), Cyrillic's (`П`, `Ё`), and
 * the Latin extensions' that pair a capital with the next unit (`Ł`, `Ş`, `Ă`, `Ș`, Vietnamese's
 * `Ậ`); every other as it is (CJK, Arabic, Hebrew and the like have no case). A function, not a
 * table: a 64K-entry table filled at start-up cost a cold hook more than the rare compares it serves.
 */
const foldBeyond = (c: number): number => {
  if ((c >= 0xc0 && c <= 0xde && c !== 0xd7) || (c >= 0x410 && c <= 0x42f)) return c + 32;
  if (c >= 0x400 && c <= 0x40f) return c + 80;
  return pairedCapital(c) ? c + 1 : c;
};
/** Whether `c` is a capital whose small letter is `c + 1` (Latin Extended-A and -B's pairs, Latin Extended Additional). */
const pairedCapital = (c: number): boolean =>
  ((c >= 0x100 && c <= 0x137) || (c >= 0x14a && c <= 0x177) || (c >= 0x218 && c <= 0x21f) || (c >= 0x1e00 && c <= 0x1eff)) ? c % 2 === 0 : (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17e) ? c % 2 === 1 : false;
/** The capital foldBeyond folds to lower-case `c` (one of its three offsets), or `c`: asked only of the units that open keywords. */
const capitalOf = (c: number): number => [c - 32, c - 80, c - 1].find((x) => x >= 128 && foldBeyond(x) === c) ?? c;
/** Whether text unit `c` folds to keyword unit `w`. */
const foldsTo = (c: number, w: number): boolean => (c < 128 ? FOLD[c] === w : foldBeyond(c) === w);

/**
 * Every occurrence of every keyword, ASCII case-insensitive, in one pass over
 * the text's code units (runs.ts): the codes of three characters, rolled
 * along, pick the few candidate keywords at each position: one bit test,
 * and where it passes (a few percent of units) one hash lookup. Per-keyword
 * `indexOf` passes (and lowercasing a copy) cost hundreds of milliseconds
 * on 5 MB of UTF-16 text; with all 323 keywords, the pair
 * table it replaced (first character, pair, third-character set) took 67 ms
 * and this 40, both counting the ~28 ms of making the code units and the
 * token runs that every scan pays anyway.
 */
function findKeywords(u: Uint16Array, ix: KeywordIndex): Map<string, number[]> {
  const { words, byWord } = ix;
  // Only the keywords that occur are listed and visited after the pass: a record of thousands of
  // short strings paid for every keyword (323) per string.
  const touched: number[] = [];
  try {
    keywordPass(u, ix, touched);
    // Keywords in the order of their first hit (then list order, which is index order): the order
    // the rules that walk every hit (prefixRule.scanHits) have always seen.
    if (touched.length > 1) touched.sort((x, y) => byWord[x]![0]! - byWord[y]![0]! || x - y);
    const hits = new Map<string, number[]>();
    for (const k of touched) hits.set(words[k]!, byWord[k]!);
    return hits;
  } finally {
    // Left empty even when the pass throws: a stale slot would hide its keyword from the next call.
    for (const k of touched) byWord[k] = undefined;
  }
}

/**
 * findKeywords' pass: each keyword's positions into `ix.byWord`, and the
 * keywords met into `touched` in the order met. Apart from its caller's
 * `try`: with the pass inside it a cold 5 MB redaction took 1.021-1.027x as
 * long (30 pairs, twice).
 */
function keywordPass(u: Uint16Array, ix: KeywordIndex, touched: number[]): void {
  const { code, tripleKeys, tripleLists, slotBits, tripleBits, listOff, listFlat, wordOff, wordChars, verifyFrom, byWord } = ix;
  const n = u.length;
  if (n < 2) return;
  // The keywords listed under triple `key` that occur at `i`. Apart from the pass: the loop over
  // every unit is then a few instructions, which a cold process runs in its lower tiers for the
  // first part of a long text (a cold 5 MB pass, alternating: 33.2 against 37.8 ms).
  const visit = (i: number, key: number): void => {
    const li = tripleLists[tripleSlot(tripleKeys, slotBits, key)]!;
    for (let x = listOff[li - 1]!, end = listOff[li]!; x < end; x++) {
      const k = listFlat[x]!;
      const from = wordOff[k]!;
      const len = wordOff[k + 1]! - from;
      if (i + len > n) continue;
      // The codes matched the first three (unless one is the shared code); the rest compares folded.
      let j = verifyFrom[k]!;
      while (j < len && foldsTo(u[i + j]!, wordChars[from + j]!)) j++;
      if (j < len) continue;
      let h = byWord[k];
      if (h === undefined) {
        byWord[k] = h = [];
        touched.push(k);
      }
      if (h.length < MAX_HITS_PER_KEYWORD) h.push(i);
    }
  };
  let key = (code[u[0]!]! << 6) | code[u[1]!]!;
  let i = 0;
  for (; i + 2 < n; i++) {
    key = ((key << 6) | code[u[i + 2]!]!) & 0x3ffff;
    if ((tripleBits[key >>> 5]! & (1 << (key & 31))) !== 0) visit(i, key);
  }
  // The last position has no third unit: a two-character keyword can still open there.
  key = (key << 6) & 0x3ffff;
  if ((tripleBits[key >>> 5]! & (1 << (key & 31))) !== 0) visit(i, key);
}

const NONE: number[] = [];

/** The name `--explain` gives a built-in rule. */
function ruleName(rule: Rule): string {
  if (rule === prefixRule) return "prefix";
  if (rule === contextRule) return "key-value";
  if (rule === entropyRule) return "entropy";
  if (rule === encodedRule) return "encoded";
  return STRUCTURAL_NAMES.get(rule) ?? rule.kinds[0] ?? "rule";
}

/** Nesting and the decoded-bytes budget shared by one top-level redaction. */
export interface ScanOpts {
  readonly depth?: number;
  readonly budget?: { left: number };
  readonly strict?: boolean;
  /** `s` as code units (runs.ts codeUnits), when the caller already made them for a later pass. */
  readonly units?: Uint16Array;
  /** `s` is what a command that prints a secret printed (printed.ts): its one-token lines are the secret. */
  readonly printed?: Printed;
}

/**
 * The strongest finding (highest priority, then earliest) in `findings`.
 *
 * @example
 * ```ts
 * strongest([{ from: 0, start: 4, end: 40, kind: "github-pat", priority: 3 }]); // { kind: "github-pat", priority: 3 }
 * ```
 */
export function strongest(findings: readonly Finding[]): Inner | undefined {
  let best: Finding | undefined;
  // An unlabelled-entropy find (priority below 1) names nothing: decoded random bytes are just that.
  for (const f of findings) if (f.priority >= 1 && (!best || f.priority > best.priority || (f.priority === best.priority && f.start < best.start))) best = f;
  return best && { kind: best.kind, priority: best.priority };
}

/**
 * A rescanner for decoded plaintext at `depth + 1`, charged to `budget`;
 * undefined past the nesting limit.
 */
export function innerScanner(rules: readonly Rule[], extras: readonly ExtraRule[], depth: number, budget: { left: number }): ((plain: string) => Inner | undefined) | undefined {
  return strongestOf(decodedScanner(rules, extras, depth, budget));
}

/** A rescan's strongest find (ScanCtx.inner). */
const strongestOf = (found: DecodedScanner | undefined): ((plain: string) => Inner | undefined) | undefined =>
  found &&
  ((plain) => {
    const f = found(plain);
    return f && strongest(f);
  });

/** A rescan's finds, resolved into segments (ScanCtx.segments). */
const segmentsOf = (found: DecodedScanner | undefined): ((plain: string) => Segment[] | undefined) | undefined =>
  found &&
  ((plain) => {
    const f = found(plain);
    return f && resolve(f);
  });

type DecodedScanner = (plain: string) => Finding[] | undefined;

/** The findings of decoded plaintext at `depth + 1`, charged to `budget`; undefined past the nesting limit or the budget. */
function decodedScanner(rules: readonly Rule[], extras: readonly ExtraRule[], depth: number, budget: { left: number }): DecodedScanner | undefined {
  if (depth >= DECODE_DEPTH) return undefined;
  return (plain) => {
    if (plain.length > budget.left) return undefined;
    budget.left -= plain.length;
    return scan(plain, rules, extras, { depth: depth + 1, budget });
  };
}

/**
 * All raw findings in `s` (overlapping, unresolved).
 *
 * @example
 * ```ts
 * scan("token=" + "ghp_" + "A1b2".repeat(9)).length; // >= 1
 * ```
 */
export function scan(s: string, rules: readonly Rule[] = BUILTIN_RULES, extras: readonly ExtraRule[] = [], opts: ScanOpts = {}): Finding[] {
  const out: Finding[] = [];
  if (s.length < 4) return out;
  const depth = opts.depth ?? 0;
  const units = opts.units ?? codeUnits(s);
  // The run list is lent (runs.ts) for the rules' pass only: no rule keeps it.
  const runs = lendRuns(units, RUN_MIN);
  try {
    // One rescan of decoded plaintext, read two ways: its strongest find, and where its finds are.
    const rescan = decodedScanner(rules, extras, depth, opts.budget ?? { left: DECODE_BUDGET });
    const ctx: ScanCtx = { s, units, runs, out, memo: {}, inner: strongestOf(rescan), segments: segmentsOf(rescan), strict: opts.strict === true };
    const hits = findKeywords(units, keywordIndex(rules));
    // No keyword occurred: only the keyword-free rules have anything to read (most strings of a
    // record). Asked once here, not per rule: a cold hook's interpreter pays a native getter's
    // slow path at every `hits.size`, some 160 rules times every string of the record.
    const anyHit = hits.size > 0;
    for (const rule of rules) {
      if (!anyHit && rule.keywords.length > 0) continue;
      const before = out.length;
      runRule(ctx, rule, hits);
      if (out.length > before) {
        const name = ruleName(rule);
        for (let i = before; i < out.length; i++) out[i]!.rule ??= name;
      }
    }
  } finally {
    giveBackRuns(runs);
  }
  for (const x of extras) {
    for (const [from, start, end] of x.matches(s, 100_000)) out.push({ from, start, end, kind: x.kind, priority: 2, rule: "user" });
  }
  if (opts.printed) {
    const before = out.length;
    printedLines(s, 0, s.length, opts.printed, out);
    for (let i = before; i < out.length; i++) out[i]!.rule = "printed";
  }
  return out;
}

/** Runs one rule at its keyword hits (or over all hits at once, for a rule with `scanHits`). */
function runRule(ctx: ScanCtx, rule: Rule, hits: ReadonlyMap<string, readonly number[]>): void {
  if (rule.scanHits) {
    rule.scanHits(ctx, hits);
    return;
  }
  if (rule.keywords.length === 1) {
    const kw = rule.keywords[0]!;
    for (const p of hits.get(kw) ?? NONE) rule.scan(ctx, p, kw);
    return;
  }
  // Several keywords: visit positions in order so rule memos stay valid. Each keyword's list is
  // ascending (findKeywords), so the lists are merged by their heads, a tie going to the keyword
  // listed first. A [position, keyword] pair per hit, sorted, cost the key/value rule's 50,000
  // hits in a 5 MB document 5 ms and as many arrays for the collector.
  const lists: (readonly number[])[] = [];
  const words: string[] = [];
  for (const kw of rule.keywords) {
    const l = hits.get(kw);
    if (l === undefined || l.length === 0) continue;
    lists.push(l);
    words.push(kw);
  }
  // Most rules meet none or one of their keywords in a string: no merge.
  if (lists.length === 0) return;
  if (lists.length === 1) {
    for (const p of lists[0]!) rule.scan(ctx, p, words[0]!);
    return;
  }
  const heads = new Int32Array(lists.length);
  for (;;) {
    let k = -1;
    let p = Infinity;
    for (let x = 0; x < lists.length; x++) {
      const l = lists[x]!;
      const h = heads[x]!;
      if (h < l.length && l[h]! < p) {
        p = l[h]!;
        k = x;
      }
    }
    if (k < 0) return;
    heads[k]!++;
    rule.scan(ctx, p, words[k]!);
  }
}

/** A resolved, non-overlapping span to replace. */
export interface Segment {
  readonly start: number;
  readonly end: number;
  readonly kind: string;
  readonly checksum?: boolean;
  readonly within?: string;
  /** The rule that found it (see Finding.rule). */
  readonly rule?: string;
  /** The tag to render (a copy of a secret in another form carries the original's tag). */
  readonly tag?: string;
  /** The whole secret this segment shows a piece of (Finding.of). */
  readonly of?: string;
}

/** The segment `[start, end)` named by finding `best`. */
const segmentOf = (start: number, end: number, best: Finding): Segment => {
  const g: Segment = best.within === undefined
    ? { start, end, kind: best.kind, checksum: best.checksum, rule: best.rule }
    : { start, end, kind: best.kind, checksum: best.checksum, within: best.within, rule: best.rule };
  // Only a dump's pieces carry the whole secret: the rest keep the smaller shape.
  return best.of === undefined ? g : { ...g, of: best.of };
};

/**
 * Resolves overlaps: a finding inside a higher-priority finding's whole match
 * (prefix included) is dropped, so `Authorization: Bearer ghp_…` keeps `ghp_`;
 * anything else that overlaps is merged, so no part of a secret escapes.
 *
 * @example
 * ```ts
 * resolve([{ from: 0, start: 4, end: 10, kind: "a", priority: 3 }, { from: 0, start: 0, end: 10, kind: "b", priority: 1 }]);
 * // [{ start: 4, end: 10, kind: "a" }]
 * ```
 */
export function resolve(findings: readonly Finding[]): Segment[] {
  if (findings.length === 0) return [];
  const sorted = [...findings].sort(byFromThenLongest);
  const out: Segment[] = [];
  let i = 0;
  while (i < sorted.length) {
    // A cluster: findings whose [from, end) ranges chain-overlap.
    let j = i + 1;
    let hi = sorted[i]!.end;
    while (j < sorted.length && sorted[j]!.from < hi) {
      hi = Math.max(hi, sorted[j]!.end);
      j++;
    }
    // Most clusters are one finding (thousands in a long output): its segment, with no arrays or
    // closures made for it.
    if (j === i + 1) {
      const f = sorted[i]!;
      out.push(segmentOf(f.start, f.end, f));
      i = j;
      continue;
    }
    const kept = undominated(sorted.slice(i, j));
    i = j;
    kept.sort(byStartThenPriority);
    let best = kept[0]!;
    let start = best.start;
    let end = best.end;
    for (let k = 1; k < kept.length; k++) {
      const f = kept[k]!;
      if (f.start < end) {
        end = Math.max(end, f.end);
        if (f.priority > best.priority) best = f;
        continue;
      }
      out.push(segmentOf(start, end, best));
      best = f;
      start = f.start;
      end = f.end;
    }
    out.push(segmentOf(start, end, best));
  }
  return out;
}

const byFromThenLongest = (a: Finding, b: Finding): number => a.from - b.from || b.end - a.end;
const byStartThenPriority = (a: Finding, b: Finding): number => a.start - b.start || b.priority - a.priority;

/**
 * The findings of a cluster (sorted by `from`) that no finding of higher
 * priority holds whole (`from <= start`, `end <= its end`). Each finding
 * against every other is the plain way, and fine for the few findings a
 * cluster has; a text built so every finding overlaps the next
 * (`token=token=…`) makes one cluster of thousands, so past a handful each
 * priority asks the higher ones by a prefix maximum of their ends instead.
 */
function undominated(cluster: readonly Finding[]): Finding[] {
  if (cluster.length <= 32) {
    const kept: Finding[] = [];
    for (const f of cluster) {
      let held = false;
      for (const g of cluster) if (g.priority > f.priority && g.from <= f.start && f.end <= g.end) held = true;
      if (!held) kept.push(f);
    }
    return kept;
  }
  const dropped = new Uint8Array(cluster.length);
  const priorities = new Set<number>();
  for (const f of cluster) priorities.add(f.priority);
  for (const p of priorities) {
    // The higher findings in `from` order, and the furthest end among the first j of them.
    const froms: number[] = [];
    const reach: number[] = [];
    for (const g of cluster) {
      if (g.priority <= p) continue;
      froms.push(g.from);
      reach.push(Math.max(g.end, reach.length > 0 ? reach[reach.length - 1]! : -1));
    }
    if (froms.length === 0) continue;
    for (let i = 0; i < cluster.length; i++) {
      const f = cluster[i]!;
      if (f.priority !== p) continue;
      // The last higher finding that starts at or before f.start.
      let lo = 0;
      let hi = froms.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (froms[mid]! <= f.start) lo = mid + 1;
        else hi = mid;
      }
      if (lo > 0 && reach[lo - 1]! >= f.end) dropped[i] = 1;
    }
  }
  const kept: Finding[] = [];
  for (let i = 0; i < cluster.length; i++) if (dropped[i] === 0) kept.push(cluster[i]!);
  return kept;
}

/**
 * Replaces each segment with `[REDACTED:<kind>:<tag>]`.
 *
 * @example
 * ```ts
 * render("a=secret", [{ start: 2, end: 8, kind: "password" }], () => "0000"); // "a=[REDACTED:password:0000]"
 * ```
 */
export function render(s: string, segs: readonly Segment[], tag: (secret: string) => string): string {
  if (segs.length === 0) return s;
  // `+=` builds a rope that is flattened once by whoever reads it; a parts
  // array + join copied 5 MB of UTF-16 per call in profiles.
  let out = "";
  renderTo(s, segs, tag, (piece) => {
    out += piece;
  });
  return out;
}

/**
 * render's output as the pieces it is made of, in order, to `put`: the text
 * between secrets (slices of `s`) and each replacement. For a writer that
 * encodes as it goes: the rope render builds costs a 5 MB output a flattening
 * copy and a second encoded copy before the first byte is written.
 *
 * @example
 * ```ts
 * const parts: string[] = [];
 * renderTo("a=secret!", [{ start: 2, end: 8, kind: "password" }], () => "0000", (p) => parts.push(p));
 * parts; // ["a=", "[REDACTED:password:0000]", "!"]
 * ```
 */
export function renderTo(s: string, segs: readonly Segment[], tag: (secret: string) => string, put: (piece: string) => void): void {
  let at = 0;
  for (const g of segs) {
    if (g.start > at) put(s.slice(at, g.start));
    put(`[REDACTED:${g.kind}:${g.tag ?? tag(s.slice(g.start, g.end))}]`);
    at = g.end;
  }
  if (at < s.length || segs.length === 0) put(s.slice(at));
}
