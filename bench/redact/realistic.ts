/**
 * A second scoring set: hand-written agent tool outputs as they really look
 * (`cat .env`, `env`, `git remote -v`, `curl -v`, kubeconfig, credential
 * files, stack traces, Terraform plans, CI logs, settings files, lockfiles,
 * source maps, images, git logs), written independently of the rule shapes.
 * Every secret in them is generated at run time from a seeded random body
 * (GitHub/npm checksums computed here), so nothing realistic is committed.
 *
 * Each template marks its secrets (`S`), and values where redaction is
 * defensible either way (`M`: a Sentry DSN key, an anonymous FTP password);
 * anything else the redactor touches is a false positive.
 */
import { base62, crc32 } from "../../lib/redact/crc32.ts";
import { A, Gen, rng } from "../../test/redact/shapes.ts";

/** A planted secret: `secret` is the part that must not survive (12-char windows). */
export interface RealSecret {
  readonly kind: string;
  readonly secret: string;
}

/** One scored document: its text, planted secrets and their spans, don't-care spans. */
export interface RealDoc {
  readonly name: string;
  readonly text: string;
  readonly planted: readonly RealSecret[];
  /** [start, end) of every planted occurrence and every don't-care value. */
  readonly spans: readonly (readonly [number, number])[];
}

type Part = string | number | { readonly s: string; readonly kind: string; readonly secret: string } | { readonly maybe: string };

/** A secret as it appears (`text`) and its random part (`secret`, default all of it). */
const S = (kind: string, text: string, secret = text) => ({ s: text, kind, secret });
/** A value whose redaction counts neither way. */
const M = (text: string) => ({ maybe: text });

function build(name: string, strings: TemplateStringsArray, vals: Part[]): RealDoc {
  let text = "";
  const planted = new Map<string, RealSecret>();
  const spans: [number, number][] = [];
  strings.forEach((str, i) => {
    text += str;
    if (i >= vals.length) return;
    const v = vals[i]!;
    if (typeof v === "string" || typeof v === "number") text += String(v);
    else if ("maybe" in v) {
      spans.push([text.length, text.length + v.maybe.length]);
      text += v.maybe;
    } else {
      spans.push([text.length, text.length + v.s.length]);
      text += v.s;
      planted.set(v.secret, { kind: v.kind, secret: v.secret });
    }
  });
  return { name, text, planted: [...planted.values()], spans };
}

const doc = (name: string) => (strings: TemplateStringsArray, ...vals: Part[]): RealDoc => build(name, strings, vals);

// ------------------------------------------------------------ token makers

function gh(g: Gen, prefix: string): { text: string; body: string } {
  const body = g.s(A.b62, 30);
  const full = body + base62(crc32(body), 6);
  return { text: prefix + full, body: full };
}
const b64 = (s: string): string => Buffer.from(s).toString("base64");
const b64u = (s: string): string => Buffer.from(s).toString("base64url");
const uuid = (g: Gen): string => `${g.s(A.hex, 8)}-${g.s(A.hex, 4)}-4${g.s(A.hex, 3)}-${"89ab"[g.int(0, 3)]}${g.s(A.hex, 3)}-${g.s(A.hex, 12)}`;
const pw = (g: Gen, n = 16): string => g.s(A.pw, n);
/** A password as it appears inside a URL: percent-encoded, as any client writes it. */
const pwUrl = (g: Gen, n = 16): string => encodeURIComponent(pw(g, n));
const sha = (g: Gen): string => g.s(A.hex, 40);
function jwt(g: Gen, claims: Record<string, unknown>, alg = "RS256"): string {
  return `${b64u(JSON.stringify({ alg, typ: "JWT", kid: g.s(A.b64u, 16) }))}.${b64u(JSON.stringify(claims))}.${g.s(A.b64u, alg.startsWith("HS") ? 43 : 342)}`;
}
function pemBody(g: Gen, lines: number): string {
  return Array.from({ length: lines }, () => g.s(A.b64, 64)).join("\n");
}
/** The 2026 GitHub App installation token: ghs_<appId>_<JWT>, ~520 chars. */
function longGhs(g: Gen): { text: string; secret: string } {
  const token = jwt(g, { iss: String(g.int(100000, 999999)), iat: g.int(1.7e9, 1.8e9), exp: g.int(1.8e9, 1.9e9), repo: "acme/api", perms: { contents: "write", metadata: "read" }, jti: g.s(A.b64u, 22) }, "ES256");
  const text = `ghs_${g.int(100000, 9999999)}_${token}`;
  return { text, secret: token.slice(40) };
}

// ---------------------------------------------------------------- templates

type Template = (g: Gen) => RealDoc;

