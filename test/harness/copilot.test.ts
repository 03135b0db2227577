/**
 * Copilot CLI through the compiled binary: the captured payloads of a real
 * Copilot CLI 1.0.102 session (camelCase dialect) and of one with a
 * sub-agent, fired into the file `tracegate install --harness copilot` wrote,
 * with Copilot's own transcript in place for the final text; and the gate
 * against a real `oracle serve`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BLOCK_REASON } from "../../lib/gate/decide.ts";
import { FIXTURES, makeWorld, PLANTED, scenario, type World } from "./support.ts";

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.cleanup();
});
function world(gate = false): World {
  const w = makeWorld("copilot", { gate });
  worlds.push(w);
  return w;
}

/** Where a payload's transcriptPath points once the world path is rewritten. */
function transcriptOf(w: World, p: Record<string, any>): string {
  return p.transcriptPath.replace("/tmp/e2e-world", w.root);
}

/**
 * Copilot's transcript as it stood when the hook for `p` started: up to its own
 * `hook.start` line (Copilot logs it, with the payload as input, before it runs the hook).
 */
function transcriptAt(scenarioName: string, p: Record<string, any>): string {
  const lines = readFileSync(join(FIXTURES, "copilot", scenarioName, "transcript.events.jsonl"), "utf8").split("\n");
  const out: string[] = [];
  for (const l of lines) {
    out.push(l);
    if (l.includes('"type":"hook.start"') && l.includes(`"timestamp":${p.timestamp}`)) break;
  }
  return `${out.join("\n")}\n`;
}

