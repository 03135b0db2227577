/**
 * The client drivers themselves, independent of tracegate's adapters: each
 * real client (pinned devDependency) runs offline against the scripted model
 * server with a recording hook registered by hand for every event (OpenCode:
 * the recorder plugin), fires its events in the order the committed fixtures
 * under test/fixtures/harness/ show, refuses one stop the way its adapter
 * must, and carries on. A client update that changes any of that fails here,
 * before the adapter tests built on those fixtures go stale.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./support/claude.ts";
import { record, SCENARIOS, type Recorded, type Recording } from "./support/capture.ts";
import { clientAvailable, type ClientName } from "./support/clients.ts";
import { plantedSecret } from "./support/secret.ts";

const TIMEOUT = 200_000;
const FIXTURES = join(ROOT, "test", "fixtures", "harness");
const REFUSAL = "CAPTURE: refused once, check again";
const FINAL = "All done: printed the greeting, the check exited 3.";
const AFTER = "Checked again after the refusal; done.";

/** The event names of a committed fixture dir, in order. */
function fixtureEvents(client: ClientName, scenario: string): string[] {
  return readdirSync(join(FIXTURES, client, scenario))
    .filter((f) => /^\d+-.*\.json$/.test(f))
    .sort()
    .map((f) => f.replace(/^\d+-/, "").replace(/\.json$/, ""));
}

const names = (rec: Recording) => rec.payloads.map((p) => p.event);
const of = (rec: Recording, event: string) => rec.payloads.filter((p) => p.event === event).map((p) => p.payload as Record<string, any>);

/** The model was shown the refusal and answered it: the continuation went through the client. */
function expectContinued(rec: Recording) {
  expect(rec.run.code).toBe(0);
  expect(rec.run.timedOut).toBe(false);
  const last = rec.model.mainHistories().at(-1) ?? [];
  expect(last.some((m) => m.role === "user" && m.text.includes(REFUSAL))).toBe(true);
  expect(rec.model.mainHistories()).toHaveLength(4);
}

/** The planted secret reached a hook in the tool output: what tracegate must redact. */
function expectSecretSeen(payloads: readonly Recorded[]) {
  expect(payloads.some((p) => p.raw.includes(plantedSecret()))).toBe(true);
}

describe.skipIf(!clientAvailable("codex"))("Codex CLI 0.171.0 offline", () => {
  test(
    "fires the fixture's events in order; Stop refused once continues in the same turn",
    async () => {
      const rec = await record("codex", SCENARIOS.basic!);
      expectContinued(rec);
      expect(names(rec)).toEqual(fixtureEvents("codex", "basic"));
      const stops = of(rec, "Stop");
      expect(stops.map((s) => [s.stop_hook_active, s.last_assistant_message])).toEqual([
        [false, FINAL],
        [true, AFTER],
      ]);
      expect(stops[0]!.turn_id).toBe(stops[1]!.turn_id);
      expect(rec.run.stdout.trim()).toBe(AFTER);
      expectSecretSeen(rec.payloads);
    },
    TIMEOUT,
  );
});

describe.skipIf(!clientAvailable("gemini"))("Gemini CLI 0.61.0 offline", () => {
  test(
    "fires the fixture's events in order; AfterAgent denied once runs a new agent pass",
    async () => {
      const rec = await record("gemini", SCENARIOS.basic!);
      expectContinued(rec);
      expect(names(rec)).toEqual(fixtureEvents("gemini", "basic"));
      const after = of(rec, "AfterAgent");
      expect(after.map((a) => [a.stop_hook_active, a.prompt_response])).toEqual([
        [false, FINAL],
        [true, `${FINAL}\n${AFTER}`],
      ]);
      expect(of(rec, "BeforeAgent").map((b) => b.prompt)).toEqual([SCENARIOS.basic!.prompt, REFUSAL]);
      expectSecretSeen(rec.payloads);
    },
    TIMEOUT,
  );
});

