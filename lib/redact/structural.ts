/**
 * Structural rules: secrets recognised by the structure around them (PEM
 * blocks, URL userinfo, auth headers, connection strings, Kubernetes Secrets)
 * rather than by a prefix. Each reads a bounded window from its keyword.
 */
import { containerFinding, decodeBase64Text, dockerAuthText } from "./decode.ts";
import { classifyKey, entropy, plausibleSecret } from "./keys.ts";
import { LB, regexRule } from "./prefix.ts";
import type { Finding, Rule, ScanCtx } from "./types.ts";

const push = (ctx: ScanCtx, f: Finding): void => {
  if (f.end > f.start) ctx.out.push(f);
};

// ---------------------------------------------------------------- PEM blocks

const PEM_HEAD = /-----BEGIN ([A-Z0-9 ]{0,40})PRIVATE KEY( BLOCK)?-----/y;
/** Longest key body read: 4096-bit RSA is ~3.2 KB, large PGP blocks more. */
const PEM_MAX = 16384;
const PEM_HEADER = /[A-Za-z][A-Za-z-]{0,40}: [^\n\\]{0,200}/y;
const PEM_B64 = /[A-Za-z0-9+/=]{0,120}/y;
const PEM_EOL = /[ \t]{0,8}(?:\r?\n|\\r\\n|\\n)/y;

/**
 * End of a key block's body: line by line while lines look like base64 or,
 * before the base64, PEM headers (`Proc-Type: …`), at most 16 KB. Stops
 * before `-----END`, at a blank line after the base64, and at a `Key: value`
 * line after it, so the text after a cut-off key stays.
 */
function pemBodyEnd(s: string, start: number): number {
  const lim = Math.min(s.length, start + PEM_MAX);
  let i = start;
  let end = start;
  let blank = 0;
  let body = false;
  PEM_EOL.lastIndex = i;
  if (PEM_EOL.test(s)) i = PEM_EOL.lastIndex;
  while (i < lim) {
    PEM_HEADER.lastIndex = i;
    const header = !body && PEM_HEADER.test(s);
    let lineEnd: number;
    if (header) lineEnd = PEM_HEADER.lastIndex;
    else {
      PEM_B64.lastIndex = i;
      PEM_B64.test(s);
      lineEnd = PEM_B64.lastIndex;
    }
    PEM_EOL.lastIndex = lineEnd;
    if (PEM_EOL.test(s)) {
      if (lineEnd === i) {
        // PGP armour has a blank line after its headers; after the base64, a blank line ends the block.
        if (body || ++blank > 1) break;
      } else {
        blank = 0;
        if (!header) body = true;
        end = lineEnd;
      }
      i = PEM_EOL.lastIndex;
    } else {
      // A line cut by the end of the output (or of a JSON string) is part of
      // the key; a line that goes on with prose (or "-----END") is not.
      if (lineEnd > i && (lineEnd >= s.length || s[lineEnd] === '"' || s[lineEnd] === "\\")) end = lineEnd;
      break;
    }
  }
  return Math.min(end, lim);
}

/** Whether [a, b) holds at least `min` base64 characters (stops counting early). */
function hasBase64Run(s: string, a: number, b: number, min: number): boolean {
  let n = 0;
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47) {
      if (++n >= min) return true;
    }
  }
  return false;
}

function pemKind(label: string): string {
  if (/OPENSSH/.test(label)) return "openssh-private-key";
  if (/PGP/.test(label)) return "pgp-private-key";
  if (/ENCRYPTED/.test(label)) return "encrypted-private-key";
  if (/RSA/.test(label)) return "rsa-private-key";
  if (/EC/.test(label)) return "ec-private-key";
  if (/DSA/.test(label)) return "dsa-private-key";
  return "private-key";
}

