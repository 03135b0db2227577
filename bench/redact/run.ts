/**
 * Redaction benchmark:
 *
 * 1. recall and false-positive document rate on the generated corpus (built
 *    from the same shapes the rules were written from, so its recall is an
 *    upper bound);
 * 2. the same figures on a hand-written set of realistic tool outputs
 *    (realistic.ts), scored separately, with every miss and false positive
 *    listed by kind;
 * 3. a 5 MB mixed document (dense with secrets: the worst case per byte) and
 *    5 MB of real files (node_modules) timed against secretlint (recommended
 *    preset) on the same file, alternately, medians; and whole processes,
 *    `dist/tracegate redact` against secretlint's CLI; and the in-process
 *    pair again where freed memory is kept (faults.ts: this VM's page faults
 *    are most of secretlint's in-process time).
 *
 *   bun bench/redact/run.ts [--docs N] [--real N] [--runs N] [--cli-runs N] [--no-secretlint]
 *
 * --cli-runs: whole-process pairs per document (default 5): each pair shares the machine's phase,
 * and on this noisy machine the pair-by-pair median needs more than 5 to settle.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BUILTIN_RULES, resolve, scan } from "../../lib/redact/engine.ts";
import { createRedactor } from "../../lib/redact/index.ts";
import { leak } from "../../test/redact/shapes.ts";
import { buildCorpus, docText, mixedDocument, realFiles } from "./corpus.ts";
import { buildRealistic, HELD_OUT, type RealDoc, TEMPLATES } from "./realistic.ts";
import { SECRETLINT_CONFIG, type SecretlintEngine, secretlintEngine } from "./secretlint.ts";

const { values: opt } = parseArgs({
  options: { docs: { type: "string", default: "3000" }, real: { type: "string", default: "40" }, runs: { type: "string", default: "5" }, "cli-runs": { type: "string", default: "5" }, "no-secretlint": { type: "boolean" } },
});
const N = Number(opt.docs);
const RUNS = Number(opt.runs);
const CLI_RUNS = Number(opt["cli-runs"]);
const r = createRedactor({ fingerprintKey: "bench" });

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

// ---------------------------------------------------------------- quality
const docs = buildCorpus(N, 20260301);
const perKind = new Map<string, { hit: number; total: number }>();
let planted = 0;
let caught = 0;
let caughtValue = 0;
let fpDocs = 0;
let fpDocsValue = 0;
let cleanDocs = 0;
const fpExamples: string[] = [];
for (const d of docs) {
  const text = docText(d);
  const out = r.text(text);
  const outValue = JSON.stringify(r.value({ type: "tool_call", tool_name: "Bash", output: { stdout: text } }));
  const decodedValue = (JSON.parse(outValue) as { output: { stdout: string } }).output.stdout;
  let fp = false;
  let fpV = false;
  for (const b of d.blocks) {
    if (b.planted) {
      planted++;
      const okText = leak(out, b.planted.secret) === undefined;
      const okValue = leak(decodedValue, b.planted.secret) === undefined;
      if (okText) caught++;
      if (okValue) caughtValue++;
      const k = perKind.get(b.planted.kind) ?? { hit: 0, total: 0 };
      k.total++;
      if (okText && okValue) k.hit++;
      perKind.set(b.planted.kind, k);
    } else {
      if (!out.includes(b.text)) {
        fp = true;
        if (fpExamples.length < 5) fpExamples.push(r.text(b.text).slice(0, 300));
      }
      if (!decodedValue.includes(b.text)) fpV = true;
    }
  }
  if (!d.blocks.some((b) => b.planted)) cleanDocs++;
  if (fp) fpDocs++;
  if (fpV) fpDocsValue++;
}
const recall = caught / planted;
const recallValue = caughtValue / planted;
console.log(`corpus: ${N} documents (${cleanDocs} without secrets), ${planted} planted secrets of ${perKind.size} kinds`);
console.log(`recall (text):  ${recall.toFixed(4)}  (${caught}/${planted})`);
console.log(`recall (value): ${recallValue.toFixed(4)}  (${caughtValue}/${planted})`);
console.log(`documents with a false positive (text):  ${(fpDocs / N * 100).toFixed(2)}%  (${fpDocs}/${N})`);
console.log(`documents with a false positive (value): ${(fpDocsValue / N * 100).toFixed(2)}%  (${fpDocsValue}/${N})`);
const below = [...perKind].filter(([, v]) => v.hit / v.total < 0.97).sort();
if (below.length) {
  console.log("kinds below 0.97 recall:");
  for (const [k, v] of below) console.log(`  ${k.padEnd(36)} ${(v.hit / v.total).toFixed(3)} (${v.hit}/${v.total})`);
} else console.log("every kind at or above 0.97 recall");
for (const e of fpExamples) console.log(`  false positive example: ${JSON.stringify(e)}`);

// ------------------------------------------------- realistic tool outputs
interface Score {
  readonly docs: number;
  readonly clean: number;
  readonly planted: number;
  readonly caught: number;
  readonly caughtValue: number;
  readonly fpDocs: number;
  readonly cleanFp: number;
  readonly kinds: number;
}

/** Scores hand-written documents and prints their misses and false positives by kind. */
function scoreReal(title: string, real: readonly RealDoc[], templates: number): Score {
  const kinds = new Set<string>();
  const misses = new Map<string, number>();
  const fps = new Map<string, { n: number; example: string }>();
  let planted = 0, caught = 0, caughtValue = 0, fpDocs = 0, clean = 0, cleanFp = 0;
  for (const d of real) {
    const out = r.text(d.text);
    const outValue = (JSON.parse(JSON.stringify(r.value({ tool_response: { stdout: d.text } }))) as { tool_response: { stdout: string } }).tool_response.stdout;
    for (const p of d.planted) {
      planted++;
      kinds.add(p.kind);
      const ok = leak(out, p.secret) === undefined;
      const okV = leak(outValue, p.secret) === undefined;
      if (ok) caught++;
      if (okV) caughtValue++;
      if (!ok || !okV) misses.set(`${p.kind} in "${d.name}"`, (misses.get(`${p.kind} in "${d.name}"`) ?? 0) + 1);
    }
    // A redaction touching nothing planted (nor a don't-care value) is a false positive.
    let fp = false;
    for (const g of resolve(scan(d.text, BUILTIN_RULES))) {
      if (d.spans.some(([a, b]) => g.start < b && a < g.end)) continue;
      fp = true;
      const lineStart = d.text.lastIndexOf("\n", g.start) + 1;
      const lineEnd = d.text.indexOf("\n", g.end);
      const key = `${g.kind} in "${d.name}"`;
      const e = fps.get(key) ?? { n: 0, example: d.text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd).slice(0, 160) };
      e.n++;
      fps.set(key, e);
    }
    if (fp) fpDocs++;
    if (d.planted.length === 0) {
      clean++;
      if (fp) cleanFp++;
    }
  }
  console.log(`\n${title}: ${real.length} documents from ${templates} hand-written templates (${clean} without secrets), ${planted} planted secrets of ${kinds.size} kinds`);
  console.log(`recall (text):  ${(caught / planted).toFixed(4)}  (${caught}/${planted})`);
  console.log(`recall (value): ${(caughtValue / planted).toFixed(4)}  (${caughtValue}/${planted})`);
  console.log(`documents with a false positive: ${(fpDocs / real.length * 100).toFixed(2)}%  (${fpDocs}/${real.length}); of the secret-free ones: ${cleanFp}/${clean}`);
  if (misses.size) {
    console.log("misses (kind in template: count):");
    for (const [k, n] of [...misses].sort()) console.log(`  ${k}: ${n}`);
  } else console.log("no misses");
  if (fps.size) {
    console.log("false positives (kind in template: count, example line):");
    for (const [k, e] of [...fps].sort()) console.log(`  ${k}: ${e.n}  ${JSON.stringify(e.example)}`);
  } else console.log("no false positives");
  return { docs: real.length, clean, planted, caught, caughtValue, fpDocs, cleanFp, kinds: kinds.size };
}