describe.skipIf(!clientAvailable("copilot"))("Copilot CLI 1.0.102 offline (BYOK)", () => {
  test(
    "fires the fixture's events; agentStop blocked once re-submits the reason as a prompt",
    async () => {
      const rec = await record("copilot", SCENARIOS.basic!);
      expectContinued(rec);
      // sessionStart and userPromptSubmitted run concurrently (and a loaded machine can start the first
      // hook late): the first three as a set, the rest in order.
      expect(names(rec).slice(3)).toEqual(fixtureEvents("copilot", "basic").slice(3));
      expect(new Set(names(rec).slice(0, 3))).toEqual(new Set(["sessionStart", "userPromptSubmitted", "userPromptTransformed"]));
      expect(of(rec, "agentStop").map((a) => a.stop_hook_active)).toEqual([false, true]);
      expect(of(rec, "userPromptSubmitted").map((u) => u.prompt)).toEqual([SCENARIOS.basic!.prompt, REFUSAL]);
      // agentStop carries no text; the transcript's last assistant.message does.
      const texts = rec.transcript
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((e) => e.type === "assistant.message")
        .map((e) => e.data?.content);
      expect(texts.at(-1)).toBe(AFTER);
      expectSecretSeen(rec.payloads);
    },
    TIMEOUT,
  );

  test(
    "agentStop fires for a sub-agent too (parentAgentId set), and a block there is ignored",
    async () => {
      const rec = await record("copilot", SCENARIOS.subagent!);
      expect(rec.run.code).toBe(0);
      const stops = of(rec, "agentStop");
      expect(stops).toHaveLength(2);
      expect(typeof stops[0]!.parentAgentId).toBe("string");
      expect(stops[1]!.parentAgentId).toBeUndefined();
      expect(stops[0]!.parentAgentId).toBe(stops[1]!.sessionId);
      expect(names(rec)).toContain("subagentStop");
      // The recorder's one block landed on the sub-agent's stop; the main agent was never refused.
      expect(rec.model.mainHistories().some((h) => h.some((m) => m.role === "user" && m.text.includes(REFUSAL)))).toBe(false);
    },
    TIMEOUT,
  );
});

describe.skipIf(!clientAvailable("opencode"))("OpenCode 1.18.33 offline (plugin)", () => {
  test(
    "loads the plugin without installing anything, fires hooks in order, continues after a noReply refusal in one `opencode run`",
    async () => {
      const rec = await record("opencode", SCENARIOS.basic!);
      expectContinued(rec);
      const hooks = names(rec).filter((n) => n.startsWith("hook-") || n === "init-plugin" || n === "event-session.created" || n === "event-session.idle");
      expect(hooks).toEqual([
        "init-plugin",
        "event-session.created",
        "hook-chat.message",
        "hook-tool.execute.before",
        "hook-shell.env",
        "hook-tool.execute.after",
        "hook-tool.execute.before",
        "hook-shell.env",
        "hook-tool.execute.after",
        "hook-experimental.text.complete",
        "hook-chat.message",
        "hook-experimental.text.complete",
        "event-session.idle",
        "hook-dispose",
      ]);
      const fixtureHooks = fixtureEvents("opencode", "basic").filter((n) => hooks.includes(n));
      expect(fixtureHooks).toEqual(hooks);
      const after = of(rec, "hook-tool.execute.after");
      expect(after.map((a) => a.output?.metadata?.exit)).toEqual([0, 3]);
      expect(of(rec, "hook-experimental.text.complete").map((t) => t.output?.text)).toEqual([FINAL, AFTER]);
      // Both texts on stdout, one process.
      expect(rec.run.stdout).toContain(FINAL);
      expect(rec.run.stdout).toContain(AFTER);
      // The @opencode-ai/plugin install was skipped: nothing from the registry under HOME.
      expect(rec.homeFiles.filter((f) => f.startsWith(".npm/") || f.includes("node_modules/@opencode-ai"))).toEqual([]);
      expectSecretSeen(rec.payloads);
    },
    TIMEOUT,
  );
});
