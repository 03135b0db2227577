/**
 * A generated corpus of agent tool outputs: realistic noise (git, npm, docker,
 * kubectl, code, API JSON, docs with placeholders) with planted secrets from
 * the test shapes and the hard negatives mixed in. Seeded and reproducible.
 */
import { BLOCK_WRAPPERS, Gen, hardNegatives, type Planted, rng, SHAPES, WRAPPERS } from "../../test/redact/shapes.ts";
import { A } from "../../test/redact/shapes.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { walkFiles } from "./files.ts";

/** One document: ordered blocks, some of them planted secrets. */
export interface Doc {
  readonly blocks: readonly { readonly text: string; readonly planted?: Planted & { kind: string } }[];
}

export const docText = (d: Doc): string => d.blocks.map((b) => b.text).join("\n");

const WORDS = "the a build test run fix add remove update refactor handler config parser cache index router service client server module request response error retry timeout session user order item payment invoice report schema migration".split(" ");

function sentence(g: Gen, n: number): string {
  return Array.from({ length: n }, () => WORDS[g.int(0, WORDS.length - 1)]).join(" ");
}

const NOISE: readonly ((g: Gen) => string)[] = [
  (g) => Array.from({ length: g.int(2, 6) }, () => `commit ${g.s(A.hex, 40)}\nAuthor: Dev ${g.s(A.lownum, 5)} <dev@example.com>\nDate:   Mon Jan ${g.int(1, 28)} 10:${g.int(10, 59)}:00 2026 +0000\n\n    ${sentence(g, 6)}\n`).join("\n"),
  (g) => `added ${g.int(10, 900)} packages, and audited ${g.int(900, 2000)} packages in ${g.int(2, 30)}s\n\n${g.int(50, 200)} packages are looking for funding\n  run \`npm fund\` for details\nfound 0 vulnerabilities`,
  (g) => `    "node_modules/${g.s(A.lownum, 8)}": {\n      "version": "${g.int(0, 9)}.${g.int(0, 20)}.${g.int(0, 9)}",\n      "resolved": "https://registry.npmjs.org/${g.s(A.lownum, 8)}/-/x-1.0.0.tgz",\n      "integrity": "sha512-${g.s(A.b64, 86)}==",\n      "dev": true\n    },`,
  (g) => Array.from({ length: g.int(3, 10) }, () => `-rw-r--r--  1 dev staff ${g.int(100, 99999).toString().padStart(6)} Jan ${g.int(1, 28)} 10:00 ${g.s(A.lownum, 8)}.${["ts", "js", "json", "md", "py"][g.int(0, 4)]}`).join("\n"),
  (g) => `import { ${g.s(A.lownum, 6)} } from "./${g.s(A.lownum, 6)}";\n\ninterface LoginForm {\n  username: string;\n  password: string;\n  rememberMe?: boolean;\n}\n\nexport async function login(form: LoginForm) {\n  const token = process.env.API_TOKEN;\n  const res = await fetch(url, { headers: { Authorization: \`Bearer \${token}\` } });\n  if (!res.ok) throw new Error("login failed: " + res.status);\n  return res.json();\n}`,
  (g) => `def connect(password: str, *, retries: int = 3) -> Connection:\n    token = os.environ["GITHUB_TOKEN"]\n    secret = get_secret("db/${g.s(A.lownum, 5)}")\n    logger.info("connecting as %s", user)\n    return Connection(host=settings.DB_HOST, password=password)`,
  (g) => JSON.stringify({ id: `msg_${g.s(A.b62, 24)}`, type: "message", model: "claude-sonnet-4-5", usage: { input_tokens: g.int(100, 9000), output_tokens: g.int(10, 900), cache_creation_input_tokens: g.int(0, 500), cache_read_input_tokens: g.int(0, 5000) }, stop_reason: "end_turn", request_id: `${g.s(A.hex, 8)}-${g.s(A.hex, 4)}-4${g.s(A.hex, 3)}-8${g.s(A.hex, 3)}-${g.s(A.hex, 12)}` }, null, 2),
  (g) => `CONTAINER ID   IMAGE                     COMMAND                  STATUS\n${g.s(A.hex, 12)}   postgres:16               "docker-entrypoint.s…"   Up 2 hours\n${g.s(A.hex, 12)}   redis@sha256:${g.s(A.hex, 64)}   "redis-server"   Up 2 hours`,
  (g) => `NAME                        READY   STATUS    RESTARTS   AGE\napi-${g.s(A.lownum, 10)}-${g.s(A.lownum, 5)}   1/1     Running   0          3d\nworker-${g.s(A.lownum, 10)}-${g.s(A.lownum, 5)}   1/1     Running   2          3d`,
  (g) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  LOG_LEVEL: info\n  FEATURE_FLAGS: "${g.s(A.lownum, 6)},${g.s(A.lownum, 6)}"\n  secretName: db-credentials`,
  (g) => `<img alt="logo" src="data:image/png;base64,${g.s(A.b64, g.int(200, 2000))}" />`,
  (g) => `asset main.${g.s(A.hex, 20)}.js 142 KiB [emitted] [immutable] (name: main)\nasset vendors.${g.s(A.hex, 20)}.js 1.2 MiB [emitted] [immutable]\nasset styles.${g.s(A.hex, 8)}.css 12 KiB [emitted]\nwebpack 5.98.0 compiled successfully in ${g.int(1000, 9000)} ms`,
  (g) => ` PASS  src/${g.s(A.lownum, 6)}.test.ts\n  ✓ ${sentence(g, 5)} (${g.int(1, 40)} ms)\n  ✓ ${sentence(g, 4)} (${g.int(1, 40)} ms)\n\nTest Suites: 12 passed, 12 total\nTests:       ${g.int(50, 300)} passed, ${g.int(50, 300)} total`,
  (g) => `Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1607:16)\n    at Pool.connect (/app/node_modules/pg-pool/index.js:${g.int(10, 400)}:${g.int(1, 40)})\n    at async main (/app/src/${g.s(A.lownum, 6)}.ts:${g.int(1, 300)}:5)`,
  () => "## Setup\n\n```sh\nexport OPENAI_API_KEY=your-api-key-here\nexport GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\ncurl -H \"Authorization: Bearer <token>\" https://api.example.com\n```\n\nReplace `sk-...` with your key. Set `password: changeme` in dev only.",
  (g) => `PATH=/usr/local/bin:/usr/bin:/bin\nHOME=/home/dev\nPWD=/home/dev/${g.s(A.lownum, 8)}\nSHELL=/bin/zsh\nTERM=xterm-256color\nLANG=en_US.UTF-8\nNODE_ENV=development\nEDITOR=vim\nTOKEN_TTL=3600\nSESSION_TIMEOUT=1800`,
  () => "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm publish\n        env:\n          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}\n          API_KEY: ${{ secrets.API_KEY }}",
  () => "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n@acme:registry=https://npm.pkg.github.com\nalways-auth=true",
  (g) => `!function(e){var t={};function n(r){if(t[r])return t[r].exports;var o=t[r]={i:r,l:!1,exports:{}};return e[r].call(o.exports,o,o.exports,n)}n.p="/static/${g.s(A.hex, 8)}/",n(n.s=${g.int(1, 99)})}([function(e,t,n){"use strict";var ${g.s(A.lownum, 2)}="${g.s(A.b62, 24)}"}]);`,
  (g) => Array.from({ length: g.int(3, 8) }, () => `2026-01-${String(g.int(1, 28)).padStart(2, "0")}T10:${g.int(10, 59)}:00Z INFO trace_id=${g.s(A.hex, 32)} span_id=${g.s(A.hex, 16)} ${sentence(g, 5)} duration_ms=${g.int(1, 900)}`).join("\n"),
  (g) => `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${g.s(A.b64, 43)} dev@laptop\n-----BEGIN CERTIFICATE-----\nMIID${g.s(A.b64, 60)}\n${g.s(A.b64, 64)}\n-----END CERTIFICATE-----`,
  (g) => `INSERT INTO users (id, email, password_hash, created_at) VALUES (${g.int(1, 9999)}, 'u${g.int(1, 999)}@example.com', '$2b$12$${g.s(A.b64, 53)}', now());`,
  (g) => `diff --git a/src/${g.s(A.lownum, 6)}.ts b/src/${g.s(A.lownum, 6)}.ts\nindex ${g.s(A.hex, 7)}..${g.s(A.hex, 7)} 100644\n--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1,4 +1,5 @@\n-const max_tokens = 1024;\n+const max_tokens = 4096;\n+const tokenizer = getTokenizer("${g.s(A.lownum, 6)}");`,
  (g) => `{"nextPageToken": "${g.s(A.b64u, 40)}", "items": [{"id": "${g.s(A.hex, 24)}", "etag": "\\"${g.s(A.hex, 32)}\\"", "kind": "drive#file"}]}`,
  (g) => `origin\thttps://github.com/acme/${g.s(A.lownum, 8)}.git (fetch)\norigin\tgit@github.com:acme/${g.s(A.lownum, 8)}.git (push)`,
  (g) => `const messages = {\n  password: "Password",\n  passwordPlaceholder: "Enter your password",\n  apiKey: "API key",\n  tokenExpired: "Your session token has expired",\n  secret: "Secret",\n  id: "${g.s(A.lownum, 6)}"\n};`,
];

