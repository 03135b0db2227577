/**
 * Secrets with a weak label or none: a context-aware entropy rule.
 *
 * One pass over the text finds every token-like run (10 to 4,096 characters
 * of `A-Z a-z 0-9 + / = _ - . ~`; unlabelled ones score from 20 up to 1,024).
 * A run is redacted when it looks random and no guard says what else it is:
 *
 * - **guards** (never redacted by this rule): pure hex outside a label (git
 *   object ids, digests, trace ids; 32 digits alone on a line do count),
 *   UUIDs outside a label, anything after
 *   `sha1-`/`sha256:`/`sha512-`/`h1:`/`integrity`/`base64,` (digests,
 *   lockfile hashes, `data:image/…;base64,` blobs), paths, host names,
 *   versions and dotted member paths, identifiers built of words
 *   (`release-2024-01-05`, `getUser2FAToken`);
 * - **randomness**: letters and digits mixed, Shannon entropy near the
 *   maximum its length and alphabet allow, and few letter runs that read as
 *   words (letter pairs scored against English, PAIR_LEVELS);
 * - **weak labels** on the same line just before it (`Key=`, `token - '…'`,
 *   `Your API key is …`, `authenticated with …`, `pass '…'`), or being alone
 *   on a line, lower the bar: shorter tokens, hex and UUIDs count.
 *
 * `strict` (the export's second pass, `tracegate redact --strict`) lowers the
 * bar further and lets unlabelled hex of 32+ characters through. The hook
 * never runs strict. Priority is the lowest of all rules, so any rule that
 * knows the token's kind wins on overlap.
 */
import { decodeBase64Text, mayOpenText } from "../decode.ts";
import { afterArnColon, classifyKey, entropyOfUnits, isAsciiLetter, spaceOrQuote, negatedKey, randomHexEntropy } from "../keys.ts";
import { isTokenUnit, RUN_DIGIT, RUN_EQUALS, RUN_LOWER, RUN_MIN, RUN_UPPER, runLetters } from "../runs.ts";
import type { Finding, Rule, ScanCtx } from "../types.ts";

/** Longest run scored unlabelled; a label lets runs of up to LABELLED_MAX through (STS session tokens run ~800). */
const MAX = 1024;
const LABELLED_MAX = 4096;
const LABELLED_MIN = RUN_MIN;