export const TEMPLATES: readonly Template[] = [
  // cat .env, real and placeholder values mixed
  (g) => {
    const dbpw = pw(g, 20), stripe = g.s(A.b62, 99), oai = `${g.s(A.b64u, 74)}T3BlbkFJ${g.s(A.b64u, 74)}`, sg = `${g.s(A.b64u, 22)}.${g.s(A.b64u, 43)}`;
    const maps = g.s(A.b64u, 35), key = g.s(A.b32, 16), secret = g.s(A.b64, 40), sess = g.s(A.hex, 64), ghsec = g.s(A.hex, 40);
    const anon = jwt(g, { iss: "supabase", ref: g.s(A.lownum, 20), role: "anon", iat: 1700000000, exp: 2000000000 }, "HS256");
    return doc("cat .env")`$ cat .env
# --- app ---
NODE_ENV=production
PORT=3000
APP_URL=https://app.acme.io
DATABASE_URL=postgresql://acme:${S("postgres-url", encodeURIComponent(dbpw))}@db.internal:5432/acme?schema=public
REDIS_URL=redis://localhost:6379/0
SESSION_SECRET=${S("generic-secret", sess)}
STRIPE_SECRET_KEY=sk_live_${S("stripe-secret-key", stripe)}
STRIPE_PUBLISHABLE_KEY=pk_live_${g.s(A.b62, 99)}
OPENAI_API_KEY=sk-proj-${S("openai-api-key", oai)}
SENDGRID_API_KEY=SG.${S("sendgrid-api-key", sg)}
# TODO rotate before launch
MAILCHIMP_API_KEY=your-mailchimp-key-here
GOOGLE_MAPS_API_KEY=AIza${S("google-api-key", maps)}
NEXT_PUBLIC_SUPABASE_ANON_KEY=${S("jwt", anon, anon.slice(anon.indexOf(".") + 1))}
SENTRY_DSN=https://${M(g.s(A.hex, 32))}@o${g.int(100000, 999999)}.ingest.sentry.io/${g.int(1000000, 9999999)}
AWS_REGION=us-east-1
AWS_ACCESS_KEY_ID=AKIA${S("aws-access-key-id", key)}
AWS_SECRET_ACCESS_KEY=${S("aws-secret-access-key", secret)}
LOG_LEVEL=debug
FEATURE_FLAGS=new-checkout,beta-search
SMTP_PASSWORD=
GITHUB_CLIENT_ID=Iv1.${g.s(A.hex, 16)}
GITHUB_CLIENT_SECRET=${S("generic-secret", ghsec)}
`;
  },
  // env dump
  (g) => {
    const ghp = gh(g, "ghp_"), npm = gh(g, "npm_"), ant = g.s(A.b64u, 93) + "AA", vault = g.s(A.b64u, 91), hf = g.s(A.b62, 34), dd = g.s(A.hex, 32);
    const bot = `${g.s(A.digits, 12)}-${g.s(A.digits, 13)}-${g.s(A.b62, 24)}`;
    return doc("env")`$ env | sort
ANTHROPIC_API_KEY=sk-ant-api03-${S("anthropic-api-key", ant)}
AWS_PROFILE=dev
CLAUDE_CODE_ENTRYPOINT=cli
COLORTERM=truecolor
DATADOG_API_KEY=${S("api-key", dd)}
DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus
GITHUB_TOKEN=${S("github-pat", ghp.text, ghp.body)}
GOOGLE_APPLICATION_CREDENTIALS=/home/dev/.config/gcloud/application_default_credentials.json
HF_TOKEN=hf_${S("huggingface-token", hf)}
HISTFILE=/home/dev/.zsh_history
HOME=/home/dev
KUBECONFIG=/home/dev/.kube/config
LANG=en_US.UTF-8
LS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01:or=40;31;01:mi=00:su=37;41:sg=30;43:ca=00:tw=30;42:ow=34;42:st=37;44:ex=01;32
NPM_CONFIG_PREFIX=/home/dev/.npm-global
NPM_TOKEN=${S("npm-token", npm.text, npm.body)}
OLDPWD=/home/dev
PATH=/home/dev/.npm-global/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin
PWD=/home/dev/src/api
SHELL=/bin/zsh
SLACK_BOT_TOKEN=xoxb-${S("slack-bot-token", bot, bot.slice(27))}
SSH_AUTH_SOCK=/tmp/ssh-${g.s(A.b62, 10)}/agent.${g.int(1000, 99999)}
TERM=xterm-256color
TERM_SESSION_ID=w0t0p0:${uuid(g).toUpperCase()}
USER=dev
VAULT_ADDR=https://vault.acme.io:8200
VAULT_TOKEN=hvs.${S("vault-service-token", vault)}
XDG_SESSION_ID=${g.int(2, 40)}
_=/usr/bin/env
`;
  },
  // git remote -v, token-as-user remotes
  (g) => {
    const ghs = g.s(A.b62, 36), glpat = g.s(A.b64u, 20), ghp = gh(g, "ghp_");
    return doc("git remote -v")`$ git remote -v
origin\thttps://x-access-token:ghs_${S("github-app-token", ghs)}@github.com/acme/api.git (fetch)
origin\thttps://x-access-token:ghs_${S("github-app-token", ghs)}@github.com/acme/api.git (push)
upstream\thttps://github.com/upstream-org/api.git (fetch)
upstream\thttps://github.com/upstream-org/api.git (push)
gitlab\thttps://oauth2:glpat-${S("gitlab-pat", glpat)}@gitlab.com/acme/api.git (fetch)
fork\thttps://${S("github-pat", ghp.text, ghp.body)}@github.com/dev/api.git (fetch)
mirror\tgit@github.com:acme/api-mirror.git (fetch)
$ git log -1 --format='%H %an <%ae>'
${sha(g)} Dev Person <dev@acme.io>
`;
  },
  // curl -v with auth headers and a session cookie
  (g) => {
    const bearer = g.s(A.b64u, 40), apikey = g.s(A.hex, 32), sess = g.s(A.b64u, 43), rid = uuid(g);
    return doc("curl -v")`$ curl -v -H "Authorization: Bearer ${S("bearer-token", bearer)}" -H "X-API-Key: ${S("api-key", apikey)}" https://api.acme.io/v1/me
*   Trying 203.0.113.10:443...
* Connected to api.acme.io (203.0.113.10) port 443
* ALPN: curl offers h2,http/1.1
* SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384 / X25519 / RSASSA-PSS
* Server certificate:
*  subject: CN=api.acme.io
*  start date: Jan  2 00:00:00 2026 GMT
*  expire date: Apr  2 23:59:59 2026 GMT
*  issuer: C=US; O=Let's Encrypt; CN=R11
> GET /v1/me HTTP/2
> Host: api.acme.io
> User-Agent: curl/8.5.0
> Accept: */*
> Authorization: Bearer ${S("bearer-token", bearer)}
> X-API-Key: ${S("api-key", apikey)}
>
< HTTP/2 200
< content-type: application/json; charset=utf-8
< set-cookie: __Secure-session=${S("session-cookie", sess)}; Path=/; HttpOnly; Secure; SameSite=Lax
< set-cookie: theme=dark; Path=/; Max-Age=31536000
< x-request-id: ${rid}
< etag: W/"${g.s(A.hex, 32)}"
< strict-transport-security: max-age=63072000; includeSubDomains
<
{"id":"usr_${g.s(A.b62, 14)}","email":"dev@acme.io","plan":"pro","request_id":"${rid}"}
* Connection #0 to host api.acme.io left intact
`;
  },
  // kubeconfig
  (g) => {
    const ca = b64(`-----BEGIN CERTIFICATE-----\n${pemBody(g, 8)}\n-----END CERTIFICATE-----\n`);
    const cert = b64(`-----BEGIN CERTIFICATE-----\n${pemBody(g, 6)}\n-----END CERTIFICATE-----\n`);
    const key = b64(`-----BEGIN RSA PRIVATE KEY-----\n${pemBody(g, 12)}\n-----END RSA PRIVATE KEY-----\n`);
    const sa = jwt(g, { iss: "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "ci", sub: "system:serviceaccount:ci:deployer" });
    const idt = jwt(g, { iss: "https://accounts.google.com", aud: "kubernetes", sub: g.s(A.digits, 21), email: "dev@acme.io" });
    const refresh = `1//0${g.s(A.b64u, 100)}`;
    return doc("kubeconfig")`$ cat ~/.kube/config
apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${ca}
    server: https://${g.s(A.hex, 32).toUpperCase()}.gr7.us-east-1.eks.amazonaws.com
  name: arn:aws:eks:us-east-1:123456789012:cluster/prod
contexts:
- context:
    cluster: arn:aws:eks:us-east-1:123456789012:cluster/prod
    user: admin
  name: prod
current-context: prod
kind: Config
preferences: {}
users:
- name: admin
  user:
    client-certificate-data: ${cert}
    client-key-data: ${S("private-key-base64", key, key.slice(60, -48))}
- name: deployer
  user:
    token: ${S("jwt", sa, sa.slice(sa.indexOf(".") + 1))}
- name: oidc
  user:
    auth-provider:
      config:
        client-id: kubernetes
        client-secret: ${S("generic-secret", g.s(A.b64u, 24))}
        id-token: ${S("jwt", idt, idt.slice(idt.indexOf(".") + 1))}
        idp-issuer-url: https://accounts.google.com
        refresh-token: ${S("google-oauth-refresh-token", refresh, refresh.slice(4))}
      name: oidc
`;
  },
  // ~/.aws/credentials and config
  (g) => {
    const sts = `IQoJb3JpZ2luX2Vj${g.s(A.b64, 360)}`;
    return doc("aws credentials")`$ cat ~/.aws/credentials ~/.aws/config
[default]
aws_access_key_id = AKIA${S("aws-access-key-id", g.s(A.b32, 16))}
aws_secret_access_key = ${S("aws-secret-access-key", g.s(A.b64, 40))}

[ci]
aws_access_key_id = ASIA${S("aws-access-key-id", g.s(A.b32, 16))}
aws_secret_access_key = ${S("aws-secret-access-key", g.s(A.b64, 40))}
aws_session_token = ${S("aws-session-token", sts, sts.slice(16))}

[profile dev]
region = us-east-1
output = json
role_arn = arn:aws:iam::123456789012:role/Developer
source_profile = default
sso_start_url = https://acme.awsapps.com/start
`;
  },
  // .npmrc
  (g) => {
    const npm = gh(g, "npm_"), ghp = gh(g, "ghp_"), auth = b64(`deploy:${pw(g, 18)}`);
    return doc(".npmrc")`$ cat ~/.npmrc
registry=https://registry.npmjs.org/
//registry.npmjs.org/:_authToken=${S("npm-token", npm.text, npm.body)}
@acme:registry=https://npm.pkg.github.com
//npm.pkg.github.com/:_authToken=${S("github-pat", ghp.text, ghp.body)}
//npm.internal.acme.io/:_auth=${S("npm-auth", auth)}
//npm.internal.acme.io/:always-auth=true
//registry.example.com/:_authToken=\${NPM_TOKEN}
strict-ssl=true
fund=false
`;
  },
  // .netrc and .git-credentials
  (g) => {
    const ghp = gh(g, "ghp_"), heroku = uuid(g), glpat = g.s(A.b64u, 20);
    return doc(".netrc")`$ cat ~/.netrc ~/.git-credentials
machine github.com
  login octocat
  password ${S("github-pat", ghp.text, ghp.body)}
machine api.heroku.com
  login dev@acme.io
  password ${S("netrc-password", heroku)}
machine ftp.example.com login anonymous password ${M("guest@example.com")}
https://octocat:${S("github-pat", ghp.text, ghp.body)}@github.com
https://oauth2:glpat-${S("gitlab-pat", glpat)}@gitlab.com
`;
  },
  // ~/.docker/config.json
  (g) => {
    const hub = b64(`devacme:${pw(g, 18)}`), ghp = gh(g, "ghp_"), ghcr = b64(`octocat:${ghp.text}`);
    return doc("docker config")`$ cat ~/.docker/config.json
{
\t"auths": {
\t\t"https://index.docker.io/v1/": {
\t\t\t"auth": "${S("docker-auth", hub)}"
\t\t},
\t\t"ghcr.io": {
\t\t\t"auth": "${S("github-pat", ghcr)}"
\t\t},
\t\t"123456789012.dkr.ecr.us-east-1.amazonaws.com": {}
\t},
\t"credsStore": "desktop",
\t"credHelpers": {
\t\t"gcr.io": "gcloud",
\t\t"us-docker.pkg.dev": "gcloud"
\t},
\t"currentContext": "desktop-linux",
\t"plugins": {
\t\t"-x-cli-hints": {
\t\t\t"enabled": "true"
\t\t}
\t}
}
`;
  },
  // stack traces carrying connection strings
  (g) => {
    const a = pwUrl(g, 14), b = pwUrl(g, 12), c = pwUrl(g, 16);
    return doc("stack trace")`Traceback (most recent call last):
  File "/app/app/db.py", line 42, in connect
    engine = create_engine(settings.DATABASE_URL, pool_pre_ping=True)
  File "/usr/local/lib/python3.12/site-packages/sqlalchemy/engine/create.py", line 618, in create_engine
    dbapi = dbapi_meth(**dbapi_args)
sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at "db.internal" (10.1.2.3), port 5432 failed: FATAL:  password authentication failed for user "app"
(Background on this error at: https://sqlalche.me/e/20/e3q8)
DEBUG engine url=postgresql+psycopg2://app:${S("postgres-url", a)}@db.internal:5432/app

MongoServerSelectionError: connection timed out
    at Timeout._onTimeout (/app/node_modules/mongodb/lib/sdam/topology.js:278:38)
    at listOnTimeout (node:internal/timers:594:17) {
  uri: 'mongodb+srv://admin:${S("mongodb-url", b)}@cluster0.${g.s(A.lownum, 5)}.mongodb.net/prod?retryWrites=true&w=majority',
  reason: TopologyDescription { type: 'ReplicaSetNoPrimary' }
}

Caused by: com.mysql.cj.jdbc.exceptions.CommunicationsException: Communications link failure
\tat com.mysql.cj.jdbc.ConnectionImpl.createNewIO(ConnectionImpl.java:828)
\tat com.zaxxer.hikari.pool.HikariPool.checkFailFast(HikariPool.java:560)
url: jdbc:mysql://db:3306/orders?user=orders&password=${S("password", c)}&useSSL=true
`;
  },
  // Terraform plan
  (g) => {
    const oldK = g.s(A.b62, 99), newK = g.s(A.b62, 99);
    return doc("terraform plan")`Terraform used the selected providers to generate the following execution plan.

  # aws_db_instance.main will be created
  + resource "aws_db_instance" "main" {
      + allocated_storage      = 20
      + arn                    = (known after apply)
      + engine                 = "postgres"
      + id                     = (known after apply)
      + password               = (sensitive value)
      + username               = "acme"
      + vpc_security_group_ids = (known after apply)
    }

  # aws_iam_access_key.ci will be created
  + resource "aws_iam_access_key" "ci" {
      + id                   = (known after apply)
      + secret               = (sensitive value)
      + ses_smtp_password_v4 = (sensitive value)
      + user                 = "ci"
    }

  # random_password.db will be created
  + resource "random_password" "db" {
      + length = 32
      + result = (sensitive value)
    }

  # aws_lambda_function.api will be updated in-place
  ~ resource "aws_lambda_function" "api" {
      ~ environment {
          ~ variables = {
              ~ "STRIPE_KEY" = "sk_live_${S("stripe-secret-key", oldK)}" -> "sk_live_${S("stripe-secret-key", newK)}"
                "LOG_LEVEL"  = "info"
            }
        }
        id               = "api"
      ~ source_code_hash = "${g.s(A.b64, 43)}=" -> "${g.s(A.b64, 43)}="
    }

Plan: 3 to add, 1 to change, 0 to destroy.
`;
  },
  // GitHub Actions log with the long ghs_ token
  (g) => {
    const t = longGhs(g), idt = jwt(g, { iss: "https://token.actions.githubusercontent.com", aud: "api://AzureADTokenExchange", repository: "acme/api" }), s1 = sha(g);
    const ts = () => `2026-05-02T10:0${g.int(0, 9)}:${String(g.int(10, 59))}.${g.s(A.digits, 7)}Z`;
    return doc("actions log")`${ts()} ##[group]Run actions/checkout@v4
${ts()} with:
${ts()}   repository: acme/api
${ts()}   token: ***
${ts()}   ssh-strict: true
${ts()} ##[endgroup]
${ts()} [command]/usr/bin/git config --local http.https://github.com/.extraheader AUTHORIZATION: basic ***
${ts()} HEAD is now at ${s1.slice(0, 7)} Merge pull request #${g.int(100, 999)} from acme/feature
${ts()} ##[group]Run ./scripts/debug-env.sh
${ts()} GITHUB_TOKEN=${S("github-app-token", t.text, t.secret)}
${ts()} GITHUB_SHA=${s1}
${ts()} GITHUB_RUN_ID=${g.int(8000000000, 9999999999)}
${ts()} ACTIONS_ID_TOKEN_REQUEST_URL=https://pipelines.actions.githubusercontent.com/${g.s(A.b62, 40)}/00000000-0000-0000-0000-000000000000/_apis/distributedtask/hubs/Actions/plans/${uuid(g)}/jobs/${uuid(g)}/idtoken?api-version=2.0
${ts()} ACTIONS_ID_TOKEN_REQUEST_TOKEN=${S("jwt", idt, idt.slice(idt.indexOf(".") + 1))}
${ts()} ##[endgroup]
${ts()} [command]/usr/bin/git push https://x-access-token:${S("github-app-token", t.text, t.secret)}@github.com/acme/api.git HEAD:refs/heads/release
${ts()} To https://github.com/acme/api.git
${ts()}    ${g.s(A.hex, 7)}..${s1.slice(0, 7)}  HEAD -> release
`;
  },
  // JWTs and tokens in log lines
  (g) => {
    const j = jwt(g, { sub: g.s(A.digits, 6), scope: "orders:read orders:write", exp: g.int(1.7e9, 1.8e9) }, "HS256"), at = g.s(A.b64u, 48);
    return doc("log lines")`2026-01-12T09:14:03.512Z INFO  [auth] verified token for user_id=4821 token=${S("jwt", j, j.slice(j.indexOf(".") + 1))} exp=1768209243
2026-01-12T09:14:03.514Z DEBUG [http] GET /api/orders?page=2 200 12ms trace_id=${g.s(A.hex, 32)} span_id=${g.s(A.hex, 16)}
127.0.0.1 - - [12/Jan/2026:09:14:04 +0000] "GET /oauth/callback?code=${M(g.s(A.b64u, 20))}&state=${g.s(A.hex, 16)} HTTP/1.1" 302 0 "-" "Mozilla/5.0"
127.0.0.1 - - [12/Jan/2026:09:14:05 +0000] "GET /api/export?format=csv&access_token=${S("generic-secret", at)} HTTP/1.1" 200 5120 "-" "python-requests/2.32.3"
2026-01-12T09:14:06.001Z WARN  [cache] miss key=session:${uuid(g)} ttl=3600
2026-01-12T09:14:06.120Z INFO  [billing] invoice in_${g.s(A.b62, 24)} paid amount=4900 currency=usd
`;
  },
  // Helm values
  (g) => {
    const p1 = pw(g, 20), p2 = pw(g, 20), p3 = pw(g, 24), wh = g.s(A.b64, 32), api = g.s(A.b62, 32);
    return doc("helm values")`$ cat charts/api/values.prod.yaml
image:
  repository: ghcr.io/acme/api
  tag: "sha-${g.s(A.hex, 7)}"
  pullPolicy: IfNotPresent
imagePullSecrets:
  - name: ghcr-pull
postgresql:
  auth:
    username: acme
    password: ${S("password", p1)}
    postgresPassword: ${S("password", p2)}
    existingSecret: ""
redis:
  auth:
    enabled: true
    password: "${S("password", p3)}"
env:
  - name: STRIPE_WEBHOOK_SECRET
    value: whsec_${S("stripe-webhook-secret", wh)}
  - name: PARTNER_API_TOKEN
    value: "${S("generic-secret", api)}"
  - name: LOG_LEVEL
    value: info
  - name: DATABASE_PASSWORD
    valueFrom:
      secretKeyRef:
        name: db
        key: password
ingress:
  enabled: true
  annotations:
    cert-manager.io/cluster-issuer: letsencrypt-prod
  tls:
    - secretName: api-tls
      hosts: [api.acme.io]
resources:
  limits: { cpu: 500m, memory: 512Mi }
`;
  },
  // Python settings (Django)
  (g) => {
    const sk = `django-insecure-${g.s(A.lownum + "!@#%^&*(-_=+)", 50)}`, dbp = pw(g, 18), st = g.s(A.b62, 24);
    return doc("settings.py")`$ cat acme/settings.py
import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
SECRET_KEY = '${S("generic-secret", sk)}'
DEBUG = False
ALLOWED_HOSTS = ["acme.io", "www.acme.io"]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "acme",
        "USER": "acme",
        "PASSWORD": "${S("password", dbp)}",
        "HOST": "db.internal",
        "PORT": "5432",
    }
}
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD")
AWS_SECRET_ACCESS_KEY = os.environ["AWS_SECRET_ACCESS_KEY"]
STRIPE_API_KEY = "sk_test_${S("stripe-secret-key", st)}"
CELERY_BROKER_URL = "amqp://${M("guest:guest")}@localhost:5672//"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.Argon2PasswordHasher"]
AUTH_PASSWORD_VALIDATORS = [{"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"}]
SESSION_COOKIE_AGE = 1209600
CSRF_COOKIE_SECURE = True
`;
  },
  // Java properties
  (g) => {
    const p1 = pw(g, 16), p2 = pw(g, 16), js = g.s(A.b64, 64), cs = g.s(A.hex, 40);
    return doc("application.properties")`$ cat src/main/resources/application-prod.properties
server.port=8080
spring.datasource.url=jdbc:postgresql://db:5432/acme
spring.datasource.username=acme
spring.datasource.password=${S("password", p1)}
spring.mail.host=smtp.sendgrid.net
spring.mail.username=apikey
spring.mail.password=${S("password", p2)}
jwt.secret=${S("generic-secret", js)}
app.security.token-validity-seconds=86400
spring.security.oauth2.client.registration.github.client-id=Iv1.${g.s(A.hex, 16)}
spring.security.oauth2.client.registration.github.client-secret=${S("generic-secret", cs)}
management.endpoints.web.exposure.include=health,info
logging.level.org.springframework.security=DEBUG
`;
  },
  // XML config: web.config and Maven settings
  (g) => {
    const p1 = pw(g, 16), ak = g.s(A.b64, 86) + "==", api = g.s(A.b62, 32), mvn = pw(g, 20);
    return doc("xml config")`$ cat Web.config ~/.m2/settings.xml
<configuration>
  <connectionStrings>
    <add name="Default" connectionString="Server=tcp:acme.database.windows.net,1433;Initial Catalog=acme;User ID=acme;Password=${S("password", p1)};Encrypt=True;" providerName="System.Data.SqlClient" />
  </connectionStrings>
  <appSettings>
    <add key="StorageConnection" value="DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey=${S("azure-storage-account-key", ak, ak.slice(0, 86))};EndpointSuffix=core.windows.net" />
    <add key="PartnerApiKey" value="${S("api-key", api)}" />
    <add key="Environment" value="Production" />
    <add key="webpages:Version" value="3.0.0.0" />
  </appSettings>
</configuration>
<settings>
  <servers>
    <server>
      <id>nexus-releases</id>
      <username>deploy</username>
      <password>${S("password", mvn)}</password>
    </server>
  </servers>
</settings>
`;
  },
  // psql connection lines
  (g) => {
    const a = pw(g, 16), b = pwUrl(g, 16), c = pw(g, 16);
    return doc("psql")`$ PGPASSWORD=${S("password", a)} psql -h db.internal -U acme -d acme -c 'select count(*) from orders'
 count
-------
 48213
(1 row)

$ psql "postgresql://acme:${S("postgres-url", b)}@db.internal:5432/acme?sslmode=require"
psql (16.2)
SSL connection (protocol: TLSv1.3, cipher: TLS_AES_256_GCM_SHA384, compression: off)
Type "help" for help.

$ psql "host=db.internal port=5432 dbname=acme user=acme password=${S("password", c)} sslmode=require"
acme=>
`;
  },
  // package-lock with integrity hashes (no secrets)
  (g) => {
    const pkg = () => {
      const n = g.s(A.lownum, 8);
      return `    "node_modules/${n}": {\n      "version": "${g.int(0, 9)}.${g.int(0, 20)}.${g.int(0, 9)}",\n      "resolved": "https://registry.npmjs.org/${n}/-/${n}-1.${g.int(0, 9)}.0.tgz",\n      "integrity": "sha512-${g.s(A.b64, 86)}==",\n      "license": "MIT"\n    },`;
    };
    return doc("package-lock")`$ head -40 package-lock.json
{
  "name": "api",
  "version": "1.4.0",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
${Array.from({ length: 6 }, pkg).join("\n")}
    "node_modules/tokenizer": {
      "version": "2.1.0",
      "integrity": "sha1-${g.s(A.b64, 27)}="
    }
  }
}
`;
  },
  // a source map line and minified bundle (no secrets)
  (g) => {
    const map = b64(JSON.stringify({ version: 3, file: "app.js", sources: ["../src/app.ts", "../src/auth/token.ts"], names: ["token", "secret", "password"], mappings: g.s(A.b64u, 400).replace(/[-_]/g, ";") }));
    return doc("source map")`$ tail -c 800 dist/app.js
!function(){"use strict";var t=document.querySelector("#login"),e={password:"",token:null};t.addEventListener("submit",function(n){n.preventDefault(),fetch("/api/session",{method:"POST",body:JSON.stringify(e)})})}();
//# sourceMappingURL=data:application/json;charset=utf-8;base64,${map}
$ ls dist
app.${g.s(A.hex, 8)}.js  app.${g.s(A.hex, 8)}.js.map  vendor.${g.s(A.hex, 20)}.js  styles.${g.s(A.hex, 8)}.css
`;
  },
  // base64 images (no secrets)
  (g) => doc("base64 images")`$ grep -o 'data:image[^"]*' public/index.html | head -c 3000
<img alt="logo" src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA${g.s(A.b64, 900)}=" />
.icon-search { background: url(data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+${g.s(A.b64, 300)}) no-repeat; }
![diagram](data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ${g.s(A.b64, 600)})
`,
  // git log with SHAs (no secrets)
  (g) => {
    const entry = () => `commit ${sha(g)}\nMerge: ${g.s(A.hex, 7)} ${g.s(A.hex, 7)}\nAuthor: Dev ${g.s(A.lownum, 5)} <dev@acme.io>\nDate:   Tue Jan ${g.int(1, 28)} 1${g.int(0, 9)}:${g.int(10, 59)}:00 2026 +0000\n\n    Rotate session token handling; fix password reset flow\n\n    Change-Id: I${sha(g)}\n    Signed-off-by: Dev <dev@acme.io>\n\n src/auth/token.ts | ${g.int(1, 40)} ++++----\n 1 file changed, ${g.int(1, 20)} insertions(+), ${g.int(1, 20)} deletions(-)\n`;
    return doc("git log")`$ git log --stat -3
${entry()}
${entry()}
${entry()}`;
  },
  // GCP service account key file
  (g) => {
    const id = g.s(A.hex, 40), body = pemBody(g, 25);
    return doc("gcp service account")`$ cat sa-key.json
{
  "type": "service_account",
  "project_id": "acme-prod-${g.int(100000, 999999)}",
  "private_key_id": "${S("gcp-private-key-id", id)}",
  "private_key": "-----BEGIN PRIVATE KEY-----\\n${S("private-key", body.replace(/\n/g, "\\n"), body)}\\n-----END PRIVATE KEY-----\\n",
  "client_email": "deployer@acme-prod.iam.gserviceaccount.com",
  "client_id": "${g.s(A.digits, 21)}",
  "auth_uri": "https://accounts.google.com/o/oauth2/auth",
  "token_uri": "https://oauth2.googleapis.com/token",
  "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
  "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/deployer%40acme-prod.iam.gserviceaccount.com",
  "universe_domain": "googleapis.com"
}
`;
  },
  // Claude Code credentials file
  (g) => {
    const at = g.s(A.b64u, 93) + "AA", rt = g.s(A.b64u, 93) + "AA";
    return doc("claude credentials")`$ cat ~/.claude/.credentials.json
{"claudeAiOauth":{"accessToken":"sk-ant-oat01-${S("anthropic-oauth-token", at)}","refreshToken":"sk-ant-ort01-${S("anthropic-oauth-token", rt)}","expiresAt":${g.int(1.7e12, 1.8e12)},"scopes":["user:inference","user:profile"],"subscriptionType":"max"}}
`;
  },
  // docker run and compose
  (g) => {
    const a = pw(g, 18), b = pw(g, 18), c = g.s(A.b62, 32);
    return doc("docker compose")`$ docker run -d --name pg -e POSTGRES_USER=app -e POSTGRES_PASSWORD=${S("password", a)} -p 5432:5432 postgres:16
${g.s(A.hex, 64)}
$ cat docker-compose.yml
services:
  db:
    image: mysql:8.4
    environment:
      MYSQL_DATABASE: shop
      MYSQL_ROOT_PASSWORD: ${S("password", b)}
      MYSQL_PASSWORD: \${MYSQL_PASSWORD}
  worker:
    image: ghcr.io/acme/worker@sha256:${g.s(A.hex, 64)}
    environment:
      - QUEUE_URL=redis://cache:6379/1
      - INTERNAL_API_TOKEN=${S("generic-secret", c)}
      - WORKERS=4
`;
  },
  // kubectl get secret with a base64 GitHub token, and a pull secret
  (g) => {
    const ghp = gh(g, "ghp_"), pass = pw(g, 20);
    const dcj = b64(JSON.stringify({ auths: { "ghcr.io": { username: "octocat", password: ghp.text, auth: b64(`octocat:${ghp.text}`) } } }));
    return doc("kubectl get secret")`$ kubectl get secret ci-tokens -o yaml
apiVersion: v1
data:
  github-token: ${S("github-pat", b64(ghp.text))}
  db-password: ${S("k8s-secret", b64(pass))}
  username: ${S("k8s-secret", b64("deployer"))}
kind: Secret
metadata:
  creationTimestamp: "2026-01-10T12:00:00Z"
  name: ci-tokens
  namespace: ci
  resourceVersion: "${g.int(100000, 999999)}"
  uid: ${uuid(g)}
type: Opaque
---
apiVersion: v1
kind: Secret
metadata:
  name: ghcr-pull
type: kubernetes.io/dockerconfigjson
data:
  .dockerconfigjson: ${S("github-pat", dcj)}
`;
  },
  // .pypirc and gh auth status (masked token survives)
  (g) => {
    const tok = `AgEIcHlwaS5vcmc${g.s(A.b64u, 160)}`;
    return doc(".pypirc + gh auth status")`$ cat ~/.pypirc
[distutils]
index-servers = pypi

[pypi]
username = __token__
password = pypi-${S("pypi-token", tok, tok.slice(15))}
$ gh auth status
github.com
  ✓ Logged in to github.com account octocat (keyring)
  - Active account: true
  - Git operations protocol: https
  - Token: gho_************************************
  - Token scopes: 'gist', 'read:org', 'repo', 'workflow'
`;
  },
  // API response JSON with usage fields and ids (no secrets)
  (g) => doc("api json")`${JSON.stringify({ id: `chatcmpl-${g.s(A.b62, 29)}`, object: "chat.completion", created: g.int(1.7e9, 1.8e9), model: "gpt-4o-2024-08-06", system_fingerprint: `fp_${g.s(A.hex, 10)}`, choices: [{ index: 0, message: { role: "assistant", content: "The token limit is set by max_tokens; pass your API key in the Authorization header." }, finish_reason: "stop" }], usage: { prompt_tokens: g.int(10, 900), completion_tokens: g.int(10, 900), total_tokens: g.int(100, 2000), prompt_tokens_details: { cached_tokens: 0 } } }, null, 2)}
${JSON.stringify({ data: [{ id: `cus_${g.s(A.b62, 14)}`, object: "customer", email: "jane@example.com", invoice_prefix: g.s(A.upnum, 8), livemode: true }], has_more: false, next_page: null, url: "/v1/customers" })}
`,
  // .env.example: placeholders only (no secrets)
  () => doc(".env.example")`$ cat .env.example
DATABASE_URL=postgresql://user:password@localhost:5432/app
OPENAI_API_KEY=sk-...
ANTHROPIC_API_KEY=your-anthropic-key
STRIPE_SECRET_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx
GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE
AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY
JWT_SECRET=changeme
SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX
SMTP_PASSWORD=<your-smtp-password>
REDIS_PASSWORD=
`,
  // request code with a hard-coded key, and a Slack webhook call
  (g) => {
    const key = g.s(A.b62, 40), hook = `T${g.s(A.upnum, 10)}/B${g.s(A.upnum, 10)}/${g.s(A.b62, 24)}`;
    return doc("code and webhook")`$ sed -n 1,14p scripts/notify.py
import os, requests

API_BASE = "https://partner.example.com/v2"
PARTNER_KEY = "${S("generic-secret", key)}"  # TODO move to vault

def notify(text: str, token: str = os.environ["SLACK_TOKEN"]) -> None:
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    requests.post(f"{API_BASE}/events", headers=headers, json={"text": text}, timeout=10)
$ curl -X POST -H 'Content-type: application/json' --data '{"text":"deploy done"}' https://hooks.slack.com/services/${S("slack-webhook", hook, hook.slice(-24))}
ok
`;
  },
];

/**
 * Held out: written after the rules were fixed against TEMPLATES, and scored
 * as they came out the first time (see the README for that first run).
 */
export const HELD_OUT: readonly Template[] = [
  // aws sts / cloud CLI JSON
  (g) => {
    const ak = g.s(A.b32, 16), sk = g.s(A.b64, 40), st = `FwoGZXIvYXdz${g.s(A.b64, 300)}`, az = jwt(g, { aud: "https://management.azure.com/", tid: uuid(g), oid: uuid(g) });
    return doc("aws sts / az token")`$ aws sts get-session-token --duration-seconds 3600
{
    "Credentials": {
        "AccessKeyId": "ASIA${S("aws-access-key-id", ak)}",
        "SecretAccessKey": "${S("aws-secret-access-key", sk)}",
        "SessionToken": "${S("aws-session-token", st, st.slice(12))}",
        "Expiration": "2026-01-12T10:14:03+00:00"
    }
}
$ az account get-access-token
{
  "accessToken": "${S("jwt", az, az.slice(az.indexOf(".") + 1))}",
  "expiresOn": "2026-01-12 11:14:03.000000",
  "subscription": "${uuid(g)}",
  "tenant": "${uuid(g)}",
  "tokenType": "Bearer"
}
$ gcloud auth print-access-token
ya29.${S("google-oauth-access-token", g.s(A.b64u, 180))}
`;
  },
  // heroku config
  (g) => {
    const a = pwUrl(g, 20), b = pwUrl(g, 24), kb = g.s(A.hex, 128);
    return doc("heroku config")`$ heroku config -a acme-api
=== acme-api Config Vars
DATABASE_URL:      postgres://u${g.s(A.lownum, 12)}:${S("postgres-url", a)}@ec2-3-210-0-1.compute-1.amazonaws.com:5432/d${g.s(A.lownum, 12)}
REDIS_URL:         rediss://:${S("redis-url", b)}@ec2-44-0-0-1.compute-1.amazonaws.com:25070
SECRET_KEY_BASE:   ${S("generic-secret", kb)}
SENDGRID_USERNAME: apikey
WEB_CONCURRENCY:   2
`;
  },
  // Cargo credentials and an app config in TOML
  (g) => {
    const cio = `cio${g.s(A.b62, 32)}`, p = pw(g, 18);
    return doc("toml")`$ cat ~/.cargo/credentials.toml config/prod.toml
[registry]
token = "${S("generic-secret", cio)}"

[database]
host = "db.internal"
user = "svc"
password = "${S("password", p)}"
pool_size = 20
`;
  },
  // Rails master key: a bare hex value whose only label is the file name
  (g) => {
    const k = g.s(A.hex, 32);
    return doc("rails master.key")`$ cat config/master.key
${S("generic-secret", k)}
$ ls config/credentials
production.key  production.yml.enc
`;
  },
  // an SSH private key and its public half
  (g) => {
    const body = pemBody(g, 6).replace(/^/, "b3BlbnNzaC1rZXktdjEAAAAA");
    return doc("ssh key")`$ cat ~/.ssh/id_ed25519 ~/.ssh/id_ed25519.pub
-----BEGIN OPENSSH PRIVATE KEY-----
${S("openssh-private-key", body)}
-----END OPENSSH PRIVATE KEY-----
ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${g.s(A.b64, 43)} dev@laptop
`;
  },
  // Python repr of request headers in a traceback
  (g) => {
    const ghp = gh(g, "ghp_"), goog = g.s(A.b64u, 35);
    return doc("python headers")`requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api.github.com/repos/acme/api
> request.headers = {'User-Agent': 'python-requests/2.32.3', 'Accept-Encoding': 'gzip, deflate', 'Accept': '*/*', 'Connection': 'keep-alive', 'Authorization': 'token ${S("github-pat", ghp.text, ghp.body)}', 'X-Goog-Api-Key': 'AIza${S("google-api-key", goog)}'}
`;
  },
  // stripe listen
  (g) => {
    const wh = g.s(A.b62, 32);
    return doc("stripe listen")`$ stripe listen --forward-to localhost:3000/webhooks
> Ready! You are using Stripe API Version [2025-03-31]. Your webhook signing secret is whsec_${S("stripe-webhook-secret", wh)} (^C to quit)
2026-01-12 10:14:03   --> checkout.session.completed [evt_${g.s(A.b62, 24)}]
2026-01-12 10:14:03  <--  [200] POST http://localhost:3000/webhooks [evt_${g.s(A.b62, 24)}]
`;
  },
  // Firebase web config
  (g) => {
    const k = g.s(A.b64u, 35);
    return doc("firebase config")`const firebaseConfig = {
  apiKey: "AIza${S("google-api-key", k)}",
  authDomain: "acme-prod.firebaseapp.com",
  projectId: "acme-prod",
  storageBucket: "acme-prod.appspot.com",
  messagingSenderId: "${g.s(A.digits, 12)}",
  appId: "1:${g.s(A.digits, 12)}:web:${g.s(A.hex, 22)}",
  measurementId: "G-${g.s(A.upnum, 10)}"
};
`;
  },
  // redis-cli -a and mongosh
  (g) => {
    const a = pw(g, 20), b = pwUrl(g, 16);
    return doc("db clients")`$ redis-cli -h cache.internal -p 6379 -a ${S("password", a)} --no-auth-warning ping
PONG
$ mongosh "mongodb://root:${S("mongodb-url", b)}@localhost:27017/?authSource=admin" --quiet --eval 'db.stats().ok'
1
`;
  },
  // git clone with a Bitbucket app password
  (g) => {
    const app = `ATBB${g.s(A.b62, 32)}`;
    return doc("git clone")`$ git clone https://dev:${S("bitbucket-app-password", app, app.slice(4))}@bitbucket.org/acme/legacy.git
Cloning into 'legacy'...
remote: Enumerating objects: 1523, done.
Receiving objects: 100% (1523/1523), 2.31 MiB | 8.10 MiB/s, done.
Resolving deltas: 100% (811/811), done.
`;
  },
];

/**
 * `perTemplate` documents from every template, seeded.
 *
 * @example
 * ```ts
 * const docs = buildRealistic(20, 1);
 * ```
 */
export function buildRealistic(perTemplate: number, seed: number, templates: readonly Template[] = TEMPLATES): RealDoc[] {
  const g = new Gen(rng(seed));
  const out: RealDoc[] = [];
  for (let i = 0; i < perTemplate; i++) for (const t of templates) out.push(t(g));
  return out;
}
