/**
 * Context signals: whether a key name labels a secret, and whether a value
 * under such a key looks like a real credential rather than a reference,
 * placeholder, type annotation or label. These filters apply to context rules
 * only; prefixed tokens are redacted on sight.
 */

/** What a secret-labelling key tells us about its value. */
export interface KeyClass {
  /** Finding kind for a value under this key. */
  readonly kind: string;
  /** Password-like: no length/entropy floor beyond the minimum. */
  readonly password: boolean;
  /**
   * A weak label (`PARTNER_KEY`: "key" alone, which also names sort keys,
   * cache keys and map keys): only a token-like random value counts.
   */
  readonly strict?: boolean;
}

// Terms that may end a longer word ("pgpassword", "githubtoken", "mysecret").
const SUFFIX_TERMS = ["password", "passwd", "passphrase", "passcode", "token", "secret", "apikey", "credentials", "credential", "cookie"];
// Terms that must start a word ("pass" in "bypass" or "auth" in "oauth" mean nothing).
const WORD_TERMS = ["pass", "pwd", "pw", "psk", "auth", "authorization", "dsn", "jwt", "otp", "totp", "hotp", "salt", "creds", "session", "sessionid", "bearer", "privatekey", "accesskey", "secretkey", "accountkey", "signingkey", "encryptionkey", "masterkey", "sharedaccesskey", "authkey", "sessionkey", "apitoken", "dockerconfigjson", "dockercfg", "connectionstring", "webhook"];
// Terms a short qualifier may be glued to (`dbpass`), and the qualifiers: not `bypass`, `compass`, `surpass`.
const GLUED_TERMS = ["pass", "pwd"];
const GLUED_QUALIFIERS = new Set(["db", "admin", "root", "user", "mysql", "pg", "psql", "redis", "smtp", "mail", "ftp", "sftp", "ldap", "sql", "bind", "vnc", "wifi", "app", "sa", "su", "sudo", "proxy", "rpc", "mongo", "amqp", "mq"]);
// Two-word terms, checked on adjacent words.
const PAIRS: Record<string, readonly string[]> = {
  api: ["key", "keys"],
  access: ["key", "keys"],
  private: ["key"],
  secret: ["key"],
  account: ["key"],
  signing: ["key", "secret"],
  encryption: ["key"],
  master: ["key"],
  shared: ["key", "secret"],
  client: ["key"],
  app: ["key", "secret"],
  license: ["key"],
  connection: ["string", "url", "uri"],
  conn: ["str", "string"],
  database: ["url", "uri"],
  db: ["url", "uri", "pass", "password"],
  webhook: ["url", "uri"],
  sas: ["token", "key", "url"],
};
// Words allowed after the last term: the value is still the secret itself.
const TAIL_OK = new Set([
  "key", "keys", "value", "val", "string", "str", "data", "b64", "base64", "hex", "raw", "plain", "plaintext",
  "text", "enc", "encrypted", "secret", "secrets", "token", "hash", "hashed", "json", "content", "bytes",
  "passwords", "credentials", "cookie", "cookies", "url", "uri", "header", "v1", "v2", "old", "new", "current", "base",
]);
// Heads that turn a term into a non-secret (LLM usage, pagination).
const HEAD_NEG = new Set([
  "max", "min", "input", "output", "total", "num", "cache", "cached", "prompt", "completion", "reasoning",
  "page", "next", "prev", "previous", "continuation", "cursor", "sync", "idempotency", "cancellation",
  "is", "has", "use", "enable", "enabled", "require", "requires", "show", "allow", "forgot", "reset",
  "public", "publishable", "no", "skip",
]);
// Keys that look secret but hold the working directory or a count.
// `pw` alone is a word (Playwright's `pw`, a short name) but a password's in `db_pw`, `ROOT_PW`: only
// qualified, as `pwd` is (a query's `&pw=` is context.ts's).
const EXACT_NEG = new Set(["pwd", "oldpwd", "pw", "tokens", "passed", "session"]);
const EXACT_POS: Record<string, string> = {
  "private_key_id": "gcp-private-key-id",
  "privatekeyid": "gcp-private-key-id",
  // HashiCorp Vault AppRole's SecretID is the credential (its RoleID is not): a UUID under this key goes.
  "secret_id": "vault-secret-id",
  "secretid": "vault-secret-id",
  // Server settings that hold a password under a name of their own: Redis's `requirepass` and
  // `masterauth`, OpenLDAP's `rootpw`.
  "requirepass": "password",
  "masterauth": "password",
  "rootpw": "password",
};

