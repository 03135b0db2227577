/**
 * The held-out external benchmark: positives and negatives from public
 * scanners' own test fixtures (extract.ts), plus real code, configs and
 * lockfiles read from this machine, none of them written by this project.
 *
 *   bun bench/redact/external.ts [--list N] [--strict]
 *
 * Each positive secret is scored in its fixture's own context and in four
 * more forms: labelled (`export X_API_KEY=…`), a log line with no label, a
 * bare line, and a JSON object. A secret counts as caught when no 12-char
 * window of it survives (the whole secret, when shorter), in `text()`.
 * False positives: documents a redaction changed, by set. Content
 * preservation: the share of non-secret words of positive documents that survive.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { createRedactor } from "../../lib/redact/index.ts";
import type { Extracted, Negative, Positive } from "./extract.ts";
import { walkFiles } from "./files.ts";

const { values: opt } = parseArgs({ options: { list: { type: "string", default: "0" }, strict: { type: "boolean" } } });
const LIST = Number(opt.list);
// TRACEGATE_BENCH_LIST_ALL=1 lists the bare-line and log-line misses too (they repeat the own-context ones).
const LIST_ALL = process.env.TRACEGATE_BENCH_LIST_ALL === "1";
const r = createRedactor({ fingerprintKey: "bench", strict: opt.strict === true });
const ROOT = join(import.meta.dir, "../..");
const EXT = join(import.meta.dir, "external");

function load(name: string): Extracted | undefined {
  const p = join(EXT, name);
  return existsSync(p) ? (JSON.parse(readFileSync(p, "utf8")) as Extracted) : undefined;
}
const sets: Extracted[] = [];
const open = load("fixtures.json");
if (open) sets.push(open);
else console.warn("bench/redact/external/fixtures.json missing: run bun bench/redact/extract.ts");
const th = load("trufflehog.json");
if (th) sets.push(th);
else console.warn("trufflehog fixtures not extracted (AGPL, never committed): run bun bench/redact/extract.ts with a trufflehog mirror; scoring gitleaks and detect-secrets only");

// detect-secrets plugins that flag things that are not credentials.
const NOT_SECRET_KINDS = new Set(["ip_public", "email_address"]);
const positives: Positive[] = sets.flatMap((x) => x.positives).filter((p) => !NOT_SECRET_KINDS.has(p.kind));
const almost: Negative[] = sets.flatMap((x) => x.negatives).filter((n) => !NOT_SECRET_KINDS.has(n.kind));

// ------------------------------------------------------------------ forms

const envName = (kind: string): string => kind.toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_|_$/g, "");
const FORMS: Record<string, (v: string, kind: string) => string> = {
  labelled: (v, k) => `export ${envName(k)}_API_KEY=${v}\n`,
  log: (v) => `2026-11-30T09:14:07.512Z DEBUG http: GET https://api.example.com/v1/items using ${v} -> 200 (38 ms)\n`,
  // Alone on a line after a command that says nothing of it: the entropy rule's, with its guards.
  bare: (v) => `$ ./scripts/setup.sh\n${v}\n$ echo ok\nok\n`,
  // The same line printed by a command that prints a secret (lib/redact/printed.ts).
  printed: (v) => `$ pbpaste\n${v}\n$ echo ok\nok\n`,
  json: (v, k) => `${JSON.stringify({ service: k, api_key: v, region: "us-east-1" }, null, 2)}\n`,
};

/** Whether a secret is prefixed: a short literal head then a separator (`ghp_`, `sk-`, `PMAK-`) or a known fixed head. */
const prefixed = (v: string): boolean => /^(?:[A-Za-z]{2,12}[0-9]{0,2}[_\-.~]|AKIA|ASIA|AIza|EAA[A-Za-z0-9]|ya29\.)/.test(v) && v.length >= 20;

