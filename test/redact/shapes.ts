/**
 * Secret shapes as generators: every token is built at run time from a seeded
 * random body (GitHub/npm checksums computed here), so no realistic,
 * checksum-valid token is ever committed. Shared by the tests and the bench.
 */
import { base62, crc32 } from "../../lib/redact/crc32.ts";
import { prng } from "../support/prng.ts";

/** Seeded PRNG: reproducible runs, no committed tokens. */
export const rng = prng;

export const A = {
  b62: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
  b64: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
  b64u: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
  hex: "0123456789abcdef",
  upnum: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
  b32: "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
  lownum: "abcdefghijklmnopqrstuvwxyz0123456789",
  digits: "0123456789",
  pw: "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#%+=",
};

/** A random string generator bound to a PRNG. */
export class Gen {
  constructor(readonly r: () => number) {}
  s(alpha: string, n: number): string {
    let o = "";
    for (let i = 0; i < n; i++) o += alpha[Math.floor(this.r() * alpha.length)];
    // Random bodies can spell a placeholder word ("todo", "xxxx"); re-roll so
    // a run never depends on luck.
    if (/todo|fake|xxxx|dummy|test|example|sample|redact|insert|replace|lorem|fixme/i.test(o)) return this.s(alpha, n);
    return o;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }
}

/** A planted secret: `text` is the token as it appears; `secret` is its random part. */
export interface Planted {
  readonly text: string;
  readonly secret: string;
}

/** How a shape may be embedded: `token` shapes go in every wrapper; `block` shapes are whole snippets. */
export interface Shape {
  readonly kind: string;
  readonly form: "token" | "block";
  make(g: Gen): Planted;
  /** Near misses that must survive untouched (same family, wrong shape). */
  readonly negatives?: (g: Gen) => string[];
}

const tok = (kind: string, make: (g: Gen) => Planted, negatives?: (g: Gen) => string[]): Shape => ({ kind, form: "token", make, negatives });
const blk = (kind: string, make: (g: Gen) => Planted, negatives?: (g: Gen) => string[]): Shape => ({ kind, form: "block", make, negatives });
const pre = (kind: string, prefix: string, alpha: string, n: number, negShort = true): Shape =>
  tok(kind, (g) => {
    const body = g.s(alpha, n);
    return { text: prefix + body, secret: body };
  }, negShort ? (g) => [prefix + g.s(alpha, 4) + " ", prefix + "x".repeat(n)] : undefined);

function ghLike(prefix: string, g: Gen): Planted {
  const body = g.s(A.b62, 30);
  const tail = base62(crc32(body), 6);
  return { text: prefix + body + tail, secret: body + tail };
}

function jwt(g: Gen): { text: string; secret: string } {
  const header = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");
  const payload = Buffer.from(JSON.stringify({ sub: g.s(A.lownum, 12), iat: g.int(1e9, 2e9), scope: g.s(A.lownum, 10) })).toString("base64url");
  const sig = g.s(A.b64u, 43);
  return { text: `${header}.${payload}.${sig}`, secret: `${payload}.${sig}` };
}