const PER = Number(opt.real);
const tuned = scoreReal("realistic set", buildRealistic(PER, 20260501), TEMPLATES.length);
const held = scoreReal("held-out realistic set", buildRealistic(PER, 20260502, HELD_OUT), HELD_OUT.length);
const row = (name: string, rec: number, fp: number) => `  ${name.padEnd(22)} ${rec.toFixed(4)}   ${(fp * 100).toFixed(2)}%`;
console.log("\nside by side             recall   FP documents");
console.log(row("generated corpus", recall, fpDocs / N));
console.log(row("realistic (tuned)", tuned.caught / tuned.planted, tuned.fpDocs / tuned.docs));
console.log(row("realistic (held out)", held.caught / held.planted, held.fpDocs / held.docs));

// ---------------------------------------------------------------- speed
let engine: SecretlintEngine | undefined;
if (!opt["no-secretlint"]) {
  try {
    engine = await secretlintEngine();
  } catch (e) {
    console.log(`secretlint unavailable: ${(e as Error).message}`);
  }
}
const dir = mkdtempSync(join(tmpdir(), "tg-redact-bench-"));
const bin = join(import.meta.dir, "../../dist/tracegate");
const secretlintCli = join(import.meta.dir, "../../node_modules/secretlint/bin/secretlint.js");
const node = Bun.which("node");
const cliReady = !opt["no-secretlint"] && node !== null && (await Bun.file(secretlintCli).exists());
if (cliReady) writeFileSync(join(dir, ".secretlintrc.json"), JSON.stringify(SECRETLINT_CONFIG));

