/**
 * OpenCode through the compiled binary: the plugin file `tracegate install
 * --harness opencode` wrote is imported as OpenCode imports it, and the
 * captured payloads of a real opencode 1.18.33 session (bus events and hook
 * calls, test/fixtures/harness/opencode/) are fed to its hooks in firing
 * order. The plugin spawns the real binary; the records, the gate's decision
 * and what the plugin asks of OpenCode's client are checked.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BLOCK_REASON } from "../../lib/gate/decide.ts";
import { claimedOutcome } from "../support/claimed-outcome.ts";
import { opencode } from "../../lib/harness/opencode.ts";
import { PLUGIN_MARK } from "../../lib/harness/opencode-plugin.ts";
import { BINARY, cleanup, tempDir } from "../support/tracegate.ts";
import { makeWorld, PLANTED, scenario, type Step, type World } from "./support.ts";

const worlds: World[] = [];
const saved = { ...process.env };
afterEach(async () => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  for (const w of worlds.splice(0)) await w.cleanup();
});

function world(gate = false): World {
  const w = makeWorld("opencode", { gate });
  worlds.push(w);
  return w;
}

interface Client {
  prompts: any[];
  /** Part types `client.session.message` answers with. */
  parts: string[];
  session: { message(a: any): Promise<any>; prompt(a: any): Promise<any> };
}

function fakeClient(): Client {
  const c: Client = {
    prompts: [],
    parts: ["step-start", "text"],
    session: {
      message: async () => ({ data: { parts: c.parts.map((type) => ({ type })) } }),
      prompt: async (a: any) => {
        c.prompts.push(a);
        return { data: {} };
      },
    },
  };
  return c;
}

let loads = 0;
/** The installed plugin, imported fresh, its function called as OpenCode calls it. */
async function loadPlugin(w: World, client: Client): Promise<Record<string, any>> {
  // The plugin's children inherit OpenCode's environment: here, this process's.
  Object.assign(process.env, w.env);
  const path = opencode.install.path("user", w.env, w.repo);
  const mod = await import(`${path}?load=${++loads}`);
  const fns = Object.values(mod);
  expect(fns.length).toBe(1);
  return (fns[0] as any)({ client, directory: w.repo, worktree: w.repo, project: {}, serverUrl: new URL("http://localhost:4096/"), $: null });
}

const rewrite = (w: World, v: unknown) =>
  JSON.parse(JSON.stringify(v).replaceAll("/tmp/e2e-world/repo", w.repo).replaceAll("/tmp/e2e-world", w.root));

/** Feed captured steps to the plugin: bus events to `event`, hook calls to their hook, awaited as OpenCode awaits hooks. */
async function replay(w: World, hooks: Record<string, any>, steps: readonly Step[]): Promise<void> {
  for (const s of steps) {
    const p = rewrite(w, s.payload);
    if (s.event.startsWith("event-")) await hooks.event({ event: p });
    else if (s.event.startsWith("hook-")) {
      const name = s.event.slice("hook-".length);
      if (name === "dispose") await hooks.dispose();
      else if (hooks[name]) await hooks[name](p.input, p.output);
    }
  }
}