// Weak labels: a secret-ish word, then a separator, right before the token on its line.
const LABEL = /(?:key|token|secret|passw(?:or)?d|passwd|pass|pwd|auth|credentials?|api|bearer|apikey|access|private|session|cookie|otp|pin|license)s?(?:\\?["'])?(?:[ \t]*(?:[:=]|=>|:=|-|is|was|of|for)[ \t]*|[ \t]+(?:is[ \t]+)?)["'`({<[]?$/i;
// Jenkins credentials.xml keeps secrets as `{AQAAABAAAA…}`; fixtures print `<secret>{name AQAAABAAA <token>}</secret>`.
const WITH = /(?:AQAAABAAA[A-Za-z0-9+/=]*[ \t]+|<(?:secret|password|token|apiKey|api_key|privateKey|passphrase|session)>\{?[ \t]*|(?:authenticated|authenticate|authorized|logged[ \t]+in|login|signed[ \t]+in|using|with)[ \t]+)(?:the[ \t]+)?(?:(?:api[ \t]+)?(?:key|token|secret|password)[ \t]+)?["'`]?$/i;
// What a token right after these is not a secret: digests, lockfile hashes, image data, a bcrypt hash's body (`$2b$12$…`).
const ID_BEFORE = /(?:request|trace|correlation|span|session|message|event|run|job|build|transaction|causation|device|instance|object|upload|version|amz-cf|cf-ray|etag)[-_]?(?:id)?["']?[ \t]{0,4}[:=][ \t]{0,4}["']?$/i;
const GUARD_BEFORE = /(?:sha(?:1|224|256|384|512)[-:~]|md5[-:]|h1:|integrity[^\n]{0,24}|base64,|@sha256:|\bcommit[ \t]+|\bsha[ \t:=]+|\bnonce-|\/(?:blob|tree|commit|commits|compare)\/|#|\$2[abxy]?\$\d\d\$)$/i;
/**
 * Provider object ids (Stripe `in_…`/`evt_…`/`cus_…`, OpenAI `chatcmpl-…`, Anthropic `msg_…`/`toolu_…`):
 * identifiers agents print all the time, not credentials.
 */
const OBJECT_ID = /^(?:chatcmpl|cmpl|msg|toolu|srvtoolu|req|run|asst|thread|call|file|batch|ft|ftjob|evt|in|ii|il|cus|pi|pm|ch|re|sub|si|price|prod|txn|acct|cs|seti|src|po|py|tr|card|ba|ic|ord|sku|plink|promo|inv|pay|payout|dp|du|mbur|fee|cbtxn|link|ses|sess|job|span|trace|resp|conv|step|vs|vsfb|modr|img|usr|user|org|team|ws|env|dep|build|pr|commit)[_-][A-Za-z0-9]{8,64}$/;
/** A line whose key names a hash or digest (`source_code_hash = "…" -> "…"`, `"password_hash": …`). */
const HASH_LINE = /(?:hash|digest|checksum|fingerprint|integrity|etag|sha\d{0,3}sum|nonce)\b|_hash\b|Hash["']?\s*[:=]/i;
/**
 * Keys whose values are ids, names, hashes or locations (`"id":`, `request_id=`,
 * `model:`, minified `var ow=`), never credentials. A provider-named key
 * (`apiMetrics := "…"`) is not on the list: its random value still counts.
 */
const NON_SECRET_KEY = /(?:^|[_.-])(?:ids?|uuid|guid|name|hash|etag|url|uri|path|version|type|kind|region|zone|cursor|page|file|sha|commit|digest|ref|tag|label|title|slug|model|object|event|request|trace|span|host|domain|email)$|[a-z](?:Id|ID|Ids|Name|Hash|Url|Uri|Path|Type|Kind)$|^[\w$]{1,2}$/;
/**
 * Whether a JSON key names a value that is public by design (a signature, MAC,
 * hash, digest, id or name: `"signature"`, `"diff_sha256"`, `"request_id"`),
 * so a random-looking string under it is not an unlabelled secret. The value
 * walk uses it: there the key is not in the text the rule sees.
 *
 * @example
 * ```ts
 * publicValueKey("signature"); // true
 * publicValueKey("stdout");    // false
 * ```
 */
export function publicValueKey(key: string): boolean {
  return /(?:^|[_.-])(?:sig|signature|mac|hmac|hash|checksum|digest|nonce|etag|fingerprint|sha\d*|md5)$|[a-z](?:Signature|Hash|Digest|Checksum|Mac)$/i.test(key) || NON_SECRET_KEY.test(key);
}

/** Kubernetes pod names: `<deployment>-<replicaset hash>-<5>` and `<job>-<5>`. */
const POD = /^(?:[a-z][a-z0-9]*-)+(?:[a-z0-9]{6,10}-)?[a-z0-9]{5}$/;
/** What may follow a key before its value: a closing quote, spaces, the separator, spaces, an opening quote. */
const KEY_TAIL = /(?:\\?["'])?[ \t]{0,4}(?::=|=>|[:=|])[ \t]{0,4}(?:\\?["'`])?$/y;
const isKeyHead = (c: number): boolean => isAsciiLetter(c) || (c >= 48 && c <= 57) || c === 95 || c === 36;

/**
 * The key of `key = value`, `"key": "value"`, `key := value` when `h` ends
 * right before the value: what `/([\w$][\w$.-]{0,63})<KEY_TAIL>/.exec(h)[1]`
 * gives, found from the end. Nothing in a tail is a key character, so the
 * key can only end after the last one; the regex, tried at every start,
 * read each line head some 60 times over.
 *
 * @example
 * ```ts
 * keyBefore('  "client_id": "'); // "client_id"
 * keyBefore("no separator ");    // undefined
 * ```
 */
export function keyBefore(h: string): string | undefined {
  let end = h.length;
  while (end > 0 && !isKeyUnit(h.charCodeAt(end - 1))) end--;
  if (end === 0) return undefined;
  KEY_TAIL.lastIndex = end;
  if (!KEY_TAIL.test(h)) return undefined;
  let start = end - 1;
  while (start > 0 && end - start < 64 && isKeyUnit(h.charCodeAt(start - 1))) start--;
  // The first character is a word character or `$`, not `.` or `-`.
  while (start < end && !isKeyHead(h.charCodeAt(start))) start++;
  return start < end ? h.slice(start, end) : undefined;
}
const isKeyUnit = (c: number): boolean => isKeyHead(c) || c === 46 || c === 45;
/**
 * A numbered label's word, the number and a colon, at a line head's end (labelVerdict): printed
 * labels only (`Unseal Key 1: `), not code's `=` (`var 06="…"` in a minified bundle is a name).
 */
const NUMBERED_KEY = /([A-Za-z_][\w$.-]{0,63})[ \t]#?\d{1,3}[ \t]{0,4}:[ \t]{0,4}(?:\\?["'`])?$/;
const isDigits = (t: string): boolean => {
  for (let i = 0; i < t.length; i++) if (!isDigitUnit(t.charCodeAt(i))) return false;
  return true;
};
const ID_LINE = /^[ \t"']*[\w-]*(?:request|trace|correlation|span|causation|session)[-_]?id["']?[ \t]*[:=]/i;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** Base64 DER and ssh public keys: SPKI EC/RSA/Ed25519 and `ssh-rsa`/`ssh-ed25519` bodies. */
const PUBLIC_DER = /^(?:MFkwEwYHKoZIzj0|MHYwEAYHKoZIzj0|MIGbMBAGByqGSM49|MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A|MIICIjANBgkqhkiG9w0BAQEFAAOCAg8A|MCowBQYDK2Vw|AAAAB3NzaC1|AAAAC3NzaC1|AAAAE2VjZHNh)/;

/**
 * Character classes for the counting loops, looked up rather than branched
 * on: in a random token every branch on a character's class is a coin toss
 * the CPU mispredicts, which cost five times the lookup on 5 MB of tokens.
 */
const OTHER = 0;
const DIGIT = 1;
const UPPER_HEX = 2;
const UPPER = 3;
const LOWER_HEX = 4;
const LOWER = 5;
/** `-` (UUIDs): not a letter or digit, and no reason to call a run not hex. */
const DASH = 6;
/** `/`: counted for the path test, which a token needs two of. */
const SLASH = 7;
const CLASS = new Uint8Array(65536);
for (let c = 48; c <= 57; c++) CLASS[c] = DIGIT;
for (let c = 65; c <= 90; c++) CLASS[c] = c <= 70 ? UPPER_HEX : UPPER;
for (let c = 97; c <= 122; c++) CLASS[c] = c <= 102 ? LOWER_HEX : LOWER;
CLASS[45] = DASH;
CLASS[47] = SLASH;
/** What the last countClasses call counted, per class. */
const CLASS_COUNTS = new Int32Array(8);

function countClasses(u: Uint16Array, from: number, to: number): void {
  // Eight stores: `fill` is a native call that costs more than the loop on a short token.
  CLASS_COUNTS[0] = CLASS_COUNTS[1] = CLASS_COUNTS[2] = CLASS_COUNTS[3] = CLASS_COUNTS[4] = CLASS_COUNTS[5] = CLASS_COUNTS[6] = CLASS_COUNTS[7] = 0;
  for (let i = from; i < to; i++) CLASS_COUNTS[CLASS[u[i]!]!]!++;
}

const isVowel = (c: number): boolean => c === 97 || c === 101 || c === 105 || c === 111 || c === 117 || c === 121;

/**
 * How often each letter pair occurs in English and identifiers, one row per
 * first letter: digit `d` means about 2^(d-4) times as often as a uniformly
 * random pair (0: rarely or never). Counted over the words of ~2,000 README
 * and `.d.ts` files by bench/redact/bigrams.ts. Random letters average about
 * 1.8 per pair; words 4 to 7.
 */
const PAIR_LEVELS = [
  "05650250402767040767432250", "50005000340500500320500020", "60306006405500710526400020", "51037010600200500250300020",
  "62674541220557254876053640", "50005400600300500422400020", "20006023500303200342300020", "60007000500000500315400000",
  "43555450003658740567040203", "10004001000000100040000000", "30005100300002000030000000", "53047000610600510244520050",
  "55006000500240550030300000", "50676470504413640077530030", "25562330423568560745645100", "60027002400540640656400010",
  "00000000000100000000400000", "62438340703344620556531040", "40407104602201551157510040", "60427108700320550655502060",
  "34335420400556040655000000", "50006000400000400000000000", "40003004500003400320002000", "30202000200000050005000010",
  "00001000100023460032002000", "00003000100000000000000000",
];
const PAIR_LEVEL = new Uint8Array(26 * 26);
for (let x = 0; x < 26; x++) for (let y = 0; y < 26; y++) PAIR_LEVEL[x * 26 + y] = PAIR_LEVELS[x]!.charCodeAt(y) - 48;

/**
 * Whether letters `u[from..to)` read as a word: 4+ letters, a vowel share of
 * 0.15 to 0.67, no five consonants in a row, and letter pairs that English
 * uses (a mean level of 3.5: about one random run in ten reaches it;
 * `Byte`, `String`, `Extension`, `Hashedrekord` do).
 */
function wordLike(u: Uint16Array, from: number, to: number): boolean {
  const len = to - from;
  if (len < 4) return false;
  let vowels = 0;
  let cons = 0;
  let level = 0;
  let prev = -1;
  for (let x = from; x < to; x++) {
    const l = (u[x]! | 32) - 97;
    if (isVowel(l + 97)) {
      vowels++;
      cons = 0;
    } else if (++cons >= 5) return false;
    if (prev >= 0) level += PAIR_LEVEL[prev * 26 + l]!;
    prev = l;
  }
  if (level < 3.5 * (len - 1)) return false;
  const v = vowels / len;
  // Long runs read as words with fewer vowels (`String`, `Script`).
  return v <= 0.67 && (v >= 0.25 || (len >= 6 && v >= 0.15));
}

/**
 * The share of token `u[from..to)` covered by letter runs that read like words (`User`,
 * `token`, `Name`; a CONSTANT_NAME's parts too): runs split at digits,
 * symbols and lower-to-upper steps, lowercase or Capitalized or all capitals;
 * capitals before lowercase (`JSSyntax`) are an acronym and then a word.
 * One pass, no regex: it runs on every candidate token.
 *
 * Stops as soon as the share cannot pass `floor` and then says 0: a caller
 * comparing it with a bar at or above `floor` learns the same, and a random
 * token (no words) is read only as far as that.
 */
export function wordCover(u: Uint16Array, from: number, to: number, floor: number): number {
  let covered = 0;
  const n = to - from;
  const most = floor * n;
  let i = from;
  while (i < to) {
    if (covered + (to - i) <= most) return 0;
    let c = u[i]!;
    if (!isAsciiLetter(c)) {
      i++;
      continue;
    }
    const start = i;
    let uppers = 0;
    let lowers = 0;
    while (i < to) {
      c = u[i]!;
      const up = c >= 65 && c <= 90;
      if (!up && !(c >= 97 && c <= 122)) break;
      // A lower-to-upper step starts a new run (`getUser` -> `get`, `User`).
      if (up && lowers > 0) break;
      if (up) uppers++;
      else lowers++;
      i++;
    }
    // `JSSyntax`, `IDExtension`: only the word from the last capital is scored.
    const word = uppers > 1 && lowers > 0 ? i - lowers - 1 : start;
    if (wordLike(u, word, i)) covered += i - word;
  }
  return covered / n;
}

/** The longest run of units in `u[from..to)` each one code above the last (`abcdef` is 6). */
function ascendingRun(u: Uint16Array, from: number, to: number): number {
  let best = 1;
  let run = 1;
  for (let i = from + 1; i < to; i++) {
    run = u[i]! === u[i - 1]! + 1 ? run + 1 : 1;
    if (run > best) best = run;
  }
  return best;
}

/** Whether token `t` (`f`'s) is a path, host name, version, member path or word-built identifier. */
function structured(t: string, f: TokenFacts): boolean {
  // Both shapes below need a separator: most random tokens have none, and leave here (an `_` is
  // among the units countFacts counted as other).
  if (f.dashes === 0 && f.slashes === 0 && (f.others === 0 || t.indexOf("_") < 0)) return false;
  const { u, from } = f;
  if (pathOfWords(u, from, from + t.length)) return true;
  // Words, names and short numbers joined by - _ or / (`my-test-org-123`,
  // `release_2024_01_05`, `HTTP2_HEADER_AUTHORITY`, `PKIX_RSA_PKCS1V15_2048_SHA256`, `MaxFileSize/1_000_000`).
  // Read from the units (no split, no allocation): a random token fails at its first piece.
  if (!namePieces(u, from, from + t.length)) return false;
  return capsOk(t, u, from);
}

/**
 * Whether `u[from..to)` is a path: two or more slashes, and at least half its
 * non-empty segments words (3+ letters, or two letter runs joined by one of
 * `-` `_` `.`). Random base64 has slashes too, and a long one has a
 * letters-only segment somewhere, hence half. Read from the units with no
 * split: agents print paths by the thousand (a build log holds one a line).
 */
function pathOfWords(u: Uint16Array, from: number, to: number, slashes = -1): boolean {
  // `slashes` when the caller has counted them (randomToken's class counts).
  if (slashes < 0) {
    slashes = 0;
    for (let i = from; i < to; i++) if (u[i] === 47) slashes++;
  }
  if (slashes < 2) return false;
  let segs = 0;
  let words = 0;
  for (let i = from; i <= to; ) {
    let j = i;
    while (j < to && u[j] !== 47) j++;
    if (j > i) {
      segs++;
      // Letters, then at most one joiner with letters after it.
      let k = i;
      while (k < j && isAsciiLetter(u[k]!)) k++;
      const head = k - i;
      if (k === j) {
        if (head >= 3) words++;
      } else if (head > 0 && (u[k] === 45 || u[k] === 95 || u[k] === 46)) {
        let m = k + 1;
        while (m < j && isAsciiLetter(u[m]!)) m++;
        if (m === j && m > k + 1) words++;
      }
    }
    i = j + 1;
  }
  return words * 2 >= segs;
}

/**
 * Whether token `u[from..to)` is a name built of pieces: two or more chunks
 * joined by runs of `-` `_` `/` (and nothing else but those around them), each chunk a word,
 * Capitalized word, acronym or camelCase run with an optional number (a version, `v2`, is one),
 * a size or count with a unit (`26B`, `4k`, `64bit`: `GEMMA_4_26B_A4B_IT_MODEL`), or a number.
 * That is the regex
 *
 *     ^[-_/]*P(?:[-_/]+P)+[-_/]*$   P = (?:W(?:\d{1,7}|\d{1,4}[A-Za-z]{1,3}\d{0,3})?|\d{1,8}|\d{1,4}[A-Za-z]{1,3})
 *     W = (?:[a-z]{1,14}|[A-Z][a-z]{1,13}|[A-Z]{1,14}|[A-Za-z][a-z]+(?:[A-Z][a-z]+)+)
 *
 * read from the code units chunk by chunk: a piece holds no separator, so
 * each chunk is one piece or the token is no name. The regex engine took
 * about a microsecond a token to learn that a random one is not.
 *
 * @example
 * ```ts
 * const name = (t: string) => namePieces(Uint16Array.from(t, (c) => c.charCodeAt(0)), 0, t.length);
 * name("release_2024_01_05"); // true
 * name("aB3x-Zq9Lm2Vt");      // false
 * ```
 */
export function namePieces(u: Uint16Array, from: number, to: number): boolean {
  let chunks = 0;
  let i = from;
  for (;;) {
    while (i < to && isJoiner(u[i]!)) i++;
    if (i >= to) return chunks >= 2;
    const start = i;
    while (i < to && !isJoiner(u[i]!)) i++;
    if (!isPiece(u, start, i)) return false;
    chunks++;
  }
}
const isJoiner = (c: number): boolean => c === 45 || c === 95 || c === 47;
const isDigitUnit = (c: number): boolean => c >= 48 && c <= 57;
const isLower = (c: number): boolean => c >= 97 && c <= 122;
const isUpper = (c: number): boolean => c >= 65 && c <= 90;

/** Whether `u[a..b)` (no joiner in it) is one piece: letters, digits, letters, digits, each part as the grammar allows. */
function isPiece(u: Uint16Array, a: number, b: number): boolean {
  let i = a;
  while (i < b && isAsciiLetter(u[i]!)) i++;
  const word = i - a;
  const d1 = i;
  while (i < b && isDigitUnit(u[i]!)) i++;
  const digits = i - d1;
  const l2 = i;
  while (i < b && isAsciiLetter(u[i]!)) i++;
  const letters = i - l2;
  const d2 = i;
  while (i < b && isDigitUnit(u[i]!)) i++;
  const digits2 = i - d2;
  if (i < b) return false;
  // A number, or a size with its unit (`26B`): no word in front.
  if (word === 0) return digits >= 1 && (letters === 0 ? digits <= 8 && digits2 === 0 : digits <= 4 && letters <= 3 && digits2 === 0);
  if (!isWord(u, a, d1)) return false;
  // The number after a word: up to 7 digits, or up to 4, a unit of up to 3 letters and up to 3 digits.
  if (digits === 0) return letters === 0;
  return letters === 0 ? digits <= 7 : digits <= 4 && letters <= 3 && digits2 <= 3;
}

/** `[a-z]{1,14}`, `[A-Z][a-z]{1,13}`, `[A-Z]{1,14}` or camelCase `[A-Za-z][a-z]+(?:[A-Z][a-z]+)+`, the letters `u[a..b)`. */
function isWord(u: Uint16Array, a: number, b: number): boolean {
  const n = b - a;
  let uppers = 0;
  for (let i = a + 1; i < b; i++) if (isUpper(u[i]!)) uppers++;
  // Lower case after the first letter: a word, Capitalized or not.
  if (uppers === 0) return n <= 14 && (n === 1 || isLower(u[a + 1]!));
  if (uppers === n - 1 && isUpper(u[a]!)) return n <= 14;
  // camelCase: a lower-case second letter and last letter, and no two capitals together after the first.
  if (n < 4 || !isLower(u[a + 1]!) || !isLower(u[b - 1]!)) return false;
  for (let i = a + 2; i < b - 1; i++) if (isUpper(u[i]!) && isUpper(u[i + 1]!)) return false;
  return true;
}

/**
 * Capitals only count as a name's piece when they read as a word or an
 * acronym (`HEADER`, `HTTP2`), not random (`BZWZYWJ`): request keys print as
 * `IZAT6SA-AJUQES1-BZWZYWJ-VDIXPVG`, licence keys as `VK7JG-NPHTM-…`. An
 * acronym of up to six capitals that is no word (`ECDHE`, `NGHTTP`) is one
 * in a name that also holds a word of four letters or more
 * (`TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384`, `NGHTTP2_ENHANCE_YOUR_CALM`):
 * random keys hold none.
 */
const CAPITALS_5 = /[A-Z]{5,}/g;
const LETTER_RUN_4 = /[A-Z]{4,}(?![a-z])|[A-Z]?[a-z]{3,}/g;
function capsOk(t: string, u: Uint16Array, from: number): boolean {
  // Over the whole token, not piece by piece: a run of capitals never crosses a separator.
  let acronym = false;
  for (const m of t.matchAll(CAPITALS_5)) {
    if (wordLike(u, from + m.index, from + m.index + m[0].length)) continue;
    if (m[0].length > 6) return false;
    acronym = true;
  }
  return !acronym || hasWord(t, u, from);
}

/** Whether a letter run of `t` (split at case steps, digits and separators) of 4+ letters reads as a word. */
function hasWord(t: string, u: Uint16Array, from: number): boolean {
  for (const m of t.matchAll(LETTER_RUN_4)) if (wordLike(u, from + m.index, from + m.index + m[0].length)) return true;
  return false;
}

interface Bar {
  readonly min: number;
  /** Fraction of the maximum entropy for the token's length and alphabet. */
  readonly frac: number;
  readonly hex: boolean;
  readonly uuid: boolean;
  readonly words: number;
}

const BARE: Bar = { min: 20, frac: 0.86, hex: false, uuid: false, words: 0.45 };
const BARE_STRICT: Bar = { min: 16, frac: 0.8, hex: true, uuid: false, words: 0.6 };
const LABELLED: Bar = { min: LABELLED_MIN, frac: 0.75, hex: true, uuid: true, words: 0.5 };
const WORDS_FLOOR = Math.min(BARE.words, BARE_STRICT.words, LABELLED.words);

/** Whether the token `f` describes passes `bar`: looks random and is not one of the guarded shapes. */
function randomToken(f: TokenFacts, bar: Bar): boolean {
  const n = f.to - f.from;
  if (n < bar.min || n > (bar === LABELLED ? LABELLED_MAX : MAX)) return false;
  // The character classes, counted once (factsOf): most runs (identifiers, words) stop here.
  const { digits, ups, lows } = f;
  const letters = ups + lows;
  if (letters < 4) return false;
  // A token with no digit is random only if long, and mixed-case throughout (camelCase words have few capitals).
  if (digits === 0 && !(n >= (bar === LABELLED ? 12 : 20) && ups >= letters * 0.25 && lows >= letters * 0.25)) return false;
  // Single-case hex is a digest or an id; mixed-case hex (`6d2FabeB6ADd…`) is not what hashes print.
  if (f.hexOnly) {
    const uuid = f.dashes === 4 && n === 36 && UUID.test(tokenText(f));
    if (uuid) return bar.uuid;
    if (f.singleCaseHex) {
      if (!bar.hex || n < (bar === LABELLED ? 12 : 32)) return false;
      // What n random hex digits give on average (see below), less the bar's margin: 14 digits after a label count.
      return (f.entropy ??= entropyOfUnits(f.u, f.from, f.to)) >= randomHexEntropy(n) * (bar === LABELLED ? bar.frac : 0.8);
    }
  }
  // A path (two slashes, word segments: `/home/dev/project/src/file20`) is shapeless()'s to rule out, but
  // build logs and listings hold one a line and it costs less than the entropy bar and the word cover.
  if (f.slashes >= 2 && (f.path ??= pathOfWords(f.u, f.from, f.to, f.slashes))) return false;
  // The entropy bar first (one pass, no allocation): most candidates fail it, and every test after it is dearer.
  // Mixed-case hex with no dash (past the test above) is drawn from 22 characters, not the 62 its
  // classes suggest; hex with dashes that is no UUID (`…-2` ETags, ids) keeps the dearer bar.
  const k = f.hexOnly && f.dashes === 0 ? 22 : (ups > 0 ? 26 : 0) + (lows > 0 ? 26 : 0) + (digits > 0 ? 10 : 0) + (letters + digits < n ? 4 : 0);
  // What n characters drawn at random from k give, on average (the plug-in
  // estimate falls short of log2 k by about (k-1)/(2n ln 2)), less a margin.
  const expected = Math.log2(k) - (k - 1) / (2 * n * Math.LN2);
  if ((f.entropy ??= entropyOfUnits(f.u, f.from, f.to)) < Math.min(expected, Math.log2(n)) * bar.frac) return false;
  // Every bar's word limit is at least WORDS_FLOOR (half of it without digits): the cover is computed once for both.
  if ((f.cover ??= wordCover(f.u, f.from, f.to, digits === 0 ? WORDS_FLOOR / 2 : WORDS_FLOOR)) > (digits === 0 ? bar.words / 2 : bar.words)) return false;
  // The rest of the tests do not depend on the bar.
  return (f.shapeless ??= shapeless(f));
}

/**
 * The token consider() is judging, `s[from..to)`, and what has been found of
 * it: counted from the code units, and sliced to a string only when a regex
 * must read it (most candidates are ruled out before). Kept for the second
 * randomToken call on the same token (the bare bar after the labelled one).
 * One record per scan, rewritten per token: no allocation on a path that
 * runs for every candidate, and nothing of the text outlives the scan.
 */
interface TokenFacts {
  s: string;
  u: Uint16Array;
  from: number;
  to: number;
  text: string | undefined;
  digits: number;
  ups: number;
  lows: number;
  dashes: number;
  slashes: number;
  /** Units of no class countClasses names: `_ . + = ~` in a token. */
  others: number;
  /** Hex digits and dashes only, either case (a UUID or hex). */
  hexOnly: boolean;
  /** `^[0-9a-f]+$|^[0-9A-F]+$`: what digests and git ids print. */
  singleCaseHex: boolean;
  entropy: number | undefined;
  cover: number | undefined;
  shapeless: boolean | undefined;
  path: boolean | undefined;
  /** The run being judged is held by a find that outranks a token: only base64 of `user:password` could count. */
  onlyDecoded: boolean;
}
const newFacts = (s: string, u: Uint16Array): TokenFacts => ({ s, u, from: 0, to: 0, text: undefined, digits: 0, ups: 0, lows: 0, dashes: 0, slashes: 0, others: 0, hexOnly: false, singleCaseHex: false, entropy: undefined, cover: undefined, shapeless: undefined, path: undefined, onlyDecoded: false });

/** Counts the classes of the token `f.from..f.to` (set by coreSpan) and forgets what was known of the last one. */
function countFacts(f: TokenFacts): void {
  countClasses(f.u, f.from, f.to);
  f.text = undefined;
  f.digits = CLASS_COUNTS[DIGIT]!;
  f.ups = CLASS_COUNTS[UPPER_HEX]! + CLASS_COUNTS[UPPER]!;
  f.lows = CLASS_COUNTS[LOWER_HEX]! + CLASS_COUNTS[LOWER]!;
  f.dashes = CLASS_COUNTS[DASH]!;
  f.slashes = CLASS_COUNTS[SLASH]!;
  f.others = CLASS_COUNTS[OTHER]!;
  f.hexOnly = CLASS_COUNTS[OTHER]! + CLASS_COUNTS[SLASH]! + CLASS_COUNTS[UPPER]! + CLASS_COUNTS[LOWER]! === 0;
  f.singleCaseHex = f.hexOnly && f.dashes === 0 && (CLASS_COUNTS[UPPER_HEX] === 0 || CLASS_COUNTS[LOWER_HEX] === 0) && f.to > f.from;
  f.entropy = undefined;
  f.cover = undefined;
  f.shapeless = undefined;
  f.path = undefined;
}

const tokenText = (f: TokenFacts): string => (f.text ??= f.s.slice(f.from, f.to));

/** Not a path, name, regex source, public key or charset table: nothing but random. */
function shapeless(f: TokenFacts): boolean {
  const t = tokenText(f);
  if (structured(t, f)) return false;
  // Regex sources (`[a-zA-Z0-9+/=]{88}`: each range has its dash) and public-key DER (SPKI, ssh: each opens with M or A) are not secrets.
  if (f.dashes > 0 && (t.includes("a-z") || t.includes("A-Z") || t.includes("0-9"))) return false;
  const c0 = t.charCodeAt(0);
  if ((c0 === 77 || c0 === 65) && PUBLIC_DER.test(t)) return false;
  // A charset table (`ABCDEFGH…abcdef…0123456789+/`): long runs of consecutive characters; or a
  // character class listing letters in order, either case (`[bcdeEfFgGoOpqstTUvxX]`, printf's verbs).
  return ascendingRun(f.u, f.from, f.to) < 6 && !lettersInOrder(f.u, f.from, f.to);
}

/** Whether `u[from..to)` is letters only whose case-folded order never falls (12+ of them: random letters do so about once in 50 million). */
function lettersInOrder(u: Uint16Array, from: number, to: number): boolean {
  if (to - from < 12) return false;
  let prev = 0;
  for (let i = from; i < to; i++) {
    const c = u[i]! | 32;
    if (c < 97 || c > 122 || c < prev) return false;
    prev = c;
  }
  return true;
}

/**
 * Whether a whole run (the core the rule scores may be one of its dotted
 * segments) is a file name (`mozilla/HiPKI_Root_CA_-_G1.crt`), a media type
 * (`application/vnd.3gpp-prose-pc3ach+xml`) or a path from a root directory
 * (`/usr/lib/x86_64-linux-gnu/e2fsprogs/e2scrub_all_cron`).
 */
function namesAFile(run: string): boolean {
  return FILE_NAME.test(run) || MEDIA_TYPE.test(run) || ROOTED_PATH.test(run);
}
const FILE_NAME = /\.(?:crt|pem|cer|der|csr|pub|txt|md|rst|json|ya?ml|toml|conf|cfg|ini|log|sh|py|js|mjs|cjs|ts|tsx|go|rs|rb|java|kt|c|h|cc|cpp|hpp|html?|css|xml|csv|tar|gz|tgz|xz|zip|so|dll|exe|png|jpe?g|gif|svg|ico|pdf|wasm|lock)$/;
const MEDIA_TYPE = /^(?:application|text|image|audio|video|font|model|multipart|message)\/[\w.+-]+$/;
const ROOTED_PATH = /^(?:\/(?:usr|etc|home|var|opt|tmp|lib|lib64|bin|sbin|run|proc|sys|dev|srv|mnt|root|Users|private|nix|snap|workspace|app)\/|~\/|\.{1,2}\/)/;

/** Start of the line holding `at`, looking back at most `max` characters (a long line must not make every lookup long). */
function lineStart(s: string, at: number, max: number): number {
  const lim = Math.max(0, at - max);
  for (let i = at - 1; i >= lim; i--) if (s.charCodeAt(i) === 10) return i + 1;
  return lim;
}

/** Any word a label (LABEL, WITH) is built from, anywhere before the token: the cheap test that rules most tokens out. */
const LABEL_WORD = /key|token|secret|pass|pwd|auth|credential|api|bearer|access|private|session|cookie|otp|pin|license|with|using|login|signed|AQAAABAAA|<secret|<password|<token/i;

const KEY_END = /[A-Za-z0-9_.-]*$/;
const NOT_LETTER_OR_END = /[^A-Za-z]|$/;
const LEADING_PUNCTUATION = /^[._-]+/;
const SESSION_END = /session$/i;
function labelOf(s: string, start: number, len: number): "labelled" | "negated" | "none" {
  const lineStart0 = lineStart(s, start, 64);
  const before = s.slice(lineStart0, start);
  if (!LABEL_WORD.test(before)) return "none";
  const m = LABEL.exec(before);
  if (m) {
    // The whole key the label word ends (`nextPageToken:`, `public_key =`): some name no secret.
    const key = KEY_END.exec(before.slice(0, m.index + m[0].search(NOT_LETTER_OR_END)))?.[0] ?? "";
    // A bare `session` names an id, but no id runs to 129+ characters: that is a session token.
    const k = key.replace(LEADING_PUNCTUATION, "");
    return negatedKey(k) && !(len > 128 && SESSION_END.test(k)) ? "negated" : "labelled";
  }
  return WITH.test(before) ? "labelled" : "none";
}

/**
 * Spans of public PEM blocks (certificates, public keys, PGP public blocks):
 * their base64 bodies look random and are not secrets.
 */
function publicBlocks(s: string): [number, number][] {
  const out: [number, number][] = [];
  // The next `-----END ` at or after where the last search began (-1: none left): searched again
  // only once passed, so BEGIN lines with no END (each searched to the text's end) stay linear.
  let end = -2;
  for (let i = s.indexOf("-----BEGIN "); i !== -1; i = s.indexOf("-----BEGIN ", i + 11)) {
    const head = /^-----BEGIN ([A-Z0-9 ]{1,40})-----/.exec(s.slice(i, i + 64));
    if (!head || head[1]!.includes("PRIVATE")) continue;
    const from = i + head[0].length;
    if (end !== -1 && end < from) end = s.indexOf("-----END ", from);
    out.push([i, end < 0 ? Math.min(s.length, i + 65536) : end]);
  }
  return out;
}

/** `-` `.` `~` `=`: what coreSpan trims from a run's ends. */
const trimHead = (c: number): boolean => c === 45 || c === 46 || c === 126 || c === 61;

/**
 * Splits run `u[a..b)` into what is scored: surrounding dots/dashes trimmed,
 * and for a dotted run (`host.name.tld`, `obj.member`, a JWT-like `a.b.c`)
 * its longest segment stands for the whole. Sets `f.from`/`f.to` to the core
 * and returns its length (0: a dotted name, nothing to score).
 */
function coreSpan(f: TokenFacts, a: number, b: number): number {
  const u = f.u;
  // Code units, no slice, regex or split: this runs on every candidate run.
  let x = a;
  let y = b;
  while (x < y && trimHead(u[x]!)) x++;
  while (y > x && trimHead(u[y - 1]!) && u[y - 1] !== 61) y--;
  let dot = x;
  while (dot < y && u[dot] !== 46) dot++;
  if (dot >= y) {
    f.from = x;
    f.to = y;
    return y - x;
  }
  // Segments between dots: the longest (the first of equals), how many, how many of 6+, any of 40+.
  let segs = 0;
  let long = 0;
  let huge = false;
  let bestAt = x;
  let bestLen = -1;
  for (let from = x; from <= y; ) {
    let to = from;
    while (to < y && u[to] !== 46) to++;
    const len = to - from;
    segs++;
    if (len >= 6) long++;
    if (len >= 40) huge = true;
    if (len > bestLen) {
      bestLen = len;
      bestAt = from;
    }
    from = to + 1;
  }
  // Dotted names (`a.b.c.d`): only when every segment is itself random.
  if (segs > 2 && !huge && long < 2) return 0;
  f.from = bestAt;
  f.to = bestAt + bestLen;
  return bestLen;
}

/** See the module comment. */
export const entropyRule: Rule = {
  kinds: ["high-entropy-token", "labelled-token", "basic-auth"],
  keywords: [],
  scan() {
    // Keyword-free: everything happens in scanHits.
  },
  scanHits(ctx: ScanCtx) {
    const s = ctx.s;
    const bare = ctx.strict ? BARE_STRICT : BARE;
    const skip = s.includes("-----BEGIN ") ? publicBlocks(s) : [];
    const facts = newFacts(s, ctx.units);
    let k = 0;
    const runs = ctx.runs;
    // What the rules before this one found, where a find of this rule's would be held whole by a
    // stronger one and dropped (resolve). A run inside a find that outranks all of this rule's is
    // not judged at all; inside one that outranks only its unlabelled and labelled tokens (0.5),
    // only base64 of `user:password` (1.5) could still count, so a token that cannot decode to text
    // stops before the dear tests. In output dense with secrets these are the dearest runs, since
    // they pass every cheap test.
    const held = heldSpans(ctx.out);
    let h = 0;
    // The furthest end of the finds begun by here that outrank every find of this rule's, and a token.
    let reachAll = -1;
    let reachTokens = -1;
    for (let r = 0; r < runs.length; r += 3) {
      const i = runs[r]!;
      const j = runs[r + 1]!;
      const shape = runs[r + 2]!;
      for (; h < held.length && held[h]!.from <= i; h++) {
        const f = held[h]!;
        reachTokens = Math.max(reachTokens, f.end);
        if (f.priority > OUTRANKS_ENTROPY) reachAll = Math.max(reachAll, f.end);
      }
      if (reachAll >= j) continue;
      facts.onlyDecoded = reachTokens >= j;
      // consider()'s first test, on the whole run: what fails it here fails on every part of it.
      if (!mayBeToken(runLetters(shape), (shape & RUN_DIGIT) !== 0, (shape & RUN_UPPER) !== 0, (shape & RUN_LOWER) !== 0, j - i)) continue;
      // A JSON/C escape (`\n`, `\t`) glued to the token's front is not part of it.
      let a = i;
      if (a >= 1 && s.charCodeAt(a - 1) === 92) {
        // `\u201C`, `\x41`: the whole escape; `\n`, `\t`: its letter.
        const esc = s[a]!;
        if ((esc === "u" || esc === "x") && /^[0-9a-fA-F]+$/.test(s.slice(a + 1, a + (esc === "u" ? 5 : 3)))) a += esc === "u" ? 5 : 3;
        else if (/[nrtbf]/.test(esc)) a++;
      }
      const len = j - a;
      while (k < skip.length && skip[k]![1] <= a) k++;
      const inPublic = k < skip.length && skip[k]![0] <= a;
      if (!inPublic && len >= LABELLED_MIN && len <= LABELLED_MAX * 2) consider(ctx, facts, a, j, bare, a === i ? shape : -1);
    }
  },
};

/** What a find trims from its run's ends: the dots, dashes, tildes (and, leading, `=`) that glue tokens to text. */
const LEADING_TRIM = /^[-.~=]*/;
const TRAILING_TRIM = /[-.~]+$/;
/** Decoded text shaped `user:password`: the credential base64 of a Basic pair holds. */
const USER_COLON_PASSWORD = /^[A-Za-z0-9._@+-]{1,64}:[\x21-\x7e]{4,256}$/;
/** A URL's scheme and host (or path) so far, right before a token. */
const URL_BEFORE = /:\/\/[^\s"'<>?#]*$/;
/** A dotted key's qualifiers (`spring.datasource.password` -> `password`). */
const DOTTED_HEAD = /^.*[.]/;
/** `[\s"'\`\\]`: what labelVerdict looks past between a key's separator and its value. */
const quoteOrSpace = (c: number): boolean => spaceOrQuote(c) || c === 96 || c === 92;

/** The priorities this rule gives a find: a token (labelled or not), and base64 of `user:password`. */
const TOKEN_PRIORITY = 0.5;
const OUTRANKS_ENTROPY = 1.5;

/** The finds that outrank a token of this rule's, sorted by `from`. */
function heldSpans(out: readonly Finding[]): Finding[] {
  return out.filter((f) => f.priority > TOKEN_PRIORITY).sort((a, b) => a.from - b.from);
}

/** Whether `head` ends in `:` or `=` but for up to 4 spaces and a quote: what ID_BEFORE needs, tested without a regex. */
function endsWithSeparator(head: string): boolean {
  let i = head.length - 1;
  for (let k = 0; i >= 0 && k < 6; k++, i--) {
    const c = head.charCodeAt(i);
    if (c === 58 || c === 61) return true;
    if (c !== 32 && c !== 9 && c !== 34 && c !== 39) return false;
  }
  return false;
}

/** Space, tab, quote or CR: what aloneOnLine looks past. */
const quiet = (c: number): boolean => c === 32 || c === 9 || c === 34 || c === 39 || c === 13;

/**
 * Whether `s[a..b)` is all its line holds, but for spaces and quotes, and
 * the text has lines: a string that is one token and nothing else (a JSON
 * value: `"id": "…"`) is the value walk's to judge by its key.
 */
function aloneOnLine(s: string, a: number, b: number): boolean {
  let i = a - 1;
  while (i >= 0 && a - i < 16 && quiet(s.charCodeAt(i))) i--;
  if (i >= 0 && s.charCodeAt(i) !== 10) return false;
  let j = b;
  while (j < s.length && j - b < 16 && quiet(s.charCodeAt(j))) j++;
  if (j < s.length && s.charCodeAt(j) !== 10) return false;
  return i >= 0 || j < s.length;
}

/**
 * What randomToken asks first, over a whole run (its core is a part of it, so
 * this only rules out what would fail anyway): 4+ letters, and a digit or
 * both cases in 12+. Most `key=value` halves and dates stop here.
 */
const mayBeToken = (letters: number, digit: boolean, upper: boolean, lower: boolean, len: number): boolean =>
  letters >= 4 && (digit || (upper && lower && len >= 12));

/** Whether what precedes token `t` at `a` says it is a digest, id, name or location: never a secret, labelled or not. */
function guarded(s: string, a: number, t: string): boolean {
  const head = s.slice(Math.max(0, a - 40), a);
  if (GUARD_BEFORE.test(head)) return true;
  // Ids are short; 129+ characters after `session:` are a session token (STS, OAuth).
  if (t.length <= 128 && endsWithSeparator(head) && ID_BEFORE.test(head)) return true;
  // A segment of an ARN or URN (`arn:aws:secretsmanager:…:secret:prod/api-AbC123`): a name.
  if (afterArnColon(s, a, 256)) return true;
  // `://` before: a URL's host or path (its userinfo has its own rule); query values are scored.
  if (URL_BEFORE.test(head)) return true;
  if (OBJECT_ID.test(t) || POD.test(t)) return true;
  // A request, trace or correlation id header: every value on its line is an id.
  if (ID_LINE.test(s.slice(lineStart(s, a, 128), a))) return true;
  return HASH_LINE.test(s.slice(lineStart(s, a, 200), a));
}

/**
 * Whether token `t` at `s[a..b)` is labelled (a label word, a secret-naming key, 32 hex digits or
 * a short token alone on its line): true, false, or undefined when its key or label names
 * something else, which rules it out whatever it looks like.
 */
function labelVerdict(s: string, a: number, b: number, t: string, f: TokenFacts, hexAlone: boolean): boolean | undefined {
  let label = labelOf(s, a, t.length);
  // `using <id>:<secret>` (Basic-style pairs): the pair's label covers its second half.
  if (label === "none" && s.charCodeAt(a - 1) === 58) {
    let g = a - 1;
    while (g > 0 && a - g < 256 && (s.charCodeAt(g - 1) === 58 || isTokenUnit(s.charCodeAt(g - 1)))) g--;
    if (g < a - 1) label = labelOf(s, g, t.length);
  }
  // A key that names something else (`sortKey:`, `nextPageToken:`, `public_key =`).
  if (label === "negated") return undefined;
  if (label === "none") {
    // The value of a key that does not name a secret (`"id": "…"`, `var xy = "…"`, `client_id: …`)
    // is that key's kind of value; one that does (`DB_PWD=…`) labels it.
    // Cheap first: a key/value needs `=`, `:` or `>` right before the value (past quotes and spaces).
    const lineHead = s.slice(lineStart(s, a, 200), a);
    let q = lineHead.length - 1;
    while (q >= 0 && q >= lineHead.length - 8 && quoteOrSpace(lineHead.charCodeAt(q))) q--;
    const sep = lineHead[q];
    let k = sep === "=" || sep === ":" || sep === ">" || sep === "|" ? keyBefore(lineHead.slice(-80)) : undefined;
    // A numbered label (`Unseal Key 1:`, `Recovery Key 3:`): its key is the word before the number.
    if (k !== undefined && k.length <= 3 && isDigits(k)) k = NUMBERED_KEY.exec(lineHead)?.[1] ?? k;
    if (k !== undefined) {
      const key = k.replace(DOTTED_HEAD, "");
      if (classifyKey(key)) label = "labelled";
      else if (NON_SECRET_KEY.test(key)) return undefined;
    }
  }
  if (label === "labelled" || hexAlone) return true;
  // A token alone on its line (`pbpaste`, `cat token.txt`) of letters and digits is what it looks
  // like from 12 characters (the labelled bar still applies: words, paths and versions stay); in
  // code a line that is one such token is rare.
  return t.length >= 12 && t.length < 20 && f.digits > 0 && f.ups + f.lows > 0 && aloneOnLine(s, a, b);
}

/** `shape` is tokenRuns' shape of exactly `s[a..b)`, or -1 when it is only a part of a run. */
function consider(ctx: ScanCtx, f: TokenFacts, a: number, b: number, bare: Bar, shape: number): void {
  const s = ctx.s;
  // `=` inside a run is an assignment (`Key=value`, `a=b=c`), not base64 padding: score each side.
  let eq = -1;
  if (shape === -1 || (shape & RUN_EQUALS) !== 0) {
    for (let i = a; i < b - 1; i++) if (s.charCodeAt(i) === 61) {
      eq = i;
      break;
    }
  }
  if (eq !== -1 && s.charCodeAt(eq + 1) !== 61) {
    let e = eq;
    while (e > a && s.charCodeAt(e - 1) === 61) e--;
    if (e - a >= LABELLED_MIN) consider(ctx, f, a, e, bare, -1);
    const right = eq + 1;
    if (b - right >= LABELLED_MIN) consider(ctx, f, right, b, bare, -1);
    return;
  }
  // The whole run passed mayBeToken in scanHits; a part of one is counted again, before any slice.
  if (shape === -1) {
    countClasses(ctx.units, a, b);
    const ups = CLASS_COUNTS[UPPER_HEX]! + CLASS_COUNTS[UPPER]!;
    const lows = CLASS_COUNTS[LOWER_HEX]! + CLASS_COUNTS[LOWER]!;
    if (!mayBeToken(ups + lows, CLASS_COUNTS[DIGIT]! > 0, ups > 0, lows > 0, b - a)) return;
  }
  const prev = a > 0 ? s.charCodeAt(a - 1) : 32;
  // Inside a word or an escape sequence, or part of our own tag.
  if (prev === 92 || (prev >= 128 && /\p{L}/u.test(s[a - 1]!))) return;
  if (prev === 58 && a >= 10 && s.startsWith("[REDACTED:", a - 10)) return;
  // `scheme://host…`: the run after the colon is a URL's host and path.
  if (prev === 58 && s.startsWith("//", a)) return;
  if (coreSpan(f, a, b) < LABELLED_MIN) return;
  countFacts(f);
  // Held by a find that outranks a token (scanHits): only base64 of `user:password` could count.
  if (f.onlyDecoded && !(f.to - f.from >= 16 && f.to - f.from <= 4096 && mayOpenText(tokenText(f), 0))) return;
  // Unlabelled hex is a digest or an id (outside strict mode): only a label word before it can make it
  // count, or 32 hex digits alone on a line (`cat master.key`; digests print beside a file name, git ids are 40).
  const hexAlone = f.to - f.from === 32 && f.singleCaseHex && aloneOnLine(s, a, b);
  if (!ctx.strict && !hexAlone && f.singleCaseHex && !LABEL_WORD.test(s.slice(lineStart(s, a, 64), a))) return;
  // The cheapest test first: most runs in code and prose are words or identifiers.
  if (!randomToken(f, LABELLED)) return;
  const t = tokenText(f);
  // Base64 of a whole PEM block (kubeconfig `certificate-authority-data`): public unless its BEGIN line says PRIVATE.
  if (t.charCodeAt(0) === 76 && t.startsWith("LS0tLS1CRUdJTi") && !Buffer.from(t.slice(0, 64), "base64").toString("latin1").includes("PRIVATE")) return;
  // Every test left rules the token out but the label, which lets one the bare bar turns away count. So
  // such a token learns its label first, and without one is done before the guards' regexes (most ids,
  // UUIDs and names in a record end here; each regex also costs a cold hook its compile).
  const bareOk = randomToken(f, bare);
  let labelled = bareOk ? undefined : labelVerdict(s, a, b, t, f, hexAlone);
  if (!bareOk && labelled !== true) return;
  const run = s.slice(a, b);
  if (guarded(s, a, t) || namesAFile(run)) return;
  labelled ??= labelVerdict(s, a, b, t, f, hexAlone);
  // A key or label that names something else (`sortKey:`, `nextPageToken:`, `"id":`).
  if (labelled === undefined) return;
  // Base64 of prose is data, not a secret (secrets are random bytes); base64 of `user:password` is a credential.
  const plain = t.length >= 16 && t.length <= 4096 && mayOpenText(t, 0) ? decodeBase64Text(t) : undefined;
  if (plain !== undefined) {
    if (USER_COLON_PASSWORD.test(plain) && !/^[\[{"]/.test(plain)) {
      const st = a + LEADING_TRIM.exec(run)![0].length;
      ctx.out.push({ from: st, start: st, end: st + t.length, kind: "basic-auth", priority: OUTRANKS_ENTROPY });
      return;
    }
    if (/\s/.test(plain) && (plain.match(/[\p{L}\s.,;:'"!?()-]/gu) ?? []).length >= plain.length * 0.85) return;
  }
  const start = a + LEADING_TRIM.exec(run)![0].length;
  const end = start + run.slice(start - a).replace(TRAILING_TRIM, "").length;
  ctx.out.push({ from: start, start, end, kind: labelled ? "labelled-token" : "high-entropy-token", priority: TOKEN_PRIORITY });
}
