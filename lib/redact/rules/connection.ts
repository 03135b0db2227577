/**
 * Passwords in connection settings the key/value rule cannot name:
 * an ODBC/ADO string's `Pwd=` (`pwd` alone is the shell's working
 * directory, so the key is never a secret's name by itself; here the `;`
 * that separates a connection string's pairs says what it is), and a
 * `.pgpass` line, `host:port:database:user:password`, where only the place
 * names the field; a libpq connection string's `password=` among its
 * `host=`, `user=` and `dbname=` pairs; a `;`-separated one's `Password=`;
 * Go's MySQL DSN, `user:password@tcp(host:3306)/db`, a userinfo with no
 * scheme before it (so the URL rule never reads it); and servers' own config
 * lines, a directive then a space then the password (redis.conf's
 * `requirepass`, slapd.conf's `rootpw`, HAProxy's `stats auth`, a
 * `.fetchmailrc` poll line's `password`, an `.msmtprc` account's; mysqld's log of
 * the temporary root password it generated).
 */
import { plausibleSecret, UnitSet } from "../keys.ts";
import { firstMatched, regexRule } from "../prefix.ts";
import type { Rule } from "../types.ts";

/**
 * go-sql-driver/mysql's DSN, `user:password@tcp(host:3306)/db`: the user's characters, the
 * password's, and the protocol after the `@`. The rule below reads the password behind the protocol;
 * the key/value rule leaves a whole DSN under `DSN=` to it (GO_MYSQL_DSN).
 */
const DSN_USER = String.raw`[\w.$-]{0,64}`;
const DSN_PASSWORD = String.raw`[^\s:@"'\x60/\\]{1,256}`;
const DSN_PROTOCOL = String.raw`@(?:tcp[46]?|unix|udp)\(`;
/** A whole value that is a Go MySQL DSN. */
export const GO_MYSQL_DSN = new RegExp(`^${DSN_USER}:${DSN_PASSWORD}${DSN_PROTOCOL}`);

/** Ends a bare `Pwd=` value (a braced one runs to its `}`). */
const VALUE_STOP = new UnitSet(" \t\r\n;\"'{}");
const PWD_VALUE_MAX = 256;

/** Where a pair's value starts after its key ends at `i`: past spaces, `=` and spaces; -1 with no `=`. */
function afterEquals(s: string, i: number): number {
  while (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9) i++;
  if (s.charCodeAt(i) !== 61) return -1;
  i++;
  while (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9) i++;
  return i;
}

/**
 * `…;Pwd=x;…`, `Pwd={x;y}`, `"Uid=sa;Pwd=x"`: a `;` before the key or right
 * after the value. Read by hand, not by a pattern whose look-ahead read every
 * value to its end and back (`Pwd=Pwd=…` cost 60 times a build log); a hit
 * inside a value already read is skipped.
 */
function odbcPwdRule(): Rule {
  return {
    kinds: ["password"],
    keywords: ["pwd"],
    scan(ctx, pos) {
      const s = ctx.s;
      if (pos < (ctx.memo.pwdTo ?? 0)) return;
      let b = pos - 1;
      while (b >= 0 && pos - b <= 3 && (s.charCodeAt(b) === 32 || s.charCodeAt(b) === 9)) b--;
      const before = b < 0 ? -1 : s.charCodeAt(b);
      const semicolonBefore = before === 59;
      // The key is a word of its own: a pair's start (`;`, `{`, a quote, a space, the line's start).
      if (!(semicolonBefore || before === -1 || before === 10 || before === 123 || before === 34 || before === 39 || b < pos - 1)) return;
      const i = afterEquals(s, pos + 3);
      if (i < 0) return;
      let start = i;
      let end: number;
      let after: number;
      if (s.charCodeAt(i) === 123) {
        start = i + 1;
        end = start;
        while (end < s.length && end - start <= PWD_VALUE_MAX && s.charCodeAt(end) !== 125 && s.charCodeAt(end) !== 10) end++;
        if (s.charCodeAt(end) !== 125) {
          ctx.memo.pwdTo = end;
          return;
        }
        after = end + 1;
      } else {
        end = i;
        while (end < s.length && end - i < PWD_VALUE_MAX && !VALUE_STOP.has(s.charCodeAt(end))) end++;
        after = end;
      }
      ctx.memo.pwdTo = after;
      while (s.charCodeAt(after) === 32 || s.charCodeAt(after) === 9) after++;
      if (end === start || !(semicolonBefore || s.charCodeAt(after) === 59)) return;
      const v = s.slice(start, end);
      // A working directory (`cd /tmp; PWD=/tmp`) is a path, whatever the `;` says.
      if (/^(?:[~./\\]|[A-Za-z]:\\)/.test(v) || !plausibleSecret(v, true)) return;
      ctx.out.push({ from: pos, start, end, kind: "password", priority: 1 });
    },
  };
}

