/**
 * End to end with the real Claude Code CLI (pinned devDependency) driven by a
 * scripted model server on 127.0.0.1, with dist/tracegate registered for every
 * hook event in a temp CLAUDE_CONFIG_DIR. Needs `npm run build` first
 * (`npm test` does it).
 */
import { claude } from "../../lib/harness/claude.ts";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { HOOKS } from "../../lib/hook/subcommands.ts";
import { CLAUDE, makeWorld, runClaude, sessionRecords, TRACEGATE, tracegate, type ClaudeRun, type World } from "./support/claude.ts";
import { contentText, lastUserText, startModelServer, type ModelServer, type Scenario } from "./support/model-server.ts";

const E2E_TIMEOUT = 120_000;

beforeAll(() => {
  if (!existsSync(TRACEGATE)) throw new Error(`${TRACEGATE} is missing: run \`npm run build\` (npm test builds it first)`);
  if (!existsSync(CLAUDE)) throw new Error(`${CLAUDE} is missing: the @anthropic-ai/claude-code devDependency is not installed`);
});

let worlds: World[] = [];
let models: ModelServer[] = [];
afterEach(async () => {
  for (const m of models) await m.stop();
  for (const w of worlds) w.cleanup();
  worlds = [];
  models = [];
});
afterAll(async () => {
  for (const m of models) await m.stop();
  for (const w of worlds) w.cleanup();
});

async function session(scenario: Scenario, prompt: string, opts: Parameters<typeof makeWorld>[0] = {}) {
  const model = await startModelServer(scenario);
  models.push(model);
  const world = makeWorld(opts);
  worlds.push(world);
  const run = await runClaude(world, { prompt, baseUrl: model.url, debug: true });
  return { model, world, run };
}