/**
 * Builds `n` documents; `secretRate` of them carry 1-3 planted secrets.
 *
 * @example
 * ```ts
 * const docs = buildCorpus(100, 1);
 * ```
 */
export function buildCorpus(n: number, seed: number, secretRate = 0.6): Doc[] {
  const g = new Gen(rng(seed));
  const docs: Doc[] = [];
  for (let i = 0; i < n; i++) {
    const blocks: { text: string; planted?: Planted & { kind: string } }[] = [];
    const noise = g.int(2, 6);
    for (let k = 0; k < noise; k++) blocks.push({ text: NOISE[g.int(0, NOISE.length - 1)]!(g) });
    if (g.r() < 0.5) {
      const hn = hardNegatives(g);
      blocks.push({ text: hn[g.int(0, hn.length - 1)]! });
    }
    if (g.r() < secretRate) {
      const planted = g.int(1, 3);
      for (let k = 0; k < planted; k++) {
        const shape = SHAPES[g.int(0, SHAPES.length - 1)]!;
        const p = shape.make(g);
        const wrappers = shape.form === "token" ? Object.values(WRAPPERS) : Object.values(BLOCK_WRAPPERS);
        const wrap = wrappers[g.int(0, wrappers.length - 1)]!;
        const at = g.int(0, blocks.length);
        blocks.splice(at, 0, { text: wrap(p.text), planted: { ...p, kind: shape.kind } });
      }
    }
    docs.push({ blocks });
  }
  return docs;
}

