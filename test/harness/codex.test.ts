/**
 * Codex CLI through the compiled binary: the captured payloads of a real
 * codex-cli 0.171.0 session, fired into the entries `tracegate install
 * --harness codex` wrote, and the gate against a real `oracle serve`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BLOCK_REASON } from "../../lib/gate/decide.ts";
import { makeWorld, PLANTED, scenario, type World } from "./support.ts";

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.cleanup();
});
function world(gate = false): World {
  const w = makeWorld("codex", { gate });
  worlds.push(w);
  return w;
}

const steps = scenario("codex", "basic");
const payload = (event: string, i = 0) => steps.filter((s) => s.event === event)[i]!.payload;

describe("codex: every captured event recorded", () => {
  test("a session with two shell calls and a planted secret: complete trace, no secret on disk, verify passes", () => {
    const w = world();
    for (const s of steps) {
      const r = w.fire(s.event, s.payload);
      expect({ file: s.file, code: r.code, stdout: r.stdout }).toEqual({ file: s.file, code: 0, stdout: "" });
    }
    const recs = w.records();
    expect(recs.map((r) => r.type)).toEqual([
      "session_start",
      "message",
      "pre_tool_use",
      "tool_call",
      "pre_tool_use",
      "tool_call",
      "message",
      "message",
      "session_end",
    ]);
    expect(new Set(recs.map((r) => r.harness))).toEqual(new Set(["codex"]));
    expect(new Set(recs.map((r) => r.session_id))).toEqual(new Set([payload("SessionStart").session_id]));
    const [start] = recs;
    expect(start).toMatchObject({ cwd: w.repo, base_commit: w.base, model: "mock-model", source: "startup", event: "SessionStart" });
    const tools = recs.filter((r) => r.type === "tool_call");
    // Codex reports no exit code: the `exit 3` call is a plain PostToolUse with its output text.
    expect(tools[1]).toMatchObject({ tool_name: "Bash", status: "ok", output: "to-stdout\nto-stderr\n", input: { command: "echo to-stdout; echo to-stderr >&2; exit 3" } });
    const msgs = recs.filter((r) => r.type === "message");
    expect(msgs.map((m) => [m.role, m.text])).toEqual([
      ["user", payload("UserPromptSubmit").prompt],
      ["assistant", "All done: printed the greeting, the check exited 3."],
      ["assistant", "Checked again after the refusal; done."],
    ]);
    // turn_id is kept (unknown fields are never dropped) and stable across the continuation.
    expect(msgs[1].extra.turn_id).toBe(payload("UserPromptSubmit").turn_id);
    expect(msgs[2].extra.turn_id).toBe(msgs[1].extra.turn_id);
    expect(recs.at(-1)).toMatchObject({ type: "session_end", reason: "other", outcome: "no_oracle" });
    expect(w.storeText()).not.toContain(PLANTED);
    expect(JSON.stringify(tools[0].output)).toContain("[REDACTED");
    const v = w.cli("verify");
    expect({ code: v.code, err: v.err }).toEqual({ code: 0, err: "" });
  }, 60_000);

  test("Interrupt and the events without a dedicated record are kept whole as `event` records", () => {
    const w = world();
    const sid = payload("SessionStart").session_id;
    const interrupt = { session_id: sid, turn_id: "t-1", transcript_path: null, cwd: "/tmp/e2e-world/repo", hook_event_name: "Interrupt", model: "mock-model", permission_mode: "bypassPermissions" };
    for (const [event, p] of [
      ["Interrupt", interrupt],
      ["PermissionRequest", { ...interrupt, hook_event_name: "PermissionRequest", tool_name: "Bash", tool_input: { command: "ls" } }],
      ["PostCompact", { ...interrupt, hook_event_name: "PostCompact", trigger: "auto" }],
      ["SubagentStart", { ...interrupt, hook_event_name: "SubagentStart", agent_id: "a1" }],
    ] as const) {
      const r = w.fire(event, p);
      expect([r.code, r.stdout]).toEqual([0, ""]);
    }
    const recs = w.records();
    expect(recs.map((r) => [r.type, r.event])).toEqual([
      ["event", "Interrupt"],
      ["event", "PermissionRequest"],
      ["event", "PostCompact"],
      ["event", "SubagentStart"],
    ]);
    expect(recs[0].payload.turn_id).toBe("t-1");
    expect(w.cli("verify").code).toBe(0);
  }, 60_000);
});

describe("codex: the gate (no block cap: max_attempts ends the loop)", () => {
  const start = () => [payload("SessionStart"), payload("UserPromptSubmit")];
  const stop = (active: boolean) => ({ ...payload("Stop"), stop_hook_active: active });

  test("FAIL blocks with Codex's shape and the fixed reason, the fix PASSes: flip", async () => {
    const w = world(true);
    await w.oracle();
    for (const p of start()) expect(w.fire(p.hook_event_name, p).code).toBe(0);
    const first = w.fire("Stop", stop(false));
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`${JSON.stringify({ decision: "block", reason: BLOCK_REASON })}\n`);
    writeFileSync(join(w.repo, "answer.txt"), "42\n");
    const second = w.fire("Stop", stop(true));
    expect([second.code, second.stdout]).toEqual([0, ""]);
    expect(w.fire("SessionEnd", payload("SessionEnd")).code).toBe(0);
    const recs = w.records();
    const v = recs.filter((r) => r.type === "oracle_verdict");
    expect(v.map((r) => [r.attempt, r.verdict, r.verified, r.decision, r.harness, r.event, r.block_cap])).toEqual([
      [1, "FAIL", true, "block", "codex", "Stop", 0],
      [2, "PASS", true, "allow", "codex", "Stop", 0],
    ]);
    expect(recs.at(-1)).toMatchObject({ type: "session_end", outcome: "flip" });
    expect(w.cli("verify").code).toBe(0);
  }, 60_000);

  test("an agent that keeps saying done ends by itself at max_attempts: no_flip", async () => {
    const w = world(true);
    await w.oracle({ max_attempts: 3 });
    for (const p of start()) w.fire(p.hook_event_name, p);
    const outs: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = w.fire("Stop", stop(i > 0));
      expect(r.code).toBe(0);
      outs.push(r.stdout);
      if (r.stdout === "") break;
    }
    // Two blocks, then the third FAIL lets it stop: Codex would otherwise loop for ever.
    expect(outs.map((o) => (o ? JSON.parse(o).decision : "allow"))).toEqual(["block", "block", "allow"]);
    w.fire("SessionEnd", payload("SessionEnd"));
    const recs = w.records();
    expect(recs.filter((r) => r.type === "oracle_verdict").map((r) => r.verdict)).toEqual(["FAIL", "FAIL", "FAIL"]);
    expect(recs.at(-1)).toMatchObject({ type: "session_end", outcome: "no_flip" });
  }, 60_000);

  test("an oracle that is down never wedges the session", async () => {
    const w = world(true);
    await w.oracle({ down: true });
    for (const p of start()) w.fire(p.hook_event_name, p);
    const r = w.fire("Stop", stop(false));
    expect([r.code, r.stdout]).toEqual([0, ""]);
    const v = w.records().filter((x) => x.type === "oracle_verdict");
    expect(v.map((x) => [x.verdict, x.decision])).toEqual([["ERROR", "allow"]]);
  }, 60_000);
});
