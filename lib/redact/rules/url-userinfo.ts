/** URL userinfo: `scheme://user:password@host`, only the password goes. */
import { entropy, plausibleSecret, wideSpace } from "../keys.ts";
import { push } from "./push.ts";
import type { Rule } from "../types.ts";

const SCHEME_KIND: Record<string, string> = {
  postgres: "postgres-url", postgresql: "postgres-url", pgsql: "postgres-url",
  mysql: "mysql-url", mariadb: "mysql-url", mysqlx: "mysql-url",
  mongodb: "mongodb-url", "mongodb+srv": "mongodb-url",
  redis: "redis-url", rediss: "redis-url", valkey: "redis-url",
  amqp: "amqp-url", amqps: "amqp-url",
  mssql: "mssql-url", sqlserver: "mssql-url",
  clickhouse: "database-url", cockroachdb: "database-url", cockroach: "database-url", snowflake: "database-url",
  oracle: "database-url", db2: "database-url", neo4j: "database-url", "neo4j+s": "database-url", bolt: "database-url",
  nats: "database-url", kafka: "database-url", ldap: "database-url", ldaps: "database-url", smtp: "database-url",
  smtps: "database-url", imap: "database-url", ftp: "url-userinfo", sftp: "url-userinfo",
};
/**
 * What ends a URL's authority: `[\s/?#"'<>\\`()[\]{},|^]`, one flag per
 * ASCII unit (wideSpace above it). Read per character of up to 512 after
 * every `://`: a regex test per character cost more than the rest of the rule.
 */
const AUTH_STOP = new Uint8Array(128);
for (const c of " \t\n\v\f\r/?#\"'<>\\`()[]{},|^") AUTH_STOP[c.charCodeAt(0)] = 1;
const authStop = (c: number): boolean => (c < 128 ? AUTH_STOP[c] === 1 : wideSpace(c));
/** `[A-Za-z0-9+.-]`: a scheme's characters. */
const schemeUnit = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 43 || c === 46 || c === 45;

/**
 * `scheme://user:pass@host`: redact only the password (the last `@` before
 * the host ends it); token-as-user with no colon is redacted when it looks random.
 * The authority ends at a backslash, so an escaped slash (`\/`) ends it too.
 */
export const urlUserinfoRule: Rule = {
  kinds: ["url-userinfo", "postgres-url", "mysql-url", "mongodb-url", "redis-url", "amqp-url", "mssql-url", "database-url"],
  // And `:\/\/`: JSON that escapes its slashes (PHP's json_encode, some loggers) writes `https:\/\/user:pass@host`.
  keywords: ["://", ":\\/\\/"],
  scan(ctx, pos, kw) {
    const { s } = ctx;
    let a = pos;
    while (a > 0 && pos - a < 32 && schemeUnit(s.charCodeAt(a - 1))) a--;
    const scheme = ctx.s.slice(a, pos).toLowerCase();
    if (!scheme) return;
    const start = pos + kw.length;
    const lim = Math.min(s.length, start + 512);
    let e = start;
    let at = -1;
    let colonSeen = false;
    // A `#` in a password (`redis://:Kx9#mP2@host`: a fragment's mark only to a URL parser, typed
    // as is in `.env` files) is read past until an `@` is found: without one the authority ended there.
    let hashAt = -1;
    for (let c = s.charCodeAt(e); e < lim && (!authStop(c) || (c === 35 && colonSeen && at < 0)); c = s.charCodeAt(++e)) {
      if (c === 64) at = e;
      else if (c === 58) colonSeen = true;
      else if (c === 35 && hashAt < 0) hashAt = e;
    }
    // Digits alone between the colon and the `#` are a port (`host:8080#a@b`): a fragment follows.
    if (hashAt >= 0 && (at < hashAt || /:\d*$/.test(s.slice(start, hashAt)))) {
      e = hashAt;
      if (at > hashAt) at = s.lastIndexOf("@", hashAt);
      if (at < start) return;
    }
    if (at < 0 || at + 1 >= e) return; // no userinfo, or nothing after "@"
    if (!/[A-Za-z0-9[]/.test(s[at + 1]!)) return;
    const colon = s.indexOf(":", start);
    const bare = scheme.replace(/^jdbc:/, "");
    const kind = Object.hasOwn(SCHEME_KIND, bare) ? SCHEME_KIND[bare]! : "url-userinfo";
    if (colon >= 0 && colon < at) {
      if (!passwordInUrl(s.slice(colon + 1, at))) return;
      push(ctx, { from: a, start: colon + 1, end: at, kind, priority: 2 });
    } else if (tokenAsUser(s.slice(start, at))) {
      push(ctx, { from: a, start, end: at, kind, priority: 2 });
    }
  },
};

/**
 * Whether userinfo `user[:password]` holds what this rule redacts: the
 * password, or a user that is a random token (`https://<token>@host`).
 *
 * @example
 * ```ts
 * userinfoSecret("bob:CorrectHorseBattery"); // true
 * userinfoSecret("bob:password");            // false: a placeholder
 * ```
 */
export function userinfoSecret(info: string): boolean {
  const colon = info.indexOf(":");
  return colon >= 0 ? passwordInUrl(info.slice(colon + 1)) : tokenAsUser(info);
}

const passwordInUrl = (pass: string): boolean => pass.length > 0 && plausibleSecret(decodePct(pass), true);
const tokenAsUser = (user: string): boolean => user.length >= 16 && entropy(user) >= 3.5 && /\d/.test(user) && /[A-Za-z]/.test(user);

function decodePct(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}
