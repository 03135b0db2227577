/**
 * Gemini CLI through the compiled binary: the captured payloads of a real
 * gemini-cli 0.61.0 session (26 events), fired into the entries `tracegate
 * install --harness gemini` wrote, and the gate against a real `oracle serve`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BLOCK_REASON } from "../../lib/gate/decide.ts";
import { makeWorld, PLANTED, scenario, type World } from "./support.ts";

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.cleanup();
});
// Gemini passes its API key in the hook's environment; a key-shaped value that must never reach disk.
const API_KEY = `AIzaSy${"Q7xK2mP9vR4tW8bN1cD5fG3hJ6kL0zX"}`;
function world(gate = false): World {
  const w = makeWorld("gemini", { gate, env: { GEMINI_API_KEY: API_KEY, GEMINI_SESSION_ID: "env-session" } });
  worlds.push(w);
  return w;
}

const steps = scenario("gemini", "basic");
const payload = (event: string, i = 0) => steps.filter((s) => s.event === event)[i]!.payload;

describe("gemini: every captured event recorded", () => {
  test("26 real events: the same record types, PreCompress kept as noise, cumulative text split, nothing from the env", () => {
    const w = world();
    for (const s of steps) {
      const r = w.fire(s.event, s.payload);
      expect({ file: s.file, code: r.code, stdout: r.stdout }).toEqual({ file: s.file, code: 0, stdout: "" });
    }
    // Gemini fires SessionEnd twice on SIGTERM: both recorded, the second marked.
    expect(w.fire("SessionEnd", payload("SessionEnd")).code).toBe(0);
    const recs = w.records();
    expect(recs.length).toBe(steps.length + 1);
    expect(new Set(recs.map((r) => r.harness))).toEqual(new Set(["gemini"]));
    expect(recs[0]).toMatchObject({ type: "session_start", cwd: w.repo, base_commit: w.base, source: "startup" });
    const byEvent = (e: string) => recs.filter((r) => r.event === e);
    // PreCompress fires before every model turn and compresses nothing: never a pre_compact record.
    expect(byEvent("PreCompress").map((r) => r.type)).toEqual(["event", "event", "event", "event"]);
    expect(recs.some((r) => r.type === "pre_compact")).toBe(false);
    expect(new Set(byEvent("BeforeModel").map((r) => r.type))).toEqual(new Set(["event"]));
    const tools = recs.filter((r) => r.type === "tool_call");
    expect(tools.map((t) => [t.tool_name, t.status])).toEqual([
      ["run_shell_command", "ok"],
      ["run_shell_command", "ok"],
    ]);
    expect(tools[1].output.llmContent).toContain("Exit Code: 3");
    const users = recs.filter((r) => r.type === "message" && r.role === "user");
    expect(users.map((m) => m.text)).toEqual([payload("BeforeAgent").prompt, "CAPTURE: refused once, check again"]);
    // Not tracegate's own reason: a hook of someone else's, so not a continuation of a gate turn.
    expect(users.map((m) => m.continuation ?? false)).toEqual([false, false]);
    const said = recs.filter((r) => r.type === "message" && r.role === "assistant");
    const full = payload("AfterAgent", 1).prompt_response as string;
    expect(said.map((m) => m.text)).toEqual(["All done: printed the greeting, the check exited 3.", "Checked again after the refusal; done."]);
    expect(said[0].cumulative).toEqual({ chars: said[0].text.length, continues: null });
    expect(said[1].cumulative).toEqual({ chars: full.length, continues: said[0].id });
    // The full text is findable: the chain joined with "\n".
    expect(`${said[0].text}\n${said[1].text}`).toBe(full);
    const ends = recs.filter((r) => r.type === "session_end");
    expect(ends.map((e) => [e.reason, e.repeat ?? false])).toEqual([
      ["exit", false],
      ["exit", true],
    ]);
    const disk = w.storeText();
    expect(disk).not.toContain(PLANTED);
    expect(disk).not.toContain(API_KEY);
    expect(disk).not.toContain("env-session");
    const v = w.cli("verify");
    expect({ code: v.code, err: v.err }).toEqual({ code: 0, err: "" });
  }, 60_000);

  test("the captured continuation that made a tool call (stop_hook_active false, text still cumulative) is split too", () => {
    const w = world();
    for (const s of scenario("gemini", "tool-after-refusal")) expect(w.fire(s.event, s.payload).code).toBe(0);
    const said = w.records().filter((r) => r.type === "message" && r.role === "assistant");
    expect(said.map((m) => [m.text, m.cumulative.continues === (said[0].id as string)])).toEqual([
      ["Done: wrote the answer.", false],
      ["Fixed the answer; done.", true],
    ]);
  }, 60_000);

  test("a failed tool (read_file on a missing file: tool_response.error) is an error tool_call with the message", () => {
    const w = world();
    for (const s of scenario("gemini", "tool-failure")) expect(w.fire(s.event, s.payload).code).toBe(0);
    const [tool] = w.records().filter((r) => r.type === "tool_call");
    expect(tool).toMatchObject({ tool_name: "read_file", status: "error", input: { file_path: "missing.txt" } });
    expect(tool.error).toContain("File not found");
    expect(tool.output.error.type).toBe("file_not_found");
    expect(w.cli("verify").code).toBe(0);
  }, 60_000);

  test("install writes timeouts in ms, a name per handler, matcher \"*\" on tool events", () => {
    const w = world();
    const text = readFileSync(join(w.userHome, ".gemini", "settings.json"), "utf8");
    const s = JSON.parse(text);
    expect(s.hooks.AfterAgent[0].hooks[0]).toMatchObject({ type: "command", timeout: 60_000, name: "tracegate-AfterAgent" });
    expect(s.hooks.BeforeTool[0]).toMatchObject({ matcher: "*" });
    for (const groups of Object.values(s.hooks) as any[]) expect(groups[0].hooks[0].timeout).toBeGreaterThanOrEqual(5000);
  }, 60_000);
});

describe("gemini: the gate (AfterAgent, deny, no block cap)", () => {
  const after = (active: boolean, text: string) => ({ ...payload("AfterAgent"), stop_hook_active: active, prompt_response: text });
  const deny = `${JSON.stringify({ decision: "deny", reason: BLOCK_REASON })}\n`;

  test("FAIL denies with the fixed reason; Gemini's re-fired BeforeAgent is a continuation, not a new turn; the fix flips", async () => {
    const w = world(true);
    await w.oracle();
    w.fire("SessionStart", payload("SessionStart"));
    w.fire("BeforeAgent", payload("BeforeAgent"));
    const first = w.fire("AfterAgent", after(false, "All done."));
    expect([first.code, first.stdout]).toEqual([0, deny]);
    // Gemini sends the reason back verbatim as the next prompt.
    expect(w.fire("BeforeAgent", { ...payload("BeforeAgent"), prompt: BLOCK_REASON }).code).toBe(0);
    writeFileSync(join(w.repo, "answer.txt"), "42\n");
    const second = w.fire("AfterAgent", after(true, "All done.\nFixed it."));
    expect([second.code, second.stdout]).toEqual([0, ""]);
    w.fire("SessionEnd", payload("SessionEnd"));
    const recs = w.records();
    expect(recs.filter((r) => r.type === "message" && r.role === "user").map((m) => m.continuation ?? false)).toEqual([false, true]);
    expect(recs.filter((r) => r.type === "oracle_verdict").map((r) => [r.attempt, r.verdict, r.decision, r.event, r.block_cap])).toEqual([
      [1, "FAIL", "block", "AfterAgent", 0],
      [2, "PASS", "allow", "AfterAgent", 0],
    ]);
    expect(recs.filter((r) => r.type === "message" && r.role === "assistant").map((m) => m.text)).toEqual(["All done.", "Fixed it."]);
    expect(recs.at(-1)).toMatchObject({ type: "session_end", outcome: "flip" });
    expect(w.cli("verify").code).toBe(0);
  }, 60_000);

  test("an agent that keeps saying done ends within max_attempts even though every block re-fires BeforeAgent", async () => {
    const w = world(true);
    await w.oracle({ max_attempts: 3 });
    w.fire("SessionStart", payload("SessionStart"));
    w.fire("BeforeAgent", payload("BeforeAgent"));
    const outs: string[] = [];
    let text = "Done 0.";
    for (let i = 0; i < 6; i++) {
      const r = w.fire("AfterAgent", after(i > 0, text));
      expect(r.code).toBe(0);
      outs.push(r.stdout);
      if (r.stdout === "") break;
      w.fire("BeforeAgent", { ...payload("BeforeAgent"), prompt: BLOCK_REASON });
      text += `\nDone ${i + 1}.`;
    }
    expect(outs).toEqual([deny, deny, ""]);
    w.fire("SessionEnd", payload("SessionEnd"));
    expect(w.records().at(-1)).toMatchObject({ type: "session_end", outcome: "no_flip" });
  }, 60_000);

  test("an oracle that is down never wedges the session", async () => {
    const w = world(true);
    await w.oracle({ down: true });
    w.fire("SessionStart", payload("SessionStart"));
    w.fire("BeforeAgent", payload("BeforeAgent"));
    const r = w.fire("AfterAgent", after(false, "All done."));
    expect([r.code, r.stdout]).toEqual([0, ""]);
    expect(w.records().filter((x) => x.type === "oracle_verdict").map((x) => [x.verdict, x.decision])).toEqual([["ERROR", "allow"]]);
  }, 60_000);
});
