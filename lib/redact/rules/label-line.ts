/**
 * A label on a line of its own and the value on the line after it, as CLIs
 * print a credential shown once: `Generated password:` / `Your new API key:`
 * / `Initial admin password:`, then the value alone on the next line. The
 * key/value rule reads a value on the label's own line; here the line break
 * is the separator. The value line is judged as a printed secret is
 * (printed.ts printedSecret): a password label lets a word count, a key or
 * token label only a token.
 *
 * A label starts with a capital and is words only: code never capitalises
 * `if password:` or `elif token:`. A YAML key alone on its line
 * (`password:`) takes the next line only when it is indented deeper: then it
 * is the key's plain scalar, continued; a nested mapping's lines are
 * `k: v` or `- x`, never one token.
 */
import { classifyKey, plausibleSecret } from "../keys.ts";
import { regexRule } from "../prefix.ts";
import { type Printed, printedAs, printedLines } from "../printed.ts";
import type { Rule } from "../types.ts";

/** The label line, trimmed: a capitalised run of up to six words, then the noun, then `:` (`is:` too). */
const LABEL_LINE = /^[A-Z][A-Za-z-]*(?: [A-Za-z-]+){0,6}:$/;
/** A YAML key alone on its line, in any case (`db_password:`, `apiToken:`), named for a secret by classifyKey. */
const YAML_KEY = /^([A-Za-z_][\w.-]{0,80}):$/;
const NOUN = /(?:^| )(password|passphrase|passwd|(?:api|access|secret|license|private|auth|app) key|key|token|secret)(?: is)?:$/i;

export const labelLineRule: Rule = {
  kinds: ["password", "generic-secret"],
  keywords: ["password:", "passphrase:", "passwd:", "key:", "token:", "secret:", " is:"],
  scan(ctx, pos, keyword) {
    const s = ctx.s;
    // The colon must end the line (most hits are `password: x` on one line, the key/value rule's).
    let le = pos + keyword.length;
    while (le < s.length && (s.charCodeAt(le) === 32 || s.charCodeAt(le) === 9 || s.charCodeAt(le) === 13)) le++;
    if (le >= s.length || s.charCodeAt(le) !== 10) return;
    let ls = pos;
    while (ls > 0 && pos - ls < 120 && s.charCodeAt(ls - 1) !== 10) ls--;
    if (ls > 0 && s.charCodeAt(ls - 1) !== 10) return;
    const line = s.slice(ls, le);
    const label = line.trim();
    let by: Printed;
    let from = le + 1;
    const key = YAML_KEY.exec(label)?.[1];
    const cls = key === undefined ? null : classifyKey(key);
    let d = from;
    while (d < s.length && (s.charCodeAt(d) === 32 || s.charCodeAt(d) === 9)) d++;
    if (cls && d - from > line.length - line.trimStart().length) {
      // A YAML key whose plain scalar continues on the next, deeper line (`password:\n    hunter2`).
      by = printedAs(cls);
    } else {
      if (!LABEL_LINE.test(label)) return;
      const noun = NOUN.exec(label)?.[1];
      if (!noun) return;
      by = { kind: classifyKey(noun.replace(" ", "_"))?.kind ?? "generic-secret", password: /^pass/i.test(noun) };
      // The value: the next line, or the one after a blank line.
      const blank = /^[ \t\r]*\n/.exec(s.slice(from, from + 64));
      if (blank) from += blank[0].length;
    }
    let to = s.indexOf("\n", from);
    if (to < 0) to = s.length;
    printedLines(s, from, to, by, ctx.out);
  },
};

/**
 * The same credential on the label's line, as Elasticsearch's
 * `elasticsearch-setup-passwords auto` prints each user's new password:
 * `PASSWORD elastic = X`. Capitals only, at a line's start: no code or prose
 * writes the noun that way before a name and `=`.
 */
export const setupPasswordsRule: Rule = regexRule("password", ["password"], String.raw`PASSWORD[ \t]{1,4}[\w.-]{1,64}[ \t]{1,4}=[ \t]{1,4}(\S{1,256})(?=[ \t]*\r?(?:\n|$))`, {
  priority: 1,
  accept: (v) => plausibleSecret(v, true),
  // The capitals (`P`, `A`, `W`: the keyword pass folds case) and the line's start.
  hit: (u, pos) => u[pos] === 80 && u[pos + 1] === 65 && u[pos + 4] === 87 && (pos === 0 || u[pos - 1] === 10),
});