export const SHAPES: readonly Shape[] = [
  // Cloud
  tok("aws-access-key-id", (g) => { const b = g.s(A.b32, 16); return { text: "AKIA" + b, secret: b }; }, (g) => ["AKIA" + g.s(A.b32, 12) + " ", "AIDA" + g.s(A.b32, 16), "XAKIA" + g.s(A.b32, 16)]),
  tok("aws-access-key-id", (g) => { const b = g.s(A.b32, 16); return { text: "ASIA" + b, secret: b }; }),
  tok("aws-session-token", (g) => { const b = g.s(A.b64, 300); return { text: "IQoJb3JpZ2luX2Vj" + b, secret: b }; }),
  pre("aws-bedrock-api-key", "ABSK", A.b64, 120),
  pre("google-api-key", "AIza", A.b64u, 35),
  pre("google-oauth-client-secret", "GOCSPX-", A.b64u, 28),
  pre("google-oauth-access-token", "ya29.", A.b64u, 150),
  tok("google-oauth-refresh-token", (g) => { const b = g.s(A.b64u, 100); return { text: "1//0" + b, secret: b }; }),
  tok("azure-entra-client-secret", (g) => { const a = g.s(A.b62, 3); const b = g.s(A.b62 + "_~.-", 34); return { text: `${a}8Q~${b}`, secret: b }; }),
  pre("alibaba-access-key-id", "LTAI", A.b62, 20),
  pre("digitalocean-token", "dop_v1_", A.hex, 64),
  pre("heroku-api-key", "HRKU-AA", A.b64u, 58),
  pre("flyio-token", "fo1_", A.b64u, 43),
  pre("docker-hub-token", "dckr_pat_", A.b64u, 27),
  pre("docker-hub-token", "dckr_oat_", A.hex, 32),
  pre("databricks-token", "dapi", A.hex, 32),
  pre("vault-service-token", "hvs.", A.b64u, 120),
  pre("vault-batch-token", "hvb.", A.b64u, 150),
  tok("terraform-cloud-token", (g) => { const a = g.s(A.b62, 14); const b = g.s(A.b62, 67); return { text: `${a}.atlasv1.${b}`, secret: b }; }),
  pre("pulumi-token", "pul-", A.hex, 40),
  pre("doppler-token", "dp.pt.", A.b62, 43),
  pre("planetscale-token", "pscale_tkn_", A.b62, 43),
  pre("supabase-token", "sbp_", A.hex, 40),
  tok("mysql-password-hash", (g) => { const h = g.s("0123456789ABCDEF", 40); return { text: `*${h}`, secret: h }; }),
  tok("postgres-password-hash", (g) => { const h = "md5" + g.s(A.hex, 32); return { text: h, secret: h }; }),
  tok("postgres-password-hash", (g) => {
    const keys = `${g.s(A.b64, 43)}=:${g.s(A.b64, 43)}=`;
    return { text: `SCRAM-SHA-256$4096:${g.s(A.b64, 22)}==$${keys}`, secret: keys };
  }),
  pre("netlify-token", "nfp_", A.b62, 36),
  // Typeform personal tokens: 59 characters in gitleaks' rule, 40-59 in trufflehog's (its fixture has 40 hex).
  pre("typeform-token", "tfp_", A.hex, 40),
  pre("typeform-token", "tfp_", A.b62, 59),
  pre("new-relic-key", "NRAK-", A.upnum, 27),
  tok("dynatrace-token", (g) => { const b = `${g.s(A.upnum, 24)}.${g.s(A.upnum, 64)}`; return { text: "dt0c01." + b, secret: b }; }),
  tok("grafana-service-account-token", (g) => { const b = `${g.s(A.b62, 32)}_${g.s(A.hex, 8)}`; return { text: "glsa_" + b, secret: b }; }),
  pre("grafana-cloud-token", "glc_", A.b64, 120),
  pre("sentry-token", "sntryu_", A.hex, 64),
  tok("1password-service-account-token", (g) => { const b = "eyJ" + g.s(A.b64u, 300); return { text: "ops_" + b, secret: b.slice(3) }; }),
  tok("1password-secret-key", (g) => { const b = [6, 6, 5, 5, 5, 5].map((n) => g.s(A.upnum, n)).join("-"); return { text: "A3-" + b, secret: b.replace(/-/g, "") }; }),
  pre("age-secret-key", "AGE-SECRET-KEY-1", A.upnum, 58),
  // VCS
  tok("github-pat", (g) => ghLike("ghp_", g), (g) => ["ghp_" + "x".repeat(36), "ghp_" + g.s(A.b62, 20) + " ", "ghp_<token>", "my_ghp_" + g.s(A.b62, 36)]),
  tok("github-oauth-token", (g) => ghLike("gho_", g)),
  tok("github-user-token", (g) => ghLike("ghu_", g)),
  tok("github-refresh-token", (g) => ghLike("ghr_", g)),
  tok("github-app-token", (g) => ghLike("ghs_", g)),
  tok("github-app-token", (g) => {
    const j = jwt(g);
    const id = String(g.int(100000, 9999999));
    // The 2026 stateless form: ghs_<appId>_<JWT>, ~520 chars with a long payload.
    const long = j.text + g.s(A.b64u, 300);
    return { text: `ghs_${id}_${long}`, secret: long.slice(40) };
  }),
  tok("github-fine-grained-pat", (g) => { const b = `${g.s(A.b62, 22)}_${g.s(A.b62, 59)}`; return { text: "github_pat_" + b, secret: b }; }, (g) => ["github_pat_" + g.s(A.b62, 10) + " "]),
  pre("gitlab-pat", "glpat-", A.b64u, 20),
  tok("gitlab-pat", (g) => { const b = `${g.s(A.b64u, 27)}.${g.s(A.lownum, 2)}.${g.s(A.lownum, 9)}`; return { text: "glpat-" + b, secret: b.slice(0, 27) }; }),
  pre("gitlab-deploy-token", "gldt-", A.b64u, 20),
  pre("gitlab-runner-token", "glrt-", A.b64u, 20),
  pre("gitlab-ci-job-token", "glcbt-", A.b64u, 40),
  pre("gitlab-trigger-token", "glptt-", A.hex, 40),
  pre("gitlab-feed-token", "glft-", A.b64u, 20),
  pre("gitlab-incoming-mail-token", "glimt-", A.b64u, 25),
  pre("gitlab-agent-token", "glagent-", A.b64u, 50),
  pre("gitlab-oauth-secret", "gloas-", A.b64u, 64),
  pre("gitlab-scim-token", "glsoat-", A.b64u, 20),
  pre("gitlab-feature-flag-token", "glffct-", A.b64u, 20),
  pre("gitlab-workspace-token", "glwt-", A.b64u, 20),
  pre("gitlab-runner-registration-token", "GR1348941", A.b64u, 20),
  pre("bitbucket-app-password", "ATBB", A.b62, 32),
  pre("atlassian-api-token", "ATATT3", A.b64u, 180),
  pre("buildkite-token", "bkua_", A.hex, 40),
  pre("linear-api-key", "lin_api_", A.b62, 40),
  pre("figma-token", "figd_", A.b64u, 40),
  tok("postman-api-key", (g) => { const b = `${g.s(A.hex, 24)}-${g.s(A.hex, 34)}`; return { text: "PMAK-" + b, secret: b }; }),
  // Chat
  tok("slack-bot-token", (g) => { const b = `${g.s(A.digits, 12)}-${g.s(A.digits, 13)}-${g.s(A.b62, 24)}`; return { text: "xoxb-" + b, secret: b.slice(27) }; }, () => ["xoxb-your-token", "xoxb-xxxxxxxx"]),
  tok("slack-user-token", (g) => { const b = `${g.s(A.digits, 12)}-${g.s(A.digits, 12)}-${g.s(A.digits, 13)}-${g.s(A.hex, 32)}`; return { text: "xoxp-" + b, secret: b.slice(-32) }; }),
  tok("slack-legacy-token", (g) => { const b = `${g.s(A.digits, 10)}-${g.s(A.b62, 30)}`; return { text: "xoxs-" + b, secret: b.slice(11) }; }),
  tok("slack-app-token", (g) => { const b = `1-${g.s(A.upnum, 11)}-${g.s(A.digits, 13)}-${g.s(A.hex, 64)}`; return { text: "xapp-" + b, secret: b.slice(-64) }; }),
  tok("slack-config-token", (g) => { const b = `1-${g.s(A.b62, 150)}`; return { text: "xoxe.xoxp-" + b, secret: b.slice(2) }; }),
  tok("slack-refresh-token", (g) => { const b = `1-${g.s(A.b62, 140)}`; return { text: "xoxe-" + b, secret: b.slice(2) }; }),
  tok("slack-webhook", (g) => { const b = `T${g.s(A.upnum, 10)}/B${g.s(A.upnum, 10)}/${g.s(A.b62, 24)}`; return { text: "https://hooks.slack.com/services/" + b, secret: b.slice(-24) }; }),
  tok("discord-webhook", (g) => { const b = g.s(A.b64u, 68); return { text: `https://discord.com/api/webhooks/${g.s(A.digits, 18)}/${b}`, secret: b }; }),
  tok("zapier-webhook", (g) => { const b = `${g.s(A.digits, 7)}/${g.s(A.lownum, 7)}`; return { text: `https://hooks.zapier.com/hooks/catch/${b}/`, secret: b }; }),
  tok("tines-webhook", (g) => { const b = `${g.s(A.lownum, 32)}/${g.s(A.lownum, 32)}`; return { text: `https://acme.tines.com/webhook/${b}`, secret: b }; }),
  tok("teams-webhook", (g) => { const b = `${g.s(A.hex, 32)}@${g.s(A.hex, 32)}/IncomingWebhook/${g.s(A.hex, 32)}/${g.s(A.hex, 32)}`; return { text: `https://acme.webhook.office.com/webhookb2/${b}`, secret: b.slice(-32) }; }),
  tok("telegram-bot-token", (g) => { const b = "AA" + g.s(A.b64u, 33); return { text: `${g.s(A.digits, 10)}:${b}`, secret: b }; }),
  tok("twitter-bearer-token", (g) => {
    // As the developer portal prints them: base64 with its + / = URL-encoded.
    const b = `${g.s(A.b62, 10)}%2B${g.s(A.b62, 20)}%2F${g.s(A.b62, 12)}%3D${g.s(A.b62, 40)}`;
    return { text: "A".repeat(22) + b, secret: b };
  }),
  pre("twilio-api-key", "SK", A.hex, 32),
  tok("sendgrid-api-key", (g) => { const b = `${g.s(A.b64u, 22)}.${g.s(A.b64u, 43)}`; return { text: "SG." + b, secret: b }; }),
  pre("mailgun-api-key", "key-", A.hex, 32),
  tok("mailchimp-api-key", (g) => { const b = g.s(A.hex, 32); return { text: `${b}-us${g.int(1, 20)}`, secret: b }; }),
  // Payments
  pre("stripe-secret-key", "sk_live_", A.b62, 99, false),
  pre("stripe-secret-key", "sk_test_", A.b62, 24, false),
  pre("stripe-restricted-key", "rk_live_", A.b62, 99, false),
  pre("stripe-webhook-secret", "whsec_", A.b64, 32),
  pre("shopify-token", "shpat_", A.hex, 32),
  pre("square-token", "sq0atp-", A.b64u, 22),
  pre("easypost-api-key", "EZAK", A.lownum, 54),
  // AI providers
  tok("anthropic-api-key", (g) => { const b = g.s(A.b64u, 93) + "AA"; return { text: "sk-ant-api03-" + b, secret: b }; }, () => ["sk-ant-api03-...", "sk-ant-xxxx"]),
  tok("anthropic-admin-key", (g) => { const b = g.s(A.b64u, 93) + "AA"; return { text: "sk-ant-admin01-" + b, secret: b }; }),
  tok("anthropic-oauth-token", (g) => { const b = g.s(A.b64u, 93) + "AA"; return { text: "sk-ant-oat01-" + b, secret: b }; }),
  tok("anthropic-session-key", (g) => { const b = g.s(A.b64u, 93) + "AA"; return { text: "sk-ant-sid01-" + b, secret: b }; }),
  tok("openai-api-key", (g) => { const b = `${g.s(A.b64u, 74)}T3BlbkFJ${g.s(A.b64u, 74)}`; return { text: "sk-proj-" + b, secret: b }; }, () => ["sk-...", "task-" + "a1b2c3d4e5f6g7h8i9j0k1"]),
  tok("openai-api-key", (g) => { const b = `${g.s(A.b62, 20)}T3BlbkFJ${g.s(A.b62, 20)}`; return { text: "sk-" + b, secret: b }; }),
  pre("openrouter-api-key", "sk-or-v1-", A.hex, 64),
  tok("generic-sk-key", (g) => { const b = g.s(A.hex, 32); return { text: "sk-" + b, secret: b }; }),
  pre("groq-api-key", "gsk_", A.b62, 52),
  pre("xai-api-key", "xai-", A.b62, 80),
  pre("replicate-api-token", "r8_", A.b62, 37),
  pre("perplexity-api-key", "pplx-", A.b62, 48),
  tok("langsmith-api-key", (g) => { const b = `${g.s(A.hex, 32)}_${g.s(A.hex, 10)}`; return { text: "lsv2_pt_" + b, secret: b }; }),
  pre("huggingface-token", "hf_", A.b62, 34),
  pre("huggingface-org-token", "api_org_", A.b62, 34),
  pre("notion-token", "ntn_", A.b62, 46),
  pre("readme-api-key", "rdme_", A.lownum, 70),
  pre("contentful-token", "CFPAT-", A.b64u, 43),
  pre("prefect-api-key", "pnu_", A.b62, 36),
  // Registries
  tok("npm-token", (g) => ghLike("npm_", g), (g) => ["npm_" + g.s(A.b62, 10) + " ", "npm_package_name"]),
  tok("pypi-token", (g) => { const b = "AgEIcHlwaS5vcmc" + g.s(A.b64u, 150); return { text: "pypi-" + b, secret: b.slice(15) }; }),
  pre("rubygems-api-key", "rubygems_", A.hex, 48),
  // Structural tokens
  tok("jwt", (g) => jwt(g)),
  tok("private-key-base64", (g) => {
    const pem = `-----BEGIN RSA PRIVATE KEY-----\n${g.s(A.b64, 64)}\n${g.s(A.b64, 64)}\n-----END RSA PRIVATE KEY-----\n`;
    const b = Buffer.from(pem).toString("base64");
    return { text: b, secret: b.slice(60) };
  }),
  // Blocks
  ...["", "RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED "].map((label) =>
    blk(label === "" ? "private-key" : `${label.trim().toLowerCase()}-private-key`, (g) => {
      const lines = Array.from({ length: 6 }, () => g.s(A.b64, 64));
      return { text: `-----BEGIN ${label}PRIVATE KEY-----\n${lines.join("\n")}\n-----END ${label}PRIVATE KEY-----\n`, secret: lines.join("\n") };
    }, () => [`-----BEGIN ${label}PRIVATE KEY-----\n...\n-----END ${label}PRIVATE KEY-----`, "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----"])),
  blk("pgp-private-key", (g) => {
    const lines = Array.from({ length: 5 }, () => g.s(A.b64, 64));
    return { text: `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${lines.join("\n")}\n=${g.s(A.b64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----`, secret: lines.join("\n") };
  }),
  blk("putty-private-key", (g) => {
    const priv = Array.from({ length: 4 }, () => g.s(A.b64, 64)).join("\n");
    return { text: `PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: me\nPublic-Lines: 2\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ\nPrivate-Lines: 4\n${priv}\nPrivate-MAC: ${g.s(A.hex, 64)}\n`, secret: priv };
  }),
  blk("private-key", (g) => {
    const lines = Array.from({ length: 5 }, () => g.s(A.b64, 64));
    return { text: `-----BEGIN PRIVATE KEY-----\n${lines.join("\n")}\n`, secret: lines.join("\n") };
  }),
  // URL userinfo and connection strings
  ...[["postgres-url", "postgresql"], ["mysql-url", "mysql"], ["mongodb-url", "mongodb+srv"], ["redis-url", "rediss"], ["amqp-url", "amqps"], ["mssql-url", "sqlserver"], ["url-userinfo", "https"]].map(([kind, scheme]) =>
    tok(kind!, (g) => {
      const pw = g.s(A.b62, 20);
      return { text: `${scheme}://app_user:${pw}@db-${g.s(A.lownum, 6)}.internal:5432/main`, secret: pw };
    }, () => [`${scheme}://user:\${DB_PASSWORD}@localhost/db`, `${scheme}://localhost:5432/db`, `${scheme}://user:<password>@host/db`])),
  tok("redis-url", (g) => { const pw = g.s(A.b62, 24); return { text: `redis://:${pw}@cache.internal:6379/0`, secret: pw }; }),
  tok("postgres-url", (g) => { const pw = g.s(A.b62, 10) + "@" + g.s(A.b62, 10); return { text: `postgres://svc:${pw}@db.internal/app`, secret: pw.slice(0, 10) }; }),
  blk("url-userinfo", (g) => { const pw = g.s(A.b62, 24); return { text: `https://alice:${pw}@github.com\n`, secret: pw }; }),
  blk("netrc-password", (g) => { const pw = g.s(A.pw, 18); return { text: `machine api.heroku.com\n  login me@example.com\n  password ${pw}\n`, secret: pw }; }),
  blk("azure-storage-account-key", (g) => {
    const k = g.s(A.b64, 86) + "==";
    return { text: `DefaultEndpointsProtocol=https;AccountName=acct${g.s(A.lownum, 6)};AccountKey=${k};EndpointSuffix=core.windows.net`, secret: k.slice(0, 86) };
  }, () => ["UseDevelopmentStorage=true"]),
  blk("azure-shared-access-key", (g) => {
    const k = g.s(A.b64, 43) + "=";
    return { text: `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${k}`, secret: k.slice(0, 43) };
  }),
  blk("azure-sas-signature", (g) => {
    const sig = encodeURIComponent(g.s(A.b64, 43) + "=");
    return { text: `https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2026-01-01&sp=r&sig=${sig}`, secret: sig.slice(0, 30) };
  }),
  blk("url-signature", (g) => {
    const sig = g.s(A.hex, 64);
    return { text: `https://bucket.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260101T000000Z&X-Amz-Signature=${sig}`, secret: sig };
  }),
  blk("aws-session-token", (g) => {
    const t = g.s(A.b64u, 200);
    return { text: `https://b.s3.amazonaws.com/k?X-Amz-Security-Token=${t}&X-Amz-Expires=300`, secret: t };
  }),
  // Headers and command lines
  blk("bearer-token", (g) => { const t = g.s(A.b64u, 40); return { text: `curl -H "Authorization: Bearer ${t}" https://api.example.com/v1/me`, secret: t }; },
    () => ['curl -H "Authorization: Bearer ${TOKEN}" https://x', "Authorization: Bearer <token>", "Authorization: Bearer YOUR_TOKEN", "headers = {'Authorization': 'Bearer ' + token}", "Authorization: Bearer {{token}}"]),
  blk("basic-auth", (g) => { const b = Buffer.from(`deploy:${g.s(A.b62, 16)}`).toString("base64"); return { text: `Authorization: Basic ${b}\r\n`, secret: b.slice(4) }; }, () => ['WWW-Authenticate: Basic realm="api"']),
  blk("basic-auth", (g) => { const pw = g.s(A.b62, 16); return { text: `curl -u deploy:${pw} https://ci.example.com/api`, secret: pw }; }, () => ["git push -u origin main"]),
  blk("api-key", (g) => { const t = g.s(A.b62, 32); return { text: `X-API-Key: ${t}\r\n`, secret: t }; }),
  blk("auth-header", (g) => { const t = g.s(A.b62, 32); return { text: `Authorization: ${t}\r\n`, secret: t }; }),
  blk("session-cookie", (g) => { const t = g.s(A.b64u, 32); return { text: `Cookie: sessionid=${t}; csrftoken=${g.s(A.b62, 32)}\r\n`, secret: t }; }),
  blk("password", (g) => { const pw = g.s(A.pw, 18); return { text: `redis-cli -h cache -p 6379 -a ${pw} --no-auth-warning ping`, secret: pw }; }, () => ["redis-cli -h cache ping", "ls -a ~/.config", "redis-cli -a $REDIS_PASSWORD ping"]),
  blk("mysql-password", (g) => { const pw = g.s(A.b62, 14); return { text: `mysql -u root -p${pw} -h db app < dump.sql`, secret: pw }; }),
  blk("k8s-secret", (g) => { const pw = g.s(A.b62, 18); return { text: `kubectl create secret generic db --from-literal=password=${pw}`, secret: pw }; }),
  // Key/value context
  blk("password", (g) => { const pw = g.s(A.pw, 14); return { text: `DB_PASSWORD=${pw}\n`, secret: pw }; }, () => ["DB_PASSWORD=${DB_PASSWORD}\n", "password: string;", "PWD=/home/user/project", "password: changeme", '"password": "Password"']),
  blk("password", (g) => { const pw = g.s(A.pw, 14); return { text: `spring.datasource.password=${pw}\n`, secret: pw }; }),
  blk("password", (g) => { const pw = g.s(A.pw, 14); return { text: `<add key="DbPassword" value="x" />\n<password>${pw}</password>\n`, secret: pw }; }),
  blk("password", (g) => { const pw = g.s(A.pw, 14); return { text: `psql --password ${pw} -h db\n`, secret: pw }; }),
  blk("password", (g) => { const pw = g.s(A.pw, 14); return { text: `Server=tcp:db.net,1433;Database=app;User ID=sa;Password=${pw};Encrypt=true;`, secret: pw }; }),
  blk("generic-secret", (g) => { const t = g.s(A.b62, 32); return { text: `export CLIENT_SECRET="${t}"\n`, secret: t }; }, () => ["export CLIENT_SECRET=\"$(vault read -field=x kv/y)\"\n", "client_secret: your-client-secret-here"]),
  blk("api-key", (g) => { const t = g.s(A.b62, 32); return { text: `auth:\n  api_key: ${t}\n`, secret: t }; }),
  blk("generic-secret", (g) => { const t = g.s(A.b62, 32); return { text: `[default]\nsecret_token = "${t}"\n`, secret: t }; }),
  blk("aws-secret-access-key", (g) => {
    const k = g.s(A.b64, 40);
    return { text: `[default]\naws_access_key_id = AKIA${g.s(A.b32, 16)}\naws_secret_access_key = ${k}\n`, secret: k };
  }),
  blk("aws-secret-access-key", (g) => {
    const k = g.s(A.b62, 20) + "/" + g.s(A.b64, 19);
    return { text: `User name,Access key ID,Secret access key\nci,AKIA${g.s(A.b32, 16)},${k}\n`, secret: k };
  }),
  blk("npm-auth", (g) => { const t = `${g.s(A.hex, 8)}-${g.s(A.hex, 4)}-${g.s(A.hex, 4)}-${g.s(A.hex, 4)}-${g.s(A.hex, 12)}`; return { text: `//registry.npmjs.org/:_authToken=${t}\n`, secret: t }; },
    () => ["//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n"]),
  blk("auth-credential", (g) => { const t = g.s(A.b62, 32); return { text: `registry:\n  auth: ${t}\n`, secret: t }; }),
  blk("docker-auth", (g) => {
    const b = Buffer.from(`me:${g.s(A.b62, 20)}`).toString("base64");
    return { text: `{\n  "auths": {\n    "https://index.docker.io/v1/": {\n      "auth": "${b}"\n    }\n  },\n  "credsStore": "desktop"\n}`, secret: b.slice(4) };
  }),
  blk("gcp-private-key-id", (g) => {
    const id = g.s(A.hex, 40);
    const key = Array.from({ length: 4 }, () => g.s(A.b64, 64)).join("\\n");
    return { text: JSON.stringify({ type: "service_account", project_id: "demo", private_key_id: id, private_key: `-----BEGIN PRIVATE KEY-----\n${key.replace(/\\n/g, "\n")}\n-----END PRIVATE KEY-----\n`, client_email: "svc@demo.iam.gserviceaccount.com" }, null, 2), secret: id };
  }),
  blk("k8s-secret", (g) => {
    const v = Buffer.from(g.s(A.lownum, 6)).toString("base64");
    const v2 = Buffer.from(g.s(A.b62, 24)).toString("base64");
    return { text: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  username: ${v}\n  password: ${v2}\n`, secret: v2 };
  }, () => ["apiVersion: v1\nkind: ConfigMap\ndata:\n  mode: cHJvZHVjdGlvbg==\n"]),
  blk("k8s-secret", (g) => {
    const v2 = Buffer.from(g.s(A.b62, 24)).toString("base64");
    return { text: JSON.stringify({ apiVersion: "v1", kind: "Secret", data: { "tls.key": v2 }, metadata: { name: "x" } }, null, 2), secret: v2 };
  }),
  blk("session-cookie", (g) => { const t = g.s(A.b64u, 40); return { text: `{"claudeAiOauth":{"sessionKey":"${t}"}}`, secret: t }; }),
];

/**
 * Near misses for kinds whose shapes carry none: same prefix with the wrong
 * length or alphabet, a docs placeholder, or the public sibling of a secret.
 * Every one must come out of the redactor unchanged.
 */
export const NEAR_MISSES: Readonly<Record<string, (g: Gen) => string[]>> = {
  "aws-session-token": (g) => [`IQoJb3JpZ2luX2Vj${g.s(A.b64, 20)} `, `FwoGZXIvYXdz${g.s(A.b64, 12)} `],
  "google-oauth-refresh-token": (g) => [`1//0${g.s(A.b64u, 12)} `, "see file:///1//0 for details"],
  "azure-entra-client-secret": (g) => [`${g.s(A.b62, 3)}8Q~${g.s(A.b62, 12)} `, "cp notes.txt notes.txt~ && ls ~/8Q~backup"],
  "terraform-cloud-token": (g) => [`${g.s(A.b62, 14)}.atlasv1.${g.s(A.b62, 20)} `, "app.atlasv1.example.com"],
  "dynatrace-token": (g) => [`dt0c01.${g.s(A.upnum, 24)} `, "dt0c01.ABC"],
  "grafana-service-account-token": (g) => [`glsa_${g.s(A.b62, 32)} `, `glsa_${g.s(A.b62, 10)}`],
  "1password-service-account-token": (g) => [`ops_eyJ${g.s(A.b64u, 20)} `, "ops_eyJhbGciOi"],
  "1password-secret-key": (g) => [`A3-${g.s(A.upnum, 6)} `, `A3-${g.s(A.upnum, 6)}-${g.s(A.upnum, 5)}`],
  "github-oauth-token": (g) => [`gho_${g.s(A.b62, 20)} `, "gho_" + "x".repeat(36)],
  "github-user-token": (g) => [`ghu_${g.s(A.b62, 20)} `, "ghu_" + "x".repeat(36)],
  "github-refresh-token": (g) => [`ghr_${g.s(A.b62, 20)} `, "ghr_" + "x".repeat(36)],
  "github-app-token": (g) => [`ghs_${g.s(A.b62, 20)} `, "ghs_12345_short", "ghs_" + "x".repeat(36), "GITHUB_TOKEN: ***"],
  "postman-api-key": (g) => [`PMAK-${g.s(A.hex, 24)} `, "PMAK-<your-key>"],
  "slack-user-token": () => ["xoxp-your-token-here", "xoxp-123"],
  "slack-legacy-token": () => ["xoxs-abc", "xoxa-"],
  "slack-app-token": (g) => [`xapp-1-${g.s(A.b62, 8)} `, "xapp-your-app-token"],
  "slack-config-token": (g) => [`xoxe.xoxp-1-${g.s(A.b62, 8)} `],
  "slack-refresh-token": (g) => [`xoxe-1-${g.s(A.b62, 8)} `],
  "slack-webhook": () => ["https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "https://hooks.slack.com/services/", "see hooks.slack.com/workflows/ for details"],
  "discord-webhook": (g) => [`https://discord.com/api/webhooks/${g.s(A.digits, 18)}/${g.s(A.b64u, 10)}`, "https://discord.com/api/webhooks/{id}/{token}"],
  "zapier-webhook": () => ["https://hooks.zapier.com/hooks/catch/", "see hooks.zapier.com/hooks/catch/<id>/ in the docs"],
  "tines-webhook": (g) => [`https://acme.tines.com/webhook/${g.s(A.lownum, 10)}`, "https://acme.tines.com/webhook/<path>/<secret>"],
  "teams-webhook": (g) => [`https://acme.webhook.office.com/webhookb2/${g.s(A.hex, 20)}`, "https://acme.webhook.office.com/webhookb2/<url>"],
  "telegram-bot-token": (g) => [`${g.s(A.digits, 10)}:AA${g.s(A.b64u, 10)} `, `${g.s(A.digits, 10)}:AB${g.s(A.b64u, 33)}`],
  // Base64 of zero bytes (no `%`), and a short tail.
  "twitter-bearer-token": (g) => ["A".repeat(40) + g.s(A.b62, 60), "A".repeat(22) + "x%2Bshort"],
  "sendgrid-api-key": (g) => ["SG.xxxxx", `SG.${g.s(A.b64u, 22)}.${g.s(A.b64u, 10)} `],
  "mailchimp-api-key": (g) => [` ${g.s(A.hex, 31)}-us1 `, `${g.s(A.hex, 32)}-user`],
  "stripe-secret-key": (g) => ["sk_live_" + "x".repeat(24), `sk_test_${g.s(A.b62, 8)} `, `pk_live_${g.s(A.b62, 99)}`, `pk_test_${g.s(A.b62, 24)}`],
  "stripe-restricted-key": (g) => [`rk_live_${g.s(A.b62, 8)} `, "rk_test_" + "x".repeat(24)],
  "anthropic-admin-key": () => ["sk-ant-admin01-...", "sk-ant-admin01-<key>"],
  "anthropic-oauth-token": () => ["sk-ant-oat01-...", "sk-ant-ort01-xxxx"],
  "anthropic-session-key": () => ["sessionKey=sk-ant-sid01-...", "sk-ant-sid01-<session>"],
  "generic-sk-key": () => ["task-a1b2c3d4e5f6g7h8i9j0k1", "sk-my-project-name-and-more", "disk-0123456789abcdef0123456789abcdef"],
  "langsmith-api-key": (g) => [`lsv2_pt_${g.s(A.hex, 32)} `, "lsv2_pt_<key>"],
  "pypi-token": (g) => [`pypi-AgEIcHlwaS5vcmc${g.s(A.b64u, 10)} `, "pip install pypi-token-helper"],
  jwt: () => ["eyJhbGciOiJIUzI1NiJ9", "eyJhbGciOiJIUzI1NiJ9.notapayload", "//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJzb3VyY2VzIjpbXX0="],
  "private-key-base64": (g) => [Buffer.from(`-----BEGIN PUBLIC KEY-----\n${g.s(A.b64, 64)}\n-----END PUBLIC KEY-----\n`).toString("base64")],
  "pgp-private-key": (g) => [`-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n${g.s(A.b64, 64)}\n${g.s(A.b64, 64)}\n-----END PGP PUBLIC KEY BLOCK-----`, "-----BEGIN PGP PRIVATE KEY BLOCK-----\n...\n-----END PGP PRIVATE KEY BLOCK-----"],
  "putty-private-key": () => ["PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: me\n"],
  "netrc-password": () => ["machine api.heroku.com\n  login me@example.com\n  password ${NETRC_PASSWORD}\n", "machine learning models are trained on data"],
  "azure-shared-access-key": () => ["Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey", "SharedAccessKey=<key>"],
  "azure-sas-signature": () => ["https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=", "?sp=r&sig=xxxxxxxxxxxxxxxxxxxx"],
  "url-signature": () => ["X-Amz-Signature=<signature>", "Signature=0000000000000000", "X-Amz-SignedHeaders=host"],
  "api-key": () => ["X-API-Key: ${API_KEY}\r\n", "X-API-Key: your-api-key\r\n", "api_key: <YOUR_API_KEY>"],
  "auth-header": () => ["Authorization: <token>\r\n", 'WWW-Authenticate: Bearer realm="api"\r\n', "Authorization: $AUTH_HEADER"],
  "auth-credential": () => ["registry:\n  auth: true\n", "auth: ${REGISTRY_AUTH}\n", "auth: oauth2\n"],
  "session-cookie": () => ["Set-Cookie: session=; Max-Age=0\r\n", "Cookie: ${COOKIE}\r\n", "Cookie: theme=dark; lang=en-US\r\n", "Set-Cookie: theme=dark; Path=/; Max-Age=31536000"],
  // A digest named by its algorithm (`md5:…`, `md5sum`), a hash too short or not hex, a SCRAM verifier with no keys.
  "postgres-password-hash": (g) => [`md5:${g.s(A.hex, 32)}`, `md5sum ${g.s(A.hex, 32)} file`, `md5${g.s(A.hex, 31)} `, `md5${g.s(A.hex, 32)}ab`, "SCRAM-SHA-256$4096:<salt>$<StoredKey>:<ServerKey>"],
  // Lower case (no MySQL hash), too short, a 40-hex git id after emphasis that is not at a word's start.
  "mysql-password-hash": (g) => [`*${g.s(A.hex, 40)} `, `*${g.s("0123456789ABCDEF", 39)} `, `x*${g.s("0123456789ABCDEF", 40)}`],
  "mysql-password": () => ["mysql -u root -p -h db app", "mysql -u root -p${MYSQL_PASSWORD} app"],
  "aws-secret-access-key": () => ["aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n", "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}\n"],
  "docker-auth": () => ['{"auths": {"ghcr.io": {"auth": ""}}}', '{"auths": {"ghcr.io": {}}, "credsStore": "desktop"}'],
  "gcp-private-key-id": () => ['"private_key_id": "${PRIVATE_KEY_ID}"', '"private_key_id": "your-private-key-id"'],
};

/** Wrappers a `token` shape is embedded in: the same token in different surroundings. */
export const WRAPPERS: Readonly<Record<string, (t: string) => string>> = {
  raw: (t) => `found ${t} in the log\n`,
  json: (t) => JSON.stringify({ stdout: `line one\nvalue=${t}\nline three`, exit: 0 }),
  env: (t) => `export SERVICE_CREDENTIAL_VALUE=${t}\n`,
  yaml: (t) => `service:\n  name: api\n  credential: "${t}"\n`,
  header: (t) => `GET /v1 HTTP/1.1\r\nAuthorization: Bearer ${t}\r\nAccept: */*\r\n`,
  url: (t) => `fetching https://api.example.com/v1/items?api_key=${t}&page=2`,
};

/** Block shapes: raw and JSON-escaped (the snippet inside a JSON string, escapes kept). */
export const BLOCK_WRAPPERS: Readonly<Record<string, (t: string) => string>> = {
  raw: (t) => t,
  json: (t) => JSON.stringify({ tool_response: { stdout: t } }),
};

/**
 * Hard negatives: things that look random or secret-adjacent and must survive.
 */
export function hardNegatives(g: Gen): string[] {
  const sha = g.s(A.hex, 40);
  const uuid = `${g.s(A.hex, 8)}-${g.s(A.hex, 4)}-4${g.s(A.hex, 3)}-a${g.s(A.hex, 3)}-${g.s(A.hex, 12)}`;
  return [
    `commit ${sha}\nAuthor: Dev <dev@example.com>`,
    `request id ${uuid}`,
    `"integrity": "sha512-${g.s(A.b64, 86)}=="`,
    `image: nginx@sha256:${g.s(A.hex, 64)}`,
    `<img src="data:image/png;base64,${g.s(A.b64, 400)}">`,
    `{"usage":{"input_tokens":1234,"output_tokens":56,"cache_read_input_tokens":789,"max_tokens":4096}}`,
    `token_type: Bearer\ntoken_endpoint: https://oauth2.googleapis.com/token`,
    "GITHUB_TOKEN=${GITHUB_TOKEN}\nNPM_TOKEN=$NPM_TOKEN\nAPI_KEY=%API_KEY%\napi_key: {{ .Values.apiKey }}\npassword: ${{ secrets.DB_PASSWORD }}",
    "const token = process.env.GITHUB_TOKEN;\nconst apiKey = os.environ['API_KEY']",
    "OPENAI_API_KEY=your-api-key-here\nSTRIPE_KEY=<YOUR_STRIPE_KEY>\nSECRET=changeme\nTOKEN=xxxxxxxxxxxxxxxx",
    "password: string;\npasswordLabel: 'Password'\n\"password\": \"Password\"",
    `"resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz"`,
    `git@github.com:acme/widgets.git\nmailto:dev@example.com`,
    `secretName: db-credentials\nsecretKeyRef:\n  name: db\n  key: password`,
    `"session_id": "${uuid}", "transcript_path": "/home/u/.claude/projects/x/${uuid}.jsonl"`,
    `tokenizer: cl100k_base\nnextPageToken: ${g.s(A.b64u, 20)}`,
    `PWD=/home/dev/project\nOLDPWD=/home/dev`,
    `webpack: main.${g.s(A.hex, 20)}.js  app.${g.s(A.hex, 8)}.css`,
    `ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ${g.s(A.b64, 200)} dev@laptop`,
    `"password_min_length": 12, "token_ttl": 3600, "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs"`,
  ];
}

/** The first 12-char window of `secret` still present in `out`, if any. */
export function leak(out: string, secret: string): string | undefined {
  const parts = secret.split(/[\n\\]+/).filter((p) => p.length > 0);
  for (const p of parts) {
    if (p.length < 12) {
      if (parts.length === 1 && out.includes(p)) return p;
      continue;
    }
    for (let i = 0; i + 12 <= p.length; i++) {
      const w = p.slice(i, i + 12);
      if (out.includes(w)) return w;
    }
  }
  return undefined;
}


/** `text` with each redaction tag put back as `secret`: what the output is, but for the secret. */
export const restored = (text: string, secret: string): string => text.replace(/\[REDACTED:[a-z-]+:[0-9a-f]{4}\]/g, secret);
