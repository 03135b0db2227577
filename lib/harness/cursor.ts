/**
 * Cursor (agent hooks, from its documentation; no client runs here).
 * Snake_case payloads whose common fields are `conversation_id` (the
 * session), `generation_id`, `model`, `hook_event_name`, `cursor_version`,
 * `workspace_roots[]`, `user_email` and `transcript_path`: there is **no
 * `cwd`** on the common payload (tool events carry one), so the session's
 * directory is `workspace_roots[0]`. Events are camelCase: the prompt is
 * `beforeSubmitPrompt.prompt`, tools are `preToolUse`/`postToolUse`
 * (`tool_output`, `duration`)/`postToolUseFailure` (`error_message`,
 * `failure_type`), the final text comes from `afterAgentResponse.text`
 * (the `stop` payload has none).
 *
 * `stop` cannot refuse: it can only continue the agent with
 * `{"followup_message": R}`, which Cursor submits as the next user message
 * (recorded as a `continuation`), and it carries `status`
 * (`completed`|`aborted`|`error`) and `loop_count`. Only a `completed` stop
 * is gated; `loop_count > 0` is the harness saying it is already continuing.
 * Cursor stops following up after the entry's `loop_limit` (default 5, and
 * none at all for the Claude-format hooks Cursor also runs): install writes
 * `loop_limit` = the largest `gate.max_attempts` the config accepts, so the
 * gate's own limit always decides first and Cursor's is only a backstop.
 *
 * `afterAgentResponse` runs the generic `event` subcommand (an observer) and
 * its text is recorded as the session's assistant message. The fail-closed events
 * (`beforeMCPExecution`, `beforeReadFile`: a hook that prints nothing blocks
 * them) are not registered, nor the shell/MCP/file-edit events that repeat
 * what `preToolUse`/`postToolUse` already carry.
 *
 * Hooks live in `~/.cursor/hooks.json` and project `.cursor/hooks.json`
 * (`{"version":1,"hooks":{"<event>":[handler]}}`, handlers directly in the
 * event arrays, timeouts in seconds), merged into the user's file.
 */
import { join, resolve } from "node:path";
import configSchema from "../../schema/config.schema.json";
import { userHome } from "../config/paths.ts";
import type { HookName } from "../hook/subcommands.ts";
import { isGateReason } from "./gemini.ts";
import { buildRecords, firstString, sessionKeyed, str, type Reading } from "./records.ts";
import type { Facts, HarnessAdapter, Payload } from "./types.ts";

const EVENTS = {
  sessionStart: "session-start",
  beforeSubmitPrompt: "user-prompt-submit",
  preToolUse: "pre-tool-use",
  postToolUse: "post-tool-use",
  postToolUseFailure: "post-tool-use-failure",
  subagentStart: "event",
  subagentStop: "subagent-stop",
  preCompact: "pre-compact",
  afterAgentResponse: "event",
  stop: "stop",
  sessionEnd: "session-end",
} as const satisfies Record<string, HookName>;

/**
 * The `loop_limit` install writes on the stop entry: the schema's maximum
 * for `gate.max_attempts`, so no configured limit of the gate is ever cut
 * short by Cursor's.
 */
export const CURSOR_LOOP_LIMIT: number = configSchema.properties.gate.properties.max_attempts.maximum;

const SESSION_KEYS = ["conversation_id"];
const COMMON = ["conversation_id", "hook_event_name"];

/** The session's directory: the payload's `cwd` (tool events), else `workspace_roots[0]`. */
export function cursorCwd(p: Payload): string | null {
  const cwd = str(p.cwd);
  if (cwd) return cwd;
  const roots = p.workspace_roots;
  return Array.isArray(roots) && typeof roots[0] === "string" && roots[0] ? roots[0] : null;
}

function reading(hook: HookName, p: Payload, facts: Facts): Reading {
  const base: Reading = { common: COMMON, event: facts.eventName ?? str(p.hook_event_name) };
  switch (hook) {
    case "session-start":
      return { ...base, sessionStart: { cwd: cursorCwd(p), model: p.model, source: p.composer_mode, taken: ["cwd", "model"] } };
    case "user-prompt-submit":
      return { ...base, prompt: { text: p.prompt, continuation: isGateReason(p.prompt), taken: ["prompt"] } };
    case "stop":
      // The stop itself has no text: it is kept whole, beside the gate's verdict.
      if (p.hook_event_name !== "afterAgentResponse") return base;
      return { ...base, final: { text: p.text, taken: ["text"] } };
    case "event":
      return base;
    case "post-tool-use":
    case "post-tool-use-failure": {
      const failed = hook === "post-tool-use-failure";
      return {
        ...base,
        tool: {
          name: p.tool_name,
          useId: p.tool_use_id ?? null,
          input: p.tool_input,
          output: failed ? (p.tool_output ?? null) : p.tool_output,
          durationMs: p.duration,
          failed,
          error: p.error_message,
          taken: ["tool_name", "tool_use_id", "tool_input", "tool_output", "duration", "error_message"],
        },
      };
    }
    case "session-end":
      return { ...base, end: { reason: p.reason, taken: ["reason"] } };
    default:
      return base;
  }
}

/** The Cursor adapter (`--harness cursor`). */
export const cursor: HarnessAdapter = {
  name: "cursor",
  title: "Cursor",
  events: EVENTS,
  ...sessionKeyed(SESSION_KEYS),
  cwdOf: cursorCwd,
  wants: () => ({}),
  records(hook, p, sessionId, facts) {
    // The final text arrives on its own event, before the stop: it is the assistant message.
    const as: HookName = hook === "event" && (facts.eventName ?? p.hook_event_name) === "afterAgentResponse" ? "stop" : hook;
    return buildRecords("cursor", as, p, sessionId, facts, reading(as, p, facts));
  },
  stopInput(p) {
    const session_id = firstString(p, SESSION_KEYS);
    // An aborted or failed agent did not finish.
    if (!session_id || p.status !== "completed") return null;
    const loops = typeof p.loop_count === "number" && Number.isFinite(p.loop_count) ? p.loop_count : 0;
    return { session_id, cwd: cursorCwd(p), stop_hook_active: loops > 0, block_cap: CURSOR_LOOP_LIMIT, event: "stop" };
  },
  blockOutput: (reason) => ({ followup_message: reason }),
  exit2Blocks: false,
  install: {
    scopes: ["user", "project"],
    path(scope, env, cwd) {
      if (scope === "project") return join(resolve(cwd), ".cursor", "hooks.json");
      return join(userHome(env), ".cursor", "hooks.json");
    },
    layout: "settings",
    flat: true,
    fileHeader: { version: 1 },
    timeoutUnit: "s",
    timeoutKey: "timeout",
    commandKey: "command",
    matcherEvents: new Set(),
    handlerExtra: (event) => (event === "stop" ? { loop_limit: CURSOR_LOOP_LIMIT } : {}),
    notes: [
      "Cursor reads hooks.json at start: restart Cursor after install. Project hooks (.cursor/hooks.json) need a trusted workspace.",
    ],
  },
};