/** BEGIN…PRIVATE KEY… body, raw or with JSON `\n` escapes, terminated or cut off (up to 16 KB). */
const pemRule: Rule = {
  kinds: ["private-key", "rsa-private-key", "ec-private-key", "dsa-private-key", "openssh-private-key", "pgp-private-key", "encrypted-private-key"],
  keywords: ["-----begin "],
  scan(ctx, pos) {
    PEM_HEAD.lastIndex = pos;
    const m = PEM_HEAD.exec(ctx.s);
    if (!m) return;
    const bodyStart = pos + m[0].length;
    // Line by line rather than "up to the next END": a truncated block must
    // not swallow the text (and other blocks) between it and a later END.
    const bodyEnd = pemBodyEnd(ctx.s, bodyStart);
    // Docs stubs (`...`) hold nothing to leak.
    if (!hasBase64Run(ctx.s, bodyStart, bodyEnd, 20)) return;
    push(ctx, { from: pos, start: bodyStart, end: bodyEnd, kind: pemKind(m[1]! + (m[2] ?? "")), priority: 2.8 });
  },
};

/** PuTTY `.ppk`: redact from `Private-Lines:` through the `Private-MAC:` line. */
const puttyRule: Rule = {
  kinds: ["putty-private-key"],
  keywords: ["putty-user-key-file-"],
  scan(ctx, pos) {
    if (pos < (ctx.memo.putty ?? 0)) return;
    const win = ctx.s.slice(pos, pos + 16384).toLowerCase();
    const pl = win.indexOf("private-lines:");
    if (pl < 0) {
      ctx.memo.putty = pos + 16384;
      return;
    }
    let end = win.indexOf("private-mac:", pl);
    if (end >= 0) {
      const nl = win.slice(end).search(/\r|\n|\\n|"/);
      end = nl < 0 ? win.length : end + nl;
    } else end = Math.min(win.length, pl + 8192);
    ctx.memo.putty = pos + end;
    push(ctx, { from: pos, start: pos + pl, end: pos + end, kind: "putty-private-key", priority: 2.8 });
  },
};

// ------------------------------------------------------------- URL userinfo

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
const AUTH_STOP = /[\s/?#"'<>\\`()[\]{},|^]/;

/**
 * `scheme://user:pass@host`: redact only the password (the last `@` before
 * the host ends it); token-as-user with no colon is redacted when it looks random.
 */
const urlUserinfoRule: Rule = {
  kinds: ["url-userinfo", "postgres-url", "mysql-url", "mongodb-url", "redis-url", "amqp-url", "mssql-url", "database-url"],
  keywords: ["://"],
  scan(ctx, pos) {
    const { s } = ctx;
    let a = pos;
    while (a > 0 && pos - a < 32 && /[A-Za-z0-9+.-]/.test(s[a - 1]!)) a--;
    const scheme = ctx.s.slice(a, pos).toLowerCase();
    if (!scheme) return;
    const start = pos + 3;
    const lim = Math.min(s.length, start + 512);
    let e = start;
    let at = -1;
    while (e < lim && !AUTH_STOP.test(s[e]!)) {
      if (s[e] === "@") at = e;
      e++;
    }
    if (at < 0 || at + 1 >= e) return; // no userinfo, or nothing after "@"
    if (!/[A-Za-z0-9[]/.test(s[at + 1]!)) return;
    const colon = s.indexOf(":", start);
    const kind = SCHEME_KIND[scheme.replace(/^jdbc:/, "")] ?? "url-userinfo";
    if (colon >= 0 && colon < at) {
      const pass = s.slice(colon + 1, at);
      if (!pass || !plausibleSecret(decodePct(pass), true)) return;
      push(ctx, { from: a, start: colon + 1, end: at, kind, priority: 2 });
    } else {
      const user = s.slice(start, at);
      if (user.length >= 16 && entropy(user) >= 3.5 && /\d/.test(user) && /[A-Za-z]/.test(user)) {
        push(ctx, { from: a, start, end: at, kind, priority: 2 });
      }
    }
  },
};

function decodePct(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

// ------------------------------------------------------ query-string secrets

/** `X-Amz-Signature=`, `X-Goog-Signature=`, SigV4 `Signature=`, Azure SAS `sig=`, STS tokens in URLs. */
const SIG_RULES: readonly Rule[] = [
  regexRule("url-signature", ["signature="], String.raw`(?<![A-Za-z0-9])(?:[Xx]-(?:[Aa]mz|[Gg]oog)-)?Signature=((?:[A-Za-z0-9+/=_-]|%[0-9A-Fa-f]{2}){16,1024})`, {
    priority: 2, flags: "i",
    accept: (v) => entropy(v) >= 3.0 && /\d/.test(v),
  }),
  regexRule("azure-sas-signature", ["sig="], String.raw`(?<=[?&;\s"'])sig=((?:[A-Za-z0-9+/=_-]|%[0-9A-Fa-f]{2}){16,256})`, {
    priority: 2, accept: (v) => entropy(v) >= 3.0,
  }),
  regexRule("aws-session-token", ["x-amz-security-token="], String.raw`X-Amz-Security-Token=((?:[A-Za-z0-9+/=_.-]|%[0-9A-Fa-f]{2}){16,8192})`, { priority: 2, flags: "i" }),
  regexRule("azure-storage-account-key", ["accountkey="], String.raw`AccountKey=([A-Za-z0-9+/]{20,120}={0,2})`, { priority: 2, flags: "i" }),
  regexRule("azure-shared-access-key", ["sharedaccesskey="], String.raw`SharedAccessKey=([A-Za-z0-9+/]{20,120}={0,2})`, { priority: 2, flags: "i" }),
];

// ------------------------------------------------------------ HTTP headers

const AUTHZ = /authorization(?:\\?["'])?[ \t]{0,3}[:=][ \t]{0,3}(?:\\?["'])?(?:(bearer|basic|token|digest|bot|sso-key|apikey|api-key|aws4-hmac-sha256|negotiate|ntlm|dpop|gitlab-ci-token|key)[ \t]{1,5})?([^\s"'\\,;`]{1,4096})/diy;

function basicOk(v: string): boolean {
  const t = Buffer.from(v, "base64").toString("utf8");
  return /^[\x20-\x7e]{1,512}$/.test(t) && t.includes(":") && !t.endsWith(":") && !/^Aladdin:open sesame$/.test(t);
}

/** `Authorization: <scheme> <credential>` in curl flags, HTTP dumps and code. */
const authzRule: Rule = {
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
    if (!plausibleSecret(v, scheme !== "" && scheme !== "bearer")) return;
    push(ctx, { from: pos, start: a, end: b, kind: scheme === "bearer" ? "bearer-token" : "auth-header", priority: 2 });
  },
};

/** A bare `Bearer <token>` anywhere (code, logs), filtered for references and placeholders. */
const bearerRule = regexRule("bearer-token", ["bearer"], LB + String.raw`[Bb]earer[ \t]{1,5}([A-Za-z0-9._~+/=-]{16,4096})`, {
  priority: 2,
  accept: (v) => plausibleSecret(v, false),
});

const COOKIE = /(?:set-)?cookie(?:\\?["'])?[ \t]{0,3}:[ \t]{0,4}(?:\\?["'])?([^\r\n"'\\`]{1,4096})/diy;
const COOKIE_PAIR = /[ \t]*([^=;\s]{1,128})=([^;]*)/y;
// Cookie names that say "this is the session" (values may then be short).
const SESSION_NAME = /sess|sid|auth|token|jwt|csrf|xsrf|login|remember|identity|secret|key/i;

/**
 * `Cookie:` / `Set-Cookie:` header values: each cookie's value on its own,
 * when it looks like a token (or is short but named like a session); a
 * `theme=dark` preference, an empty `session=` deletion and the attributes of
 * Set-Cookie (Path, Max-Age, Expires…) stay.
 */
const cookieRule: Rule = {
  kinds: ["session-cookie"],
  keywords: ["cookie:", "cookie\":", "cookie':", "cookie\\\":"],
  scan(ctx, pos, kw) {
    let p = pos;
    const set = p >= 4 && ctx.s.slice(p - 4, p).toLowerCase() === "set-";
    if (set) p -= 4;
    if (p > 0 && /[A-Za-z0-9_]/.test(ctx.s[p - 1]!)) return;
    COOKIE.lastIndex = p;
    const m = COOKIE.exec(ctx.s);
    if (!m) return;
    const v = m[1]!.trimEnd();
    const [a] = m.indices![1]!;
    if (!v.includes("=")) {
      // A JSON `"cookie": "<opaque value>"` with no name=value pairs.
      if (kw !== "cookie:" && plausibleSecret(v, false)) push(ctx, { from: p, start: a, end: a + v.length, kind: "session-cookie", priority: 2 });
      return;
    }
    let i = 0;
    while (i < v.length) {
      COOKIE_PAIR.lastIndex = i;
      const c = COOKIE_PAIR.exec(v);
      if (!c) break;
      const value = c[2]!.trim();
      if (value !== "" && (plausibleSecret(value, false) || (SESSION_NAME.test(c[1]!) && plausibleSecret(value, true)))) {
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

// ------------------------------------------------------------ command lines

const CLI_RULES: readonly Rule[] = [
  // curl -u user:pass / --user user:pass
  regexRule("basic-auth", ["-u ", "--user ", "--user="], String.raw`(?<=\s|^)(?:-u|--user)[ =]{0,3}(?:\\?["'])?[^\s:"'\\]{1,256}:([^\s"'\\]{1,256})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }),
  // .netrc: machine h login u password p
  regexRule("netrc-password", ["machine "], String.raw`machine[ \t]{1,10}\S{1,256}\s{1,10}login[ \t]{1,10}\S{1,256}\s{1,10}password[ \t]{1,10}(\S{1,256})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }),
  // mysql -pSECRET (no space: that is mysql's syntax for an inline password)
  regexRule("mysql-password", [" -p"], String.raw`(?<=(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}) -p([^\s'"\\-][^\s'"\\]{2,127})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }),
  // redis-cli -a SECRET / --pass SECRET (valkey-cli, keydb-cli alike)
  regexRule("password", [" -a ", " --pass "], String.raw`(?<=(?:redis|valkey|keydb)-cli\b[^\n]{0,200}) (?:-a|--pass)[ \t]{1,5}([^\s'"\\]{1,256})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }),
  // docker login -p SECRET
  regexRule("password", [" -p "], String.raw`(?<=docker\s{1,5}login\b[^\n]{0,200}) -p[ \t]{1,5}([^\s'"\\]{3,256})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }),
  // kubectl create secret generic --from-literal=key=value
  regexRule("k8s-secret", ["--from-literal="], String.raw`--from-literal=["']?[A-Za-z0-9_.-]{1,253}=([^\s"'\\]{1,4096})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }),
];

// ------------------------------------------------------ AWS id/secret pairs

const LABEL_BEFORE = /["']?([A-Za-z_][\w.-]{0,63})["']?[ \t]{0,4}[:=][ \t]{0,4}["']?$/;
const AWS_SECRET = /(?<![A-Za-z0-9+/_-])([A-Za-z0-9+/]{40})(?![A-Za-z0-9+/=_-])/g;
/** An unlabelled 40-char secret within five lines after an AKIA/ASIA id. */
const awsPairRule: Rule = {
  kinds: ["aws-secret-access-key"],
  keywords: ["akia", "asia"],
  scan(ctx, pos) {
    const id = ctx.s.slice(pos, pos + 21);
    if (!/^(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/.test(id) || id.startsWith("EXAMPLE", 13)) return;
    const from = Math.max(pos + 20, ctx.memo.awsPair ?? 0);
    let lim = from;
    let lines = 0;
    while (lim < ctx.s.length && lim - from < 600 && lines < 6) {
      if (ctx.s[lim] === "\n") lines++;
      lim++;
    }
    ctx.memo.awsPair = lim;
    const win = ctx.s.slice(from, lim);
    AWS_SECRET.lastIndex = 0;
    for (let m = AWS_SECRET.exec(win); m; m = AWS_SECRET.exec(win)) {
      const v = m[1]!;
      if (!/[a-z]/.test(v) || !/[A-Z]/.test(v) || !/[0-9+/]/.test(v) || entropy(v) < 4.0 || v.includes("EXAMPLE")) continue;
      // Labelled by a key that names something else (`"nextPageToken": "…"`): not the pair's secret.
      const label = LABEL_BEFORE.exec(win.slice(Math.max(0, m.index - 80), m.index));
      if (label && !classifyKey(label[1]!)) continue;
      push(ctx, { from: from + m.index, start: from + m.index, end: from + m.index + 40, kind: "aws-secret-access-key", priority: 2 });
    }
  },
};

// ------------------------------------------------------ Kubernetes Secrets

const DOC_START = /(?:^|\n)(?:---|[ \t-]*apiVersion:|[ \t]*\{?\s{0,8}\\?"apiVersion\\?":)/g;
const OTHER_OBJECT = /\n[ \t-]*(?:apiVersion|kind):/;
const YAML_DATA = /^([ \t]*)(data|stringData):[ \t]*$/gm;
// Raw or JSON-escaped (`\"data\": {\n  \"k\": \"v\"}` inside a JSON string).
const JSON_DATA = /\\?"(data|stringData)\\?"\s{0,8}:\s{0,8}\{/g;
const JSON_PAIR = /(?:\s|\\[nrt]){0,64}\\?"([^"\\\n]{1,253})\\?"\s{0,8}:\s{0,8}\\?"([^"\\\n]{0,4194304})\\?"(?:\s|\\[nrt]){0,64},?/y;

/**
 * One value under a Secret's `data` (base64) or `stringData` (`plain`): always
 * redacted; its kind is what the decoded plaintext holds, if anything known.
 */
function secretValue(ctx: ScanCtx, start: number, end: number, plain: boolean): void {
  const v = ctx.s.slice(start, end);
  const unq = v.length >= 2 && (v[0] === '"' || v[0] === "'") && v[v.length - 1] === v[0] ? v.slice(1, -1) : v;
  const text = plain ? unq : decodeBase64Text(unq);
  const f = containerFinding(ctx, start, start, end, text, "k8s-secret", "k8s-secret");
  if (f) push(ctx, f);
}

/**
 * `kind: Secret` (YAML or JSON text, e.g. `kubectl get secret -o yaml`): every
 * value under `data`/`stringData` is a secret, whatever it looks like.
 */
const k8sSecretRule: Rule = {
  kinds: ["k8s-secret"],
  keywords: ["kind: secret", "\"kind\": \"secret\"", "\"kind\":\"secret\"", "\\\"kind\\\": \\\"secret\\\"", "\\\"kind\\\":\\\"secret\\\""],
  scan(ctx, pos, kw) {
    const after = ctx.s[pos + kw.length] ?? "";
    // The escaped keyword ends in a backslash-quote; the plain ones in the word itself.
    if (/[A-Za-z0-9]/.test(after)) return; // SecretProviderClass
    const { s } = ctx;
    if (pos < (ctx.memo.k8s ?? 0)) return;
    // Bounded searches for the YAML document separators: an unbounded
    // lastIndexOf/indexOf per keyword hit would be quadratic.
    const backFrom = Math.max(0, pos - 32768, ctx.memo.k8s ?? 0);
    // The object's extent: from its `apiVersion:` (or a `---`) to the next
    // object's, so a ConfigMap printed after a Secret keeps its data.
    const before = s.slice(backFrom, pos);
    let docStart = backFrom;
    for (const m of before.matchAll(DOC_START)) docStart = backFrom + m.index;
    const rest = s.slice(pos + 1, pos + 65536);
    const next = rest.search(DOC_START);
    let docEnd = next < 0 ? Math.min(s.length, pos + 65536) : pos + 1 + next;
    // Never cut a value: a window ending mid-line would leave a long value's tail in clear.
    if (next < 0 && docEnd < s.length && s[docEnd - 1] !== "\n") {
      const nl = s.indexOf("\n", docEnd);
      docEnd = nl < 0 ? s.length : nl;
    }
    if (docEnd <= docStart) return;
    ctx.memo.k8s = docEnd;
    const doc = s.slice(docStart, docEnd);
    // `kind: Secret` is YAML; the quoted keywords are JSON: each reads only its own syntax.
    // YAML only when our `kind:` starts a real line (not `\nkind:` escaped in a JSON string).
    const yaml = kw === "kind: secret" && /(?:^|\n)[ \t-]*$/.test(s.slice(Math.max(0, pos - 64), pos));
    YAML_DATA.lastIndex = yaml ? 0 : doc.length;
    const self = pos - docStart;
    for (let m = yaml ? YAML_DATA.exec(doc) : null; m; m = YAML_DATA.exec(doc)) {
      // Same object only: no other `kind:`/`apiVersion:` line between this
      // `data:` and our `kind: Secret` (kubectl prints data before kind).
      const between = m.index < self ? doc.slice(m.index, self) : doc.slice(self + kw.length, m.index);
      if (OTHER_OBJECT.test(between)) continue;
      const indent = m[1]!.length;
      const plain = m[2] === "stringData";
      let i = m.index + m[0].length + 1;
      let blockIndent = -1;
      while (i < doc.length) {
        const nl = doc.indexOf("\n", i);
        const lineEnd = nl < 0 ? doc.length : nl;
        const line = doc.slice(i, lineEnd);
        const lead = line.length - line.trimStart().length;
        if (line.trim() === "") {
          i = lineEnd + 1;
          continue;
        }
        if (lead <= indent) break;
        const kv = /^[ \t]*["']?[A-Za-z0-9_.-]{1,253}["']?:[ \t]*(.*?)[ \t]*$/.exec(line);
        if (blockIndent >= 0 && lead > blockIndent) {
          secretValue(ctx, docStart + i + lead, docStart + lineEnd, plain);
        } else if (kv) {
          blockIndent = lead;
          const v = kv[1]!;
          if (v !== "" && v !== "{}" && v !== "''" && v !== '""' && !/^[|>][-+]?$/.test(v) && !/^\{\{/.test(v)) {
            const start = docStart + i + line.lastIndexOf(v);
            secretValue(ctx, start, start + v.length, plain);
          }
        }
        i = lineEnd + 1;
      }
    }
    JSON_DATA.lastIndex = 0;
    for (let m = yaml ? null : JSON_DATA.exec(doc); m; m = JSON_DATA.exec(doc)) {
      let i = m.index + m[0].length;
      const plain = m[1] === "stringData";
      JSON_PAIR.lastIndex = i;
      for (let p = JSON_PAIR.exec(doc); p; p = JSON_PAIR.exec(doc)) {
        const v = p[2]!;
        if (v !== "") {
          const start = docStart + p.index + p[0].lastIndexOf(v);
          secretValue(ctx, start, start + v.length, plain);
        }
        i = JSON_PAIR.lastIndex;
      }
      JSON_DATA.lastIndex = Math.max(JSON_DATA.lastIndex, i);
    }
  },
};

// ------------------------------------------------------------ Docker auths

const DOCKER_AUTH = /\\?"auth\\?"[ \t]{0,8}:[ \t]{0,8}\\?"([A-Za-z0-9+/=]{4,65536})\\?"/dy;

/**
 * Docker `auths.*.auth` (`~/.docker/config.json`, `.dockercfg`, a decoded
 * `.dockerconfigjson`): base64 of `user:password`. Decoded; it counts only
 * when the plaintext has a user, a colon and a password, and the plaintext is
 * rescanned so a registry token (`ghp_…` for ghcr.io) reports its own kind.
 */
const dockerAuthRule: Rule = {
  kinds: ["docker-auth"],
  keywords: ['"auth"', '\\"auth\\"'],
  scan(ctx, pos) {
    DOCKER_AUTH.lastIndex = pos;
    const m = DOCKER_AUTH.exec(ctx.s);
    if (!m) return;
    const plain = dockerAuthText(m[1]!);
    if (plain === undefined) return;
    const [a, b] = m.indices![1]!;
    const f = containerFinding(ctx, pos, a, b, plain, "docker-auth", "docker-auth");
    if (f) push(ctx, f);
  },
};

/** Every structural rule. */
export const STRUCTURAL_RULES: readonly Rule[] = [
  pemRule,
  puttyRule,
  urlUserinfoRule,
  ...SIG_RULES,
  authzRule,
  bearerRule,
  cookieRule,
  ...CLI_RULES,
  awsPairRule,
  k8sSecretRule,
  dockerAuthRule,
];

