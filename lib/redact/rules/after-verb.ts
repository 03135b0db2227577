/**
 * A password with symbols right after a verb that hands over a credential:
 * `authenticated with P@ssw0rd$1`, `logging in using dB2yF6@qL9vZm1P#4J`.
 * The entropy rule splits such a value at its symbols into pieces too short
 * to score, so this rule reads the whole word, and takes it only when it
 * mixes every character class (code after `with`/`using` does not).
 */
import { entropy, plausibleSecret } from "../keys.ts";
import { regexRule } from "../prefix.ts";

/** Whether `v` reads as a typed password: all four classes, or three with two kinds of symbol and 12+ characters. */
function credentialLike(v: string): boolean {
  if (v.includes("://") || /^[\w.+-]+@[\w-]+\.[\w.-]+$/.test(v)) return false; // URLs, emails
  // Markdown and code after "with"/"using" (`with Node-API](n-api.md)`, `using {stream.Transform}:`,
  // `` using `--flag=x` ``, `with ERR\_print()`, `with -Dname[=value]`): brackets, braces, backticks
  // and backslashes are syntax there, and a typed password seldom holds them. A trailing `,` or `.`
  // means the word was shorter than the rule's eight characters (`with TLSv1.3,`).
  if (/[()[\]{}<>`\\|]/.test(v) || /[.,;:]$/.test(v)) return false;
  if (/^-{0,2}[A-Za-z_][\w.-]{0,40}[=:]/.test(v)) return false; // `using Key=…`, `using --flag=…`: a pair, the key/value and entropy rules read it
  const lower = /[a-z]/.test(v);
  const upper = /[A-Z]/.test(v);
  const digit = /\d/.test(v);
  // Symbols a path, key chord or version also has (`#pull/123/merge`, `Ctrl+Left/Right`) do not count.
  const symbols = new Set(v.match(/[^A-Za-z0-9/.\-_+:]/g) ?? []);
  if (symbols.size === 0) return false; // the entropy rule scores unbroken tokens
  const classes = Number(lower) + Number(upper) + Number(digit) + 1;
  if (!(classes === 4 || (classes === 3 && symbols.size >= 2 && v.length >= 12))) return false;
  return entropy(v) >= 3.0 && plausibleSecret(v, true);
}

/** See the module comment. */
export const afterVerbRule = regexRule(
  "password",
  ["using ", "with "],
  String.raw`(?<![\w-])(?:using|with)[ \t]{1,4}(?:(?:the[ \t]+)?(?:password|passphrase|pass|pwd|secret|token|key)[ \t]{1,4})?["'\x60]?([^\s"'\x60]{8,128}?)[.,;:]*(?=[\s"'\x60]|$)`,
  { priority: 0.6, flags: "i", accept: credentialLike },
);