/**
 * The part of a fixture's secret that must go. The redactor keeps a token's
 * literal prefix (`sk-ant-api03-`, `shippo_live_`) and a URL's scheme, host
 * and words (`https://hooks.slack.com/services/`), so those are not scored:
 * short leading word segments are stripped while 16+ characters remain, and
 * of a URL only the password, or the path segments that look random, count.
 */
export function randomParts(secret: string): string[] {
  // A reference (`$DB_USERNAME`, `${TOKEN}`) or a name of words (`truffle-dev`, `service_account`): nothing secret.
  if (/^\$\{?[A-Za-z_]\w*\}?$/.test(secret) || /^[a-z]+(?:[-_][a-z]+)+$/.test(secret)) return [];
  // Query pairs (`se=…&sig=…`): the secret-named values.
  const secretValues = (q: string): string[] => [...q.matchAll(/(?:^|[?&;])[\w ]*(?:sig|signature|secret|key|password|pwd|token)[\w ]*=([^&;#]+)/gi)].map((m) => m[1]!);
  // `hooks.slack.com/services/…` with no scheme is a URL too.
  const url = /^(?:[a-z][a-z0-9+.-]*:){0,3}\/\/([^/?#\s]*)(.*)$/i.exec(secret) ?? /^()((?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?\/.*)$/i.exec(secret);
  if (url) {
    const auth = url[1]!.lastIndexOf("@");
    if (auth >= 0) {
      const userinfo = url[1]!.slice(0, auth);
      const colon = userinfo.indexOf(":");
      return [colon >= 0 ? userinfo.slice(colon + 1) : userinfo].filter((x) => x.length > 0);
    }
    const q = secretValues(url[2]!);
    if (q.length > 0) return q;
    // A URL with no credentials: only path segments that look random are secret (a webhook's path).
    return url[2]!.split(/[/?#&=;]+/).filter((x) => x.length >= 12 && /\d/.test(x) && /[a-z]/i.test(x));
  }
  // A JDBC URL with no `//` (`jdbc:oracle:thin:@host:1521:db`, `jdbc:sqlite:/data/test.db`): no credentials.
  if (/^jdbc:/i.test(secret)) return secretValues(secret);
  if (/&/.test(secret) && /=/.test(secret) && !/;/.test(secret)) return secretValues(secret);
  // A JWT's header (`{"alg":…}`) is kept on purpose; its payload and signature count.
  const jwt = /^eyJ[A-Za-z0-9_-]+\.(eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/.exec(secret);
  if (jwt) return [jwt[1]!];
  // A connection string: its secret-named values.
  if (/;/.test(secret) && /=/.test(secret)) {
    const vals = [...secret.matchAll(/(?:^|;)\s*[\w ]*(?:secret|key|password|pwd|sig|token)[\w ]*=([^;]+)/gi)].map((m) => m[1]!);
    if (vals.length > 0) return vals;
  }
  let rest = secret;
  for (let k = 0; k < 3; k++) {
    const m = /^[A-Za-z][A-Za-z0-9]{0,11}[-_.]/.exec(rest);
    if (!m || rest.length - m[0].length < 16) break;
    rest = rest.slice(m[0].length);
  }
  return [rest];
}

/**
 * A fixture secret the placeholder policy leaves alone: its random part is
 * one repeated character (`sk-AAAA…`, `BBDC-1111…`), `x` runs or `EXAMPLE`.
 */
export const placeholder = (secret: string): boolean =>
  randomParts(secret).every((p) => /^(.)\1+$/.test(p.replace(/[-_]/g, "")) || /x{6,}|EXAMPLE|^0{8}-0{4}/i.test(p) || ascending(p) >= 6);

/** The longest run of consecutive characters (`ABCDEF`, `123456`): typed by hand, as the redactor's policy reads it. */
function ascending(t: string): number {
  let best = 1;
  for (let i = 1, run = 1; i < t.length; i++) best = Math.max(best, (run = t.charCodeAt(i) === t.charCodeAt(i - 1) + 1 ? run + 1 : 1));
  return best;
}

function caught(out: string, secret: string): boolean {
  for (const part of randomParts(secret)) {
    if (part.length < 12) {
      if (out.includes(part)) return false;
      continue;
    }
    for (let i = 0; i + 12 <= part.length; i++) if (out.includes(part.slice(i, i + 12))) return false;
  }
  return true;
}

/** Non-secret words of `input` (not overlapping a secret), counted, and how many survive in `out`. */
function preserved(input: string, out: string, secrets: readonly string[]): [number, number] {
  let masked = input;
  for (const s of secrets) masked = masked.split(s).join(" \u0000 ");
  const words = masked.match(/[A-Za-z0-9_]{2,}/g) ?? [];
  const count = (text: string): Map<string, number> => {
    const m = new Map<string, number>();
    for (const w of text.match(/[A-Za-z0-9_]{2,}/g) ?? []) m.set(w, (m.get(w) ?? 0) + 1);
    return m;
  };
  const want = count(words.join(" "));
  const got = count(out);
  let total = 0;
  let kept = 0;
  for (const [w, n] of want) {
    total += n;
    kept += Math.min(n, got.get(w) ?? 0);
  }
  return [kept, total];
}

// --------------------------------------------------------------- positives

interface Tally {
  hit: number;
  total: number;
}
const add = (m: Map<string, Tally>, k: string, ok: boolean): void => {
  const t = m.get(k) ?? { hit: 0, total: 0 };
  t.total++;
  if (ok) t.hit++;
  m.set(k, t);
};
const byForm = new Map<string, Tally>();
const byKindOwn = new Map<string, Tally>();
const bySrcOwn = new Map<string, Tally>();
const bareByPrefix = new Map<string, Tally>();
const misses: string[] = [];
let keptWords = 0;
let totalWords = 0;
const started = performance.now();
let unscored = 0;
for (const p of positives) {
  const out = r.text(p.context);
  const [k, t] = preserved(p.context, out, p.secrets);
  keptWords += k;
  totalWords += t;
  for (const s of p.secrets) {
    // A fixture's "secret" with no secret part (a host, a user name, a URL without credentials).
    if (randomParts(s).length === 0) {
      unscored++;
      continue;
    }
    const ok = caught(out, s);
    add(byForm, "own context", ok);
    if (!placeholder(s)) add(byForm, "own, no placeholders", ok);
    add(byKindOwn, `${p.src}:${p.kind}`, ok);
    add(bySrcOwn, p.src, ok);
    if (!ok) misses.push(`own\t${p.src}:${p.kind}\t${JSON.stringify(p.context.length > 160 ? p.context.slice(0, 160) + "…" : p.context)}\t${s}`);
    for (const [form, make] of Object.entries(FORMS)) {
      const doc = make(s, p.kind);
      const o = r.text(doc);
      const okf = caught(o, s);
      add(byForm, form, okf);
      if (form === "bare") {
        add(bareByPrefix, prefixed(s) ? "prefixed" : "unprefixed", okf);
        if (!placeholder(s)) add(bareByPrefix, prefixed(s) ? "prefixed, no placeholders" : "unprefixed, no placeholders", okf);
        const hexOrUuid = /^[0-9a-f]+$|^[0-9A-F]+$|^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-/.test(s);
        if (!placeholder(s) && hexOrUuid) add(bareByPrefix, "hex or UUID (guarded)", okf);
        // What the issue's own guards leave: no placeholders (its item 5), no bare git-id/UUID shapes (its item 4).
        if (!placeholder(s) && !hexOrUuid) add(bareByPrefix, "all, no placeholders, no hex or UUID", okf);
      }
      const [k2, t2] = preserved(doc, o, [s]);
      keptWords += k2;
      totalWords += t2;
      if (!okf && (LIST_ALL || (form !== "bare" && form !== "log"))) misses.push(`${form}\t${p.src}:${p.kind}\t${s}`);
    }
  }
}
const posMs = performance.now() - started;

// --------------------------------------------------------------- negatives

/** Documents from real files: read whole, split into chunks of at most `max` chars on line boundaries. */
function chunks(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + max);
    if (end < text.length) {
      const nl = text.lastIndexOf("\n", end);
      if (nl > at) end = nl + 1;
    }
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

// Tests, fixtures, examples and docs hold the very secrets and near-misses the other sets score.
const SKIP_DIRS = /^(?:\.git|test|tests|__tests__|spec|fixtures?|examples?|test_?data|docs?)$/i;

/** Every k-th item, so a set spreads over all packages rather than the first few. */
const spread = <T>(xs: readonly T[], n: number): T[] => (xs.length <= n ? [...xs] : Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]!));

function gitDocs(repo: string, re: RegExp, n: number): { name: string; text: string }[] {
  if (!existsSync(repo)) return [];
  const files = execFileSync("git", ["-C", repo, "ls-tree", "-r", "--name-only", "HEAD"], { encoding: "utf8", maxBuffer: 64 << 20 }).split("\n").filter((p) => re.test(p));
  const kept = files.filter((p) => !/(?:^|\/)(?:test_?data|tests?|examples?|fixtures?|docs?)\//i.test(p));
  return spread(kept, n).map((p) => ({ name: `${repo.split("/").at(-2)}:${p}`, text: execFileSync("git", ["-C", repo, "show", `HEAD:${p}`], { encoding: "utf8", maxBuffer: 64 << 20 }) }));
}

const MIRROR = "/work/.mirror";
const NM = [join(ROOT, "node_modules"), "/usr/lib/node_modules"];
const fileDocs = (re: RegExp, n: number): { name: string; text: string }[] => {
  const all: string[] = [];
  for (const d of NM) walkFiles(d, (p, size) => size < 2_000_000 && re.test(p) && !/\.min\.js$|\.map$|test|spec|fixture/i.test(p), all, 20000, SKIP_DIRS);
  return spread(all, n).map((p) => ({ name: relative(ROOT, p), text: readFileSync(p, "utf8") }));
};

const CODE_RE = /\.(?:[cm]?js|ts|tsx|jsx|py|go|sh)$/;
const realSets: Record<string, { name: string; text: string }[]> = {
  code: [
    ...fileDocs(/\.(?:[cm]?js|tsx?|jsx)$/, 400).filter((d) => !d.name.endsWith(".d.ts")),
    ...gitDocs(join(MIRROR, "gitleaks+gitleaks/repo"), /^(?!cmd\/generate\/config\/rules\/|testdata\/).*(?<!_test)\.go$/, 80),
    ...gitDocs(join(MIRROR, "trufflesecurity+trufflehog/repo"), /^pkg\/(?!detectors\/).*(?<!_test)\.go$/, 80),
    ...gitDocs(join(MIRROR, "Yelp+detect-secrets/repo"), /^detect_secrets\/.*\.py$/, 40),
  ].filter((d) => CODE_RE.test(d.name) || true),
  configs: [
    ...fileDocs(/(?:package\.json|\.ya?ml|\.toml|tsconfig[^/]*\.json|\.eslintrc[^/]*|\.editorconfig|\.npmrc|\.ini|\.cfg)$/, 400).filter((d) => !/package-lock\.json$/.test(d.name)),
    ...gitDocs(join(MIRROR, "gitleaks+gitleaks/repo"), /(?:\.ya?ml|\.toml|Makefile|Dockerfile)$/, 40).filter((d) => !/gitleaks\.toml$/.test(d.name)),
    ...gitDocs(join(MIRROR, "trufflesecurity+trufflehog/repo"), /(?:\.ya?ml|Makefile|Dockerfile|\.toml)$/, 60),
    ...gitDocs(join(MIRROR, "Yelp+detect-secrets/repo"), /(?:\.ya?ml|\.cfg|\.ini|\.toml)$/, 20),
  ],
  lockfiles: [
    { name: "package-lock.json", text: readFileSync(join(ROOT, "package-lock.json"), "utf8") },
    ...gitDocs(join(MIRROR, "gitleaks+gitleaks/repo"), /^go\.sum$/, 1),
    ...gitDocs(join(MIRROR, "trufflesecurity+trufflehog/repo"), /^go\.sum$/, 1),
    ...gitDocs(join(MIRROR, "Yelp+detect-secrets/repo"), /requirements.*\.txt$/, 4),
  ],
};

const fpBySet = new Map<string, Tally>();
const fpExamples: string[] = [];
let negChars = 0;
const negStart = performance.now();
for (const [set, docs] of Object.entries(realSets)) {
  for (const d of docs) {
    for (const [ci, text] of chunks(d.text, 16384).entries()) {
      negChars += text.length;
      const { output, found } = r.explainText!(text);
      const fp = output !== text;
      add(fpBySet, set, fp);
      if (fp) fpExamples.push(`${set}\t${d.name}#${ci}\t${found.slice(0, 4).map((f) => `${f.line}:${f.column} ${f.kind} ${JSON.stringify(span(text, f))}`).join(", ")}${found.length > 4 ? ` (+${found.length - 4})` : ""}`);
    }
  }
}
const negMs = performance.now() - negStart;
for (const n of almost) {
  const fp = r.text(n.text) !== n.text;
  add(fpBySet, `almost-secret (${n.src})`, fp);
}

/** The redacted span itself, with a little of what is before it. */
function span(text: string, f: { line: number; column: number; length?: number }): string {
  const line = text.split("\n")[f.line - 1] ?? "";
  return `${line.slice(Math.max(0, f.column - 25), f.column - 1)}»${line.slice(f.column - 1, f.column - 1 + (f.length ?? 20))}«`;
}

// ------------------------------------------------------------------ report

const pct = (t: Tally | undefined): string => (t && t.total ? (t.hit / t.total).toFixed(4) : "n/a");
console.log(`external positives: ${positives.length} fixtures, ${byForm.get("own context")?.total ?? 0} secrets, ${new Set(positives.map((p) => `${p.src}:${p.kind}`)).size} kinds (${posMs.toFixed(0)} ms)`);
console.log(`(${unscored} fixture values with no secret part not scored: host names, URLs without credentials, references, names of words)`);
console.log("\nrecall by form");
for (const [f, t] of byForm) console.log(`  ${f.padEnd(12)} ${pct(t)}  (${t.hit}/${t.total})`);
console.log("\nown-context recall by source");
for (const [f, t] of bySrcOwn) console.log(`  ${f.padEnd(16)} ${pct(t)}  (${t.hit}/${t.total})`);
console.log("\nbare line recall, prefixed vs unprefixed");
for (const [f, t] of bareByPrefix) console.log(`  ${f.padEnd(12)} ${pct(t)}  (${t.hit}/${t.total})`);
const kinds = [...byKindOwn].filter(([, t]) => t.total > 0);
const perfect = kinds.filter(([, t]) => t.hit === t.total).length;
console.log(`\nkinds with every own-context secret caught: ${perfect}/${kinds.length}`);
console.log(`content preservation: ${(keptWords / Math.max(1, totalWords)).toFixed(4)} (${keptWords}/${totalWords} non-secret words)`);
console.log("\nfalse-positive documents by set");
for (const [s, t] of fpBySet) console.log(`  ${s.padEnd(28)} ${(t.hit / Math.max(1, t.total) * 100).toFixed(2)}%  (${t.hit}/${t.total})`);
console.log(`  (real documents: ${(negChars / 1e6).toFixed(1)} MB in ${negMs.toFixed(0)} ms)`);
if (LIST > 0) {
  console.log("\nmisses (own context first):");
  for (const m of misses.slice(0, LIST)) console.log("  " + m);
  console.log("\nfalse positives in real documents:");
  for (const m of fpExamples.slice(0, LIST)) console.log("  " + m);
}
