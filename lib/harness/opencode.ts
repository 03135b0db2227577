/**
 * OpenCode (`opencode-ai` 1.18.33). OpenCode has no command hooks: it loads
 * plugins in-process. `tracegate install --harness opencode` writes one small
 * plugin (lib/harness/opencode-plugin.ts renders it) that passes the few
 * events tracegate needs to this binary as JSON on stdin, one envelope per
 * event: `{hook_event_name, sessionID, cwd, ...}` where `cwd` is the plugin's
 * `directory` and the rest is the hook's `input`/`output` or the bus event as
 * OpenCode gave it. This adapter reads those envelopes:
 *
 * - `session.created` (bus event; `info` is the session) → session start;
 *   `session.resumed` is the plugin's name for the first prompt of a session
 *   it did not see created (`opencode run --session ID`), recorded as a
 *   session start with `source: "resume"`;
 * - `chat.message` (hook; the user message and its parts) → the user prompt.
 *   The gate's reason comes back through this hook (the plugin adds it with
 *   `noReply: true`), so a prompt that is the reason is a `continuation`;
 * - `tool.execute.after` (hook) → a tool call: `input.args`, `output.output`,
 *   the exit code from `output.metadata.exit` (as `exit_code`) and the
 *   duration the plugin measured from `tool.execute.before`;
 *   `tool.failed` is a `message.part.updated` bus event whose tool part went
 *   to `status: "error"` (no `tool.execute.after` fires then);
 * - `experimental.text.complete` (hook, awaited by OpenCode) → the stop: the
 *   final text is `output.text`; the plugin sends the message's part types,
 *   and a text that shares its message with a tool part is not a final answer
 *   (kept as an `event` record, never gated);
 * - `session.error` and a rejected `permission.replied` → `event` records (an
 *   idle after either is not a finished agent; the gate never runs on idle);
 * - `dispose` (hook, the instance shutting down) → session end, one per
 *   session the plugin saw.
 *
 * OpenCode has no `stop_hook_active` and no cap of its own (100 continuations
 * observed in one `opencode run`): the gate counts attempts per session from
 * its records and `gate.max_attempts` ends the loop. The block output is the
 * neutral `{"decision":"block","reason"}`, which the plugin turns into a
 * `noReply` user message.
 */
import { join, resolve } from "node:path";
import { userHome } from "../config/paths.ts";
import type { HookName } from "../hook/subcommands.ts";
import type { TraceRecord } from "../trace/record.ts";
import { isGateReason } from "./gemini.ts";
import { opencodePlugin } from "./opencode-plugin.ts";
import { buildRecords, firstString, num, sessionKeyed, str, type Reading } from "./records.ts";
import type { Env, Facts, HarnessAdapter, Payload } from "./types.ts";

const EVENTS = {
  "session.created": "session-start",
  "session.resumed": "session-start",
  "chat.message": "user-prompt-submit",
  "tool.execute.after": "post-tool-use",
  "tool.failed": "post-tool-use-failure",
  "experimental.text.complete": "stop",
  "session.error": "event",
  "permission.replied": "event",
  dispose: "session-end",
} as const satisfies Record<string, HookName>;

const SESSION_KEYS = ["sessionID"];
const COMMON = ["sessionID", "hook_event_name"];

function obj(v: unknown): Payload {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Payload) : {};
}

/** The text of a message's parts (`chat.message` output.parts): its text parts joined. */
export function partsText(parts: unknown): string | null {
  if (!Array.isArray(parts)) return null;
  const texts = parts.filter((x) => obj(x).type === "text" && typeof obj(x).text === "string").map((x) => obj(x).text as string);
  return texts.length ? texts.join("\n") : null;
}

/** A text that shares its assistant message with a tool part is not the final answer. */
function hasToolPart(p: Payload): boolean {
  return Array.isArray(p.part_types) && p.part_types.includes("tool");
}