/**
 * The ratio of each run to the one beside it, as a median with its quartiles: on a machine whose
 * speed drifts within one call (here one build's text() ran 153-300 ms in seven runs), the
 * medians of two columns can pair a fast phase with a slow one, while each pair shares its phase.
 */
function pairwise(ours: readonly number[], theirs: readonly number[]): string {
  const r = ours.map((x, i) => x / theirs[i]!).sort((a, b) => a - b);
  const at = (q: number): string => r[Math.min(r.length - 1, Math.floor(q * r.length))]!.toFixed(2);
  return `${at(0.5)}x (quartiles ${at(0.25)}-${at(0.75)}, ${r.length} pairs)`;
}

/** One document timed against secretlint on the same file: in process, alternately, and whole process, CLI against CLI. */
async function timed(name: string, five: string, cold: boolean): Promise<void> {
  const file = join(dir, `${name}.txt`);
  writeFileSync(file, five);
  console.log(`\n${name}: ${(Buffer.byteLength(five) / 1024 / 1024).toFixed(2)} MiB, ${five.split("\n").length} lines`);
  const ours: number[] = [];
  const oursValue: number[] = [];
  const theirs: number[] = [];
  r.text(five); // warm-up (JIT, lazily compiled regexes)
  if (engine) await engine.executeOnFiles({ filePathList: [file] });
  for (let i = 0; i < RUNS; i++) {
    // A fresh redactor per call: its tag cache would otherwise carry the last call's tags over.
    Bun.gc(true);
    let t0 = performance.now();
    createRedactor({ fingerprintKey: "bench" }).text(five);
    ours.push(performance.now() - t0);
    Bun.gc(true);
    t0 = performance.now();
    createRedactor({ fingerprintKey: "bench" }).value({ type: "tool_call", output: { stdout: five } });
    oursValue.push(performance.now() - t0);
    if (engine) {
      Bun.gc(true);
      t0 = performance.now();
      await engine.executeOnFiles({ filePathList: [file] });
      theirs.push(performance.now() - t0);
    }
  }
  // Cold: a fresh process per run, as a hook pays it (module load + first use).
  const colds: number[] = [];
  for (let i = 0; cold && i < Math.min(RUNS, 3); i++) {
    const p = Bun.spawnSync([process.execPath, "-e", `const t0=performance.now();const {createRedactor}=await import(${JSON.stringify(join(import.meta.dir, "../../lib/redact/index.ts"))});const s=require("fs").readFileSync(${JSON.stringify(file)},"utf8");createRedactor({fingerprintKey:"b"}).text(s);console.log(performance.now()-t0)`]);
    colds.push(Number(p.stdout.toString().trim()));
  }
  // The compiled binary end to end (process start, stdin, redact, stdout), when built, alternating
  // with secretlint's own CLI on the same file (Node start-up, module load, scan, JSON out): the
  // wall time each costs someone at the command line, cold JIT included on both sides.
  const binRuns: number[] = [];
  const cliRuns: number[] = [];
  if (await Bun.file(bin).exists()) {
    for (let i = 0; i < CLI_RUNS; i++) {
      let t0 = performance.now();
      Bun.spawnSync([bin, "redact"], { stdin: Bun.file(file), stdout: "ignore", env: { ...process.env, TRACEGATE_HOME: dir } });
      binRuns.push(performance.now() - t0);
      if (!cliReady) continue;
      t0 = performance.now();
      // NODE_PATH: the rule preset resolves from this checkout's node_modules, not the temp dir.
      Bun.spawnSync([node!, secretlintCli, "--format", "json", "--maskSecrets", file], { cwd: dir, stdout: "ignore", stderr: "ignore", env: { ...process.env, NODE_PATH: join(import.meta.dir, "../../node_modules") } });
      cliRuns.push(performance.now() - t0);
    }
  }
  console.log(`tracegate text():  median ${median(ours).toFixed(0)} ms  (runs: ${ours.map((x) => x.toFixed(0)).join(", ")})`);
  console.log(`tracegate value(): median ${median(oursValue).toFixed(0)} ms`);
  if (colds.length) console.log(`tracegate cold process (import from source + read + redact): median ${median(colds).toFixed(0)} ms`);
  if (binRuns.length) console.log(`dist/tracegate redact < the file (whole process): median ${median(binRuns).toFixed(0)} ms`);
  if (cliRuns.length) console.log(`secretlint CLI on the same file (whole process): median ${median(cliRuns).toFixed(0)} ms; tracegate/secretlint ${(median(binRuns) / median(cliRuns)).toFixed(2)}x; pair by pair ${pairwise(binRuns, cliRuns)}`);
  if (theirs.length) {
    console.log(`secretlint (preset-recommend, same file): median ${median(theirs).toFixed(0)} ms  (runs: ${theirs.map((x) => x.toFixed(0)).join(", ")})`);
    console.log(`tracegate/secretlint in process: ${(median(ours) / median(theirs)).toFixed(2)}x; pair by pair ${pairwise(ours, theirs)}`);
    // The same pair where freed memory is kept, so neither pays this machine's page faults anew each call (faults.ts).
    const kept = Bun.spawnSync([process.execPath, join(import.meta.dir, "faults.ts"), file, "--runs", String(RUNS)], { env: { ...process.env, MIMALLOC_PURGE_DELAY: "-1" } });
    console.log(kept.exitCode === 0 ? kept.stdout.toString().trim() : `faults.ts failed: ${kept.stderr.toString().trim().split("\n").pop()}`);
  }
  console.log(`observer cap 2500 ms: text() uses ${(median(ours) / 2500 * 100).toFixed(0)}% of it`);
}

// The generated mixed document: dense with secrets and near-misses (every kind, many times), the
// worst case per byte. Then 5 MB of real files (this checkout's node_modules, in name order: code,
// docs, package manifests), what a long tool output mostly is.
await timed("5 MB mixed document", mixedDocument(), true);
await timed("5 MB of real files (node_modules)", realFiles(5 * 1024 * 1024), false);

rmSync(dir, { recursive: true, force: true });
