/**
 * Per-harness observer latency: `tracegate <tool-result subcommand>
 * --harness=NAME` against the Claude Code observer (`post-tool-use`) on a
 * tool-result payload of the same size, in each harness's own shape. Both
 * run alternately from this process with the same machine noise. Target
 * (issue 13): each harness within 1.2x of Claude's. Printed, never asserted.
 *
 *   bun bench/hook-latency/run.ts --harness codex          # (run.ts hands --harness to this file)
 *   bun bench/hook-latency/harness.ts --harness all --runs 30 --bytes 10240
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const ROOT = resolve(import.meta.dir, "../..");
const HARNESSES = ["codex", "gemini", "copilot"] as const;
type Harness = (typeof HARNESSES)[number] | "claude";

function logText(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `  ✓ test/unit/module-${i % 97}/case-${i}.test.ts > handles input #${(i * 7919) % 10007} (${(i % 13) + 1}ms)`;
    lines.push(line);
    size += line.length + 2;
  }
  return lines.join("\n");
}

/** The tool-result event of each harness, carrying the same output text, and the entry's argv. */
function shapes(text: string, cwd: string): Record<Harness, { argv: string[]; payload: object }> {
  const sid = (h: string) => `bench-${h}-0001`;
  return {
    claude: {
      argv: ["post-tool-use"],
      payload: { session_id: sid("claude"), transcript_path: join(cwd, "t.jsonl"), cwd, hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "npm test" }, tool_use_id: "toolu_1", duration_ms: 5, tool_response: { stdout: text, stderr: "", interrupted: false, isImage: false } },
    },
    codex: {
      argv: ["post-tool-use", "--harness=codex"],
      payload: { session_id: sid("codex"), turn_id: "turn-1", transcript_path: join(cwd, "t.jsonl"), cwd, hook_event_name: "PostToolUse", model: "m", permission_mode: "bypassPermissions", tool_name: "Bash", tool_input: { command: "npm test" }, tool_response: text, tool_use_id: "call_1" },
    },
    gemini: {
      argv: ["post-tool-use", "--harness=gemini"],
      payload: { session_id: sid("gemini"), transcript_path: join(cwd, "t.jsonl"), cwd, hook_event_name: "AfterTool", timestamp: new Date().toISOString(), tool_name: "run_shell_command", tool_input: { command: "npm test", description: "run" }, tool_response: { llmContent: text, returnDisplay: "" } },
    },
    copilot: {
      argv: ["post-tool-use", "--harness=copilot"],
      payload: { sessionId: sid("copilot"), timestamp: Date.now(), cwd, toolName: "bash", toolArgs: { command: "npm test", description: "run" }, toolResult: { resultType: "success", textResultForLlm: text } },
    },
  };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function once(bin: string, argv: string[], input: Buffer, env: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const p = Bun.spawn([bin, ...argv], { stdin: "pipe", stdout: "ignore", stderr: "ignore", env });
  p.stdin.write(input);
  await p.stdin.end();
  await p.exited;
  return performance.now() - t0;
}

/** Run the comparison; returns one line per harness. */
export async function benchHarnesses(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      harness: { type: "string", default: "all" },
      runs: { type: "string", default: "30" },
      bytes: { type: "string", default: String(10 * 1024) },
      bin: { type: "string", default: join(ROOT, "dist", "tracegate") },
    },
    strict: false,
  });
  const names = values.harness === "all" ? [...HARNESSES] : [values.harness as Harness];
  const runs = Number(values.runs);
  const bytes = Number(values.bytes);
  const dir = mkdtempSync(join(tmpdir(), "tg-bench-harness-"));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", TRACEGATE_HOME: join(dir, "data"), TRACEGATE_CONFIG: join(dir, "none.jsonc"), HOME: dir };
  try {
    const all = shapes(logText(bytes), dir);
    const inputs = Object.fromEntries(Object.entries(all).map(([k, v]) => [k, Buffer.from(JSON.stringify(v.payload))])) as Record<Harness, Buffer>;
    console.log(`hook latency per harness: ${runs} runs each, tool-result payload ~${bytes} bytes (claude ${inputs.claude.length} B), load ${loadavg()[0]!.toFixed(2)}`);
    for (const h of names) {
      const a: number[] = [];
      const b: number[] = [];
      // warm the page cache for both
      await once(values.bin as string, all.claude.argv, inputs.claude, env);
      await once(values.bin as string, all[h].argv, inputs[h], env);
      for (let i = 0; i < runs; i++) {
        a.push(await once(values.bin as string, all.claude.argv, inputs.claude, env));
        b.push(await once(values.bin as string, all[h].argv, inputs[h], env));
      }
      const ratio = median(b) / median(a);
      console.log(
        `${h.padEnd(8)} ${median(b).toFixed(1)} ms vs claude ${median(a).toFixed(1)} ms: ${ratio.toFixed(2)}x (${ratio <= 1.2 ? "met" : "NOT met"}; target <= 1.2x; payload ${inputs[h].length} B)`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchHarnesses(process.argv.slice(2));
