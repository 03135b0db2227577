/**
 * Captures the real hook payloads each client sends, as fixtures for adapter
 * unit tests: `bun test/e2e/support/capture.ts [CLIENT ...] [SCENARIO ...]`.
 *
 * Each client runs a scripted session against the model server with a
 * recording hook (record-hook.sh) registered by hand for every event its
 * pinned version knows; the stop event refuses once, so the continuation
 * (`stop_hook_active: true`) is captured too. The payloads are written in
 * firing order to `test/fixtures/harness/<client>/<scenario>/NN-<event>.json`,
 * with the temp world's path replaced by `/tmp/e2e-world` so that fixtures
 * do not change from one capture to the next except for ids and times.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, ROOT, type World } from "./claude.ts";
import { clientHome, prepare, runClient, type ClientName, type ClientRun } from "./clients.ts";
import { startModelServer, type ModelServer, type Scenario } from "./model-server.ts";
import { plantedSecret } from "./secret.ts";

const RECORDER = join(import.meta.dir, "record-hook.sh");
const FIXTURES = join(ROOT, "test", "fixtures", "harness");
/** Every event each pinned client knows (harness-clients.md lists them from the binaries' schemas). */
export const CLIENT_EVENTS: Record<Exclude<ClientName, "opencode">, readonly string[]> = {
  codex: ["SessionStart", "SessionEnd", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact", "SubagentStart", "SubagentStop", "Stop", "Interrupt"],
  gemini: ["SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel", "BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification"],
  copilot: [
    "sessionStart",
    "sessionEnd",
    "userPromptSubmitted",
    "userPromptTransformed",
    "preToolUse",
    "preMcpToolCall",
    "postToolUse",
    "postToolUseFailure",
    "errorOccurred",
    "agentStop",
    "subagentStart",
    "subagentStop",
    "preCompact",
    "permissionRequest",
    "notification",
  ],
};
const STOP_EVENT: Record<string, string> = { codex: "Stop", gemini: "AfterAgent", copilot: "agentStop" } as const;
const BLOCK: Record<string, object> = {
  codex: { decision: "block", reason: "CAPTURE: refused once, check again" },
  gemini: { decision: "deny", reason: "CAPTURE: refused once, check again" },
  copilot: { decision: "block", reason: "CAPTURE: refused once, check again" },
};
const TOOL_EVENTS = new Set(["PreToolUse", "PostToolUse", "PermissionRequest", "BeforeTool", "AfterTool"]);

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Writes the recording hook for every event into the client's user-level config. */
function registerRecorder(world: World, name: Exclude<ClientName, "opencode">, dir: string): void {
  const home = clientHome(world, name);
  const cmd = (event: string) => {
    const block = event === STOP_EVENT[name] ? ` ${q(JSON.stringify(BLOCK[name]))}` : "";
    return `${RECORDER} ${q(dir)} ${event}${block}`;
  };
  if (name === "codex") {
    const hooks: Record<string, unknown[]> = {};
    for (const e of CLIENT_EVENTS.codex) {
      const h = { type: "command", command: cmd(e), timeout: 30 };
      hooks[e] = [TOOL_EVENTS.has(e) ? { matcher: "*", hooks: [h] } : { hooks: [h] }];
    }
    writeFileSync(join(home, "hooks.json"), JSON.stringify({ hooks }, null, 2));
  } else if (name === "gemini") {
    const path = join(home, "settings.json");
    const settings = JSON.parse(readFileSync(path, "utf8"));
    settings.hooks = {};
    for (const e of CLIENT_EVENTS.gemini) {
      const h = { type: "command", command: cmd(e), timeout: 30_000, name: `record-${e}` };
      settings.hooks[e] = [TOOL_EVENTS.has(e) ? { matcher: "*", hooks: [h] } : { hooks: [h] }];
    }
    writeFileSync(path, JSON.stringify(settings, null, 2));
  } else {
    mkdirSync(join(home, "hooks"), { recursive: true });
    const hooks: Record<string, unknown[]> = {};
    for (const e of CLIENT_EVENTS.copilot) hooks[e] = [{ type: "command", bash: cmd(e), timeoutSec: 30 }];
    writeFileSync(join(home, "hooks", "record.json"), JSON.stringify({ version: 1, hooks }, null, 2));
  }
}

/** A scenario: prompt, script, and the files of the repo. */
export interface CaptureScenario {
  readonly prompt: string;
  readonly script: Scenario;
  readonly clients: readonly ClientName[];
}

const SUB_PROMPT = "SUBTASK: print the sub-agent marker";

/** The capture scenarios, by fixture dir name. */
export const SCENARIOS: Record<string, CaptureScenario> = {
  // Prompt, a shell call whose output holds a planted secret, a failing shell call, the final
  // text, one refused stop, and the final text after it.
  basic: {
    prompt: "Print the greeting and the token, run the failing check, then say what happened.",
    script: [
      [{ type: "shell", command: `echo hello-from-e2e; echo ${plantedSecret()}` }],
      [{ type: "shell", command: "echo to-stdout; echo to-stderr >&2; exit 3" }],
      [{ type: "text", text: "All done: printed the greeting, the check exited 3." }],
      [{ type: "text", text: "Checked again after the refusal; done." }],
    ],
    clients: ["codex", "gemini", "copilot", "opencode"],
  },
  // The refused stop is followed by a tool call before the next final text (what a gated agent
  // that fixes its work does). Gemini 0.61.0 then sends stop_hook_active: false on the second
  // AfterAgent although prompt_response is still cumulative.
  "tool-after-refusal": {
    prompt: "Write the answer into answer.txt.",
    script: [
      [{ type: "shell", command: "echo 41 > answer.txt" }],
      [{ type: "text", text: "Done: wrote the answer." }],
      [{ type: "shell", command: "echo 42 > answer.txt" }],
      [{ type: "text", text: "Fixed the answer; done." }],
    ],
    clients: ["codex", "gemini", "copilot", "opencode"],
  },
  // A tool that fails (not a shell exiting non-zero): the client's file reader on a missing file.
  "tool-failure": {
    prompt: "Show me missing.txt.",
    script: [
      (ctx) => {
        // Relative to the session's cwd (the repo): Gemini refuses paths outside the workspace before its hooks.
        const missing = "missing.txt";
        if (ctx.tools.includes("view")) return [{ type: "tool_use", name: "view", input: { path: missing } }];
        if (ctx.tools.includes("read_file")) return [{ type: "tool_use", name: "read_file", input: { file_path: missing } }];
        if (ctx.tools.includes("read")) return [{ type: "tool_use", name: "read", input: { filePath: missing } }];
        return [{ type: "text", text: `no file tool in ${ctx.tools.join(",")}` }];
      },
      [{ type: "text", text: "The file does not exist." }],
      [{ type: "text", text: "Checked again after the refusal; done." }],
    ],
    clients: ["gemini", "copilot", "opencode"],
  },
  // Copilot's sub-agents: agentStop fires for the sub-agent (with parentAgentId) as well.
  subagent: {
    prompt: "Delegate printing the marker to a sub-agent.",
    script: [
      (ctx) =>
        ctx.history.some((m) => m.role === "user" && m.text.includes("SUBTASK"))
          ? [{ type: "shell", command: "echo sub-agent-marker" }]
          : [{ type: "tool_use", name: "task", input: { description: "print marker", prompt: SUB_PROMPT, agent_type: "general-purpose", name: "marker" } }],
      (ctx) =>
        ctx.history.some((m) => m.role === "user" && m.text.includes("SUBTASK"))
          ? [{ type: "text", text: "Sub done." }]
          : [{ type: "text", text: "The sub-agent printed the marker." }],
      [{ type: "text", text: "Checked again after the refusal; done." }],
    ],
    clients: ["copilot"],
  },
};

/** One payload a recording hook (or the OpenCode recorder plugin) saved, in firing order. */
export interface Recorded {
  /** The key the hook was registered under; for OpenCode `event-<type>`, `hook-<name>` or `init-plugin`. */
  readonly event: string;
  /** The payload, with the world's path replaced by `/tmp/e2e-world`. */
  readonly payload: unknown;
  /** The payload's text as received (after the same replacement). */
  readonly raw: string;
}

export interface Recording {
  readonly run: ClientRun;
  readonly payloads: readonly Recorded[];
  readonly model: ModelServer;
  /** Copilot: its transcript (events.jsonl) at the end, path-replaced; "" otherwise. */
  readonly transcript: string;
  /** Files under the world's HOME, relative, listed before cleanup (for checks such as "no npm install ran"). */
  readonly homeFiles: readonly string[];
}

function listFiles(dir: string, base = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? listFiles(p, base) : [p.slice(base.length + 1)];
  });
}