/** Splits `xApiKey`, `X-API-Key`, `aws_secret_access_key` into lowercase words. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

function kindFor(key: string, words: readonly string[], term: string): KeyClass {
  const j = words.join("_");
  // A Wi-Fi pre-shared key (`psk=`, `wpa_psk`) is the network's password.
  const isPw = /pass|pwd|^pw$|psk/.test(term);
  if (/aws/.test(j) && /secret/.test(j)) return { kind: "aws-secret-access-key", password: false };
  if (/aws/.test(j) && /session/.test(j) || /amz_security/.test(j)) return { kind: "aws-session-token", password: false };
  if (/secret_access_key|secretaccesskey/.test(j)) return { kind: "aws-secret-access-key", password: false };
  // `.npmrc`'s `_authToken` and `_auth` (its keys open with `_`), and `NPM_AUTH_TOKEN`; an `AUTH_TOKEN` is anyone's.
  if (j === "npm_auth_token" || (key.charCodeAt(0) === 95 && (j === "auth_token" || j === "auth"))) return { kind: "npm-auth", password: isPw };
  if (term === "auth" || term === "authorization") return { kind: "auth-credential", password: false };
  if (/cookie|session/.test(term)) return { kind: "session-cookie", password: false };
  // A password is one whatever it opens (`DATABASE_PASSWORD`, `PRIVATE_KEY_PASSPHRASE`, `WEBHOOK_PASS`):
  // the words before the term say what it opens, and a word is a password's value, never a token's.
  if (isPw) return { kind: "password", password: true };
  if (/dsn|connection|database|conn|db_url|db_uri/.test(j)) return { kind: "connection-string", password: false };
  // The hook itself (`WEBHOOK`, `webhook_url`); its signing secret or token (`WEBHOOK_SECRET`) is a secret like any.
  if (term.startsWith("webhook")) return { kind: "webhook-url", password: false };
  if (/private_?key/.test(j)) return { kind: "private-key", password: false };
  if (term === "api_key" || term === "apikey" || term === "apitoken") return { kind: "api-key", password: false };
  return { kind: "generic-secret", password: false };
}

function tailOk(rest: readonly string[]): boolean {
  for (const w of rest) if (!TAIL_OK.has(w) && !/^\d+$/.test(w)) return false;
  return true;
}

/** Finds a term in word `w`; returns the remainder after it, or undefined. */
function termIn(w: string): { term: string; rest: string } | undefined {
  for (const t of WORD_TERMS) if (w === t) return { term: t, rest: "" };
  for (const t of SUFFIX_TERMS) {
    const at = w.lastIndexOf(t);
    if (at < 0) continue;
    const rest = w.slice(at + t.length);
    // "passwords", "tokens": a plural is a collection, except credentials/secrets.
    if (rest === "" || rest === "s" && t !== "token" || /^\d+$/.test(rest) || TAIL_OK.has(rest)) return { term: t, rest: "" };
    return { term: t, rest };
  }
  // `dbpass`, `rootpwd`, `smtppass` (wp-cli's `--dbpass`): a short qualifier glued to the term.
  for (const t of GLUED_TERMS) if (w.endsWith(t) && GLUED_QUALIFIERS.has(w.slice(0, -t.length))) return { term: t, rest: "" };
  for (const t of WORD_TERMS) {
    if (w.startsWith(t) && w.length > t.length) {
      const rest = w.slice(t.length);
      if (/^\d+$/.test(rest) || TAIL_OK.has(rest) || rest === "s" && t !== "session") return { term: t, rest: "" };
    }
  }
  return undefined;
}

/**
 * Whether a key name says its value is not a secret although it has a
 * secret-ish word (`nextPageToken`, `max_tokens`, `public_key`, `sortKey`).
 *
 * @example
 * ```ts
 * negatedKey("nextPageToken"); // true
 * negatedKey("api_key");       // false
 * ```
 */
export function negatedKey(key: string): boolean {
  return negatedByKey(key);
}

function negated(key: string): boolean {
  const words = keyWords(key);
  if (words.length === 1 && EXACT_NEG.has(words[0]!)) return true;
  if (words.some((w) => HEAD_NEG.has(w))) return true;
  return words.length >= 2 && words[words.length - 1] === "key" && KEY_HEAD_NEG.has(words[words.length - 2]!);
}


/**
 * What the process-wide caches keep of a key: a copy of its own. A slice of
 * a text holds on to the whole text (a 20-character key kept every 5 MB
 * output it was read from alive, unredacted, in a process that redacts many).
 */
const detached = (key: string): string => structuredClone(key);

/**
 * `f` (which never answers undefined), remembered per key (each key kept as
 * a copy of its own, see detached), everything forgotten past `max` keys: an
 * output repeats a few keys thousands of times, and each answer read or
 * split the key again.
 *
 * @example
 * ```ts
 * let calls = 0;
 * const len = perKey((k) => (calls++, k.length), 16);
 * len("token") + len("token"); // 10, and calls is 1
 * ```
 */
export function perKey<T>(f: (key: string) => T, max: number): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    const hit = known.get(key);
    if (hit !== undefined) return hit;
    const answer = f(key);
    if (known.size >= max) known.clear();
    known.set(detached(key), answer);
    return answer;
  };
}
const classifiedByKey = perKey(classify, 8192);
const negatedByKey = perKey(negated, 4096);

/** keyText's table: a key read before, by the top bits of a hash of its code units (direct-mapped). */
const KEY_SLOT_BITS = 12;
const keySlots: (string | undefined)[] = new Array(1 << KEY_SLOT_BITS);

/**
 * `s.slice(from, to)`, where `u` is `s` as code units, from a table of the
 * keys read before: a long output repeats a few keys thousands of times (a
 * 5 MB mixed document: 30,774 keys, 106 distinct), and a slice per hit was a
 * string for the collector each time and a fresh hash for classifyKey's cache.
 *
 * @example
 * ```ts
 * const s = "password=x password=y";
 * keyText(s, codeUnits(s), 11, 19) === keyText(s, codeUnits(s), 0, 8); // true: one string
 * ```
 */
export function keyText(s: string, u: Uint16Array, from: number, to: number): string {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ u[i]!, 0x01000193);
  const slot = h >>> (32 - KEY_SLOT_BITS);
  const known = keySlots[slot];
  if (known !== undefined && known.length === to - from) {
    let i = 0;
    while (i < known.length && known.charCodeAt(i) === u[from + i]) i++;
    if (i === known.length) return known;
  }
  const key = detached(s.slice(from, to));
  keySlots[slot] = key;
  return key;
}

const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;
/**
 * Whether `key` is an environment variable's name (`DB_PASSWORD`, `TOKEN`), its first character
 * asked first (most keys in a record are not capitals).
 *
 * @example
 * ```ts
 * isEnvName("DB_PASSWORD"); // true
 * isEnvName("dbPassword"); // false
 * ```
 */
export const isEnvName = (key: string): boolean => {
  const c = key.charCodeAt(0);
  return c >= 65 && c <= 90 && ENV_NAME.test(key);
};

const MADE_UP = /\d|.[A-Z]/;
/**
 * Whether a word reads as made up rather than as prose: a digit, or a capital after its first
 * character (`CorrectHorseBattery`, `hunter2`; not `encrypted`, `Required`).
 *
 * @example
 * ```ts
 * madeUp("CorrectHorseBattery"); // true
 * madeUp("encrypted"); // false
 * ```
 */
