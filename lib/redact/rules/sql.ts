/**
 * A password in the SQL (and MongoDB shell) that creates or changes a
 * database user, as a migration, a setup script or an agent's `psql -c`
 * prints it: PostgreSQL's `CREATE USER app WITH PASSWORD 'x'` and `ALTER ROLE
 * … PASSWORD 'x'`, MySQL's and Oracle's `IDENTIFIED BY 'x'` (`IDENTIFIED WITH
 * plugin BY`, Oracle's bare and double-quoted forms), MySQL's `SET PASSWORD …
 * = 'x'` and `PASSWORD('x')`, SQL Server's `sp_addlogin`, and mongosh's
 * `createUser({…, pwd: 'x'})` and `changeUserPassword('u', 'x')`. The
 * key/value rule sees none of them: no `=` or `:` follows the word, or a
 * quoted word after `PASSWORD` reads as prose elsewhere, so each needs its
 * statement around it.
 */
import { plausibleSecret } from "../keys.ts";
import { firstMatched, regexRule } from "../prefix.ts";
import { ENCLOSED } from "../printed.ts";
import type { Rule } from "../types.ts";

/** A single-quoted SQL string's body (`''` is a quote inside it), a double-quoted one's, or a bare word. */
const QUOTED = String.raw`(?:[EN]?'((?:[^'\n]|''){1,256})'|"([^"\n]{1,256})")`;
const quotedGroup = firstMatched(1, 2);

/** A password, not a psql variable, placeholder or reference (`:'pw'`, `'<password>'`, `'${DB_PASSWORD}'`). */
const opts = { priority: 2, flags: "i", noLB: true, accept: (v: string) => !ENCLOSED.test(v) && plausibleSecret(v, true) };

/** See the module comment. */
export const SQL_RULES: readonly Rule[] = [
  // Each needs its statement's head on the same line before it (`CREATE USER app WITH LOGIN PASSWORD
  // 'x'`, `GRANT … IDENTIFIED BY`), or an expression's `=`, `(`, `,` or SELECT before PASSWORD('x'):
  // prose is full of `identified by the team` and code of `new Password('…')`.
  regexRule("password", ["password '", "password e'", "password  '"], String.raw`(?<=\b(?:create|alter)[ \t]+(?:user|role|group)\b[^;\n]{0,200})password[ \t]+${QUOTED}`, { ...opts, group: quotedGroup }),
  regexRule(
    "password",
    ["identified"],
    String.raw`(?<=\b(?:(?:create|alter)[ \t]+user\b|grant\b)[^;\n]{0,300})identified[ \t]+(?:with[ \t]+['"]?\w{1,64}['"]?[ \t]+)?by[ \t]+(?:password[ \t]+)?(?:${QUOTED}|(?![:&@$?%]|values\b)([^\s;'"]{1,256}))`,
    { ...opts, group: firstMatched(1, 2, 3) },
  ),
  regexRule("password", ["set password"], String.raw`set[ \t]+password(?:[ \t]+for[ \t]+[^\s=]{1,200})?[ \t]*=[ \t]*(?:(?:old_)?password\([ \t]*)?${QUOTED}`, { ...opts, group: quotedGroup }),
  regexRule("password", ["password('", 'password("', "password( '"], String.raw`(?<=(?:[=(,]|\bselect)[ \t]*)password\([ \t]*${QUOTED}[ \t]*\)`, { ...opts, group: quotedGroup }),
  regexRule("password", ["sp_addlogin"], String.raw`sp_addlogin[ \t]+(?:@loginame[ \t]*=[ \t]*)?N?'[^'\n]{1,128}'[ \t]*,[ \t]*(?:@passwd[ \t]*=[ \t]*)?${QUOTED}`, { ...opts, group: quotedGroup }),
  // mongosh: the `pwd` of the user a call creates or updates, and changeUserPassword's second argument.
  regexRule("password", ["pwd:", "pwd :"], String.raw`(?<=\b(?:createUser|updateUser|auth)[ \t]*\([^)]{0,300})pwd[ \t]*:[ \t]*(?:'([^'\n]{1,256})'|"([^"\n]{1,256})")`, { ...opts, group: quotedGroup }),
  regexRule("password", ["changeuserpassword("], String.raw`changeUserPassword\([ \t]*(['"])[^'"\n]{1,128}\1[ \t]*,[ \t]*(?:'([^'\n]{1,256})'|"([^"\n]{1,256})")`, { ...opts, group: firstMatched(2, 3) }),
];