/**
 * Runs one scenario on a client with the recording hook for every event (or,
 * for OpenCode, the recorder plugin in the global config dir) and returns
 * what was recorded. The world is removed before it returns.
 *
 * @example
 * ```ts
 * const rec = await record("codex", SCENARIOS.basic!);
 * rec.payloads.map((p) => p.event); // ["SessionStart", "UserPromptSubmit", ...]
 * ```
 */
export async function record(name: ClientName, sc: CaptureScenario): Promise<Recording> {
  const model = await startModelServer(sc.script);
  const world = makeWorld({ settings: false });
  const dir = join(world.root, "recorded");
  mkdirSync(dir);
  try {
    prepare(world, name, model.url);
    if (name === "opencode") {
      mkdirSync(join(clientHome(world, "opencode"), "plugins"), { recursive: true });
      copyFileSync(join(import.meta.dir, "opencode-recorder.ts"), join(clientHome(world, "opencode"), "plugins", "tracegate-recorder.ts"));
    } else registerRecorder(world, name, dir);
    const run = await runClient(world, name, { prompt: sc.prompt, modelUrl: model.url, timeoutMs: 180_000, env: { TG_RECORD_DIR: dir } });
    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort((a, b) => (BigInt(a.split("-")[0]!) < BigInt(b.split("-")[0]!) ? -1 : 1));
    const payloads = files.map((f) => {
      const event = f.replace(/^\d+-(\d+-)?/, "").replace(/\.json$/, "");
      const raw = readFileSync(join(dir, f), "utf8").split(world.root).join("/tmp/e2e-world");
      let payload: unknown = raw;
      try {
        payload = JSON.parse(raw);
      } catch {
        // kept as text: a client that sent something not JSON is worth seeing
      }
      return { event, payload, raw };
    });
    let transcript = "";
    if (name === "copilot") {
      const stateDir = join(clientHome(world, "copilot"), "session-state");
      for (const sid of existsSync(stateDir) ? readdirSync(stateDir) : []) {
        const events = join(stateDir, sid, "events.jsonl");
        if (existsSync(events)) transcript = readFileSync(events, "utf8").split(world.root).join("/tmp/e2e-world");
      }
    }
    return { run, payloads, model, transcript, homeFiles: listFiles(world.home) };
  } finally {
    await model.stop();
    world.cleanup();
  }
}

