/**
 * The runtime's guarantees, against the compiled binary: parallel appends
 * stay whole, our own children are not traced, the deadline exits 0, and
 * every hook subcommand is silent on stdout.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { HOOKS, type HookName } from "../../lib/hook/subcommands.ts";
import { BINARY, baseEnv, cleanup, postToolUse, recordsIn, run, tempDir } from "../support/tracegate.ts";

let home: string;
beforeAll(() => {
  home = tempDir();
});
afterAll(() => cleanup(home));
const env = () => ({ TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "none.jsonc") });

test("64 concurrent post-tool-use processes for one session: 64 intact records", async () => {
  const big = "z".repeat(50_000);
  const runs = Array.from({ length: 64 }, (_, i) =>
    run(["post-tool-use"], {
      stdin: postToolUse("parallel", { tool_use_id: `toolu_${i}`, tool_response: { stdout: `${i}:${big}` } }),
      env: env(),
    }),
  );
  const results = await Promise.all(runs);
  expect(results.every((r) => r.code === 0 && r.stdout.length === 0)).toBe(true);
  const text = await Bun.file(join(home, "sessions", "parallel.jsonl")).text();
  const lines = text.split("\n").filter(Boolean);
  expect(lines).toHaveLength(64);
  const ids = new Set(lines.map((l) => JSON.parse(l).tool_use_id));
  expect(ids.size).toBe(64);
  for (const l of lines) expect(JSON.parse(l).output.stdout).toMatch(/^\d+:z{50000}$/);
}, 60_000);

test("records are appended, never rewritten", async () => {
  const path = join(home, "sessions", "append.jsonl");
  await run(["post-tool-use"], { stdin: postToolUse("append", { tool_use_id: "a" }), env: env() });
  const before = await Bun.file(path).text();
  await run(["post-tool-use"], { stdin: postToolUse("append", { tool_use_id: "b" }), env: env() });
  const after = await Bun.file(path).text();
  expect(after.startsWith(before)).toBe(true);
  expect(after.split("\n").filter(Boolean)).toHaveLength(2);
});

test("TRACEGATE_INTERNAL=1 exits before reading a byte", async () => {
  const proc = Bun.spawn([BINARY, "post-tool-use"], {
    stdin: "pipe",
    stdout: "pipe",
    env: baseEnv({ ...env(), TRACEGATE_INTERNAL: "1" }),
  });
  // stdin is never written or closed: a hook that read it would wait for the deadline.
  const code = await proc.exited;
  expect(code).toBe(0);
  expect((await new Response(proc.stdout).arrayBuffer()).byteLength).toBe(0);
  expect(recordsIn(home).some((r) => r.session_id === "internal")).toBe(false);
});

test("stdin that never closes: the hard deadline exits 0 before the declared timeout", async () => {
  const spec = HOOKS["post-tool-use"];
  const started = performance.now();
  const proc = Bun.spawn([BINARY, "post-tool-use"], { stdin: "pipe", stdout: "pipe", env: baseEnv(env()) });
  proc.stdin.write(postToolUse("never-closed").slice(0, 40));
  const code = await proc.exited;
  const ms = performance.now() - started;
  expect(code).toBe(0);
  expect((await new Response(proc.stdout).arrayBuffer()).byteLength).toBe(0);
  expect(ms).toBeGreaterThanOrEqual(spec.capMs - 50);
  expect(ms).toBeLessThan(spec.timeoutS * 1000);
  expect(await Bun.file(join(home, "errors.log")).text()).toContain("stage=deadline");
}, 30_000);

describe("every hook subcommand: exit 0, silent, recorded", () => {
  const payloads: Record<HookName, Record<string, unknown>> = {
    "session-start": { hook_event_name: "SessionStart", source: "startup", model: "claude-x" },
    "user-prompt-submit": { hook_event_name: "UserPromptSubmit", prompt: "fix the bug" },
    "pre-tool-use": { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t1" },
    "post-tool-use": { hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_response: { stdout: "a" }, tool_use_id: "t1", duration_ms: 3 },
    "post-tool-use-failure": { hook_event_name: "PostToolUseFailure", tool_name: "Bash", tool_input: { command: "false" }, tool_use_id: "t2", error: "Exit code 1", is_interrupt: false },
    stop: { hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "done" },
    "subagent-stop": { hook_event_name: "SubagentStop", agent_id: "a1", agent_type: "general", stop_hook_active: false },
    "pre-compact": { hook_event_name: "PreCompact", trigger: "manual", custom_instructions: null },
    notification: { hook_event_name: "Notification", message: "needs input", notification_type: "idle_prompt" },
    "session-end": { hook_event_name: "SessionEnd", reason: "other" },
    event: { hook_event_name: "PermissionRequest", tool_name: "Bash", tool_input: { command: "ls" } },
  };
  const expectedType: Record<HookName, string> = {
    "session-start": "session_start",
    "user-prompt-submit": "message",
    "pre-tool-use": "pre_tool_use",
    "post-tool-use": "tool_call",
    "post-tool-use-failure": "tool_call",
    stop: "message",
    "subagent-stop": "subagent_stop",
    "pre-compact": "pre_compact",
    notification: "notification",
    "session-end": "session_end",
    event: "event",
  };
  for (const hook of Object.keys(HOOKS) as HookName[]) {
    test(hook, async () => {
      const sid = `every-${hook}`;
      const r = await run([hook], {
        stdin: JSON.stringify({ session_id: sid, cwd: home, transcript_path: "/x", future_field: { kept: true }, ...payloads[hook] }),
        env: env(),
      });
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBe(0);
      const recs = recordsIn(home, `${sid}.jsonl`);
      expect(recs.map((x) => x.type)).toEqual([expectedType[hook]]);
      expect(JSON.stringify(recs[0])).toContain('"future_field":{"kept":true}');
    });
  }
});

test("the same secret gets the same tag across hook processes, and nothing of it reaches disk", async () => {
  const secret = "hunter22-Zq8vR1x";
  for (const id of ["a", "b"]) {
    await run(["post-tool-use"], { stdin: postToolUse("tags", { tool_use_id: id, tool_response: { stdout: `DB_PASSWORD=${secret}` } }), env: env() });
  }
  const text = await Bun.file(join(home, "sessions", "tags.jsonl")).text();
  expect(text).not.toContain(secret);
  const tags = text.match(/\[REDACTED:[a-z0-9-]+:[0-9a-f]{4}\]/g) ?? [];
  expect(tags).toHaveLength(2);
  expect(tags[0]).toBe(tags[1]!);
  const { statSync } = await import("node:fs");
  expect(statSync(join(home, "redact.key")).mode & 0o777).toBe(0o600);
});
