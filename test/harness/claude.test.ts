import { expect, test } from "bun:test";
import { claudeRecords, type Facts } from "../../lib/harness/claude.ts";

let n = 0;
const facts = (extra: Partial<Facts> = {}): Facts => ({ ts: "2026-11-30T00:00:00.000Z", newId: () => `id${n++}`, ...extra });

test("PostToolUse becomes an ok tool_call with input, output and duration; unknown fields go to extra", () => {
  const [r] = claudeRecords("post-tool-use", {
    session_id: "s", hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "ls" },
    tool_response: { stdout: "a" }, tool_use_id: "t1", duration_ms: 12, permission_mode: "default", brand_new: 1,
  }, "s", facts()) as any[];
  expect(r).toMatchObject({ type: "tool_call", tool_name: "Bash", tool_use_id: "t1", input: { command: "ls" }, output: { stdout: "a" }, duration_ms: 12, status: "ok", event: "PostToolUse" });
  expect(r.extra).toEqual({ permission_mode: "default", brand_new: 1 });
});

test("PostToolUseFailure becomes an error tool_call carrying the error", () => {
  const [r] = claudeRecords("post-tool-use-failure", { session_id: "s", tool_name: "Bash", tool_input: {}, tool_use_id: "t", error: "Exit code 2\nboom", is_interrupt: false }, "s", facts()) as any[];
  expect(r).toMatchObject({ type: "tool_call", status: "error", error: "Exit code 2\nboom", output: null, duration_ms: null });
  expect(r.extra).toEqual({ is_interrupt: false });
});

test("SessionStart records cwd, base commit, model and source", () => {
  const [r] = claudeRecords("session-start", { session_id: "s", cwd: "/r", source: "startup", model: "m" }, "s", facts({ baseCommit: "a".repeat(40) })) as any[];
  expect(r).toMatchObject({ type: "session_start", cwd: "/r", base_commit: "a".repeat(40), model: "m", source: "startup" });
});

test("prompts and final messages become messages with their roles", () => {
  expect(claudeRecords("user-prompt-submit", { session_id: "s", prompt: "p" }, "s", facts())[0]).toMatchObject({ type: "message", role: "user", text: "p" });
  const [stop] = claudeRecords("stop", { session_id: "s", last_assistant_message: "done", stop_hook_active: true }, "s", facts()) as any[];
  expect(stop).toMatchObject({ type: "message", role: "assistant", text: "done", extra: { stop_hook_active: true } });
});

test("SessionEnd carries the reason and the outcome it was given", () => {
  expect(claudeRecords("session-end", { session_id: "s", reason: "other" }, "s", facts({ outcome: "flip" }))[0]).toMatchObject({ type: "session_end", reason: "other", outcome: "flip" });
});

test("other events keep the whole payload; subagent fields are lifted", () => {
  const [r] = claudeRecords("subagent-stop", { session_id: "s", agent_id: "a", agent_type: "x", last_assistant_message: "m" }, "s", facts()) as any[];
  expect(r).toMatchObject({ type: "subagent_stop", agent_id: "a", agent_type: "x", payload: { agent_id: "a", agent_type: "x", last_assistant_message: "m" } });
});

test("wrong field types become nulls, never throw", () => {
  const [r] = claudeRecords("post-tool-use", { session_id: "s", tool_name: 5, tool_use_id: {}, duration_ms: "x", cwd: 7 }, "s", facts()) as any[];
  expect(r).toMatchObject({ tool_name: null, tool_use_id: null, duration_ms: null });
});
