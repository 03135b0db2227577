/** `Authorization:` headers in curl flags, HTTP dumps and code. */
import { plausibleSecret } from "../keys.ts";
import { push } from "./push.ts";
import type { Rule } from "../types.ts";

const AUTHZ = /authorization(?:\\?["'])?[ \t]{0,3}[:=][ \t]{0,3}(?:\\?["'])?(?:(bearer|basic|token|digest|bot|sso-key|apikey|api-key|aws4-hmac-sha256|negotiate|ntlm|dpop|gitlab-ci-token|key)[ \t]{1,5})?([^\s"'\\,;`)\]}]{1,4096})/diy;

function basicOk(v: string): boolean {
  const t = Buffer.from(v, "base64").toString("utf8");
  return /^[\x20-\x7e]{1,512}$/.test(t) && t.includes(":") && !t.endsWith(":") && !/^Aladdin:open sesame$/.test(t);
}

/** `Authorization: <scheme> <credential>` in curl flags, HTTP dumps and code. */
export const authzRule: Rule = {
  kinds: ["auth-header", "bearer-token", "basic-auth"],
  keywords: ["authorization"],
  scan(ctx, pos) {
    AUTHZ.lastIndex = pos;
    const m = AUTHZ.exec(ctx.s);
    if (!m) return;
    const scheme = (m[1] ?? "").toLowerCase();
    const v = m[2]!;
    const [a, b] = m.indices![2]!;
    if (scheme === "basic") {
      if (!basicOk(v)) return;
      push(ctx, { from: pos, start: a, end: b, kind: "basic-auth", priority: 2 });
      return;
    }
    // Unquoted and no scheme: in code that is a variable (`'Authorization': v4auth_header`).
    const bare = scheme === "" && !/["'`]/.test(ctx.s[a - 1] ?? "");
    if (!plausibleSecret(v, scheme !== "" && scheme !== "bearer", "", false, bare)) return;
    push(ctx, { from: pos, start: a, end: b, kind: scheme === "bearer" ? "bearer-token" : "auth-header", priority: 2 });
  },
};

/** A bare `Bearer <token>` anywhere (code, logs), filtered for references and placeholders. */
