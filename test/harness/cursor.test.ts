/**
 * Cursor through the compiled binary. No Cursor client runs here, so the
 * payloads are the documented ones (camelCase events; `conversation_id`,
 * `workspace_roots`, no common `cwd`; `afterAgentResponse.text`;
 * `stop {status, loop_count}`), fired into the exact commands `tracegate
 * install --harness cursor` wrote, and the gate against a real `oracle serve`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BLOCK_REASON } from "../../lib/gate/decide.ts";
import { claimedOutcome } from "../support/claimed-outcome.ts";
import { CURSOR_LOOP_LIMIT, cursor } from "../../lib/harness/cursor.ts";
import { makeWorld, PLANTED, type World } from "./support.ts";

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.cleanup();
});
function world(gate = false): World {
  const w = makeWorld("cursor", { gate });
  worlds.push(w);
  return w;
}

const CONV = "c0ffee00-1111-4222-8333-444455556666";
function common(w: World, event: string) {
  return {
    conversation_id: CONV,
    generation_id: "gen-1",
    model: "claude-4.5-sonnet",
    hook_event_name: event,
    cursor_version: "2.0.77",
    workspace_roots: [w.repo],
    user_email: null,
    transcript_path: null,
  };
}
const ev = (w: World, event: string, extra: Record<string, unknown> = {}) => ({ ...common(w, event), ...extra });

describe("cursor: documented payloads through the installed entries", () => {
  test("install: version 1, flat handlers, loop_limit on stop only; uninstall restores the user's file", () => {
    const w = world(true);
    const path = cursor.install.path("user", w.env, w.repo);
    const file = JSON.parse(readFileSync(path, "utf8"));
    expect(file.version).toBe(1);
    expect(Object.keys(file.hooks).sort()).toEqual(Object.keys(cursor.events).sort());
    for (const [event, list] of Object.entries(file.hooks) as [string, any[]][]) {
      expect(list).toHaveLength(1);
      expect(list[0].command).toContain("--harness=cursor");
      expect(list[0].hooks).toBeUndefined();
      expect(list[0].timeout).toBeGreaterThan(0);
      expect(list[0].loop_limit).toBe(event === "stop" ? CURSOR_LOOP_LIMIT : undefined);
    }
    expect(CURSOR_LOOP_LIMIT).toBe(100);
    expect(w.cli("uninstall", "--harness", "cursor").code).toBe(0);
    expect(existsSync(path)).toBe(false);
    // A user's own hooks.json: ours merged in, then taken out to the same bytes.
    const mine = '{\n  "version": 1,\n  "hooks": {\n    "stop": [\n      { "command": "./audit.sh" }\n    ]\n  }\n}\n';
    mkdirSync(join(w.userHome, ".cursor"), { recursive: true });
    writeFileSync(path, mine);
    expect(w.cli("install", "--harness", "cursor").code).toBe(0);
    const merged = JSON.parse(readFileSync(path, "utf8"));
    expect(merged.hooks.stop.map((h: any) => h.command.includes("tracegate"))).toEqual([false, true]);
    expect(w.cli("uninstall", "--harness", "cursor").code).toBe(0);
    expect(readFileSync(path, "utf8")).toBe(mine);
  });

  test("a session: complete trace, cwd from workspace_roots, final text from afterAgentResponse, no stdout, no secret, verify passes", () => {
    const w = world();
    const steps: [string, Record<string, unknown>][] = [
      ["sessionStart", ev(w, "sessionStart", { session_id: CONV, is_background_agent: false, composer_mode: "agent" })],
      ["beforeSubmitPrompt", ev(w, "beforeSubmitPrompt", { prompt: "Print the token.", attachments: [] })],
      ["preToolUse", ev(w, "preToolUse", { tool_name: "Shell", tool_input: { command: "echo $TOKEN" }, tool_use_id: "tool_1", cwd: w.repo, agent_message: "Running it." })],
      ["postToolUse", ev(w, "postToolUse", { tool_name: "Shell", tool_input: { command: "echo $TOKEN" }, tool_use_id: "tool_1", cwd: w.repo, tool_output: `hello\n${PLANTED}\n`, duration: 42 })],
      ["postToolUseFailure", ev(w, "postToolUseFailure", { tool_name: "Read", tool_input: { path: "missing.txt" }, tool_use_id: "tool_2", cwd: w.repo, error_message: "File not found", failure_type: "error", duration: 3, is_interrupt: false })],
      ["afterAgentResponse", ev(w, "afterAgentResponse", { text: "Printed it." })],
      ["stop", ev(w, "stop", { status: "completed", loop_count: 0 })],
      ["sessionEnd", ev(w, "sessionEnd", { session_id: CONV, reason: "user_close", duration_ms: 5000, is_background_agent: false, final_status: "completed" })],
    ];
    for (const [event, p] of steps) {
      const r = w.fire(event, p);
      expect({ event, code: r.code, stdout: r.stdout }).toEqual({ event, code: 0, stdout: "" });
    }
    const recs = w.records();
    expect(recs.map((r) => r.type)).toEqual(["session_start", "message", "pre_tool_use", "tool_call", "tool_call", "message", "event", "session_end"]);
    expect(new Set(recs.map((r) => r.harness))).toEqual(new Set(["cursor"]));
    expect(new Set(recs.map((r) => r.session_id))).toEqual(new Set([CONV]));
    expect(recs[0]).toMatchObject({ cwd: w.repo, base_commit: w.base, model: "claude-4.5-sonnet", source: "agent", event: "sessionStart" });
    const [ok, failed] = recs.filter((r) => r.type === "tool_call");
    expect(ok).toMatchObject({ tool_name: "Shell", tool_use_id: "tool_1", status: "ok", duration_ms: 42 });
    expect(failed).toMatchObject({ tool_name: "Read", status: "error", error: "File not found", duration_ms: 3 });
    expect(recs.filter((r) => r.type === "message").map((m) => [m.role, m.text])).toEqual([
      ["user", "Print the token."],
      ["assistant", "Printed it."],
    ]);
    expect(recs.at(-1)).toMatchObject({ type: "session_end", reason: "user_close", outcome: "no_oracle" });
    expect(w.storeText()).not.toContain(PLANTED);
    expect(w.cli("verify").code).toBe(0);
  });

  test("gated loop: FAIL continues the agent with followup_message, the follow-up is a continuation, the fix PASSes: flip", async () => {
    const w = world(true);
    await w.oracle({ max_attempts: 5 });
    w.fire("sessionStart", ev(w, "sessionStart", { session_id: CONV, composer_mode: "agent" }));
    w.fire("beforeSubmitPrompt", ev(w, "beforeSubmitPrompt", { prompt: "Write the answer into answer.txt." }));
    writeFileSync(join(w.repo, "answer.txt"), "41\n");
    expect(w.fire("afterAgentResponse", ev(w, "afterAgentResponse", { text: "Done." })).stdout).toBe("");
    const first = w.fire("stop", ev(w, "stop", { status: "completed", loop_count: 0 }));
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ followup_message: BLOCK_REASON });
    w.fire("beforeSubmitPrompt", ev(w, "beforeSubmitPrompt", { prompt: BLOCK_REASON }));
    writeFileSync(join(w.repo, "answer.txt"), "42\n");
    w.fire("afterAgentResponse", ev(w, "afterAgentResponse", { text: "Fixed." }));
    const second = w.fire("stop", ev(w, "stop", { status: "completed", loop_count: 1 }));
    expect(second.stdout).toBe("");
    const recs = w.records();
    expect(recs.filter((r) => r.type === "oracle_verdict").map((v) => [v.attempt, v.verdict, v.verified, v.decision, v.event])).toEqual([
      [1, "FAIL", true, "block", "stop"],
      [2, "PASS", true, "allow", "stop"],
    ]);
    expect(recs.find((r) => r.type === "message" && r.text === BLOCK_REASON)?.continuation).toBe(true);
    expect(claimedOutcome(recs)).toBe("flip");
  });

  test("an agent that keeps saying done: the gate's max_attempts ends the loop long before loop_limit; aborted stops are never gated", async () => {
    const w = world(true);
    await w.oracle({ max_attempts: 3 });
    w.fire("sessionStart", ev(w, "sessionStart", { session_id: CONV }));
    w.fire("beforeSubmitPrompt", ev(w, "beforeSubmitPrompt", { prompt: "Write the answer." }));
    const outs: string[] = [];
    for (let loop = 0; loop < 5; loop++) {
      w.fire("afterAgentResponse", ev(w, "afterAgentResponse", { text: `Done (${loop}).` }));
      const r = w.fire("stop", ev(w, "stop", { status: "completed", loop_count: loop }));
      outs.push(r.stdout);
      if (r.stdout === "") break;
      w.fire("beforeSubmitPrompt", ev(w, "beforeSubmitPrompt", { prompt: BLOCK_REASON }));
    }
    expect(outs.map((o) => (o ? JSON.parse(o).followup_message === BLOCK_REASON : "stop"))).toEqual([true, true, "stop"]);
    let recs = w.records();
    expect(recs.filter((r) => r.type === "oracle_verdict").map((v) => [v.attempt, v.verdict, v.decision])).toEqual([
      [1, "FAIL", "block"],
      [2, "FAIL", "block"],
      [3, "FAIL", "allow"],
    ]);
    expect(claimedOutcome(recs)).toBe("no_flip");
    // A new prompt, then an aborted and a failed stop: recorded, never gated.
    w.fire("beforeSubmitPrompt", ev(w, "beforeSubmitPrompt", { prompt: "Again." }));
    for (const status of ["aborted", "error"]) expect(w.fire("stop", ev(w, "stop", { status, loop_count: 0 })).stdout).toBe("");
    recs = w.records();
    expect(recs.filter((r) => r.type === "oracle_verdict")).toHaveLength(3);
    expect(recs.filter((r) => r.type === "event" && r.event === "stop").map((r) => r.payload.status).slice(-2)).toEqual(["aborted", "error"]);
  });

  test("doctor --harness cursor: entries listed, and a warning when Claude Code's entries are installed too", () => {
    const w = world();
    let rep = JSON.parse(w.cli("doctor", "--harness", "cursor", "--json").out);
    expect(rep.settings.every((s: any) => s.harness === "cursor")).toBe(true);
    expect(rep.settings.find((s: any) => s.scope === "user").entries).toHaveLength(Object.keys(cursor.events).length);
    expect(rep.notes.some((n: string) => n.startsWith("warning: Cursor also runs"))).toBe(false);
    mkdirSync(join(w.userHome, ".claude"), { recursive: true });
    expect(w.cli("install").code).toBe(0);
    rep = JSON.parse(w.cli("doctor", "--harness", "cursor", "--json").out);
    expect(rep.cursor_runs_claude).toEqual([join(w.userHome, ".claude", "settings.json")]);
    expect(rep.notes.some((n: string) => n.startsWith("warning: Cursor also runs Claude Code's hooks") && n.includes("recorded twice"))).toBe(true);
    expect(w.cli("doctor", "--harness", "nope").code).toBe(2);
  });
});
