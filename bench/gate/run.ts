/**
 * The Stop gate's own overhead: everything but the oracle's test run, on a
 * 10,000-file repository with a small change (two files edited, one added).
 *
 * The oracle here answers at once with a verdict signed for the request, so
 * the time measured is: process start, stdin, config, reading the session's
 * records, the diff against the base commit (isomorphic-git, no git binary),
 * the HTTP round trip, signature verification, the record append and exit.
 *
 *   bun bench/gate/run.ts                 # 15 runs each
 *   bun bench/gate/run.ts --runs 30 --files 10000
 *
 * Contenders, all compiled with `bun build --compile --minify` like dist/tracegate:
 *   gated     the Stop gate (bench/gate/entry.ts: the real runtime + lib/gate/stop.ts)
 *   observer  the same binary with no oracle configured (the Stop floor)
 *   gated-src the gate from source under `bun` (no compile; start-up includes transpiling)
 * and, when dist/tracegate's own `stop` is gated (main.ts wired), `dist` too.
 * A breakdown from inside one process shows where the gated time goes.
 * Peak RSS per run comes from /usr/bin/time -f %M when present. Target: gated median < 1 s.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { signVerdict, sha256Hex } from "../../lib/oracle/verdict.ts";

const ROOT = resolve(import.meta.dir, "../..");
const { values: opts } = parseArgs({
  options: {
    runs: { type: "string", default: "15" },
    files: { type: "string", default: "10000" },
    keep: { type: "boolean", default: false },
  },
});
const RUNS = Number(opts.runs);
const FILES = Number(opts.files);

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" };
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" }).trim();

const work = mkdtempSync(join(tmpdir(), "tg-bench-gate-"));
const repo = join(work, "repo");
const home = join(work, "home");
mkdirSync(repo);

// --- the repository: FILES files in 100 directories, one commit ---
const t0 = performance.now();
const perDir = Math.ceil(FILES / 100);
for (let d = 0; d < 100; d++) {
  const dir = join(repo, "src", `mod${d}`);
  mkdirSync(dir, { recursive: true });
  for (let f = 0; f < perDir && d * perDir + f < FILES; f++) {
    writeFileSync(join(dir, `file${f}.ts`), `export const v${d}_${f} = ${d * perDir + f};\n// ${"x".repeat(150)}\n`);
  }
}
git(repo, "init", "-q", "-b", "main");
git(repo, "add", "-A");
git(repo, "commit", "-qm", "base");
const base = git(repo, "rev-parse", "HEAD");
// The small change an agent makes.
writeFileSync(join(repo, "src", "mod3", "file7.ts"), "export const v3_7 = 42;\n");
writeFileSync(join(repo, "src", "mod50", "file1.ts"), readFileSync(join(repo, "src", "mod50", "file1.ts"), "utf8") + "export const more = 1;\n");
writeFileSync(join(repo, "src", "answer.ts"), "export const answer = 42;\n");
const setupMs = performance.now() - t0;

// --- the oracle: answers at once with a verdict signed for exactly this request ---
const { privateKey, publicKey } = generateKeyPairSync("ed25519");
const priv = privateKey.export({ type: "pkcs8", format: "pem" }) as string;
const pubFile = join(work, "oracle.pub");
writeFileSync(pubFile, publicKey.export({ type: "spki", format: "pem" }) as string);
const oracle = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const b = (await req.json()) as Record<string, any>;
    return Response.json(
      signVerdict({ task_id: b.task_id, session_id: b.session_id, base_commit: b.base_commit, diff_sha256: sha256Hex(b.diff), chain_head: b.chain_head, attempt: b.attempt, verdict: "PASS", tests_hash: "0".repeat(64) }, priv),
    );
  },
});
const gatedConfig = join(work, "gated.jsonc");
writeFileSync(gatedConfig, JSON.stringify({ oracle: { url: `http://127.0.0.1:${oracle.port}`, public_key: pubFile, timeout_s: 30 } }));
const plainConfig = join(work, "plain.jsonc");
writeFileSync(plainConfig, "{}");

// --- binaries ---
const bin = join(work, "stop-gate");
execFileSync(process.execPath, ["build", join(import.meta.dir, "entry.ts"), "--compile", "--minify", "--sourcemap=none", `--outfile=${bin}`], { cwd: ROOT, stdio: "ignore" });
const DIST = join(ROOT, "dist", "tracegate");

const env = (config: string) => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work, TRACEGATE_HOME: home, TRACEGATE_CONFIG: config });
const hasTime = spawnSync("/usr/bin/time", ["-f", "%M", "true"], { encoding: "utf8" }).status === 0;

/** A fresh session whose session_start record carries the base commit, written as SessionStart would. */
function newSession(): string {
  const id = randomUUID();
  mkdirSync(join(home, "sessions"), { recursive: true });
  const rec = { id: randomUUID(), type: "session_start", session_id: id, harness: "claude", ts: new Date().toISOString(), cwd: repo, base_commit: base };
  const user = { id: randomUUID(), type: "message", role: "user", session_id: id, harness: "claude", ts: new Date().toISOString(), text: "do the task" };
  writeFileSync(join(home, "sessions", `${id}.jsonl`), JSON.stringify(rec) + "\n" + JSON.stringify(user) + "\n");
  return id;
}

function stopPayload(id: string): string {
  return JSON.stringify({ session_id: id, hook_event_name: "Stop", cwd: repo, stop_hook_active: false, last_assistant_message: "Done: the answer is 42.", permission_mode: "bypassPermissions" });
}

