/**
 * A password named in another language: agents answer in the user's
 * language ("Das Passwort ist `X`", "密码：X", "Пароль: X", "La contraseña
 * es X"), and tools print their labels translated. The noun, then a colon
 * (`:`, `：`, `=`) or the language's word for "is" (`ist`, `est`, `es`, `é`,
 * `是`, `は`, `는`…), then the value: set apart (a code span, quotes, `「」`,
 * `“”`, `«»`) it counts when it is plausible; bare, it must also read as
 * made up (a digit or an inner capital), as an English sentence's must
 * (prose.ts): a translated UI string after the label (`Passwort: Mindestens
 * 8 Zeichen`, `Пароль: обязательно`) is words. A value is ASCII: what a
 * password is typed in, and what a label's own text is not.
 */
import { madeUp, PASSWORD_NOUNS, plausibleSecret } from "../keys.ts";
import { firstMatched, regexRule } from "../prefix.ts";
import type { Rule } from "../types.ts";

/** The noun (any of PASSWORD_NOUNS, either case), as a pattern. */
const NOUN = `(?:${PASSWORD_NOUNS.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`;
/**
 * What hands the value over (group 1): a colon or `=` (full-width too), or the language's "is" (spaced
 * in scripts that space words; CJK's and the Korean particles need no space), maybe before a colon.
 */
const HANDS_OVER = String.raw`([ \t]{0,3}[:：=]|[ \t]{1,3}(?:ist|lautet|is|est|es|é|è|är|er|on|jest|je|adalah|ialah|là|это)(?:[ \t]{0,2}[:：])?|[ \t]{0,2}(?:是|为|為|は|が|는|은)(?:[ \t]{0,2}[:：])?)`;
/** ASCII printable but quotes, parentheses and the backtick: a bare value's units. */
const BARE_UNIT = String.raw`[\x21\x23-\x26\x2a-\x5f\x61-\x7e]`;
/**
 * What may close a bare value: a space, a line's end, a quote or bracket after one sentence mark; or
 * any unit past ASCII (CJK punctuation, Korean's `입니다` glued to the value).
 */
const BARE_END = String.raw`(?=[.,;:!?]?(?:[\s"'\x60)]|$)|[^\x00-\x7f])`;
/**
 * The value (groups 2-9: set apart in a code span, quotes, JSON-escaped quotes or the scripts' own
 * quotes; group 10: bare).
 */
const VALUE = String.raw`[ \t]{0,3}(?:\x60([\x20-\x5f\x61-\x7e]{1,256})\x60|"([\x20\x21\x23-\x7e]{1,256})"|'([\x20-\x26\x28-\x7e]{1,256})'|\\"([\x20\x21\x23-\x5b\x5d-\x7e]{1,256})\\"|「([\x20-\x7e]{1,256})」|“([\x20-\x7e]{1,256})”|«([\x20-\x7e]{1,256})»|„([\x20-\x7e]{1,256})[“”]|(${BARE_UNIT}{4,256}?)${BARE_END})`;
const BARE_GROUP = 10;

/**
 * Each noun's keyword, by how far into the noun it starts (RegexRuleOpts.back): a noun whose first
 * three characters open common words (`ken` in every `token`, `has`, `par`, `ges`) is found by a later
 * part of it, which the keyword pass sees far less often (20,000 more candidate positions in the 5 MB
 * mixed document the other way).
 */
const LATER_KEYWORDS: ReadonlyMap<string, readonly [keyword: string, back: number]> = new Map([
  ["kennwort", ["nnwort", 2]],
  ["heslo", ["eslo", 1]],
  ["geslo", ["eslo", 1]],
  ["haslo", ["aslo", 1]],
  ["hasło", ["asło", 1]],
  ["parola", ["arola", 1]],
  ["parolă", ["arolă", 1]],
  ["parool", ["arool", 1]],
]);

function nounRule(keywords: readonly string[], back: number): Rule {
  // The noun may be a quoted key (`"contraseña": "X"`): its closing quote before the colon.
  return regexRule("password", [...new Set(keywords)], NOUN + String.raw`(?:\\?["'])?` + HANDS_OVER + VALUE, {
    back,
    priority: 0.5,
    flags: "i",
    group: firstMatched(2, 3, 4, 5, 6, 7, 8, 9, BARE_GROUP),
    accept: (v, m) => v.trim() === v && plausibleSecret(v, true) && (m[BARE_GROUP] === undefined || madeUp(v)),
  });
}

/** See the module comment. */
export const LANGUAGE_RULES: readonly Rule[] = [0, 1, 2].map((back) =>
  nounRule(
    PASSWORD_NOUNS.flatMap((n) => {
      const later = LATER_KEYWORDS.get(n);
      return (later?.[1] ?? 0) === back ? [later?.[0] ?? n] : [];
    }),
    back,
  ),
);
