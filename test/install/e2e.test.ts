/**
 * A real Claude Code (the pinned devDependency) accepts what `tracegate
 * install` writes and what the plugin ships: a scripted session on those
 * settings records every event that fires, and the hooks stay silent.
 * Needs dist/tracegate (`npm test` builds it).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { layOutPlugin } from "../../build/release.ts";
import { makeWorld, ROOT, runClaude, TRACEGATE, type World } from "../e2e/support/claude.ts";
import { startModelServer, type ModelServer } from "../e2e/support/model-server.ts";

const E2E_TIMEOUT = 120_000;
let worlds: World[] = [];
let models: ModelServer[] = [];
afterEach(async () => {
  for (const m of models) await m.stop();
  for (const w of worlds) w.cleanup();
  worlds = [];
  models = [];
});

const SCENARIO = [
  [
    { type: "text" as const, text: "Running it." },
    { type: "tool_use" as const, id: "toolu_install_1", name: "Bash", input: { command: "echo installed-ok", description: "echo" } },
  ],
  [{ type: "text" as const, text: "It printed installed-ok." }],
];

function records(world: World, sessionId: string, env: Record<string, string> = world.env) {
  const r = spawnSync(TRACEGATE, ["show", sessionId, "--json"], { cwd: world.repo, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`show failed: ${r.stderr}`);
  return r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Claude Code ran our entries (as logged in --debug-file), each exited 0, none printed. */
function expectHooksRanClean(log: string, marker: string) {
  const ours = log.split("\n").filter((l) => l.includes("Hooks: ") && l.includes(marker));
  const fired = new Set(ours.map((l) => /Hooks: ([A-Za-z]+)/.exec(l)?.[1]));
  for (const e of ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]) expect(fired).toContain(e);
  for (const l of ours) expect(l).toMatch(/finished with status 0 \(/);
  expect(log).not.toMatch(/Hook [A-Za-z]+(:[^ ]*)? \([A-Za-z]+\) success:\\n/);
}

const FIRED = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"];

describe("Claude Code runs what tracegate installs", () => {
  for (const scope of ["user", "project"] as const) {
    test(
      `tracegate install --scope ${scope} --gate: every firing event is recorded`,
      async () => {
        const world = makeWorld({ settings: false });
        worlds.push(world);
        const inst = spawnSync(TRACEGATE, ["install", "--scope", scope, "--gate"], { cwd: world.repo, env: world.env, encoding: "utf8" });
        expect(inst.status).toBe(0);
        const doc = spawnSync(TRACEGATE, ["doctor", "--json"], { cwd: world.repo, env: world.env, encoding: "utf8" });
        expect(JSON.parse(doc.stdout).problems).toEqual([]);
        expect(doc.status).toBe(0);

        const model = await startModelServer(SCENARIO);
        models.push(model);
        const run = await runClaude(world, { prompt: "echo it", baseUrl: model.url, debug: true });
        expect(run.code).toBe(0);
        expect(run.stdout.trim()).toBe("It printed installed-ok.");
        const recs = records(world, run.sessionId);
        const events = new Set(recs.map((r) => r.event));
        for (const e of FIRED) expect(events).toContain(e);
        const call = recs.find((r) => r.type === "tool_call")!;
        expect((call.output as { stdout: string }).stdout).toBe("installed-ok");
        expectHooksRanClean(run.debugLog(), `[/bin/sh -c '[ -x "$0" ]`);
      },
      E2E_TIMEOUT,
    );
  }

  test(
    "the plugin bundle (launcher + binary) records a session from CLAUDE_PLUGIN_DATA",
    async () => {
      const world = makeWorld({ settings: false });
      worlds.push(world);
      // Lay the plugin out with the release build's own function.
      const plugin = join(world.root, "plugin");
      const arch = process.arch === "arm64" ? "arm64" : "x64";
      layOutPlugin(plugin, [{ name: `tracegate-${process.platform}-${arch}`, path: TRACEGATE }]);

      // No TRACEGATE_HOME: the data must land in the plugin's data dir.
      const model = await startModelServer(SCENARIO);
      models.push(model);
      const run = await runClaude(world, {
        prompt: "echo it",
        baseUrl: model.url,
        debug: true,
        args: ["--plugin-dir", plugin],
        env: { TRACEGATE_HOME: "" },
      });
      expect(run.code).toBe(0);
      const dataRoot = join(world.configDir, "plugins", "data");
      expect(existsSync(dataRoot)).toBe(true);
      const [pluginData] = readdirSync(dataRoot).map((d) => join(dataRoot, d));
      expect(pluginData).toBeDefined();
      const recs = records(world, run.sessionId, { ...world.env, TRACEGATE_HOME: pluginData! });
      const events = new Set(recs.map((r) => r.event));
      for (const e of FIRED) expect(events).toContain(e);
      expect(existsSync(join(world.dataDir, "sessions"))).toBe(false);
      expectHooksRanClean(run.debugLog(), "bin/tracegate");
    },
    E2E_TIMEOUT,
  );
});

test("hooks/hooks.json is what pluginHooks() derives from subcommands.ts and the Claude adapter", async () => {
  const { pluginHooks } = await import("../../lib/install/plugin.ts");
  const { HOOKS } = await import("../../lib/hook/subcommands.ts");
  const committed = JSON.parse(readFileSync(join(ROOT, "hooks", "hooks.json"), "utf8"));
  expect(committed).toEqual(pluginHooks());
  const { claude } = await import("../../lib/harness/claude.ts");
  for (const [event, sub] of Object.entries(claude.events)) {
    const h = committed.hooks[event][0].hooks[0];
    expect(h.timeout * 1000).toBeGreaterThan(HOOKS[sub].capMs);
  }
  // SessionEnd must fit the 1.5 s budget plugin hooks cannot raise.
  expect(HOOKS["session-end"].capMs).toBeLessThan(1500);
});
