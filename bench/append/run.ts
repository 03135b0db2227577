/**
 * The cost of chained, locked appends.
 *
 *   bun bench/append/run.ts                 # in-process and 32 concurrent hook processes
 *   bun bench/append/run.ts --procs 64 --records 2000
 *
 * Prints: in-process appendRecords per record (tail read + chain + one write
 * under the lock) on a growing file, with small and 256 KiB records; the wall
 * time of N concurrent `dist/tracegate post-tool-use` processes on one
 * session against the same N on N sessions (no contention); and
 * analyzeSession's time to check the chain of the resulting file.
 * Figures only: nothing here asserts.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { analyzeSession } from "../../lib/gate/outcome.ts";
import { appendRecords, sessionPath } from "../../lib/trace/store.ts";

const ROOT = resolve(import.meta.dir, "../..");
const BINARY = join(ROOT, "dist", "tracegate");
const { values } = parseArgs({ options: { procs: { type: "string", default: "32" }, records: { type: "string", default: "1000" } } });
const procs = Number(values.procs);
const records = Number(values.records);
const home = mkdtempSync(join(tmpdir(), "tg-bench-append-"));

function rec(id: string, n: number, text: string) {
  return { id: `r${n}`, type: "message", session_id: id, harness: "claude", ts: new Date().toISOString(), role: "user", text } as any;
}

for (const [label, size] of [["small", 100], ["256 KiB", 256 * 1024]] as const) {
  const id = `inproc-${size}`;
  const text = "x".repeat(size);
  const t0 = performance.now();
  const count = size > 1000 ? Math.min(records, 200) : records;
  for (let i = 0; i < count; i++) appendRecords(home, [rec(id, i, text)]);
  const ms = performance.now() - t0;
  const t1 = performance.now();
  const a = analyzeSession(readFileSync(sessionPath(home, id)), { file: sessionPath(home, id), publicKey: null, sessionId: id });
  const check = performance.now() - t1;
  console.log(`in-process ${label.padEnd(8)} ${count} appends: ${(ms / count).toFixed(3)} ms/append; chain check of ${a.line_count} lines: ${check.toFixed(1)} ms, ${a.problems.length} problems`);
}

async function hooks(sessionOf: (i: number) => string): Promise<number> {
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: procs }, async (_, i) => {
      const p = Bun.spawn([BINARY, "post-tool-use"], { stdin: "pipe", stdout: "ignore", stderr: "ignore", env: { PATH: process.env.PATH ?? "", TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "none.jsonc") } });
      p.stdin.write(JSON.stringify({ session_id: sessionOf(i), cwd: "/tmp", tool_name: "Bash", tool_input: { command: "x" }, tool_response: { stdout: "y".repeat(1000) }, tool_use_id: `t${i}` }));
      await p.stdin.end();
      await p.exited;
    }),
  );
  return performance.now() - t0;
}

const spread = await hooks((i) => `spread-${i}`);
const one = await hooks(() => "contended");
const a = analyzeSession(readFileSync(sessionPath(home, "contended")), { file: sessionPath(home, "contended"), publicKey: null, sessionId: "contended" });
console.log(`${procs} concurrent hook processes: ${spread.toFixed(0)} ms on ${procs} sessions, ${one.toFixed(0)} ms on one session (${a.line_count} lines, ${a.problems.length} chain problems)`);
rmSync(home, { recursive: true, force: true });
