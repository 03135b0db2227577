/**
 * `tracegate sessions` on a large store: the summary (which parses only the
 * records it needs) against parsing every record, in process, and the whole
 * compiled command. Prints figures; asserts nothing.
 *
 *   bun bench/cli/run.ts [SESSIONS] [TOOL_CALLS_PER_SESSION] [OUTPUT_BYTES]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { summarize } from "../../lib/cli/sessions.ts";
import { outcomeOf } from "../../lib/gate/outcome.ts";
import { listSessionFiles, parseSessionText } from "../../lib/trace/store.ts";

const [sessions = 100, calls = 100, bytes = 10_000] = process.argv.slice(2).map(Number);
const home = mkdtempSync(join(tmpdir(), "tg-bench-cli-"));
mkdirSync(join(home, "sessions"));
// Realistic tool output: lines, quotes and escapes, not one repeated letter.
const out = Array.from({ length: Math.ceil(bytes / 50) }, (_, i) => `line ${i}: "quoted" \\ tab\there é ✓`).join("\n").slice(0, bytes);
for (let s = 0; s < sessions; s++) {
  const id = `bench-${s}`;
  const base = (type: string, i: number) => ({ id: `${id}-${i}`, session_id: id, harness: "claude", ts: new Date(Date.now() - i * 1000).toISOString(), type });
  const lines = [
    { ...base("session_start", 0), cwd: "/repo", base_commit: null },
    { ...base("message", 1), role: "user", text: `prompt ${s}` },
    ...Array.from({ length: calls }, (_, i) => ({ ...base("tool_call", i + 2), tool_name: "Bash", tool_use_id: `t${i}`, input: { command: "ls" }, output: { stdout: out }, duration_ms: 3, status: "ok" })),
  ];
  writeFileSync(join(home, "sessions", `${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
}
const files = listSessionFiles(home);
const mb = files.reduce((n, f) => n + f.bytes, 0) / 1048576;

function time(label: string, f: () => void, runs = 5): void {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    f();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  console.log(`${label.padEnd(44)} median ${ms[Math.floor(runs / 2)]!.toFixed(0)} ms (min ${ms[0]!.toFixed(0)}, max ${ms.at(-1)!.toFixed(0)})`);
}

console.log(`${sessions} sessions x ${calls} tool calls x ${bytes} B output: ${mb.toFixed(0)} MB`);
time("summaries (only the records a summary needs)", () => {
  for (const f of files) summarize(f.path, readFileSync(f.path, "utf8"));
});
time("parsing every record (the earlier summary)", () => {
  for (const f of files) outcomeOf(parseSessionText(f.path, readFileSync(f.path, "utf8")).records);
});
const bin = join(import.meta.dir, "..", "..", "dist", "tracegate");
time("dist/tracegate sessions --json (whole process)", () => {
  spawnSync(bin, ["sessions", "--json"], { env: { TRACEGATE_HOME: home, PATH: process.env.PATH }, stdio: "ignore" });
});
rmSync(home, { recursive: true, force: true });