/** A libpq connection string's other keys, as pairs opening a word: `host=db`, `dbname=app`. */
const CONNINFO_KEY = /(?:^|[\s"'])(?:host|hostaddr|port|dbname|user|sslmode|connect_timeout|application_name)=[^\s"'=,()]{1,256}(?=[\s"']|$)/g;
/** Ends a conninfo value; a comma or a parenthesis after one is code's (`password=None,`), never libpq's. */
const CONNINFO_STOP = new UnitSet(" \t\r\n\"';,()");
/** How far either side of `password=` the other pairs are looked for (a conninfo string is one line). */
const CONNINFO_REACH = 256;

/**
 * A libpq connection string, `psql "host=db user=app password=X dbname=x"`:
 * space-separated `key=value` pairs, where a word after `password=` is a
 * literal, as it is not in code (`password=userPassword`). Two of the other
 * keys on its line, as pairs ended by a space or a quote (code's end in `,`
 * or `)`: `def f(host, port=PORT, user=None, password=None)`), say it is one.
 */
function conninfoRule(): Rule {
  return {
    kinds: ["password"],
    keywords: ["password="],
    scan(ctx, pos) {
      const s = ctx.s;
      const c = pos > 0 ? s.charCodeAt(pos - 1) : 32;
      // The key opens a pair: a space, a quote or the line's start before it.
      if (!(c === 32 || c === 9 || c === 34 || c === 39 || c === 10)) return;
      const start = pos + "password=".length;
      let end = start;
      while (end < s.length && end - start < PWD_VALUE_MAX && !CONNINFO_STOP.has(s.charCodeAt(end))) end++;
      const next = end < s.length ? s.charCodeAt(end) : 32;
      if (end === start || !(next === 32 || next === 9 || next === 10 || next === 13 || next === 34 || next === 39)) return;
      // The value first: most `password=` hits in code and prose are no literal, and the line costs more to read.
      const v = s.slice(start, end);
      if (!plausibleSecret(v, true)) return;
      if (!twoPairsAround(s, pos, end, CONNINFO_KEY)) return;
      ctx.out.push({ from: pos, start, end, kind: "password", priority: 1 });
    },
  };
}

/**
 * Whether `pairs` (a global regex) finds two matches on the line around
 * `s[pos..end)`, read no further than CONNINFO_REACH either side (a text with
 * no line breaks stays linear).
 */
function twoPairsAround(s: string, pos: number, end: number, pairs: RegExp): boolean {
  let lineFrom = pos;
  while (lineFrom > 0 && pos - lineFrom < CONNINFO_REACH && s.charCodeAt(lineFrom - 1) !== 10) lineFrom--;
  let lineTo = end;
  while (lineTo < s.length && lineTo - end < CONNINFO_REACH && s.charCodeAt(lineTo) !== 10) lineTo++;
  const line = s.slice(lineFrom, lineTo);
  let found = 0;
  for (pairs.lastIndex = 0; found < 2 && pairs.exec(line); ) found++;
  return found >= 2;
}

/** A `;`-separated connection string's other keys (ADO.NET, JDBC, Npgsql), as `;`-bounded pairs. */
const SEMI_KEY = /(?:^|[;"'])[ \t]*(?:server|data source|host|address|addr|database|initial catalog|databasename|db|uid|user ?id|user|username|port|encrypt|trustservercertificate|sslmode|integrated security)[ \t]*=[^;"'\n]{1,256}(?=;|["']|$)/gi;
/** Ends a `;`-separated string's value. */
const SEMI_STOP = new UnitSet("\r\n\"';");

/**
 * `Server=db;User Id=sa;Password=X;`, `jdbc:sqlserver://db;user=sa;password=X`,
 * Npgsql's `Host=db;Username=app;Password=X`: a `;`-separated connection
 * string's `Password=` (a word as much as a token, spaces allowed, to the
 * next `;`), when two more of its pairs are on the line, `;`-bounded (a
 * statement `password=newPassword;` has none).
 */
function semicolonPasswordRule(): Rule {
  return {
    kinds: ["password"],
    keywords: ["password"],
    scan(ctx, pos) {
      const s = ctx.s;
      const c = pos > 0 ? s.charCodeAt(pos - 1) : 59;
      if (!(c === 59 || c === 32 || c === 9 || c === 34 || c === 39 || c === 10)) return;
      const start = afterEquals(s, pos + "password".length);
      if (start < 0) return;
      let end = start;
      while (end < s.length && end - start < PWD_VALUE_MAX && !SEMI_STOP.has(s.charCodeAt(end))) end++;
      while (end > start && (s.charCodeAt(end - 1) === 32 || s.charCodeAt(end - 1) === 9)) end--;
      // A `;` before the key or right after the value: a pair of a `;`-separated string.
      if (end === start || !(c === 59 || s.charCodeAt(end) === 59)) return;
      const v = s.slice(start, end);
      if (!plausibleSecret(v, true)) return;
      if (!twoPairsAround(s, pos, end, SEMI_KEY)) return;
      ctx.out.push({ from: pos, start, end, kind: "password", priority: 1 });
    },
  };
}