export const madeUp = (v: string): boolean => MADE_UP.test(v);

const HEADER_KEY = /header(?:_?name)?$/i;
/** `X-Api-Key`, `Authorization`, `X-AUTH-TOKEN`: what HTTP header names look like. */
const HEADER_NAME = /^(?:X-)?[A-Z][A-Za-z]+(?:-[A-Z][A-Za-z]+)*$/;

/**
 * Whether `value` is a header's name under a key that says it holds one
 * (`API_KEY_HEADER=X-Api-Key`): what is sent, not the secret.
 *
 * @example
 * ```ts
 * headerNameUnder("API_KEY_HEADER", "X-Api-Key"); // true
 * headerNameUnder("API_KEY", "X-Api-Key"); // false
 * ```
 */
export function headerNameUnder(key: string, value: string): boolean {
  const c = value.charCodeAt(0);
  return c >= 65 && c <= 90 && HEADER_NAME.test(value) && HEADER_KEY.test(key);
}

/**
 * Classifies a key name: a `KeyClass` when it labels a secret value.
 *
 * @example
 * ```ts
 * classifyKey("DB_PASSWORD");   // { kind: "password", password: true }
 * classifyKey("input_tokens");  // null
 * classifyKey("secretKeyRef");  // null
 * ```
 */
export function classifyKey(key: string): KeyClass | null {
  return classifiedByKey(key);
}

function classify(key: string): KeyClass | null {
  if (key.length === 0 || key.length > 96) return null;
  const words = keyWords(key);
  if (words.length === 0) return null;
  const joined = words.join("_");
  // Own keys only: a key word like "constructor" must not find Object.prototype.
  if (Object.hasOwn(EXACT_POS, joined)) return { kind: EXACT_POS[joined]!, password: EXACT_POS[joined] === "password" };
  if (words.length === 1 && EXACT_NEG.has(words[0]!)) return null;
  // Find the last word position carrying a term.
  for (let i = words.length - 1; i >= 0; i--) {
    const w = words[i]!;
    const next = words[i + 1];
    let term: string | undefined;
    let restStart = i + 1;
    const pair = Object.hasOwn(PAIRS, w) ? PAIRS[w] : undefined;
    if (pair && next !== undefined && pair.includes(next)) {
      term = `${w}_${next}`;
      restStart = i + 2;
    } else {
      const t = termIn(w);
      if (t) {
        if (t.rest !== "") return null; // "tokenizer", "passenger", "secretname"
        term = t.term;
      }
    }
    if (term === undefined) continue;
    if (!tailOk(words.slice(restStart))) return null;
    for (let h = 0; h < i; h++) if (HEAD_NEG.has(words[h]!)) return null;
    // A lone "session"/"auth"/"webhook" as the whole key is too vague unless qualified.
    return kindFor(key, words, term);
  }
  // `<qualifier>_key` with no stronger term: a weak label (see KeyClass.strict).
  if (words.length >= 2 && words[words.length - 1] === "key" && !KEY_HEAD_NEG.has(words[words.length - 2]!)) {
    for (let h = 0; h < words.length - 1; h++) if (HEAD_NEG.has(words[h]!)) return null;
    return { kind: "generic-secret", password: false, strict: true };
  }
  return null;
}

// Words before a final "key" that name a non-secret key (database, map, UI and public keys).
const KEY_HEAD_NEG = new Set([
  "public", "publishable", "primary", "foreign", "sort", "partition", "range", "hash", "cache", "row", "lookup",
  "object", "s3", "blob", "file", "idempotency", "dedup", "dedupe", "unique", "index", "map", "dict", "i18n",
  "translation", "message", "locale", "react", "group", "ssh", "gpg", "pgp", "host", "routing", "shard",
  "composite", "natural", "surrogate", "query", "search", "storage", "registry", "foreign", "ref", "state",
  "cursor", "page", "event", "metric", "label", "column", "field", "attr", "attribute", "property", "prop",
  "config", "setting", "settings", "env", "template", "item", "entry", "node", "list", "redis", "kv", "db",
  "parameter",
]);

/**
 * How many neighbouring letters in `s` differ in case: a name's case changes
 * at its words (`XMLHttpRequest`: 3), random letters' about every other
 * letter (`vZrEclFwOqeA`: 9).
 *
 * @example
 * ```ts
 * caseFlips("getUserName"); // 4
 * ```
 */
export function caseFlips(s: string): number {
  let flips = 0;
  for (let i = 1; i < s.length; i++) {
    const a = s.charCodeAt(i - 1);
    const b = s.charCodeAt(i);
    if (((a >= 65 && a <= 90) && (b >= 97 && b <= 122)) || ((a >= 97 && a <= 122) && (b >= 65 && b <= 90))) flips++;
  }
  return flips;
}

/**
 * Whether `s[..at)` ends in the colon of an ARN or URN segment, within `max`
 * characters (`arn:aws:secretsmanager:…:secret:` before `prod/api-AbC123`):
 * what `/(?:arn|urn):[^\s"']*:$/i` says of `s.slice(at - max, at)`, read
 * backwards once. The regex, tried at every start of the slice, read it
 * about `max` times over at each hit, and a text of `:secret:` repeated
 * made every hit one (6 s for 640 KB).
 *
 * @example
 * ```ts
 * afterArnColon("arn:aws:secretsmanager:us-east-1:123:secret:", 44, 200); // true
 * afterArnColon("key: value:", 11, 200);                                   // false
 * ```
 */