function expectCleanExit(run: ClaudeRun) {
  if (run.code !== 0) throw new Error(`claude exited ${run.code} (timed out: ${run.timedOut})\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

/** Every tracegate hook that ran exited 0 and printed nothing (the debug log quotes any hook stdout). */
function expectSilentHooks(run: ClaudeRun) {
  const log = run.debugLog();
  expect(log.length).toBeGreaterThan(0);
  const ours = log.split("\n").filter((l) => l.includes(`[${TRACEGATE} `));
  expect(ours.length).toBeGreaterThan(0);
  for (const line of ours) expect(line).toMatch(/(finished|completed) with status 0\b/);
  // Claude Code logs a hook's non-empty stdout as `"Hook <Event> (...) success:\n<text>"`.
  expect(log).not.toMatch(/Hook [A-Za-z]+(:[^ ]*)? \([A-Za-z]+\) success:\\n/);
}

/** Plain stdout from SessionStart/UserPromptSubmit would reach the model as a system reminder. */
function expectNothingInjected(model: ModelServer) {
  for (const body of model.mainRequests()) {
    const text = (body.messages ?? []).map((m) => contentText(m.content)).join("\n");
    expect(text).not.toMatch(/hook success/i);
  }
}

function byType(records: Record<string, unknown>[], type: string) {
  return records.filter((r) => r.type === type);
}

function expectVerified(world: World, sessionId: string) {
  const all = tracegate(world, "verify");
  expect(all.stderr).toBe("");
  expect(all.code).toBe(0);
  const one = tracegate(world, "verify", sessionId);
  expect(one.code).toBe(0);
}

describe("real Claude Code session with tracegate hooks", () => {
  test(
    "a Bash tool call then an answer yields a complete, schema-valid trace and silent hooks",
    async () => {
      const prompt = "Print the greeting with echo, then tell me what it said.";
      const final = "The command printed hello-from-e2e.";
      const { model, world, run } = await session(
        [
          [
            { type: "text", text: "I'll run it." },
            { type: "tool_use", id: "toolu_e2e_bash_1", name: "Bash", input: { command: "echo hello-from-e2e", description: "Print greeting" } },
          ],
          [{ type: "text", text: final }],
        ],
        prompt,
      );
      expectCleanExit(run);
      expect(run.stdout.trim()).toBe(final);

      // The model really saw the tool's output: the loop went through Claude Code, not around it.
      const mains = model.mainRequests();
      expect(mains).toHaveLength(2);
      expect(lastUserText(mains[1]!.messages)).toContain("hello-from-e2e");

      const records = sessionRecords(world, run.sessionId);
      const types = records.map((r) => r.type);
      // Order as the hooks fired; pre_tool_use is kept as its own type.
      expect(types).toEqual(["session_start", "message", "pre_tool_use", "tool_call", "message", "session_end"]);
      for (const r of records) {
        expect(r.session_id).toBe(run.sessionId);
        expect(r.harness).toBe("claude");
        expect(typeof r.id).toBe("string");
        expect(Number.isNaN(Date.parse(String(r.ts)))).toBe(false);
      }
      expect(new Set(records.map((r) => r.id)).size).toBe(records.length);

      const [start] = byType(records, "session_start");
      expect(start!.base_commit).toBe(world.baseCommit);
      expect(start!.cwd).toBe(world.repo);
      expect(start!.source).toBe("startup");

      const [user, assistant] = byType(records, "message");
      expect(user).toMatchObject({ role: "user", text: prompt });
      expect(assistant).toMatchObject({ role: "assistant", text: final });

      const [call] = byType(records, "tool_call");
      expect(call).toMatchObject({
        tool_name: "Bash",
        tool_use_id: "toolu_e2e_bash_1",
        status: "ok",
        input: { command: "echo hello-from-e2e" },
      });
      expect((call!.output as { stdout: string }).stdout).toBe("hello-from-e2e");
      expect(typeof call!.duration_ms).toBe("number");

      const [end] = byType(records, "session_end");
      expect(end).toMatchObject({ reason: "other", outcome: "no_oracle" });

      expectVerified(world, run.sessionId);
      expectSilentHooks(run);
      expectNothingInjected(model);
    },
    E2E_TIMEOUT,
  );

  test(
    "a Bash call that prints a password with no shape (`cat db_password`) is redacted by its command: nothing of it on disk",
    async () => {
      // Words, no digits: no prefix, label or entropy marks it; only the command says what it is.
      const password = "correct-horse-battery-staple";
      const { model, world, run } = await session(
        [
          [{ type: "tool_use", id: "toolu_e2e_pw", name: "Bash", input: { command: "cat db_password", description: "Read it" } }],
          [{ type: "text", text: "I read the password file." }],
        ],
        "Show me what the database password file holds.",
        { files: { "README.md": "e2e fixture\n", db_password: `${password}\n` } },
      );
      expectCleanExit(run);
      expect(lastUserText(model.mainRequests()[1]!.messages)).toContain(password);
      const [call] = byType(sessionRecords(world, run.sessionId), "tool_call");
      expect(call).toMatchObject({ input: { command: "cat db_password" } });
      expect((call!.output as { stdout: string }).stdout).toMatch(/^\[REDACTED:password:[0-9a-f]{4}\]$/);
      const under = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? under(join(dir, e.name)) : [join(dir, e.name)]));
      for (const f of under(world.dataDir)) expect({ file: f, leaked: readFileSync(f, "latin1").includes(password) }).toEqual({ file: f, leaked: false });
    },
    E2E_TIMEOUT,
  );

  test(
    "a Bash call that shows a .env as bytes (`od -c .env`): the password, cut across its lines and cells, is nowhere on disk",
    async () => {
      const password = "Zq7xKw9#mP2vLq8T";
      // The value starts 12 bytes into od's third line (offset 040), so it spans two of them.
      const env = `NODE_ENV=production\nDB_USER=app\nDB_PASSWORD=${password}\n`;
      const { model, world, run } = await session(
        [
          [{ type: "tool_use", id: "toolu_e2e_od", name: "Bash", input: { command: "od -c .env", description: "Look for stray bytes" } }],
          [{ type: "text", text: "The file ends in a newline; no stray bytes." }],
        ],
        "Check .env for stray bytes.",
        { files: { "README.md": "e2e fixture\n", ".env": env } },
      );
      expectCleanExit(run);
      // The model was shown the dump, od's cells and all.
      expect(lastUserText(model.mainRequests()[1]!.messages)).toContain("Z   q   7   x");
      const [call] = byType(sessionRecords(world, run.sessionId), "tool_call");
      expect(JSON.stringify(call)).toContain("[REDACTED:password:");
      // Any four characters of it in a row, as od lays them out (spaces dropped): `Zq7x`, `#mP2`, `Lq8T`…
      const windows = Array.from({ length: password.length - 3 }, (_, i) => password.slice(i, i + 4));
      const under = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? under(join(dir, e.name)) : [join(dir, e.name)]));
      for (const f of under(world.dataDir)) {
        const text = readFileSync(f, "latin1").replaceAll(" ", "");
        expect({ file: f, leaked: windows.filter((w) => text.includes(w)) }).toEqual({ file: f, leaked: [] });
      }
    },
    E2E_TIMEOUT,
  );

  test(
    "two Bash tool calls in one assistant turn yield two intact tool_call records",
    async () => {
      const { world, run } = await session(
        [
          [
            { type: "tool_use", id: "toolu_e2e_par_a", name: "Bash", input: { command: "sleep 0.2; echo alpha-out" } },
            { type: "tool_use", id: "toolu_e2e_par_b", name: "Bash", input: { command: "echo bravo-out" } },
          ],
          [{ type: "text", text: "Both ran." }],
        ],
        "Run both commands.",
      );
      expectCleanExit(run);
      const records = sessionRecords(world, run.sessionId);
      const calls = byType(records, "tool_call");
      expect(calls).toHaveLength(2);
      const byId = Object.fromEntries(calls.map((c) => [c.tool_use_id as string, c]));
      expect(byId.toolu_e2e_par_a).toMatchObject({ status: "ok", input: { command: "sleep 0.2; echo alpha-out" }, output: { stdout: "alpha-out" } });
      expect(byId.toolu_e2e_par_b).toMatchObject({ status: "ok", input: { command: "echo bravo-out" }, output: { stdout: "bravo-out" } });
      expect(byType(records, "pre_tool_use")).toHaveLength(2);
      expect(byType(records, "session_end")).toHaveLength(1);

      // One record a line in the store file: nothing interleaved.
      const dir = join(world.dataDir, "sessions");
      const [file] = readdirSync(dir).filter((n) => n.startsWith(run.sessionId));
      const lines = readFileSync(join(dir, file!), "utf8").split("\n").filter(Boolean);
      expect(lines).toHaveLength(records.length);
      for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();

      expectVerified(world, run.sessionId);
      expectSilentHooks(run);
    },
    E2E_TIMEOUT,
  );

  test(
    "a failing command and a Write are recorded: error status with the exit code, the written file as input",
    async () => {
      const { world, run } = await session(
        [
          [{ type: "tool_use", id: "toolu_e2e_fail", name: "Bash", input: { command: "echo broken >&2; exit 3" } }],
          [{ type: "tool_use", id: "toolu_e2e_write", name: "Write", input: { file_path: "NOTES.md", content: "written by e2e\n" } }],
          [{ type: "text", text: "Wrote the notes." }],
        ],
        "Try the command, then write notes.",
      );
      expectCleanExit(run);
      expect(readFileSync(join(world.repo, "NOTES.md"), "utf8")).toBe("written by e2e\n");
      const records = sessionRecords(world, run.sessionId);
      const calls = byType(records, "tool_call");
      expect(calls.map((c) => c.tool_use_id)).toEqual(["toolu_e2e_fail", "toolu_e2e_write"]);
      expect(calls[0]).toMatchObject({ tool_name: "Bash", status: "error" });
      expect(String(calls[0]!.error)).toMatch(/^Exit code 3/);
      expect(calls[1]).toMatchObject({ tool_name: "Write", status: "ok" });
      expect((calls[1]!.input as { content: string }).content).toBe("written by e2e\n");
      expectVerified(world, run.sessionId);
      expectSilentHooks(run);
    },
    E2E_TIMEOUT,
  );
});

