/**
 * The adapters' pure parts: Gemini's cumulative text, Copilot's transcript
 * tail, each harness's reading of a Stop for the gate.
 */
import { expect, test } from "bun:test";
import { BLOCK_REASON } from "../../lib/gate/decide.ts";
import { blockCapFrom } from "../../lib/harness/claude.ts";
import { finalTextFromTranscript } from "../../lib/harness/copilot.ts";
import { isGateReason, newPart } from "../../lib/harness/gemini.ts";
import { adapterFor } from "../../lib/harness/registry.ts";

test("gemini: only a continuation after a block, at a \\n join past the previous length, is split", () => {
  const prev = { id: "r1", chars: 5 };
  expect(newPart("first\nsecond", true, prev)).toEqual({ text: "second", cumulative: { chars: 12, continues: "r1" } });
  // a fresh turn (stop_hook_active false) is recorded whole even if it happens to look like one
  expect(newPart("first\nsecond", false, prev).text).toBe("first\nsecond");
  expect(newPart("firsts", true, prev).text).toBe("firsts");
  expect(newPart("fir", true, prev).text).toBe("fir");
  expect(newPart("first\nsecond", true, { id: "r1", chars: null }).text).toBe("first\nsecond");
  expect(newPart("x", true, null)).toEqual({ text: "x", cumulative: { chars: 1, continues: null } });
});

test("the gate's reason is recognised when fed back, with or without a harness prefix", () => {
  expect(isGateReason(BLOCK_REASON)).toBe(true);
  expect(isGateReason(`<current_datetime>2026</current_datetime>\n\n${BLOCK_REASON}`)).toBe(true);
  expect(isGateReason("fix the tests")).toBe(false);
  expect(isGateReason(undefined)).toBe(false);
});

test("copilot: the last assistant.message of a tail; a torn first line is skipped; foreign lines ignored", () => {
  const m = (c: unknown) => JSON.stringify({ type: "assistant.message", data: { content: c } });
  const tail = [`"content":"torn"}}`, m("first"), '{"type":"hook.end"}', m("last"), "not json", ""].join("\n");
  expect(finalTextFromTranscript(tail, false)).toBe("last");
  expect(finalTextFromTranscript(`${m("only")}\n`, true)).toBe("only");
  expect(finalTextFromTranscript(`${m("only")}\n`, false)).toBe(null);
  expect(finalTextFromTranscript(m([{ text: "a" }, { text: "b" }]), true)).toBe("ab");
  expect(finalTextFromTranscript('{"type":"user.message"}', true)).toBe(null);
});

test("each harness's Stop as the gate reads it", () => {
  expect(adapterFor("claude").stopInput({ session_id: "s", cwd: "/r", stop_hook_active: true }, { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: "3" })).toEqual({
    session_id: "s",
    cwd: "/r",
    stop_hook_active: true,
    block_cap: 3,
    event: "Stop",
  });
  expect(blockCapFrom({})).toBe(8);
  expect(blockCapFrom({ CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: "x" })).toBe(8);
  expect(adapterFor("codex").stopInput({ session_id: "s", cwd: "/r", stop_hook_active: false, turn_id: "t" }, {})!.block_cap).toBe(0);
  expect(adapterFor("gemini").stopInput({ session_id: "s", cwd: "/r" }, {})).toMatchObject({ block_cap: 0, event: "AfterAgent" });
  expect(adapterFor("copilot").stopInput({ sessionId: "s", cwd: "/r", stop_hook_active: true }, {})).toMatchObject({ session_id: "s", block_cap: 8, event: "agentStop", stop_hook_active: true });
  // a sub-agent's agentStop, a Stop with no session, an unknown harness: not gated
  expect(adapterFor("copilot").stopInput({ sessionId: "sub", parentAgentId: "p", agentId: "sub" }, {})).toBe(null);
  expect(adapterFor("codex").stopInput({ cwd: "/r" }, {})).toBe(null);
  expect(adapterFor("windsurf").stopInput({ session_id: "s" }, {})).toBe(null);
  // the environment never decides another harness's cap
  expect(adapterFor("codex").stopInput({ session_id: "s" }, { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: "3" })!.block_cap).toBe(0);
});