export function afterArnColon(s: string, at: number, max: number): boolean {
  if (at < 5 || s.charCodeAt(at - 1) !== 58) return false;
  const lim = Math.max(0, at - max);
  // The earliest start the segment can have: no space or quote between it and the colon.
  let q = at - 1;
  while (q > lim && !spaceOrQuote(s.charCodeAt(q - 1))) q--;
  // Its `arn:`/`urn:` must end before the colon at `at - 1` (`arn::` at the least).
  const head = ARN_HEAD.exec(s.slice(q, at - 1));
  return head !== null && q + head.index <= at - 5;
}
const ARN_HEAD = /[au]rn:/i;
/**
 * A set of ASCII characters as a table: `has(c)` of a code unit (any number,
 * NaN from a read past the end included). The rules that read values ask it
 * of every character; a Set of numbers cost a hash lookup each.
 *
 * @example
 * ```ts
 * const stop = new UnitSet(" ;");
 * stop.has(59); // true
 * stop.has("a".charCodeAt(0)); // false
 * ```
 */
export class UnitSet {
  private readonly table = new Uint8Array(128);
  constructor(chars: string) {
    for (let i = 0; i < chars.length; i++) {
      const c = chars.charCodeAt(i);
      if (c >= 128) throw new Error("UnitSet holds ASCII characters only");
      this.table[c] = 1;
    }
  }
  has(c: number): boolean {
    return c < 128 && this.table[c] === 1;
  }
}
/** `[A-Za-z]`. */
export const isAsciiLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** `\w`: `[A-Za-z0-9_]`. */
export const isWordUnit = (c: number): boolean => isAsciiLetter(c) || (c >= 48 && c <= 57) || c === 95;
/** `[\w.-]`: what a key name (`db.password`, `api-key`, `DB_PASS`) is made of. */
export const isKeyChar = (c: number): boolean => isAsciiLetter(c) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46;

/**
 * The letters a key ends with: its last word, as plausibleSecret compares a
 * value with it (what `s.split(/[^A-Za-z]+/).pop()` gives, without the array).
 *
 * @example
 * ```ts
 * lastLetters("DB_PASSWORD"); // "PASSWORD"
 * lastLetters("token2");      // ""
 * ```
 */
export function lastLetters(s: string): string {
  let i = s.length;
  while (i > 0 && isAsciiLetter(s.charCodeAt(i - 1))) i--;
  return s.slice(i);
}
/** `[\s"']`: what JavaScript's `\s` matches, and the two quotes. */
export function spaceOrQuote(c: number): boolean {
  if (c === 32 || c === 34 || c === 39 || (c >= 9 && c <= 13)) return true;
  return c >= 160 && wideSpace(c);
}
/** What JavaScript's `\s` matches above U+007F. */
export function wideSpace(c: number): boolean {
  return c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Whether letters `s` change case no more often than a name does (at most
 * every third letter): `XMLHttpRequest`, `_RSAPrivateKey`; random letters
 * (`vZrEclFwOqeA`) change about every other one.
 *
 * @example
 * ```ts
 * nameCased("XMLHttpRequest"); // true
 * nameCased("vZrEclFwOqeA");   // false
 * ```
 */
export function nameCased(s: string): boolean {
  return caseFlips(s) * 3 < s.length;
}

/**
 * What n random hex digits measure on average by `entropy` (the plug-in
 * estimate falls short of log2 16 by about 15/(2n ln 2), and n characters
 * hold at most log2 n bits each). A floor for hex is a share of this, not a
 * fixed figure: a fixed 3.2 turns away one random 32-digit body in a few
 * thousand.
 *
 * @example
 * ```ts
 * randomHexEntropy(32).toFixed(2); // "3.66"
 * ```
 */
export function randomHexEntropy(n: number): number {
  return Math.min(4 - 15 / (2 * n * Math.LN2), Math.log2(n));
}

/**
 * Shannon entropy in bits per character.
 *
 * @example
 * ```ts
 * entropy("aaaa"); // 0
 * ```
 */
export function entropy(s: string): number {
  const n = s.length;
  if (n === 0) return 0;
  // Typed counts for ASCII (every token alphabet); a Map only for the rest. Only the codes
  // seen are counted into `seen` and reset after (no 128-entry fill per call: this runs on every candidate).
  let other: Map<number, number> | undefined;
  let distinct = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) {
      const k = ascii[c]!;
      ascii[c] = k + 1;
      seen[distinct] = c;
      distinct += +(k === 0);
    } else (other ??= new Map()).set(c, (other.get(c) ?? 0) + 1);
  }
  let sum = sumCounted(distinct);
  if (other) for (const k of other.values()) sum += kLog2k(k);
  return Math.log2(n) - sum / n;
}

/**
 * `entropy` of the ASCII code units `u[from..to)` (a token run: runs.ts),
 * read from the typed array rather than from a slice of the text.
 *
 * @example
 * ```ts
 * entropyOfUnits(new Uint16Array([97, 98, 97, 98]), 0, 4); // 1
 * ```
 */
export function entropyOfUnits(u: Uint16Array, from: number, to: number): number {
  const n = to - from;
  if (n <= 0) return 0;
  let distinct = 0;
  for (let i = from; i < to; i++) {
    // No branch on whether the code is new: in a random token that is a coin toss the CPU loses.
    const c = u[i]! & 127;
    const k = ascii[c]!;
    ascii[c] = k + 1;
    seen[distinct] = c;
    distinct += +(k === 0);
  }
  return Math.log2(n) - sumCounted(distinct) / n;
}

/** Σ k·log2 k over the `distinct` codes counted in `ascii`, resetting them: -Σ (k/n)·log2(k/n) = log2 n - Σ k·log2 k / n, one log per call. */
function sumCounted(distinct: number): number {
  let sum = 0;
  for (let x = 0; x < distinct; x++) {
    const c = seen[x]!;
    sum += kLog2k(ascii[c]!);
    ascii[c] = 0;
  }
  return sum;
}
const ascii = new Int32Array(128);
const seen = new Uint8Array(128);
/**
 * k·log2 k for the counts most tokens have; a larger count is computed, to the
 * same value. Built with a plain loop and kept short: every hook process
 * builds it before the JIT has run, where `Float64Array.from` with a callback
 * over 4,097 entries took 2.5-4 ms.
 */