function place(w: World, p: Record<string, any>, text: string): void {
  const path = transcriptOf(w, p);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const steps = scenario("copilot", "basic");

describe("copilot: every captured event recorded", () => {
  test("camelCase payloads, no event names: the same records, the final text from the transcript tail, verify passes", () => {
    const w = world();
    for (const s of steps) {
      if (s.event === "agentStop") place(w, s.payload, transcriptAt("basic", s.payload));
      const r = w.fire(s.event, s.payload);
      expect({ file: s.file, code: r.code, stdout: r.stdout }).toEqual({ file: s.file, code: 0, stdout: "" });
    }
    const recs = w.records();
    expect(recs.map((r) => `${r.type}:${r.event}`)).toEqual([
      "session_start:sessionStart",
      "message:userPromptSubmitted",
      "event:userPromptTransformed",
      "pre_tool_use:preToolUse",
      "event:permissionRequest",
      "tool_call:postToolUse",
      "pre_tool_use:preToolUse",
      "event:permissionRequest",
      "tool_call:postToolUse",
      "message:agentStop",
      "message:userPromptSubmitted",
      "event:userPromptTransformed",
      "message:agentStop",
      "session_end:sessionEnd",
    ]);
    expect(new Set(recs.map((r) => r.harness))).toEqual(new Set(["copilot"]));
    expect(new Set(recs.map((r) => r.session_id))).toEqual(new Set([steps[0]!.payload.sessionId]));
    expect(recs[0]).toMatchObject({ cwd: w.repo, base_commit: w.base, source: "new" });
    const tools = recs.filter((r) => r.type === "tool_call");
    // A shell exit 3 is a "success" to Copilot: status ok, the code only in the result text.
    expect(tools.map((t) => [t.tool_name, t.status])).toEqual([
      ["bash", "ok"],
      ["bash", "ok"],
    ]);
    expect(tools[0].input.command).toContain("[REDACTED");
    expect(tools[1].input).toEqual({ command: "echo to-stdout; echo to-stderr >&2; exit 3", description: "run a command" });
    expect(tools[1].output.textResultForLlm).toContain("exit code 3");
    expect(typeof tools[1].extra.timestamp).toBe("number");
    const said = recs.filter((r) => r.type === "message" && r.role === "assistant");
    expect(said.map((m) => [m.text, m.text_source])).toEqual([
      ["All done: printed the greeting, the check exited 3.", "transcript"],
      ["Checked again after the refusal; done.", "transcript"],
    ]);
    expect(recs.at(-1)).toMatchObject({ type: "session_end", reason: "complete" });
    expect(w.storeText()).not.toContain(PLANTED);
    const v = w.cli("verify");
    expect({ code: v.code, err: v.err }).toEqual({ code: 0, err: "" });
  }, 60_000);

  test("a sub-agent's agentStop is kept as an event and never gated; the main agent's is", async () => {
    const w = world(true);
    await w.oracle();
    const sub = scenario("copilot", "subagent");
    const outs: Record<string, string> = {};
    for (const s of sub) {
      if (s.event === "agentStop") place(w, s.payload, transcriptAt("subagent", s.payload));
      const r = w.fire(s.event, s.payload);
      expect(r.code).toBe(0);
      outs[s.file] = r.stdout;
    }
    // The sub-agent's stop (11) prints nothing; the main agent's (14) is refused on FAIL.
    expect(outs["11-agentStop.json"]).toBe("");
    expect(outs["14-agentStop.json"]).toBe(`${JSON.stringify({ decision: "block", reason: BLOCK_REASON })}\n`);
    for (const [f, o] of Object.entries(outs)) if (f !== "14-agentStop.json") expect({ f, o }).toEqual({ f, o: "" });
    const recs = w.records();
    const parent = sub[0]!.payload.sessionId;
    const subStop = recs.find((r) => r.event === "agentStop" && r.agent_id);
    expect(subStop).toMatchObject({ type: "event", agent_id: sub[10]!.payload.agentId, agent_type: "general-purpose" });
    const v = recs.filter((r) => r.type === "oracle_verdict");
    expect(v.map((r) => [r.session_id, r.verdict, r.decision, r.event, r.block_cap])).toEqual([[parent, "FAIL", "block", "agentStop", 8]]);
    const main = recs.filter((r) => r.type === "message" && r.role === "assistant" && r.session_id === parent);
    expect(main.map((m) => m.text)).toEqual(["The sub-agent printed the marker."]);
    expect(recs.find((r) => r.type === "subagent_stop")!.payload.response).toBe("Sub done.");
    expect(w.cli("verify").code).toBe(0);
  }, 60_000);

  test("a transcript path that is a FIFO or a symlink is not followed: exit 0 at once, no text, still recorded", () => {
    const w = world();
    const p = steps.find((s) => s.event === "agentStop")!.payload;
    const path = transcriptOf(w, p);
    mkdirSync(dirname(path), { recursive: true });
    execFileSync("mkfifo", [path]);
    const r = w.fire("agentStop", p);
    expect([r.code, r.stdout]).toEqual([0, ""]);
    const secret = join(w.root, "secret.jsonl");
    writeFileSync(secret, `${JSON.stringify({ type: "assistant.message", data: { content: "from a planted link" } })}\n`);
    const linked = { ...p, transcriptPath: join(w.root, "link.jsonl") };
    symlinkSync(secret, join(w.root, "link.jsonl"));
    expect(w.fire("agentStop", linked).code).toBe(0);
    const said = w.records().filter((x) => x.type === "message");
    expect(said.map((m) => [m.text, m.text_source])).toEqual([
      [null, "transcript"],
      [null, "transcript"],
    ]);
  }, 30_000);
});

test("a transcript Copilot is still flushing is re-read until the hook's own hook.start is on disk", async () => {
  const w = world();
  const p = steps.find((s) => s.event === "agentStop")!.payload;
  const full = transcriptAt("basic", p).split("\n");
  const last = full.findLastIndex((l) => l.includes('"type":"assistant.message"'));
  place(w, p, `${full.slice(0, last).join("\n")}\n`);
  const hook = w.fireAsync("agentStop", p);
  await Bun.sleep(300);
  appendFileSync(transcriptOf(w, p), full.slice(last).join("\n"));
  const r = await hook;
  expect([r.code, r.stdout]).toEqual([0, ""]);
  expect(w.records().map((m) => m.text)).toEqual(["All done: printed the greeting, the check exited 3."]);
}, 30_000);

test("a failed tool (view on a missing file) is postToolUseFailure: an error tool_call with Copilot's error", () => {
  const w = world();
  for (const s of scenario("copilot", "tool-failure")) {
    if (s.event === "agentStop") place(w, s.payload, transcriptAt("tool-failure", s.payload));
    expect(w.fire(s.event, s.payload).code).toBe(0);
  }
  const recs = w.records();
  const [tool] = recs.filter((r) => r.type === "tool_call");
  expect(tool).toMatchObject({ tool_name: "view", status: "error", error: "Path does not exist", input: { path: "missing.txt" }, event: "postToolUseFailure" });
  expect(recs.filter((r) => r.type === "message" && r.role === "assistant").every((m) => typeof m.text === "string")).toBe(true);
  expect(w.cli("verify").code).toBe(0);
}, 60_000);

describe("copilot: the gate (JSON only, cap 8)", () => {
  test("FAIL blocks; the re-fired userPromptSubmitted is a continuation; the fix flips", async () => {
    const w = world(true);
    await w.oracle();
    const [start, prompt] = [steps[0]!.payload, steps[1]!.payload];
    const stop = steps.find((s) => s.event === "agentStop")!.payload;
    w.fire("sessionStart", start);
    w.fire("userPromptSubmitted", prompt);
    place(w, stop, transcriptAt("basic", stop));
    const first = w.fire("agentStop", stop);
    expect([first.code, first.stdout]).toEqual([0, `${JSON.stringify({ decision: "block", reason: BLOCK_REASON })}\n`]);
    w.fire("userPromptSubmitted", { ...prompt, prompt: BLOCK_REASON });
    writeFileSync(join(w.repo, "answer.txt"), "42\n");
    const later = steps.filter((s) => s.event === "agentStop")[1]!.payload;
    place(w, later, transcriptAt("basic", later));
    const second = w.fire("agentStop", { ...later, stop_hook_active: true });
    expect([second.code, second.stdout]).toEqual([0, ""]);
    w.fire("sessionEnd", steps.at(-1)!.payload);
    const recs = w.records();
    expect(recs.filter((r) => r.type === "message" && r.role === "user").map((m) => m.continuation ?? false)).toEqual([false, true]);
    expect(recs.filter((r) => r.type === "oracle_verdict").map((r) => [r.attempt, r.verdict, r.decision, r.block_cap])).toEqual([
      [1, "FAIL", "block", 8],
      [2, "PASS", "allow", 8],
    ]);
    expect(recs.at(-1)).toMatchObject({ type: "session_end", outcome: "flip" });
  }, 60_000);

  test("Copilot's cap: after 8 blocks in a row the 9th is the one Copilot overrides, recorded as cap", async () => {
    const w = world(true);
    await w.oracle({ max_attempts: 20 });
    const stop = steps.find((s) => s.event === "agentStop")!.payload;
    w.fire("sessionStart", steps[0]!.payload);
    w.fire("userPromptSubmitted", steps[1]!.payload);
    place(w, stop, transcriptAt("basic", stop));
    for (let i = 0; i < 9; i++) {
      const r = w.fire("agentStop", { ...stop, stop_hook_active: i > 0 });
      expect(JSON.parse(r.stdout).decision).toBe("block");
      w.fire("userPromptSubmitted", { ...steps[1]!.payload, prompt: BLOCK_REASON });
    }
    w.fire("sessionEnd", steps.at(-1)!.payload);
    const recs = w.records();
    const v = recs.filter((r) => r.type === "oracle_verdict");
    expect(v.map((r) => r.blocks_in_row)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(v.at(-1)).toMatchObject({ outcome: "cap", block_cap: 8 });
    expect(recs.at(-1)).toMatchObject({ type: "session_end", outcome: "cap" });
  }, 90_000);

  test("an oracle that is down never wedges the session", async () => {
    const w = world(true);
    await w.oracle({ down: true });
    const stop = steps.find((s) => s.event === "agentStop")!.payload;
    w.fire("sessionStart", steps[0]!.payload);
    w.fire("userPromptSubmitted", steps[1]!.payload);
    place(w, stop, transcriptAt("basic", stop));
    const r = w.fire("agentStop", stop);
    expect([r.code, r.stdout]).toEqual([0, ""]);
    expect(w.records().filter((x) => x.type === "oracle_verdict").map((x) => [x.verdict, x.decision])).toEqual([["ERROR", "allow"]]);
  }, 60_000);
});
