/**
 * Passwords in connection settings the key/value rule cannot name:
 * an ODBC/ADO string's `Pwd=` (`pwd` alone is the shell's working
 * directory, so the key is never a secret's name by itself; here the `;`
 * that separates a connection string's pairs says what it is), and a
 * `.pgpass` line, `host:port:database:user:password`, where only the place
 * names the field.
 */
import { plausibleSecret } from "../keys.ts";
import { regexRule } from "../prefix.ts";
import type { Rule } from "../types.ts";

/** Ends a bare `Pwd=` value (a braced one runs to its `}`). */
const VALUE_STOP = new Set([..." \t\r\n;\"'{}"].map((c) => c.charCodeAt(0)));
const PWD_VALUE_MAX = 256;

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
      let i = pos + 3;
      while (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9) i++;
      if (s.charCodeAt(i) !== 61) return;
      i++;
      while (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9) i++;
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

/** See the module comment. */
export const CONNECTION_RULES: readonly Rule[] = [
  odbcPwdRule(),
  // .pgpass: host:port:database:user:password on a line of its own (PostgreSQL's and PgBouncer's usual
  // ports, or `*`), five fields exactly (`\:` is an escaped colon): /etc/shadow's nine are not one.
  regexRule("password", [":5432:", ":5433:", ":6432:", ":*:"], String.raw`(?<=(?:^|\n)[A-Za-z0-9.*_\[\]-]{1,253})(?::(?:5432|5433|6432|\*)):(?:[^:\s\\]|\\.){1,63}:(?:[^:\s\\]|\\.){1,63}:((?:[^:\s\\]|\\.){1,256})(?=\r?\n|$)`, {
    priority: 2,
    accept: (v) => plausibleSecret(v.replaceAll("\\:", ":"), true),
  }),
];
