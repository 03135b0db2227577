/**
 * Hook latency with a viewer around: wall time of the compiled
 * `tracegate post-tool-use` (spawn to exit, 10 KB payload) when
 *
 *   none      no discovery record (the cost is one lstat),
 *   live      a running `tracegate view` (challenge, proof, post),
 *   dead      the record of a SIGKILLed viewer (pid gone; the hook cleans it),
 *   refused   a record with a live pid whose port is closed (cleaned),
 *   impostor  a plain HTTP server on the recorded port that answers anything (cleaned),
 *   hang      a listener that accepts and never answers (the 250 ms challenge deadline; cleaned),
 *
 * interleaved round-robin so all share the machine's noise. Stale records are
 * planted again before each run (the hook cleans them). Figures are printed,
 * never asserted: the observer cap is 2.5 s.
 *
 *   bun bench/view/hook.ts [--runs 30] [--bin dist/tracegate] [--against OTHER_BIN]
 *
 * `--against` adds `none@against`: another build (e.g. main before the viewer)
 * with no record, in the same rotation, to show what the forwarding hook-up
 * costs a hook when no viewer runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { discoveryPath } from "../../lib/view/discovery.ts";
import { OBSERVER_CAP_MS } from "../../lib/hook/subcommands.ts";

const ROOT = resolve(import.meta.dir, "../..");
const { values } = parseArgs({ options: { runs: { type: "string", default: "30" }, bin: { type: "string", default: join(ROOT, "dist", "tracegate") }, against: { type: "string" } } });
const RUNS = Number(values.runs);
const BIN = resolve(values.bin!);

const payload = JSON.stringify({
  session_id: "bench-view",
  cwd: "/tmp",
  hook_event_name: "PostToolUse",
  tool_name: "Bash",
  tool_input: { command: "ls -la" },
  tool_response: { stdout: "x".repeat(10_000), stderr: "" },
  tool_use_id: "toolu_bench",
  duration_ms: 3,
});

function home(): string {
  return mkdtempSync(join(tmpdir(), "tg-bench-view-"));
}
function plant(h: string, port: number, pid: number): void {
  writeFileSync(discoveryPath(h), JSON.stringify({ v: 1, port, pid, token: "ab".repeat(32), started_at: new Date().toISOString() }), { mode: 0o600 });
}

async function hookOnce(h: string, bin = BIN): Promise<number> {
  const t0 = performance.now();
  const p = Bun.spawn([bin, "post-tool-use"], { stdin: "pipe", stdout: "ignore", stderr: "ignore", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TRACEGATE_HOME: h } });
  p.stdin.write(payload);
  await p.stdin.end();
  await p.exited;
  return performance.now() - t0;
}

// A SIGKILLed viewer's pid: a process that has exited.
const gone = Bun.spawn(["true"]);
await gone.exited;
const deadPid = gone.pid;

const impostor = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") });
const hang = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
const closedPort = closed.port!;
closed.stop(true);

const AGAINST = values.against ? resolve(values.against) : null;
const homes = { none: home(), ...(AGAINST ? { "none@against": home() } : {}), live: home(), dead: home(), refused: home(), impostor: home(), hang: home() } as Record<string, string>;
const viewer = Bun.spawn([BIN, "view"], { stdin: "ignore", stdout: "pipe", stderr: "ignore", env: { PATH: process.env.PATH ?? "", TRACEGATE_HOME: homes.live } });
{
  const r = viewer.stdout.getReader();
  let t = "";
  while (!t.includes("\n")) t += new TextDecoder().decode((await r.read()).value);
  r.releaseLock();
}

const prepare: Record<string, () => void> = {
  none: () => {},
  "none@against": () => {},
  live: () => {},
  dead: () => plant(homes.dead!, closedPort, deadPid),
  refused: () => plant(homes.refused!, closedPort, process.pid),
  impostor: () => plant(homes.impostor!, impostor.port!, process.pid),
  hang: () => plant(homes.hang!, hang.port!, process.pid),
};
const samples: Record<string, number[]> = Object.fromEntries(Object.keys(homes).map((k) => [k, []]));
const binFor = (k: string) => (k === "none@against" ? AGAINST! : BIN);
for (const k of Object.keys(homes)) await hookOnce(homes[k]!, binFor(k)); // warm the page cache
for (let i = 0; i < RUNS; i++) {
  for (const k of Object.keys(homes)) {
    prepare[k]!();
    samples[k]!.push(await hookOnce(homes[k]!, binFor(k)));
  }
}
viewer.kill("SIGTERM");
await viewer.exited;
impostor.stop(true);
hang.stop(true);
// A hook that failed silently would look fast: every run must have left its record.
const { readFileSync } = await import("node:fs");
const short = Object.entries(homes).filter(([, h]) => readFileSync(join(h, "sessions", "bench-view.jsonl"), "utf8").split("\n").filter(Boolean).length !== RUNS + 1);
for (const h of Object.values(homes)) rmSync(h, { recursive: true, force: true });
if (short.length) throw new Error(`records missing in: ${short.map(([k]) => k).join(", ")}`);

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
console.log(`bench/view/hook: ${RUNS} runs each, interleaved; ${BIN}${AGAINST ? ` against ${AGAINST}` : ""}; load ${loadavg().map((x) => x.toFixed(2)).join(" ")}; cap ${OBSERVER_CAP_MS} ms`);
console.log("condition     median ms   p90 ms   max ms   vs none (median)");
const base = q(samples.none!, 0.5);
for (const [k, xs] of Object.entries(samples)) {
  console.log(`${k.padEnd(12)}  ${q(xs, 0.5).toFixed(1).padStart(9)}  ${q(xs, 0.9).toFixed(1).padStart(7)}  ${Math.max(...xs).toFixed(1).padStart(7)}   ${(q(xs, 0.5) - base >= 0 ? "+" : "")}${(q(xs, 0.5) - base).toFixed(1)}`);
}
