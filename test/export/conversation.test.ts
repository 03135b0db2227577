/**
 * The conversation a session's records hold, whatever harness wrote them:
 * the same work gives the same turns, the harness only changes metadata.
 */
import { describe, expect, test } from "bun:test";
import { BLOCK_REASON } from "../../lib/gate/decide.ts";
import { conversationOf, exclusionsOf, textOf, toolOutputText } from "../../lib/export/conversation.ts";
import { toAtif, toChat } from "../../lib/export/formats.ts";

const ts = "2026-12-01T10:00:00.000Z";

/** The same session as Claude Code and Codex record it: Claude's Bash result is {stdout, stderr}, Codex's a string. */
function session(harness: "claude" | "codex") {
  const output = harness === "claude" ? { stdout: "42\n", stderr: "", interrupted: false } : "42\n";
  return [
    { id: "1", type: "session_start", session_id: "s", harness, ts, cwd: "/w", base_commit: "a".repeat(40) },
    { id: "2", type: "message", role: "user", session_id: "s", harness, ts, text: "write 42" },
    { id: "3", type: "tool_call", session_id: "s", harness, ts, tool_name: "shell", tool_use_id: "call_1", input: { command: "echo 42 > answer.txt" }, output, duration_ms: 3, status: "ok" },
    { id: "4", type: "message", role: "assistant", session_id: "s", harness, ts, text: "done" },
    { id: "5", type: "oracle_verdict", session_id: "s", harness, ts, attempt: 1, verdict: "FAIL", decision: "block" },
    { id: "6", type: "message", role: "assistant", session_id: "s", harness, ts, text: "done now" },
  ];
}

const meta = (harness: string) => ({ session_id: "s", harness, model: null, task_id: "t", base_commit: null, outcome: "flip", verdicts: [] });

describe("conversationOf", () => {
  test("a Codex and a Claude Code session that did the same thing give the same turns and the same export but for the harness", () => {
    const claude = conversationOf(session("claude")).turns;
    const codex = conversationOf(session("codex")).turns;
    expect(codex).toEqual(claude);
    const a = toChat(claude, meta("claude"));
    const b = toChat(codex, meta("codex"));
    expect(b.messages).toEqual(a.messages);
    expect({ ...b.metadata, harness: "claude" } as Record<string, unknown>).toEqual(a.metadata);
    const ta = toAtif(claude, meta("claude"));
    const tb = toAtif(codex, meta("codex"));
    expect(tb.steps).toEqual(ta.steps);
  });

  test("turns: prompt, tool call, final text, the gate's fixed reason, the next final text", () => {
    const turns = conversationOf(session("claude")).turns;
    expect(turns.map((t) => t.kind)).toEqual(["user", "tool", "assistant", "gate", "assistant"]);
    expect(turns[3]).toMatchObject({ kind: "gate", text: BLOCK_REASON, attempt: 1 });
  });

  test("sub-agent records and records an annotation excluded are left out, and the exclusions are listed", () => {
    const records = [
      ...session("claude"),
      { id: "7", type: "tool_call", session_id: "s", harness: "claude", ts, agent_id: "sub-1", tool_name: "Read", tool_use_id: "c2", input: {}, output: "x", duration_ms: 1, status: "ok" },
      { id: "8", type: "annotation", session_id: "s", harness: "claude", ts, record_id: "3", exclude: true },
    ];
    const c = conversationOf(records);
    expect(c.turns.map((t) => t.kind)).toEqual(["user", "assistant", "gate", "assistant"]);
    expect(c.excluded_records).toEqual(["3"]);
    expect(exclusionsOf(records).session).toBe(false);
  });
});

describe("text of stored values", () => {
  test("a cut value keeps its head and says how much is missing", () => {
    expect(textOf({ cut: true, head: "abc", sha256: "f".repeat(64), bytes: 9000 })).toBe(`abc\n[… cut by tracegate: 9000 bytes in all, sha256 ${"f".repeat(64)}]`);
  });

  test("tool results in the shapes harnesses give them become the text the model read", () => {
    expect(toolOutputText({ stdout: "out", stderr: "err" })).toBe("out\nerr");
    expect(toolOutputText({ output: "o" })).toBe("o");
    expect(toolOutputText({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] })).toBe("a\nb");
    expect(toolOutputText({ weird: 1 })).toBe('{"weird":1}');
    expect(toolOutputText(null)).toBe("");
  });
});
