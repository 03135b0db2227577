/**
 * A password an agent names in its own words, as its messages report what it
 * did: "I've set the password to `X`", "The new password is `X`", "I set
 * DB_PASSWORD to X in .env", "created the admin user with password `X`",
 * "The database password (`X`) is stored in .env", "Changed the password
 * from `A` to `B`", "Use the password X to log in", "Credentials: `admin` /
 * `X`". No `key=value` stands there, and the key/value rule reads a bare word
 * after a key as a name in code.
 *
 * The noun is a password's (`password`, `passphrase`, `passwd`, or a name
 * ending in one: `DB_PASSWORD`); a token or key named in prose is caught by
 * its shape. The value is one the writer set apart (a code span or quotes),
 * or a bare word that reads as made up (a digit or an inner capital: "the
 * password is incorrect", "password to log in" stay), after a word that
 * hands it over (`is`, `to`, `set to`, `from … to`, `(`); right after the
 * noun only a value set apart ("the password PasswordHasher uses" names a
 * class); a `(` only after a space (`password('Prompt: ')` is a call). `=` and `:` are the key/value rule's: `password=userPassword` is code.
 */
import { wordPassword } from "../context.ts";
import { isAsciiLetter, isWordUnit, madeUp, plausibleSecret } from "../keys.ts";
import { firstMatched, regexRule } from "../prefix.ts";
import type { Rule, ScanCtx } from "../types.ts";

/**
 * A value set apart: a code span (group n), double quotes (n + 1), single quotes (n + 2); or a bare
 * word (n + 3), ended by a space, a line's end, or the end of the JSON string the sentence is in
 * (`"msg": "password is X"`, `…X\n`).
 */
const VALUE = String.raw`(?:\x60([^\x60\n]{1,256})\x60|"([^"\n]{1,256})"|'([^'\n]{1,256})'|([^\s\x60"'(),;]{4,256}?)(?=[.,;:!?)]?(?:[ \t\r\n"]|\\[nrt"]|$)))`;
/** The noun: a password's, the rest of a name around it (`DB_PASSWORD`, `passwords`), a code span's closing tick. */
const NOUN = String.raw`(?:password|passphrase|passwd)\w{0,40}\x60?`;
/**
 * Whose password: "the password for admin is …", "the password of the db is …", up to four words
 * ("the password for the 'elastic' user is …", Elasticsearch's "for the elastic built-in superuser is
 * : …"), before a word that hands it over only.
 */
const OWNER = String.raw`(?:[ \t]{1,4}(?:for|of)(?:[ \t]{1,4}[^\s]{1,40}?){1,4})?`;
/** What a name in code stands for, between it and the word that hands its value over ("set `DB_PASSWORD` environment variable to …"). */
const NOUN_TAIL = String.raw`(?:[ \t]{1,4}(?:environment|env|variable|var|secret|setting|field|value)){0,2}`;
/** What hands the value over. */
const CONNECT = String.raw`(?:[ \t]{1,4}(?:(?:is|was|will[ \t]{1,4}be|has[ \t]{1,4}been)(?:[ \t]{1,4}now)?(?:[ \t]{1,4}(?:set|changed|reset|updated|rotated)[ \t]{1,4}to)?|(?:(?:is|was|has[ \t]{1,4}been|been|got|gets|now)[ \t]{1,4})?(?:set|changed|reset|updated|rotated)[ \t]{1,4}to|to|(?:(?:changed|reset|updated|rotated)[ \t]{1,4})?from[ \t]{1,4}\S{1,258}[ \t]{1,4}to)(?:[ \t]{0,2}:)?[ \t]{1,4}|[ \t]{1,4}\([ \t]{0,4})`;


/** A value in code or quotes goes when plausible; a bare word only when it also reads as made up. */
const setApart = (m: RegExpExecArray, n: number): boolean => m[n] !== undefined || m[n + 1] !== undefined || m[n + 2] !== undefined;
/** A noun that names a command printing the password (msmtp's `passwordeval "gpg -d …"`, `password_command`, `PasswordCmd`): not the password. */
const COMMAND_NOUN = /^(?:password|passphrase|passwd)\w{0,30}?(?:eval|cmd|command)\b/i;
// A quoted "value" with a space at either end closes a string the noun was in (`read -p 'Enter password ' pw; echo '`).
const acceptAt = (n: number) => (v: string, m: RegExpExecArray): boolean =>
  v.trim() === v && plausibleSecret(v, true) && (setApart(m, n) || madeUp(v)) && !COMMAND_NOUN.test(m[0]);

/**
 * A noun rule's `hit` test: it reads only where prose can follow, a space or tab after the noun's word
 * (and a code span's closing tick). Most hits of `password` are a key's (`password=`, `"password":`),
 * and the test in JS costs less than the regex call it saves.
 */
function proseAfterNoun(u: Uint16Array, pos: number, kw: string): boolean {
  const i = nounEnd(u, pos, kw);
  return u[i] === 32 || u[i] === 9;
}

