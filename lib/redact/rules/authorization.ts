/** `Authorization:` headers in curl flags, HTTP dumps and code. */
import { chargeReading, plausibleSecret, readingSpent, SPENT_VALUE_MAX } from "../keys.ts";
import { push } from "./push.ts";
import type { Rule } from "../types.ts";

const authz = (max: number): RegExp =>
  new RegExp(String.raw`authorization(?:\\?["'])?[ \t]{0,3}[:=][ \t]{0,3}(?:\\?["'])?(?:(bearer|basic|token|digest|bot|sso-key|apikey|api-key|aws4-hmac-sha256|negotiate|ntlm|dpop|gitlab-ci-token|key)[ \t]{1,5})?([^\s"'\\,;${"`"})\]}]{1,${max}})`, "diy");
const AUTHZ = authz(4096);
/** Past the reading budget (readingSpent): values read to SPENT_VALUE_MAX. */
const AUTHZ_SPENT = authz(SPENT_VALUE_MAX);

function basicOk(v: string): boolean {
  const t = Buffer.from(v, "base64").toString("utf8");
  return /^[\x20-\x7e]{1,512}$/.test(t) && t.includes(":") && !t.endsWith(":") && !/^Aladdin:open sesame$/.test(t);
}

/** `Authorization: <scheme> <credential>` in curl flags, HTTP dumps and code. */
export const authzRule: Rule = {
  kinds: ["auth-header", "bearer-token", "basic-auth"],
  keywords: ["authorization"],
  scan(ctx, pos) {
    // Past its reading budget the rule reads short values and weighs none: each is masked as found.
    const spent = readingSpent(ctx, "authzRead");
    const re = spent ? AUTHZ_SPENT : AUTHZ;
    re.lastIndex = pos;
    const m = re.exec(ctx.s);
    if (!m) return;
    const scheme = (m[1] ?? "").toLowerCase();
    const v = m[2]!;
    const [a, b] = m.indices![2]!;
    chargeReading(ctx, "authzRead", v.length);
    if (scheme === "basic") {
      if (!spent && !basicOk(v)) return;
      push(ctx, { from: pos, start: a, end: b, kind: "basic-auth", priority: 2 });
      return;
    }
    // Unquoted and no scheme: in code that is a variable (`'Authorization': v4auth_header`).
    const bare = scheme === "" && !/["'`]/.test(ctx.s[a - 1] ?? "");
    if (!spent && !plausibleSecret(v, scheme !== "" && scheme !== "bearer", "", false, bare)) return;
    push(ctx, { from: pos, start: a, end: b, kind: scheme === "bearer" ? "bearer-token" : "auth-header", priority: 2 });
  },
};

/** A bare `Bearer <token>` anywhere (code, logs), filtered for references and placeholders. */
