/**
 * A real Claude Code (the pinned devDependency) accepts what `tracegate
 * install` writes and what the plugin ships: a scripted session on those
 * settings records every event that fires, and the hooks stay silent.
 * Needs dist/tracegate (`npm test` builds it).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
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
        let world = makeWorld({ settings: false });
        worlds.push(world);
        if (scope === "project") {
          // The binary only on PATH, as a teammate has it: the committed entry names it, not this path.
          const bin = join(world.root, "bin");
          mkdirSync(bin);
          symlinkSync(TRACEGATE, join(bin, "tracegate"));
          world = { ...world, env: { ...world.env, PATH: `${bin}:${world.env.PATH}` } };
        }
        const inst = spawnSync(TRACEGATE, ["install", "--scope", scope, "--gate"], { cwd: world.repo, env: world.env, encoding: "utf8" });
        expect(inst.status).toBe(0);
        if (scope === "project") {
          const committed = readFileSync(join(world.repo, ".claude", "settings.json"), "utf8");
          expect(committed).not.toContain(TRACEGATE);
          expect(committed).toContain(`'tracegate'`);
          // A second clone, as a teammate gets it.
          const git = (cwd: string, ...args: string[]) => expect(spawnSync("git", args, { cwd, env: world.env }).status).toBe(0);
          git(world.repo, "add", ".claude/settings.json");
          git(world.repo, "commit", "-qm", "tracegate hooks");
          const clone = join(world.root, "clone");
          git(world.root, "clone", "-q", world.repo, clone);
          world = { ...world, repo: clone };
        }
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
        expectHooksRanClean(run.debugLog(), scope === "project" ? `[/bin/sh -c 'b="$0";` : `[/bin/sh -c '[ -x "$0" ]`);
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

test("hooks/hooks.json is what pluginHooks() derives from caps.ts", async () => {
  const { pluginHooks } = await import("../../lib/install/plugin.ts");
  const { HOOKS } = await import("../../lib/hook/caps.ts");
  const committed = JSON.parse(readFileSync(join(ROOT, "hooks", "hooks.json"), "utf8"));
  expect(committed).toEqual(pluginHooks());
  for (const spec of Object.values(HOOKS)) {
    const h = committed.hooks[spec.event][0].hooks[0];
    expect(h.timeout * 1000).toBeGreaterThan(spec.capMs);
  }
  // SessionEnd must fit the 1.5 s budget plugin hooks cannot raise.
  expect(HOOKS["session-end"].capMs).toBeLessThan(1500);
});