/** Where the noun at `pos` (keyword `kw`) ends: past the rest of its word (`passwords`, `DB_PASSWORD`, up to 40) and a code span's closing tick. */
function nounEnd(u: Uint16Array, pos: number, kw: string): number {
  let i = pos + kw.length;
  const lim = Math.min(u.length, i + 40);
  while (i < lim && isWordUnit(u[i]!)) i++;
  return u[i] === 96 ? i + 1 : i;
}

// bareAfterNoun's classes of code unit, as bits: a value needs all four; a unit of no class below
// 128 is allowed, a FORBIDDEN one (a regex's or a path's, a quote) rules the value out.
const LOWER = 1;
const UPPER = 2;
const DIGIT = 4;
const SYMBOL = 8;
const FORBIDDEN = 16;
const STRONG = LOWER | UPPER | DIGIT | SYMBOL;
const UNIT_CLASS = new Uint8Array(128);
for (let c = 97; c <= 122; c++) UNIT_CLASS[c] = LOWER;
for (let c = 65; c <= 90; c++) UNIT_CLASS[c] = UPPER;
for (let c = 48; c <= 57; c++) UNIT_CLASS[c] = DIGIT;
for (const ch of "!@#$%^&*+=?~") UNIT_CLASS[ch.charCodeAt(0)] = SYMBOL;
for (const ch of "`\"'(),;[]{}<>\\/|") UNIT_CLASS[ch.charCodeAt(0)] = FORBIDDEN;
/** What may close a sentence after the value: not part of it. */
const closesSentence = (c: number): boolean => c === 46 || c === 44 || c === 59 || c === 58 || c === 33 || c === 63 || c === 41;
const isBlank = (c: number | undefined): boolean => c === undefined || c === 32 || c === 9 || c === 10 || c === 13;

/**
 * Right after the noun, a bare value is taken in two shapes. One shaped like nothing but a password:
 * letters of both cases, a digit and a symbol, 8 to 256 characters ("Use the password Tr0ub4dor&3
 * to log in"). A class's name (`PasswordHasher`), an algorithm's (`ECDSA256`), `sha256-hashed` and
 * `Base64Url` lack a part; a regex or a path after the noun (sudoers' `/usr/bin/passwd
 * ^[a-zA-Z0-9_]+$`) has brackets or slashes. And after `with` or `using` (a word between allowed:
 * "with the password", "using root password"), a word that reads as made up (wordPassword: a digit
 * or an inner capital, no camelCase name, no constant): "Created user admin with password
 * Zq7wintersun", "logged in using password hunter2hunter"; "with password authentication", "using
 * password hashing" and "with password userPassword" stay. Either in Markdown bold (`**X**`). Read from the code units: most nouns
 * are followed by a word, and a regex call per hit cost the mixed document's redaction 3 ms.
 */
const bareAfterNoun: Rule = {
  kinds: ["password"],
  keywords: ["password", "passphrase", "passwd"],
  scan(ctx, pos, kw) {
    const u = ctx.units;
    let i = nounEnd(u, pos, kw);
    let gap = 0;
    while (gap < 4 && (u[i] === 32 || u[i] === 9)) (i++, gap++);
    if (gap === 0) return;
    // Markdown bold around the value (`**X**`, `__X__`), as an agent's summary writes it: the markers go around, not in.
    if ((u[i] === 42 || u[i] === 95) && u[i + 1] === u[i]) {
      const mark = u[i]!;
      const a = i + 2;
      let b = a;
      let shape = 0;
      while (b < u.length && b - a <= 256 && !isBlank(u[b]) && !(u[b] === mark && u[b + 1] === mark)) shape |= u[b]! < 128 ? UNIT_CLASS[u[b]!]! : 0, b++;
      if (u[b] !== mark || u[b + 1] !== mark || b === a || (shape & FORBIDDEN) !== 0) return;
      const after = closesSentence(u[b + 2]!) ? b + 3 : b + 2;
      if (!isBlank(u[after])) return;
      pushPassword(ctx, pos, a, b, shape, b, shape);
      return;
    }
    const a = i;
    let shape = 0;
    while (i < u.length && i - a <= 256 && !isBlank(u[i])) shape |= u[i]! < 128 ? UNIT_CLASS[u[i]!]! : 0, i++;
    if (!isBlank(u[i]) || (shape & FORBIDDEN) !== 0) return;
    // One closing mark after the value is the sentence's ("…Tr0ub4dor&3."), when the rest still passes.
    const b = closesSentence(u[i - 1]!) ? i - 1 : i;
    let strong = shape;
    if (b < i) {
      strong = 0;
      for (let x = a; x < b; x++) strong |= u[x]! < 128 ? UNIT_CLASS[u[x]!]! : 0;
    }
    const end = b - a >= 8 ? b : i;
    pushPassword(ctx, pos, a, end, end === b ? strong : shape, b, shape);
  },
};

/**
 * bareAfterNoun's two shapes of value after the noun at `pos`, from `a`: `s[a..strongEnd)` when it
 * has nothing but a password's shape (8+ units of all four classes, `strongShape`); else
 * `s[a..wordEnd)`, a made-up word of 6+ units after `with` or `using`. Either must be plausible.
 */