/** See the module comment. */
export const CONNECTION_RULES: readonly Rule[] = [
  odbcPwdRule(),
  conninfoRule(),
  semicolonPasswordRule(),
  // .pgpass: host:port:database:user:password on a line of its own (PostgreSQL's and PgBouncer's usual
  // ports, or `*`), five fields exactly (`\:` is an escaped colon): /etc/shadow's nine are not one.
  regexRule("password", [":5432:", ":5433:", ":6432:", ":*:"], String.raw`(?<=(?:^|\n)[A-Za-z0-9.*_\[\]-]{1,253})(?::(?:5432|5433|6432|\*)):(?:[^:\s\\]|\\.){1,63}:(?:[^:\s\\]|\\.){1,63}:((?:[^:\s\\]|\\.){1,256})(?=\r?\n|$)`, {
    priority: 2,
    accept: (v) => plausibleSecret(v.replaceAll("\\:", ":"), true),
  }),
  // A server's config directive, name then a space then the password, alone on its line: redis.conf's
  // `requirepass X` and `masterauth X` (and redis-cli's `CONFIG SET requirepass X`), slapd.conf's
  // `rootpw X`, keepalived's `auth_pass X`.
  regexRule("password", ["pass ", "masterauth ", "rootpw ", "auth_pass "], String.raw`(?:(?<=(?:^|\n)[ \t]{0,8}(?:[^\s>]{0,64}>[ \t]{0,4})?(?:config[ \t]{1,4}set[ \t]{1,4})?require)pass|(?<=(?:^|\n)[ \t]{0,8}(?:[^\s>]{0,64}>[ \t]{0,4})?(?:config[ \t]{1,4}set[ \t]{1,4})?)(?:masterauth|rootpw|auth_pass))[ \t]{1,8}(?:"([^"\n]{1,256})"|([^\s"#][^\s]{0,255}))[ \t]*(?=\r?\n|$)`, {
    priority: 2,
    flags: "i",
    group: firstMatched(1, 2),
    accept: (v) => plausibleSecret(v, true),
  }),
  // HAProxy: `stats auth admin:X`, a userlist's `user admin insecure-password X`.
  regexRule("password", ["auth ", "secure-password "], String.raw`(?:(?<=(?<![\w-])stats[ \t]{1,8})auth[ \t]{1,8}[^\s:]{1,64}:|(?<=\buser[ \t]{1,8}\S{1,64}[ \t]{1,8}in)secure-password[ \t]{1,8})(\S{1,256})`, {
    priority: 2,
    accept: (v) => plausibleSecret(v, true),
  }),
  // .fetchmailrc: `poll mail.example.com … user "bob" password "X"` (`pass` too).
  regexRule("password", ["password ", "pass "], String.raw`(?<=\bpoll[ \t][^\n]{0,300}\buser(?:name)?[ \t]{1,4}(?:"[^"\n]{1,64}"|\S{1,64})[ \t]{1,4})(?:password|pass)[ \t]{1,4}(?:"([^"\n\\]{1,256})"|'([^'\n\\]{1,256})'|([^\s"']\S{0,255}))`, {
    priority: 2,
    group: firstMatched(1, 2, 3),
    accept: (v) => plausibleSecret(v, true),
    near: { words: ["poll"], within: 420 },
  }),
  // msmtp's config (`~/.msmtprc`): directives one a line, `user bob` on a line of its own, then up to
  // four more (`auth on`, `from …`), then `password X`. Lower case, as msmtp writes them: prose's
  // "Password reset" and a log's "user x logged in" are not directive lines.
  regexRule("password", ["password "], String.raw`(?<=(?:^|\n)[ \t]{0,8}(?:user|username|login)[ \t]{1,8}\S{1,128}[ \t]*\r?\n(?:[ \t]{0,8}[a-z_]{2,32}(?:[ \t]{1,8}[^\n]{0,128})?\r?\n){0,4}[ \t]{0,8})password[ \t]{1,8}(?:"([^"\n]{1,256})"|([^\s"#]\S{0,255}))[ \t]*(?=\r?\n|$)`, {
    priority: 2,
    group: firstMatched(1, 2),
    accept: (v) => plausibleSecret(v, true),
    near: { words: ["user", "login"], within: 1000 },
  }),
  // mysqld's first start (`--initialize`) logs the root account's generated password: `A temporary
  // password is generated for root@localhost: X` (what `docker logs mysql | grep 'temporary password'` shows).
  regexRule("password", ["password is generated for "], String.raw`(?<=temporary[ \t])password is generated for [^\s:]{1,128}:[ \t]{1,4}(\S{1,256})[ \t]*(?=\r?\n|$)`, {
    priority: 2,
    accept: (v) => plausibleSecret(v, true),
  }),
  // go-sql-driver/mysql: `user:password@tcp(host:3306)/db`, `@unix(/run/mysqld.sock)/db`; the password
  // is read behind the protocol, up to the user's colon (`%s` and `${DB_PASS}` are templates).
  regexRule("password", ["@tcp(", "@tcp4(", "@tcp6(", "@unix(", "@udp("], String.raw`(?<=(?:^|[\s"'\x60=(,])${DSN_USER}:(${DSN_PASSWORD}))${DSN_PROTOCOL}`, {
    priority: 2,
    accept: (v) => plausibleSecret(v, true),
  }),
];
