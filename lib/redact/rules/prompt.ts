/**
 * A password typed at a prompt that echoed it, as a terminal log, an expect
 * transcript or a pasted session shows it: `Enter password: X` (mysql, psql
 * and most tools), `[sudo] password for bob: X`, `Password for
 * 'https://bob@github.com': X` (git), `bob@host's password: X` (ssh), `Enter
 * passphrase for key '…': X`, `Enter PEM pass phrase: X` (openssl), `New
 * password: X` / `Retype new password: X` (passwd), `Vault password: X`
 * (ansible). Each stem is what a program prints to ask, and the answer is
 * one word ending the line; the key/value rule turns such a word away, since
 * after `password:` in code or prose it is a name.
 */
import { plausibleSecret } from "../keys.ts";
import { regexRule } from "../prefix.ts";
import { ENCLOSED } from "../printed.ts";
import type { Rule } from "../types.ts";

/** The rest of the prompt up to its `: `, then the typed word alone to the line's end. */
const ANSWER = String.raw`[^\n:]{0,160}:[ \t]{1,4}(\S{1,256})[ \t]*(?=\r?\n|$)`;

/** A word a password can be: not a bracketed note (`(none)`, `<hidden>`), and past plausibleSecret's bar. */
const opts = { priority: 2, flags: "i", accept: (v: string) => !ENCLOSED.test(v) && plausibleSecret(v, true) };

/** See the module comment. */
export const PROMPT_RULES: readonly Rule[] = [
  regexRule("password", ["enter password", "enter passphrase", "enter pem pass phrase"], String.raw`enter (?:password|passphrase|pem pass phrase)${ANSWER}`, opts),
  regexRule("password", ["password for "], String.raw`password for (?:'[^'\n]{1,200}'|[^\s:]{1,120})${ANSWER}`, opts),
  regexRule("password", ["'s password:"], String.raw`'s password:[ \t]{1,4}(\S{1,256})[ \t]*(?=\r?\n|$)`, opts),
  regexRule("password", ["new password:", "new password again:", "vault password:", "vault password ("], String.raw`(?:(?:retype |re-enter |repeat |confirm )?new password(?: again)?|vault password(?: \([^)\n]{1,64}\))?)${ANSWER}`, opts),
];