describe("opencode: the installed plugin and the binary", () => {
  test("the file: tracegate's mark, one export that is the plugin function, only the filtered events", async () => {
    const w = world();
    const path = opencode.install.path("user", w.env, w.repo);
    expect(path).toBe(join(w.userHome, ".config", "opencode", "plugins", "tracegate.js"));
    const text = readFileSync(path, "utf8");
    expect(text.startsWith(PLUGIN_MARK)).toBe(true);
    expect(text).toContain(JSON.stringify(BINARY));
    const hooks = await loadPlugin(w, fakeClient());
    expect(Object.keys(hooks).sort()).toEqual(["chat.message", "dispose", "event", "experimental.text.complete", "tool.execute.after", "tool.execute.before"]);
    const d = w.cli("doctor", "--json");
    const rep = JSON.parse(d.out);
    const s = rep.settings.find((x: any) => x.harness === "opencode" && x.scope === "user");
    expect(s.entries.map((e: any) => e.event).sort()).toEqual(Object.keys(opencode.events).sort());
    expect(s.stop).toBe("observe");
    expect(rep.problems).toEqual([]);
  });

  test("a captured session: complete trace with exit codes and durations, no secret on disk, verify passes", async () => {
    const w = world();
    const client = fakeClient();
    const hooks = await loadPlugin(w, client);
    await replay(w, hooks, scenario("opencode", "basic"));
    const recs = w.records();
    expect(recs.map((r) => r.type)).toEqual(["session_start", "message", "tool_call", "tool_call", "message", "message", "message", "session_end"]);
    expect(new Set(recs.map((r) => r.harness))).toEqual(new Set(["opencode"]));
    expect(new Set(recs.map((r) => r.session_id)).size).toBe(1);
    expect(recs[0]).toMatchObject({ cwd: w.repo, base_commit: w.base, source: "startup", event: "session.created" });
    const tools = recs.filter((r) => r.type === "tool_call");
    expect(tools.map((t) => [t.tool_name, t.status, t.exit_code])).toEqual([
      ["bash", "ok", 0],
      ["bash", "ok", 3],
    ]);
    expect(tools[0].output).toStartWith("hello-from-e2e\n");
    expect(tools[0].output).toContain("[REDACTED:github-pat");
    expect(tools[1].output).toBe("to-stdout\nto-stderr\n");
    for (const t of tools) {
      expect(typeof t.duration_ms).toBe("number");
      expect(t.input.command).toBeString();
      expect(t.tool_use_id).toStartWith("call_");
    }
    const msgs = recs.filter((r) => r.type === "message");
    expect(msgs.map((m) => [m.role, m.text])).toEqual([
      ["user", "Print the greeting and the token, run the failing check, then say what happened.\n"],
      ["assistant", "All done: printed the greeting, the check exited 3."],
      ["user", "CAPTURE: refused once, check again"],
      ["assistant", "Checked again after the refusal; done."],
    ]);
    expect(recs.at(-1)).toMatchObject({ type: "session_end", reason: "dispose", outcome: "no_oracle" });
    expect(client.prompts).toEqual([]);
    expect(w.storeText()).not.toContain(PLANTED);
    const v = w.cli("verify");
    expect(v.err).toBe("");
    expect(v.code).toBe(0);
  });

  test("gated: FAIL adds the fixed reason with noReply, the fed-back reason is a continuation, the fix PASSes: flip", async () => {
    const w = world(true);
    await w.oracle({ max_attempts: 5 });
    const client = fakeClient();
    const hooks = await loadPlugin(w, client);
    const steps = scenario("opencode", "tool-after-refusal");
    const firstStop = steps.findIndex((s) => s.event === "hook-experimental.text.complete");
    await replay(w, hooks, steps.slice(0, firstStop + 1));
    expect(client.prompts).toHaveLength(1);
    expect(client.prompts[0]).toMatchObject({ body: { noReply: true, parts: [{ type: "text", text: BLOCK_REASON }] } });
    // OpenCode feeds the reason back through chat.message: the captured one, with the gate's reason.
    const rest = steps.slice(firstStop + 1).map((s) =>
      s.event === "hook-chat.message" ? { ...s, payload: { ...s.payload, output: { ...s.payload.output, parts: [{ type: "text", text: BLOCK_REASON }] } } } : s,
    );
    // The agent's fix (the captured second shell call writes 42).
    writeFileSync(join(w.repo, "answer.txt"), "42\n");
    await replay(w, hooks, rest);
    expect(client.prompts).toHaveLength(1);
    const recs = w.records();
    const v = recs.filter((r) => r.type === "oracle_verdict");
    expect(v.map((x) => [x.attempt, x.verdict, x.verified, x.decision, x.event])).toEqual([
      [1, "FAIL", true, "block", "experimental.text.complete"],
      [2, "PASS", true, "allow", "experimental.text.complete"],
    ]);
    expect(recs.find((r) => r.type === "message" && r.role === "user" && r.text === BLOCK_REASON)?.continuation).toBe(true);
    expect(claimedOutcome(recs)).toBe("flip");
    expect(recs.at(-1)).toMatchObject({ type: "session_end", outcome: "flip" });
    expect(w.cli("verify").code).toBe(0);
  });

  test("a failed tool (no tool.execute.after, only the part's error status): one tool_call with status error and its duration", async () => {
    const w = world();
    const hooks = await loadPlugin(w, fakeClient());
    await replay(w, hooks, scenario("opencode", "tool-failure"));
    const tools = w.records().filter((r) => r.type === "tool_call");
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ tool_name: "read", status: "error" });
    expect(tools[0].error).toBeString();
    expect(tools[0].input.filePath).toContain("missing.txt");
    expect(typeof tools[0].duration_ms).toBe("number");
    expect(w.cli("verify").code).toBe(0);
  });

  test("a text that shares its message with a tool part is not gated, and is not the final message", async () => {
    const w = world(true);
    await w.oracle();
    const client = fakeClient();
    client.parts = ["step-start", "text", "tool"];
    const hooks = await loadPlugin(w, client);
    const steps = scenario("opencode", "basic");
    await replay(w, hooks, steps.slice(0, steps.findIndex((s) => s.event === "hook-experimental.text.complete") + 1));
    const recs = w.records();
    expect(client.prompts).toEqual([]);
    expect(recs.filter((r) => r.type === "oracle_verdict")).toEqual([]);
    expect(recs.filter((r) => r.type === "message" && r.role === "assistant")).toEqual([]);
    expect(recs.at(-1)).toMatchObject({ type: "event", event: "experimental.text.complete" });
  });

  test("the binary deleted: the plugin does nothing, throws nothing, asks nothing", async () => {
    const dir = tempDir("tg-oc-bin-");
    try {
      const bin = join(dir, "tracegate");
      writeFileSync(bin, readFileSync(BINARY));
      chmodSync(bin, 0o755);
      const w = world(true);
      await w.oracle();
      expect(w.cli("install", "--harness", "opencode", "--gate", "--bin", bin).code).toBe(0);
      rmSync(bin);
      const client = fakeClient();
      const hooks = await loadPlugin(w, client);
      await replay(w, hooks, scenario("opencode", "basic"));
      expect(client.prompts).toEqual([]);
      expect(existsSync(join(w.home, "sessions")) ? readdirSync(join(w.home, "sessions")) : []).toEqual([]);
    } finally {
      cleanup(dir);
    }
  });

  test("hostile paths: a binary path with quotes and a newline stays data; a symlinked plugin file is refused, its target untouched", async () => {
    const w = world();
    const dir = join(w.root, 'bin "x"; process.exit(1); //\n');
    mkdirSync(dir, { recursive: true });
    const bin = join(dir, "tracegate");
    writeFileSync(bin, readFileSync(BINARY));
    chmodSync(bin, 0o755);
    expect(w.cli("install", "--harness", "opencode", "--bin", bin).code).toBe(0);
    const path = opencode.install.path("user", w.env, w.repo);
    expect(opencode.install.plugin!.parse(readFileSync(path, "utf8"))!.every((e) => e.bin === bin)).toBe(true);
    const hooks = await loadPlugin(w, fakeClient());
    await replay(w, hooks, scenario("opencode", "basic"));
    expect(w.records().map((r) => r.type)).toContain("tool_call");
    // A repository's .opencode/plugins/tracegate.js that is a symlink to a file of the user's.
    const target = join(w.root, "precious.txt");
    writeFileSync(target, "keep me\n");
    const project = opencode.install.path("project", w.env, w.repo);
    mkdirSync(join(w.repo, ".opencode", "plugins"), { recursive: true });
    symlinkSync(target, project);
    for (const cmd of ["install", "uninstall"]) {
      const r = w.cli(cmd, "--harness", "opencode", "--scope", "project");
      expect({ cmd, code: r.code, symlink: r.err.includes("symlink") }).toEqual({ cmd, code: 1, symlink: true });
    }
    expect(readFileSync(target, "utf8")).toBe("keep me\n");
  });

  test("uninstall removes exactly the plugin file: what OpenCode wrote beside it stays", () => {
    const w = world();
    const path = opencode.install.path("project", w.env, w.repo);
    expect(w.cli("install", "--harness", "opencode", "--scope", "project").code).toBe(0);
    expect(readFileSync(path, "utf8").startsWith(PLUGIN_MARK)).toBe(true);
    // What OpenCode writes into a project config dir on its first start.
    writeFileSync(join(w.repo, ".opencode", ".gitignore"), "node_modules\n");
    expect(w.cli("install", "--harness", "opencode", "--scope", "project").out).toContain("nothing changed");
    const u = w.cli("uninstall", "--harness", "opencode", "--scope", "project");
    expect(u.code).toBe(0);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(join(w.repo, ".opencode"))).toEqual([".gitignore"]);
    // A plugin of the same name that is not tracegate's is never replaced or removed.
    mkdirSync(join(w.repo, ".opencode", "plugins"), { recursive: true });
    writeFileSync(path, "export const Mine = async () => ({});\n");
    const again = w.cli("install", "--harness", "opencode", "--scope", "project");
    expect(again.code).not.toBe(0);
    expect(again.err).toContain("not tracegate's plugin");
    expect(w.cli("uninstall", "--harness", "opencode", "--scope", "project").code).not.toBe(0);
    expect(readFileSync(path, "utf8")).toBe("export const Mine = async () => ({});\n");
  });
});
