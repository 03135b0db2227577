/**
 * The sessions list with many sessions: time of `/api/sessions` (one page of
 * 50) on a store of N sessions, cold (every file's head and tail read once),
 * warm (cache hits: one stat per file), with a search, and deep in the pages.
 * `--big K` makes K of the sessions 8 MB each (eight 1 MiB tool outputs in
 * the middle) to show that the list reads only their ends.
 *
 *   bun bench/view/list.ts [--sessions 10000] [--big 100]
 *
 * While the cold listing runs, a compiled hook fires every 100 ms; the bench
 * prints how many of their events the viewer accepted (the listing yields to
 * the event loop so challenges are answered). Figures are printed, not asserted.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { newDiscovery, writeDiscovery } from "../../lib/view/discovery.ts";
import { startViewer } from "../../lib/view/server.ts";
import { localSource } from "../../lib/view/source.ts";
import { manySessions } from "../../test/view/fixtures.ts";

const { values } = parseArgs({ options: { sessions: { type: "string", default: "10000" }, big: { type: "string", default: "100" } } });
const N = Number(values.sessions);
const BIG = Number(values.big);

const home = mkdtempSync(join(tmpdir(), "tg-bench-list-"));
let t = performance.now();
const names = manySessions(home, N);
// Big sessions as the store writes them: records under the 2 MiB record cap (eight 1 MiB tool
// outputs) in the middle, the session's own small records at both ends.
const filler = Array.from({ length: 8 }, (_, k) => `${JSON.stringify({ id: `filler-${k}`, type: "tool_call", session_id: "x", harness: "claude", ts: "2026-01-01T00:00:00Z", tool_name: "Read", output: "y".repeat(1 << 20) })}\n`).join("");
for (let i = 0; i < BIG; i++) {
  const path = join(home, "sessions", names[i * Math.floor(N / Math.max(1, BIG))]!);
  const lines = readFileSync(path, "utf8").split(/(?<=\n)/);
  writeFileSync(path, [...lines.slice(0, 3), filler, ...lines.slice(3)].join(""));
}
const total = readdirSync(join(home, "sessions")).reduce((n, f) => n + statSync(join(home, "sessions", f)).size, 0);
console.log(`bench/view/list: ${N} sessions (${BIG} of them over 8 MB), ${(total / 1e6).toFixed(0)} MB in the store, written in ${((performance.now() - t) / 1000).toFixed(1)} s; load ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);

const proofToken = "ab".repeat(32);
const v = startViewer({ source: localSource(home), port: 0, accessToken: "t".repeat(48), proofToken });
writeDiscovery(home, { ...newDiscovery(v.port), token: proofToken });
// Hooks fired while the cold listing runs: do their events still get through the proof?
const hooks: Promise<number>[] = [];
const hookTimer = setInterval(() => {
  const p = Bun.spawn([join(import.meta.dir, "../../dist/tracegate"), "post-tool-use"], { stdin: "pipe", stdout: "ignore", stderr: "ignore", env: { PATH: process.env.PATH ?? "", TRACEGATE_HOME: home } });
  p.stdin.write(JSON.stringify({ session_id: `during-${hooks.length}`, hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: {}, tool_response: {}, tool_use_id: "t" }));
  p.stdin.end();
  hooks.push(p.exited);
}, 100);
async function time(label: string, qs: string): Promise<void> {
  t = performance.now();
  const res = await fetch(`http://127.0.0.1:${v.port}/api/sessions?${qs}`, { headers: { "x-tracegate-token": "t".repeat(48) } });
  const body = (await res.json()) as { total: number; rows: unknown[] };
  console.log(`${label.padEnd(34)} ${(performance.now() - t).toFixed(0).padStart(6)} ms   total ${body.total}, ${body.rows.length} rows`);
}
await time("cold (every head and tail read)", "limit=50");
clearInterval(hookTimer);
await Promise.all(hooks);
console.log(`hooks run during the cold listing: ${hooks.length}; events the viewer accepted: ${v.accepted()}`);
await time("warm (cache: one stat per file)", "limit=50");
await time("warm, search", "q=nightly&limit=50");
await time("warm, page 150", "offset=7450&limit=50");
await time("warm, filter outcome", "outcome=no_oracle&limit=50");
v.stop();
rmSync(home, { recursive: true, force: true });