function reading(hook: HookName, p: Payload, facts: Facts): Reading {
  const base: Reading = { common: COMMON, event: facts.eventName ?? str(p.hook_event_name) };
  const output = obj(p.output);
  switch (hook) {
    case "session-start": {
      const info = obj(p.info);
      const resumed = p.hook_event_name === "session.resumed";
      return {
        ...base,
        agentId: str(info.parentID) !== null ? str(info.id) : null,
        sessionStart: { cwd: p.cwd, model: null, source: resumed ? "resume" : str(info.parentID) !== null ? "subagent" : "startup", taken: ["cwd"] },
      };
    }
    case "user-prompt-submit": {
      const text = partsText(output.parts);
      return { ...base, prompt: { text, continuation: isGateReason(text), taken: ["output", "input", "cwd"] } };
    }
    case "stop":
      if (hasToolPart(p)) return base;
      return { ...base, final: { text: output.text, taken: ["output", "input", "cwd", "part_types", "parentID"] } };
    case "post-tool-use": {
      const input = obj(p.input);
      return {
        ...base,
        tool: {
          name: input.tool,
          useId: input.callID ?? null,
          input: input.args,
          output: output.output,
          durationMs: p.duration_ms,
          failed: false,
          error: null,
          taken: ["input", "output", "duration_ms", "cwd"],
        },
      };
    }
    case "post-tool-use-failure": {
      const part = obj(p.part);
      const state = obj(part.state);
      const time = obj(state.time);
      const start = num(time.start);
      const end = num(time.end);
      return {
        ...base,
        tool: {
          name: part.tool,
          useId: part.callID ?? null,
          input: state.input ?? null,
          output: state.output ?? null,
          durationMs: start !== null && end !== null && end >= start ? end - start : null,
          failed: true,
          error: state.error,
          taken: ["part", "cwd"],
        },
      };
    }
    case "session-end":
      return { ...base, end: { reason: "dispose", taken: ["cwd"] } };
    default:
      return base;
  }
}

/** The exit code OpenCode's bash tool reports in `metadata.exit`, on the tool_call record. */
function withExitCode(records: TraceRecord[], p: Payload): TraceRecord[] {
  const exit = obj(obj(p.output).metadata).exit;
  if (typeof exit !== "number") return records;
  return records.map((r) => (r.type === "tool_call" ? ({ ...r, exit_code: exit } as TraceRecord) : r));
}

/** The user config dir OpenCode reads plugins from: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. */
export function opencodeConfigDir(env: Env): string {
  return join(env.XDG_CONFIG_HOME || join(userHome(env), ".config"), "opencode");
}

/** The plugin's file name in a `plugins/` dir. */
export const PLUGIN_FILE = "tracegate.js";

/** The OpenCode adapter (`--harness opencode`), fed by tracegate's plugin. */
export const opencode: HarnessAdapter = {
  name: "opencode",
  title: "OpenCode",
  events: EVENTS,
  ...sessionKeyed(SESSION_KEYS),
  wants: () => ({}),
  records(hook, p, sessionId, facts) {
    const recs = buildRecords("opencode", hook, p, sessionId, facts, reading(hook, p, facts));
    return hook === "post-tool-use" ? withExitCode(recs, p) : recs;
  },
  stopInput(p) {
    const session_id = firstString(p, SESSION_KEYS);
    // A sub-agent's (task tool) final text is its parent's tool result, not the session's stop.
    if (!session_id || p.hook_event_name !== "experimental.text.complete" || hasToolPart(p) || typeof p.parentID === "string") return null;
    return { session_id, cwd: str(p.cwd), stop_hook_active: false, block_cap: 0, event: "experimental.text.complete" };
  },
  blockOutput: (reason) => ({ decision: "block", reason }),
  exit2Blocks: false,
  install: {
    scopes: ["user", "project"],
    path(scope, env, cwd) {
      if (scope === "project") return join(resolve(cwd), ".opencode", "plugins", PLUGIN_FILE);
      return join(opencodeConfigDir(env), "plugins", PLUGIN_FILE);
    },
    layout: "plugin",
    plugin: opencodePlugin(EVENTS),
    timeoutUnit: "ms",
    timeoutKey: "timeout_ms",
    commandKey: "command",
    matcherEvents: new Set(),
    notes: [
      "OpenCode installs @opencode-ai/plugin from the npm registry into each config dir that lacks it (once; about 70 s of retries when offline). tracegate's plugin needs nothing from it.",
    ],
  },
};