describe("the e2e support itself", () => {
  test("every hook subcommand is registered with its declared timeout", async () => {
    const world = makeWorld();
    worlds.push(world);
    const settings = JSON.parse(readFileSync(join(world.configDir, "settings.json"), "utf8"));
    for (const [event, sub] of Object.entries(claude.events)) {
      const [entry] = settings.hooks[event];
      expect(entry.hooks[0]).toEqual({ type: "command", command: `${TRACEGATE} ${sub}`, timeout: HOOKS[sub].timeoutS });
    }
  });

  test(
    "a Stop hook's block reaches the scripted model as Stop hook feedback, and a function turn can react to it",
    async () => {
      // A hand-written Stop hook that blocks once, beside tracegate's own: the
      // shape the gate e2e relies on, checked here without an oracle.
      const world = makeWorld({ settings: false });
      worlds.push(world);
      const { hookSettings } = await import("./support/claude.ts");
      const settings = hookSettings();
      (settings.hooks.Stop as unknown[]).push({
        hooks: [
          {
            type: "command",
            command: `grep -Eq '"stop_hook_active": *true' || echo '{"decision":"block","reason":"e2e says: not yet"}'`,
            timeout: 5,
          },
        ],
      });
      await Bun.write(join(world.configDir, "settings.json"), JSON.stringify(settings));
      const model = await startModelServer([
        [{ type: "text", text: "First try." }],
        (ctx) => [{ type: "text", text: ctx.lastUserText.includes("Stop hook feedback") ? "Saw the feedback." : "No feedback?" }],
      ]);
      models.push(model);
      const run = await runClaude(world, { prompt: "Do the thing.", baseUrl: model.url });
      expectCleanExit(run);
      expect(run.stdout.trim()).toBe("Saw the feedback.");
      const mains = model.mainRequests();
      expect(mains).toHaveLength(2);
      // 2.1.332: a user message wrapping "Stop hook feedback:\n<reason>" in a system reminder, then a role:"system" entry.
      expect(lastUserText(mains[1]!.messages)).toContain("Stop hook feedback:\ne2e says: not yet");
      const assistant = byType(sessionRecords(world, run.sessionId), "message").filter((m) => m.role === "assistant");
      expect(assistant.map((m) => m.text)).toEqual(["First try.", "Saw the feedback."]);
    },
    E2E_TIMEOUT,
  );
});
