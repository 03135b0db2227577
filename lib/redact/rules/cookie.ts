/** `Cookie:` / `Set-Cookie:` values. */
import { chargeReading, plausibleSecret, readingSpent, SPENT_VALUE_MAX } from "../keys.ts";
import { push } from "./push.ts";
import type { Rule } from "../types.ts";

const cookie = (max: number): RegExp => new RegExp(String.raw`(?:set-)?cookie(?:\\?["'])?[ \t]{0,3}:[ \t]{0,4}(?:\\?["'])?([^\r\n"'\\${"`"}]{1,${max}})`, "diy");
const COOKIE = cookie(4096);
/** Past the reading budget (readingSpent): values read to SPENT_VALUE_MAX. */
const COOKIE_SPENT = cookie(SPENT_VALUE_MAX);
const COOKIE_PAIR = /[ \t]*([^=;\s]{1,128})=([^;]*)/y;
// Cookie names that say "this is the session" (values may then be short).
const SESSION_NAME = /sess|sid|auth|token|jwt|csrf|xsrf|login|remember|identity|secret|key/i;

/**
 * `Cookie:` / `Set-Cookie:` header values: each cookie's value on its own,
 * when it looks like a token (or is short but named like a session); a
 * `theme=dark` preference, an empty `session=` deletion and the attributes of
 * Set-Cookie (Path, Max-Age, Expires…) stay.
 */
export const cookieRule: Rule = {
  kinds: ["session-cookie"],
  keywords: ["cookie:", "cookie\":", "cookie':", "cookie\\\":"],
  scan(ctx, pos, kw) {
    let p = pos;
    const set = p >= 4 && ctx.s.slice(p - 4, p).toLowerCase() === "set-";
    if (set) p -= 4;
    if (p > 0 && /[A-Za-z0-9_]/.test(ctx.s[p - 1]!)) return;
    // Past its reading budget the rule reads short values and weighs none: each is masked as found.
    const spent = readingSpent(ctx, "cookieRead");
    const re = spent ? COOKIE_SPENT : COOKIE;
    re.lastIndex = p;
    const m = re.exec(ctx.s);
    if (!m) return;
    const v = m[1]!.trimEnd();
    const [a] = m.indices![1]!;
    chargeReading(ctx, "cookieRead", v.length);
    const weighs = (value: string, password: boolean): boolean => spent || plausibleSecret(value, password);
    if (!v.includes("=")) {
      // A JSON `"cookie": "<opaque value>"` with no name=value pairs.
      if (kw !== "cookie:" && weighs(v, false)) push(ctx, { from: p, start: a, end: a + v.length, kind: "session-cookie", priority: 2 });
      return;
    }
    let i = 0;
    while (i < v.length) {
      COOKIE_PAIR.lastIndex = i;
      const c = COOKIE_PAIR.exec(v);
      if (!c) break;
      const value = c[2]!.trim();
      if (value !== "" && (weighs(value, false) || (SESSION_NAME.test(c[1]!) && weighs(value, true)))) {
        const at = a + COOKIE_PAIR.lastIndex - c[2]!.length + c[2]!.indexOf(value);
        push(ctx, { from: p, start: at, end: at + value.length, kind: "session-cookie", priority: 2 });
      }
      // Set-Cookie: only the first pair is a cookie; the rest are attributes.
      if (set) break;
      const semi = v.indexOf(";", COOKIE_PAIR.lastIndex);
      if (semi < 0) break;
      i = semi + 1;
    }
  },
};
