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
import { classifyKey, DERIVED_COLUMN, type KeyClass, lastLetters, PASSWORD_HASH, plausibleSecret } from "../keys.ts";
import { firstMatched, regexRule } from "../prefix.ts";
import { ENCLOSED } from "../printed.ts";
import type { Rule, ScanCtx } from "../types.ts";

/** A single-quoted SQL string's body (`''` is a quote inside it), a double-quoted one's, or a bare word. */
const QUOTED = String.raw`(?:[EN]?'((?:[^'\n]|''){1,256})'|"([^"\n]{1,256})")`;
const quotedGroup = firstMatched(1, 2);

/** A password, not a psql variable, placeholder or reference (`:'pw'`, `'<password>'`, `'${DB_PASSWORD}'`). */
const opts = { priority: 2, flags: "i", noLB: true, accept: (v: string) => !ENCLOSED.test(v) && plausibleSecret(v, true) };

/** `INSERT INTO table (col, …) VALUES`: the column list in group 1; the tuples follow. */
const INSERT_HEAD = /insert[ \t]+into[ \t]+[\w."`\[\]]{1,128}[ \t]*\(([^()\n;]{1,1024})\)[ \t\r\n]*values[ \t\r\n]*/iy;
/** How far one INSERT's tuples are read, and how long one tuple may be. */
const INSERT_READ_MAX = 1 << 20;
const TUPLE_MAX = 4096;
/** `"col"`, `` `col` ``, `[col]`: a column's quotes. */
const COLUMN_QUOTES = /^["`[]|["`\]]$/g;

/**
 * An INSERT's column list read: its names, unquoted, and each one's class when it names a secret
 * (undefined `secret` when none does). A seed repeats one list thousands of times, so the last few
 * are kept (classifyKey per column per statement was most of the rule's cost).
 */
function columnsOf(list: string): { columns: string[]; secret: (KeyClass | null)[] | undefined } {
  const known = COLUMN_LISTS.get(list);
  if (known) return known;
  const columns = list.split(",").map((c) => c.trim().replace(COLUMN_QUOTES, ""));
  const classes = columns.map((c) => (DERIVED_COLUMN.test(c) ? null : classifyKey(c)));
  const read = { columns, secret: classes.every((c) => c === null) ? undefined : classes };
  if (COLUMN_LISTS.size >= 64) COLUMN_LISTS.clear();
  COLUMN_LISTS.set(list, read);
  return read;
}
const COLUMN_LISTS = new Map<string, { columns: string[]; secret: (KeyClass | null)[] | undefined }>();

/** The first unit at or after `i` (before `lim`) that is no space, tab or line break. */
function pastSpace(s: string, i: number, lim: number): number {
  while (i < lim && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9 || s.charCodeAt(i) === 10 || s.charCodeAt(i) === 13)) i++;
  return i;
}

/**
 * A seed or migration's `INSERT INTO users (email, password) VALUES ('a@b.c', 'x'), (…)`: the
 * literal in each tuple at the position of a column that names a secret (`password`, `api_key`,
 * `token`), judged as that column's value; under a password column the first literal of a call is
 * the plaintext being hashed (`crypt('x', gen_salt('bf'))`). A column of what a password made
 * (`password_hash`, `salt`) and a stored hash under `password` (`$2b$12$…`, `pbkdf2_sha256$…`)
 * stay. What is read is remembered, so a statement's tuples are read once whatever `insert into`
 * its strings hold.
 */
function scanInsert(ctx: ScanCtx, pos: number): void {
  const s = ctx.s;
  if (pos < (ctx.memo.insertTo ?? -1)) return;
  INSERT_HEAD.lastIndex = pos;
  const m = INSERT_HEAD.exec(s);
  if (!m) return;
  const { columns, secret } = columnsOf(m[1]!);
  if (secret === undefined) return;
  const lim = Math.min(s.length, INSERT_HEAD.lastIndex + INSERT_READ_MAX);
  let i = INSERT_HEAD.lastIndex;
  // The furthest unit read: a hit before it is inside this statement (a string holding `insert into`,
  // or a tuple never closed), and reading it again would make a text of such hits quadratic.
  let readTo = i;
  // Each tuple: `(`, values split at commas outside quotes and brackets, `)`; then `,` and the next.
  while (i < lim && s.charCodeAt(i) === 40) {
    const tupleEnd = Math.min(lim, i + TUPLE_MAX);
    let col = 0;
    let depth = 0;
    let firstLit = -1;
    let firstLitEnd = -1;
    let bare = true;
    let j = i + 1;
    for (; j < tupleEnd; j++) {
      const c = s.charCodeAt(j);
      if (c === 39) {
        // A SQL string: `''` is a quote inside it.
        let k = j + 1;
        while (k < tupleEnd && (s.charCodeAt(k) !== 39 || s.charCodeAt(k + 1) === 39)) k += s.charCodeAt(k) === 39 ? 2 : 1;
        if (firstLit < 0) {
          firstLit = j + 1;
          firstLitEnd = k;
          bare = depth === 0;
        }
        j = k;
      } else if (c === 40) depth++;
      else if (c === 41 && depth > 0) depth--;
      else if ((c === 44 && depth === 0) || c === 41) {
        const cls = col < secret.length ? secret[col] : null;
        if (cls && firstLit >= 0 && (bare || cls.password)) {
          const v = s.slice(firstLit, firstLitEnd).replaceAll("''", "'");
          if (!ENCLOSED.test(v) && !PASSWORD_HASH.test(v) && plausibleSecret(v, cls.password, lastLetters(columns[col]!), cls.strict)) ctx.out.push({ from: pos, start: firstLit, end: firstLitEnd, kind: cls.kind, priority: 2 });
        }
        col++;
        firstLit = -1;
        bare = true;
        if (c === 41) break;
      } else if (c === 59) break; // `;` outside a string: the statement ended inside a tuple
    }
    readTo = Math.max(readTo, j);
    if (j >= tupleEnd || s.charCodeAt(j) !== 41) break;
    i = pastSpace(s, j + 1, lim);
    if (s.charCodeAt(i) !== 44) break;
    i = pastSpace(s, i + 1, lim);
  }
  ctx.memo.insertTo = Math.max(i, readTo);
}

/** See the module comment. */
export const SQL_RULES: readonly Rule[] = [
  { kinds: ["password", "generic-secret", "api-key"], keywords: ["insert into"], scan: scanInsert, patterns: () => [{ kind: "password", source: INSERT_HEAD.source, flags: "iy" }] },
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