function pushPassword(ctx: ScanCtx, pos: number, a: number, strongEnd: number, strongShape: number, wordEnd: number, wordShape: number): void {
  if (strongEnd - a >= 8 && (strongShape & STRONG) === STRONG) {
    if (plausibleSecret(ctx.s.slice(a, strongEnd), true)) ctx.out.push({ from: pos, start: a, end: strongEnd, kind: "password", priority: 0.5 });
    return;
  }
  if (wordEnd - a < 6 || (wordShape & LOWER) === 0 || !afterWithOrUsing(ctx.units, pos)) return;
  const v = ctx.s.slice(a, wordEnd);
  if (wordPassword(v, "password") && plausibleSecret(v, true)) ctx.out.push({ from: pos, start: a, end: wordEnd, kind: "password", priority: 0.5 });
}

/** Whether `with` or `using` (one word between allowed, up to 20 letters) stands right before the noun at `pos`. */
function afterWithOrUsing(u: Uint16Array, pos: number): boolean {
  let i = pos;
  for (let words = 0; words < 2; words++) {
    let gap = 0;
    while (gap < 4 && (u[i - 1] === 32 || u[i - 1] === 9)) (i--, gap++);
    if (gap === 0) return false;
    const end = i;
    while (i > 0 && end - i <= 20 && isAsciiLetter(u[i - 1]!)) i--;
    const n = end - i;
    if (n === 0 || n > 20 || (i > 0 && isWordUnit(u[i - 1]!))) return false;
    if ((n === 4 && isWord(u, i, "with")) || (n === 5 && isWord(u, i, "using"))) return true;
  }
  return false;
}
/** Whether `u[at..)` holds `word` (lower case), either case. */
function isWord(u: Uint16Array, at: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) if ((u[at + k]! | 32) !== word.charCodeAt(k)) return false;
  return true;
}

/** Anything but a letter: what a password has and a provider's or a product's name lacks. */
const NOT_LETTER = /[^A-Za-z]/;

/** See the module comment. */
export const PROSE_RULES: readonly Rule[] = [
  // Right after the noun, only a value set apart; after an owner and a word that hands it over, a made-up word too.
  regexRule("password", ["password", "passphrase", "passwd"], String.raw`${NOUN}(?:[ \t]{1,4}(?=["'\x60])|${NOUN_TAIL}${OWNER}${CONNECT})${VALUE}`, {
    priority: 0.5,
    flags: "i",
    group: firstMatched(1, 2, 3, 4),
    accept: acceptAt(1),
    hit: proseAfterNoun,
  }),
  bareAfterNoun,
  // The old one of "changed the password from `A` to `B`".
  regexRule("password", ["password", "passphrase", "passwd"], String.raw`${NOUN}[ \t]{1,4}(?:(?:changed|reset|updated|rotated)[ \t]{1,4})?from[ \t]{1,4}${VALUE}[ \t]{1,4}to[ \t]`, {
    priority: 0.5,
    flags: "i",
    group: firstMatched(1, 2, 3, 4),
    accept: acceptAt(1),
    hit: proseAfterNoun,
  }),
  // "Credentials: `admin` / `X`", "log in with admin / `X`": a user, a slash, the password set apart. Found at
  // the slash (`log` and `sig` opened too many of the keyword engine's candidate positions).
  regexRule(
    "password",
    [" / "],
    String.raw`(?<=(?:credentials?|log(?:ged)?[ \t]?in|sign(?:ed)?[ \t]?in)\b([ \t]{0,4}:)?(?:[^\n/]|/(?=\S)){0,80}?[ \t](?:\x60[^\x60\s/]{1,64}\x60|[^\s/\x60]{1,64}))[ \t]/[ \t](?:\x60([^\x60\n]{1,256})\x60|"([^"\n]{1,256})"|'([^'\n]{1,256})'|([^\s\x60"'(),;]{6,256}?)(?=[.,;!?)]?(?:[ \t\r\n]|$)))`,
    {
      priority: 0.5,
      flags: "i",
      group: firstMatched(2, 3, 4, 5),
      // Set apart, a plausible value. Bare only after a label's colon ("Login: admin / Zq7wintersun"),
      // and a made-up word with a digit or symbol: "Log in with GitHub / GitLab" names two choices.
      accept: (v, m) => v.trim() === v && plausibleSecret(v, true) && (m[5] === undefined || (m[1] !== undefined && wordPassword(v, "password") && NOT_LETTER.test(v))),
    },
  ),
  // "log in at … with `admin` and `X`": a user and a password, each in a code span.
  regexRule(
    "password",
    ["` and `"],
    String.raw`(?<=(?:log(?:ged)?[ \t]?in|sign(?:ed)?[ \t]?in)\b[^\n]{0,120}?\bwith[ \t]{1,4}\x60[^\x60\s]{1,64})\x60[ \t]{1,4}and[ \t]{1,4}\x60([^\x60\n]{1,256})\x60`,
    // A digit or symbol in it: "with `Google` and `GitHub`" names two providers.
    { priority: 0.5, flags: "i", accept: (v) => v.trim() === v && NOT_LETTER.test(v) && plausibleSecret(v, true) },
  ),
];