/**
 * The 5 MB mixed document the speed figures are taken on: generated documents
 * (seed 777) joined until 5 Mi characters, cut there.
 *
 * @example
 * ```ts
 * mixedDocument().length; // 5242880
 * ```
 */
export function mixedDocument(): string {
  const big: string[] = [];
  let size = 0;
  for (const d of buildCorpus(20000, 777)) {
    const t = docText(d);
    big.push(t);
    size += t.length + 1;
    if (size >= 5 * 1024 * 1024) break;
  }
  return big.join("\n").slice(0, 5 * 1024 * 1024);
}

/**
 * Files under this checkout's node_modules (JS/TS, Markdown, JSON, YAML),
 * whole and in name order, to `bytes`: what a long tool output mostly is.
 */
export function realFiles(bytes: number): string {
  const files: string[] = [];
  walkFiles(join(import.meta.dir, "../../node_modules"), (p, size) => size <= 256 * 1024 && /\.(?:[cm]?js|ts|md|json|ya?ml)$/.test(p), files, 5000, /^\.bin$/);
  let out = "";
  for (const f of files) {
    if (out.length >= bytes) break;
    out += readFileSync(f, "utf8") + "\n";
  }
  return out.slice(0, bytes);
}

/** A test run's log of about `bytes` characters: paths, counts and names, no secret (the hook-latency bench's payload text). */
export function buildLog(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `  \u2713 test/unit/module-${i % 97}/case-${i}.test.ts > handles input #${(i * 7919) % 10007} (${(i % 13) + 1}ms) at /home/dev/project/src/file${i % 31}.ts:${i % 400}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n").slice(0, bytes);
}