async function capture(name: ClientName, scenarioName: string, sc: CaptureScenario) {
  const rec = await record(name, sc);
  const out = join(FIXTURES, name, scenarioName);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const width = Math.max(2, String(rec.payloads.length).length);
  rec.payloads.forEach((p, i) => {
    const text = typeof p.payload === "string" ? p.raw : `${JSON.stringify(p.payload, null, 2)}\n`;
    writeFileSync(join(out, `${String(i + 1).padStart(width, "0")}-${p.event}.json`), text);
  });
  // agentStop carries no final text: the adapter reads the tail of transcriptPath. Keep one.
  if (rec.transcript) writeFileSync(join(out, "transcript.events.jsonl"), rec.transcript);
  const mains = rec.model.requests.filter((r) => r.kind === "main").length;
  console.log(`${name}/${scenarioName}: rc ${rec.run.code}, ${Math.round(rec.run.durationMs)} ms, ${rec.payloads.length} payloads, ${mains} main requests`);
  if (rec.run.code !== 0) console.log(rec.run.stderr.slice(-3000));
}

if (import.meta.main) {
  const wanted = process.argv.slice(2);
  for (const [scenarioName, sc] of Object.entries(SCENARIOS)) {
    for (const name of sc.clients) {
      // Arguments name clients and/or scenarios; none means all.
      const clients = wanted.filter((w) => !(w in SCENARIOS));
      const scenarios = wanted.filter((w) => w in SCENARIOS);
      if (clients.length && !clients.includes(name)) continue;
      if (scenarios.length && !scenarios.includes(scenarioName)) continue;
      await capture(name, scenarioName, sc);
    }
  }
}