const K_LOG2_K = new Float64Array(257);
for (let k = 2; k < K_LOG2_K.length; k++) K_LOG2_K[k] = k * Math.log2(k);
const kLog2k = (k: number): number => (k < K_LOG2_K.length ? K_LOG2_K[k]! : k * Math.log2(k));

// `$VAR` and `%VAR%` only as a whole value or before a path/separator: a
// password such as `$Lw3!…` or `%Lw3HZ%Wn…` is a literal, not a reference; and a
// `%…%` name is one a variable has (`%APPDATA%`, `%UserProfile%`, `%db_pass%`),
// not random letters and digits (`%k3iYxBbFB3wq%`).
const REFERENCE = /^(?:<|\$\{|\$\(|\$[A-Za-z_][A-Za-z0-9_]*(?:$|[/\\:;.,@"'])|%_?(?:[A-Z][A-Z0-9]*|[a-z][a-z0-9]*|[A-Z]?[a-z]+(?:[A-Z][a-z]+)+)(?:_(?:[A-Z][A-Z0-9]*|[a-z][a-z0-9]*|[A-Z]?[a-z]+(?:[A-Z][a-z]+)+))*_?%(?:$|[/\\;.])|\{\{|<[^>]{0,80}>$|process\.env|import\.meta\.env|os\.environ|os\.getenv|getenv|System\.getenv|ENV\[|env\(|secrets\.|vault:|arn:aws:secretsmanager|ref\+|!Ref|!Sub|&|\*)/;
const PLACEHOLDER = /example|sample|placeholder|your[_-]|yourtoken|yourpass|yoursecret|yourkey|changeme|change_me|change-me|dummy|redacted|xxxx|\*\*\*|•••|todo|fixme|replace|insert|fake|lorem|<[A-Za-z_ -]{1,40}>|\.\.\./i;
/**
 * "Password" in the languages agents are most often asked in, lower case: the nouns
 * rules/languages.ts finds a password after, and words no password is (a translation file's
 * `"password": "Passwort"` is a label). English's are prose.ts's and the key rules'.
 */
export const PASSWORD_NOUNS: readonly string[] = [
  // German, Dutch, the Nordic languages, Estonian
  "passwort", "kennwort", "wachtwoord", "lösenord", "passord", "adgangskode", "salasana", "parool",
  // Romance
  "contraseña", "contrasena", "senha", "mot de passe", "parolă",
  // Slavic, Hungarian, Turkish (and Romanian's and Turkish's parola)
  "hasło", "haslo", "heslo", "geslo", "lozinka", "jelszó", "şifre", "parola", "пароль", "парола", "гасло",
  // Asian
  "密码", "密碼", "口令", "パスワード", "비밀번호", "암호", "mật khẩu", "kata sandi", "kata laluan", "รหัสผ่าน", "पासवर्ड",
  // Arabic, Persian, Hebrew, Greek
  "كلمة المرور", "كلمة السر", "رمز عبور", "סיסמה", "סיסמא", "κωδικός",
];

const SIMPLE_WORDS = new Set([
  ...PASSWORD_NOUNS,
  "true", "false", "yes", "no", "on", "off", "null", "nil", "none", "undefined", "empty", "test", "testing", "secret",
  "password", "passwd", "token", "string", "str", "number", "int", "bool", "boolean", "bytes", "any", "object", "text",
  "varchar", "char", "hidden", "required", "optional", "secretstr", "secretbytes", "default", "string;", "str,",
  "bearer", "basic", "admin", "root", "user", "guest", "string,", "string)", "str)", "unknown", "never", "void",
  "nullable", "env", "await", "async", "function", "return", "yield", "typeof", "require", "import", "const", "self",
  "this", "cls", "new", "lambda", "class", "extends", "static", "super", "let", "var", "nan", "password123", "12345678", "123456", "abcdef", "abcdefgh", "qwerty", "letmein", "asdfasdf",
]);

/**
 * Value characters a rule that weighs values (plausibleSecret) reads in one
 * scan: eight times the text, which no text reaches but one whose values
 * nest in each other (`token=token=…`, `authorization:authorization:…`:
 * every hit re-read the same 4,096 characters and weighed them against some
 * thirty patterns, over a second for 256 KB). Past it, such a rule reads
 * values to SPENT_VALUE_MAX characters and masks them unweighed: a text built
 * to cost the hook its deadline loses more of itself, never a secret.
 *
 * @example
 * ```ts
 * const ctx = { s: "x".repeat(10), memo: {} as Record<string, number> };
 * readingSpent(ctx, "kvRead"); // false
 * chargeReading(ctx, "kvRead", 10_000_000);
 * readingSpent(ctx, "kvRead"); // true
 * ```
 */
export function readingSpent(ctx: { readonly s: string; readonly memo: Record<string, number> }, key: string): boolean {
  return (ctx.memo[key] ?? 0) > 8 * ctx.s.length + 65_536;
}
/** Adds `chars` read to the reading budget kept under memo `key` (see readingSpent). */
export function chargeReading(ctx: { readonly memo: Record<string, number> }, key: string, chars: number): void {
  ctx.memo[key] = (ctx.memo[key] ?? 0) + chars;
}
/** How far a rule past its reading budget reads a value. */
export const SPENT_VALUE_MAX = 256;

/**
 * How many runs of whitespace (`\s`) `v` has: what `v.split(/\s+/).length - 1`
 * counts, without the array, and without the regex engine trying every
 * position (a split by regex runs one match attempt per character).
 *
 * @example
 * ```ts
 * spaceRuns(" a  b\tc "); // 4
 * ```
 */
export function spaceRuns(v: string): number {
  let runs = 0;
  let inRun = false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    const space = c < 128 ? c === 32 || (c >= 9 && c <= 13) : WHITESPACE.test(v[i]!);
    if (space && !inRun) runs++;
    inRun = space;
  }
  return runs;
}
const WHITESPACE = /^\s$/;

/** Four to eight lower-case words of 3-12 letters, one space or dash apart: a diceware passphrase. */
const PASSPHRASE = /^[a-z]{3,12}(?:[ -][a-z]{3,12}){3,7}$/;
/** Words a lower-case UI string (`confirm your new password`) has and a passphrase does not. */
const PROSE_WORD = /\b(?:pass(?:word|phrase)s?|your?|the|this|that|and|for|with|enter|confirm|please|new|again|forgot|reset|change|characters?|least|must|should|here)\b/;
/**
 * A passphrase (`correct horse battery staple`): four to eight lower-case
 * words and nothing else is what diceware makes, and what a password key
 * holds; a label reads as a sentence (`Enter your passphrase`), with a
 * capital, an accent, punctuation or a word like `your`.
 */
const passphrase = (v: string): boolean => PASSPHRASE.test(v) && !PROSE_WORD.test(v);

/**
 * Whether a value under a secret-labelling key is plausibly a real secret
 * (not a reference, placeholder, type, label, path, boolean or number).
 *
 * @example
 * ```ts
 * plausibleSecret("hunter2", true);          // true
 * plausibleSecret("${DB_PASSWORD}", true);   // false
 * plausibleSecret("your-api-key-here", false); // false
 * plausibleSecret("user:42:profile", false, "cache_key", true); // false
 * ```
 */
export function plausibleSecret(v: string, password: boolean, keyName = "", strict = false, bare = false): boolean {
  const n = v.length;
  // Every test below only rules a value out, so their order is free: the cheapest and most often true
  // first (a third of the values the rules ask about, in a 5 MB mixed document, are too short).
  if (n < (password ? 4 : 8) || n > 8192) return false;
  // One pass over the value says which characters it has (shapeOf): each regex below is asked
  // only when the value has what the regex needs, so most values meet a few regexes, not thirty.
  const m = shapeOf(v);
  // Unquoted in code, an identifier is a reference to a variable, type or
  // call (`secret: PotentialSecret`, `token = getToken(…)`, `auth: v4auth_header`),
  // not a literal: literals carry quotes. An env-file value is bare too, so
  // only identifier shapes a credential never has are dropped.
  if (bare && (m & ~IDENT_PATH_CHARS) === 0 && /^[A-Za-z_$#][\w$#]*(?:\.[A-Za-z_$#][\w$#]*)*$/.test(v)) {
    if (/^[A-Za-z][a-z]{1,}(?:[A-Z][a-z]{2,}[0-9]{0,2})+$/.test(v)) return false; // PascalCase / camelCase
    if (/^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/.test(v) && !/\d{3}/.test(v)) return false; // snake_case
    if ((m & DOT) !== 0 && !/\d{3}/.test(v)) return false; // member path
  }
  // Expressions: `b.token||c`, `x ?? y`, `a && b`.
  if (bare && (m & (PIPE | AMP | QUESTION)) !== 0 && /\|\||&&|\?\?/.test(v)) return false;
  // A weakly labelled value counts only when it is token-like: one word, long,
  // mixed case and digits, high entropy (hex digests and ids stay).
  if (strict && !(n >= 20 && n <= 512 && /^[A-Za-z0-9+/=_.~-]+$/.test(v) && (m & LOWER) !== 0 && (m & UPPER) !== 0 && (m & DIGIT) !== 0 && entropy(v) >= Math.min(4.0, Math.log2(n) * 0.9))) return false;
  if ((m & BRACKET) !== 0 && v.includes("[REDACTED")) return false;
  if (REFERENCE_FIRST.has(v.charCodeAt(0)) && REFERENCE.test(v)) return false;
  // Interpolation anywhere (`Bearer ${token}`, `{{ .Values.x }}`, `$(cat f)`) is code, not a literal.
  if ((m & (DOLLAR | BRACE | PERCENT)) !== 0 && /\$\{|\{\{|\$\(|%\(\w+\)s/.test(v)) return false;
  // Lower-cased only where a comparison can hold: lower-casing never shortens a string (`İ` lengthens),
  // so a value longer than every simple word or than the key's word cannot equal one.
  let lower: string | undefined;
  if (n <= SIMPLE_WORD_LONGEST && SIMPLE_WORDS.has((lower ??= v.toLowerCase()))) return false;
  if (keyName) {
    const key = keyName.toLowerCase();
    if (n <= key.length && (lower ??= v.toLowerCase()) === key) return false;
  }
  if (oneUnitRepeated(v)) return false;
  if (maskLike(v, m)) return false;
  // Function calls, indexers, dotted identifier paths: code, not a literal.
  if ((m & PAREN) !== 0 && /^[A-Za-z_$][\w$.]*\s?\(.*\)?;?$/.test(v)) return false;
  // Dotted identifier paths (`exports2.STRICT_TOKEN`, `this.#headers.cookies`), optional chains and
  // their negations (`er.body?.authUrl`, `!req.headers.authorization`): code.
  if ((m & DOT) !== 0) {
    const path = v.charCodeAt(0) === 33 || v.includes("?.") ? v.replace(/^!{1,2}/, "").replaceAll("?.", ".") : v;
    if (/^[A-Za-z_$#][\w$#]*(?:\.[A-Za-z_$#][\w$#]*)+$/.test(path) && path.split(".").every((seg) => /^[#$_]?(?:[A-Za-z][a-z_]*\d{0,2}|[A-Z_][A-Z0-9_]*|[a-z]+(?:[A-Z][a-z]+)+\d{0,2}|[A-Z][a-z]+(?:[A-Z][a-z]+)*)$/.test(seg))) return false;
  }
  // printf-style templates (`/v2/tokens/%s`).
  if ((m & PERCENT) !== 0 && /(?:^|[/\s:=])%[sdvq](?:[/\s&?.]|$)/.test(v)) return false;
  if ((m & BRACKET) !== 0 && /^[A-Za-z_$][\w$]*\[/.test(v)) return false;
  // Type annotations: `password: string`, `Optional[str]`, `str | None`.
  if ((m & (BRACKET | ANGLE)) !== 0 && /^(?:Optional|List|Dict|Union|Option|Box|Vec|Array|Promise|Record)\s?[[<]/.test(v)) return false;
  if ((m & AFTER_TYPE) !== 0 && /^(?:string|str|String|bytes|SecretStr)\s?(?:\||\?|;|,|\)|=)/.test(v)) return false;
  // Labels and prose in any language (`Passwort bestätigen`): letters and spaces with a space, or a sentence.
  // A capital inside a word (`eaBzjPadcaCZK!`) is no prose; nor is a passphrase under a password key.
  if ((m & ~PROSE_CHARS) === 0 && /^\p{L}[\p{L}\p{M}' ]*[\p{L}.:?!…]?$/u.test(v) && (v.includes(" ") || /[.:?!…]$/.test(v)) && !/\p{Ll}\p{Lu}/u.test(v) && !(password && passphrase(v))) return false;
  // The tail of a bracketed placeholder (`<user:password>`, `[PASSWORD]`).
  if ((m & CLOSER) !== 0 && /^[A-Za-z_ -]{1,40}[>\]}]$/.test(v)) return false;
  if ((m & (SPACE | NON_ASCII)) !== 0 && spaceRuns(v) >= 4 && !(password && passphrase(v))) return false;
  // Filesystem paths and plain URLs without credentials.
  if ((m & SLASH) !== 0 && /^(?:~|\.{1,2})?\/[\w.@-]+(?:\/[\w.@-]+)+\/?$/.test(v) && !((m & UPPER) !== 0 && (m & DIGIT) !== 0)) return false;
  if ((m & BACKSLASH) !== 0 && /^[A-Za-z]:\\/.test(v)) return false;
  // A version (`13.1.0`, `^4.2`, `v1.2.3-rc.1`): a package key that ends in "…password" names a package.
  if ((m & DOT) !== 0 && (m & DIGIT) !== 0 && /^[v^~]?\d{1,4}(?:\.\d{1,6}){1,3}(?:[-+][\w.]{1,20})?$/.test(v)) return false;
  // A quoted key name, not a value (`tokenKey = ":_authToken"`).
  if (KEY_NAME_FIRST.has(v.charCodeAt(0)) && /^[:_.]+[a-z]+(?:[A-Z][a-z]+)*$/.test(v)) return false;
  // PLACEHOLDER is the last test on either side: it is the dearest (an unanchored alternation of
  // thirty words, either case) and rarely says no, so the values the others turn away never meet it.
  if (password) {
    if (m === DIGIT && (n < 6 || "0123456789".includes(v) || "9876543210".includes(v))) return false;
    return !PLACEHOLDER.test(v);
  }
  // Non-password keys: numbers, identifiers and env-var names are not values worth masking.
  // 15+ digits are longer than a millisecond timestamp, a port, a count or a version: under a key
  // that names a secret, a credential (Cloudinary's API keys are 15 digits, Discord's ids 17-19).
  if ((m & (LOWER | UPPER)) === 0 && /^[\d.,_:+-]+$/.test(v) && !/^\d{15,}$/.test(v)) return false;
  if ((m & LOWER) === 0 && (m & UPPER) !== 0 && /^[A-Z][A-Z0-9]*(?:[_-][A-Z0-9]+)+$/.test(v)) return false; // GITHUB_TOKEN, DD-API-KEY
  if ((m & (UPPER | DIGIT)) === 0 && /^[a-z]+(?:[_:./-][a-z]+)*$/.test(v)) return false; // my_secret_name, codespace:secrets
  // Letters in both cases, cased as a name is: `token = Punctuation`, `:param cookies: Dictionary …`,
  // `"_RSAPrivateKey"` (a Python string annotation). Random letters are not (`vZrEclFwOqeA`).
  if ((m & ~(LOWER | UPPER | UNDERSCORE)) === 0 && (m & LOWER) !== 0 && (m & UPPER) !== 0 && /^_*[A-Za-z]+$/.test(v) && nameCased(v)) return false;
  // Tokens have no spaces (passwords may).
  if ((m & (SPACE | NON_ASCII)) !== 0 && /\s/.test(v)) return false;
  if ((m & ~(LOWER | UPPER)) === 0 && /^[a-z]+(?:[A-Z][a-z]+)+$/.test(v)) return false; // accessToken
  // A run of the alphabet or of the digits (a lower-cased `K`, the Kelvin sign, is a `k`).
  if (n <= 26 && (m & ~(LOWER | UPPER | NON_ASCII)) === 0 && "abcdefghijklmnopqrstuvwxyz".includes((lower ??= v.toLowerCase()))) return false;
  if (n <= 10 && m === DIGIT && "0123456789".includes(v)) return false;
  const h = entropy(v);
  // Digits alone hold at most log2(10) = 3.32 bits each, and 16-20 random ones measure about 3.0:
  // their floor is below that, or half of all random numeric keys would be turned away.
  return h >= (m === DIGIT ? 2.5 : Math.min(3.0, Math.log2(n) * 0.8)) && !PLACEHOLDER.test(v);
}

/**
 * A value's characters by class (the bits below), in one pass: what each of
 * plausibleSecret's regexes needs is asked of this before the regex runs.
 */
function shapeOf(v: string): number {
  let m = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    m |= c < 128 ? SHAPE_BITS[c]! : NON_ASCII;
  }
  return m;
}
// shapeOf's bits: one per class of character a regex in plausibleSecret asks for. OTHER is every
// ASCII character no regex singles out.
const LOWER = 1;
const UPPER = 1 << 1;
const DIGIT = 1 << 2;
/** ASCII whitespace (`\s` below 128: tab to carriage return, space). */
const SPACE = 1 << 3;
const DOT = 1 << 4;
/** `(` or `)`. */
const PAREN = 1 << 5;
const DOLLAR = 1 << 6;
/** `{` or `}`. */
const BRACE = 1 << 7;
/** `<` or `>`. */
const ANGLE = 1 << 8;
/** `[` or `]`. */
const BRACKET = 1 << 9;
const PIPE = 1 << 10;
const AMP = 1 << 11;
const QUESTION = 1 << 12;
const PERCENT = 1 << 13;
const SLASH = 1 << 14;
const BACKSLASH = 1 << 15;
const COLON = 1 << 16;
const UNDERSCORE = 1 << 17;
const HASH = 1 << 18;
const APOSTROPHE = 1 << 19;
const BANG = 1 << 20;
/** `;` `,` `=`: what may follow a type word (`str;`, `string,`, `str=`). */
const TYPE_END = 1 << 21;
const NON_ASCII = 1 << 22;
const OTHER = 1 << 23;
const SHAPE_BITS = new Int32Array(128).fill(OTHER);
for (let c = 97; c <= 122; c++) SHAPE_BITS[c] = LOWER;
for (let c = 65; c <= 90; c++) SHAPE_BITS[c] = UPPER;
for (let c = 48; c <= 57; c++) SHAPE_BITS[c] = DIGIT;
for (const c of [9, 10, 11, 12, 13, 32]) SHAPE_BITS[c] = SPACE;
for (const [chars, bit] of [[".", DOT], ["()", PAREN], ["$", DOLLAR], ["{}", BRACE], ["<>", ANGLE], ["[]", BRACKET], ["|", PIPE], ["&", AMP], ["?", QUESTION], ["%", PERCENT], ["/", SLASH], ["\\", BACKSLASH], [":", COLON], ["_", UNDERSCORE], ["#", HASH], ["'", APOSTROPHE], ["!", BANG], [";,=", TYPE_END]] as const) {
  for (const ch of chars) SHAPE_BITS[ch.charCodeAt(0)] = bit;
}
/** What an identifier or member path is made of: `[\w$#.]`. */
const IDENT_PATH_CHARS = LOWER | UPPER | DIGIT | UNDERSCORE | DOLLAR | HASH | DOT;
/** What may follow a type word: `|`, `?`, `;`, `,`, `)`, `=`. */
const AFTER_TYPE = PIPE | QUESTION | TYPE_END | PAREN;
/** What prose can hold (letters of any script, marks, spaces, `'`, and the sentence ends `. : ? ! …`); no digit. */
const PROSE_CHARS = LOWER | UPPER | NON_ASCII | SPACE | APOSTROPHE | DOT | COLON | QUESTION | BANG;
/** What closes a bracketed placeholder: `>`, `]`, `}`. */
const CLOSER = ANGLE | BRACKET | BRACE;
/** First characters REFERENCE can match at: `< $ % { ! & *` and the first letters of its words. */
const REFERENCE_FIRST = new UnitSet("<$%{!&*piogSEesvar");
/** First characters of `/^[:_.]+/`. */
const KEY_NAME_FIRST = new UnitSet(":_.");
/** The longest of SIMPLE_WORDS (a loop: spreading the set into `map` cost every process about half a millisecond at load). */
let SIMPLE_WORD_LONGEST = 0;
for (const w of SIMPLE_WORDS) if (w.length > SIMPLE_WORD_LONGEST) SIMPLE_WORD_LONGEST = w.length;


/** `/^(.)\1*$/`: one code unit repeated, and not a line break (`.` matches none). */
function oneUnitRepeated(v: string): boolean {
  const c = v.charCodeAt(0);
  if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) return false;
  for (let i = 1; i < v.length; i++) if (v.charCodeAt(i) !== c) return false;
  return true;
}

/** `/^[x*0#.\s-]+$/i`: masking characters (`xxxx`, `****`, `#####`, `0000`, `...`) and spaces only. */
function maskLike(v: string, m: number): boolean {
  // Unicode spaces (`\s` past ASCII) are the regex's to judge.
  if ((m & NON_ASCII) !== 0) return /^[x*0#.\s-]+$/i.test(v);
  for (let i = 0; i < v.length; i++) if (!MASK_CHARS.has(v.charCodeAt(i))) return false;
  return true;
}
const MASK_CHARS = new UnitSet("xX*0#.-\t\n\v\f\r ");

/**
 * A column that holds what was made from a password, not the password (`password_hash`,
 * `encrypted_password`, `salt`): query output and seeds print these beside the secrets.
 *
 * @example
 * ```ts
 * DERIVED_COLUMN.test("password_hash"); // true
 * ```
 */
export const DERIVED_COLUMN = /hash|digest|crypt|salt/i;
/**
 * A stored password hash: modular crypt (`$2b$12$…`, `$argon2id$…`, `$6$…`), Django's
 * `pbkdf2_sha256$…`, LDAP's `{SSHA}…`, PostgreSQL's `md5…` and `SCRAM-SHA-256$…`. What a users table
 * holds under `password`, and no secret to mask.
 *
 * @example
 * ```ts
 * PASSWORD_HASH.test("$2b$12$vOOMCJsx23nb1rG51jCP8mnHsZRDbOoHxcK3RwR1Ksn45oRvZWG6t"); // true
 * PASSWORD_HASH.test("Zq7wintersun"); // false
 * ```
 */
export const PASSWORD_HASH = /^(?:\$(?:2[abxy]?|argon2(?:id|i|d)|[156]|y|scrypt|pbkdf2[\w-]*|sha\d+)\$|(?:pbkdf2_sha\d+|bcrypt(?:_sha256)?|argon2|scrypt|sha1|md5)\$|\{[A-Z0-9-]{2,16}\}|md5[0-9a-f]{32}$|SCRAM-SHA-256\$)/;