interface Run {
  ms: number;
  /** The gate handler's own time, from the verdict record's elapsed_ms. */
  handlerMs: number | null;
  rssKb: number | null;
  gated: boolean;
}

function verdictOf(id: string): any {
  const path = join(home, "sessions", `${id}.jsonl`);
  return readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((r) => r.type === "oracle_verdict");
}

// The oracle lives in this process, so runs are spawned asynchronously (spawnSync would starve it).
async function runAsync(cmd: string[], config: string): Promise<Run> {
  const id = newSession();
  const argv = hasTime ? ["/usr/bin/time", "-f", "%M", ...cmd] : cmd;
  const t = performance.now();
  const p = Bun.spawn(argv, { stdin: "pipe", stdout: "pipe", stderr: "pipe", env: env(config) });
  p.stdin.write(stopPayload(id));
  await p.stdin.end();
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const ms = performance.now() - t;
  if (code !== 0) throw new Error(`exit ${code}: ${stderr}`);
  if (stdout !== "") throw new Error(`stdout not empty on a PASS: ${stdout}`);
  const m = /(\d+)\s*$/.exec(stderr);
  const v = verdictOf(id);
  return { ms, handlerMs: typeof v?.elapsed_ms === "number" ? v.elapsed_ms : null, rssKb: hasTime && m ? Number(m[1]) : null, gated: v?.verified === true && v?.verdict === "PASS" };
}

const contenders: { name: string; cmd: string[]; config: string }[] = [
  { name: "gated", cmd: [bin], config: gatedConfig },
  { name: "observer", cmd: [bin], config: plainConfig },
  // From source under Bun (transpiles at start-up): an upper bound, and a check when the compiled build breaks.
  { name: "gated-src", cmd: [process.execPath, join(import.meta.dir, "entry.ts")], config: gatedConfig },
];
if (existsSync(DIST)) {
  const probe = await runAsync([DIST, "stop"], gatedConfig);
  if (probe.gated) contenders.push({ name: "dist stop", cmd: [DIST, "stop"], config: gatedConfig });
  else console.log("note: dist/tracegate stop wrote no verified verdict (main.ts does not wire the gate yet); not benched");
}

const results = new Map<string, Run[]>(contenders.map((c) => [c.name, []]));
for (let round = 0; round < RUNS + 2; round++) {
  for (const c of round % 2 ? [...contenders].reverse() : contenders) {
    const r = await runAsync(c.cmd, c.config);
    if (round >= 2) results.get(c.name)!.push(r);
  }
}

// --- breakdown inside one process (warm): diff alone, and the whole handler ---
const { diffAgainstBase } = await import("../../lib/git/diff.ts");
const diffMs: number[] = [];
let diffInfo = { bytes: 0, files: 0 };
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const d = await diffAgainstBase({ cwd: repo, base, maxBytes: 50 * 1024 * 1024 });
  diffMs.push(performance.now() - t);
  diffInfo = { bytes: d.bytes, files: d.files };
}

console.log(`repo: ${FILES} files (setup ${(setupMs / 1000).toFixed(1)} s); change: ${diffInfo.files} files, ${diffInfo.bytes}-byte patch`);
console.log(`machine: ${cpus().length} cores, load ${loadavg().map((x) => x.toFixed(2)).join(" ")}; ${RUNS} runs each; peak RSS via ${hasTime ? "/usr/bin/time %M" : "n/a"}`);
for (const [name, runs] of results) {
  const ms = runs.map((r) => r.ms);
  const rss = runs.map((r) => r.rssKb).filter((x): x is number => x !== null);
  const ok = runs.filter((r) => r.gated).length;
  console.log(
    `${name.padEnd(10)} median ${median(ms).toFixed(0).padStart(5)} ms  min ${Math.min(...ms).toFixed(0).padStart(5)}  max ${Math.max(...ms).toFixed(0).padStart(5)}` +
      (rss.length ? `  peak RSS ${(Math.max(...rss) / 1024).toFixed(1)} MB (median ${(median(rss) / 1024).toFixed(1)})` : "") +
      `  verified PASS recorded: ${ok}/${runs.length}` +
      (runs.some((r) => r.handlerMs !== null) ? `  gate handler median ${median(runs.map((r) => r.handlerMs ?? 0)).toFixed(0)} ms` : ""),
  );
}
const g = median(results.get("gated")!.map((r) => r.ms));
const o = median(results.get("observer")!.map((r) => r.ms));
console.log(`gate overhead over the observer Stop: ${(g - o).toFixed(0)} ms (ratio ${(g / o).toFixed(2)}x)`);
console.log(`in-process diff against base (warm, 5 runs): median ${median(diffMs).toFixed(0)} ms`);
const compiledOk = results.get("gated")!.every((r) => r.gated);
if (!compiledOk) console.log("WARNING: the compiled gate recorded no verified PASS on some runs: see $TRACEGATE_HOME/errors.log (--keep)");
const gs = median(results.get("gated-src")!.map((r) => r.ms));
console.log(`target: gated median < 1000 ms -> compiled ${g < 1000 && compiledOk ? "met" : "NOT met"}; from source ${gs < 1000 ? "met" : "NOT met"} (${gs.toFixed(0)} ms)`);

await oracle.stop(true);
if (!opts.keep) rmSync(work, { recursive: true, force: true });
else console.log(`kept ${work}`);
