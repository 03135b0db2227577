/**
 * Google Gemini CLI (`@google/gemini-cli` 0.61.0). Snake_case payloads with
 * `session_id`, `hook_event_name` and an ISO `timestamp`. Its events have
 * their own names: the user prompt is `BeforeAgent`, the stop is `AfterAgent`,
 * tools are `BeforeTool`/`AfterTool`. A block is
 * `{"decision":"deny","reason"}` (exit 2 also works); **no block cap**, so the
 * gate's `max_attempts` ends a loop. The reason comes back as the next
 * `BeforeAgent` prompt, which is recorded as a user message marked
 * `continuation` so it does not start a new gate turn. `prompt_response` is
 * cumulative across continuations: the record keeps only what is new, with
 * `cumulative: {chars, continues}` pointing at the record it extends, so the
 * full text is the chain joined by "\n". `PreCompress` fires before every
 * model turn and does not mean anything was compressed: it is an `event`
 * record, never `pre_compact`. SessionEnd can fire twice: the second is
 * marked `repeat`. Gemini passes its API key in the hook's environment;
 * nothing from the environment is ever recorded.
 *
 * Hooks live in `~/.gemini/settings.json` (merged into the user's file) and
 * project `.gemini/settings.json`, timeouts in **milliseconds**.
 */
import { join, resolve } from "node:path";
import { userHome } from "../config/paths.ts";
import { BLOCK_REASON } from "../gate/decide.ts";
import type { HookName } from "../hook/subcommands.ts";
import { buildRecords, firstString, sessionKeyed, str, type Reading } from "./records.ts";
import type { Facts, HarnessAdapter, Payload } from "./types.ts";

const EVENTS = {
  SessionStart: "session-start",
  BeforeAgent: "user-prompt-submit",
  BeforeModel: "event",
  BeforeToolSelection: "event",
  AfterModel: "event",
  BeforeTool: "pre-tool-use",
  AfterTool: "post-tool-use",
  AfterAgent: "stop",
  PreCompress: "event",
  Notification: "notification",
  SessionEnd: "session-end",
} as const satisfies Record<string, HookName>;

const SESSION_KEYS = ["session_id"];
const COMMON = ["session_id", "hook_event_name"];

/** The prompt is the gate's own reason fed back (Gemini re-fires BeforeAgent with it). */
export function isGateReason(prompt: unknown): boolean {
  return typeof prompt === "string" && prompt.trim().endsWith(BLOCK_REASON);
}

/**
 * What is new in a cumulative `prompt_response`: after a block Gemini sends
 * every turn's text joined with "\n", so the part past the previous record's
 * length is this turn's. Anything that does not look like a continuation
 * (a fresh turn, a shorter text, no "\n" at the join) is recorded whole.
 * A continuation is `stop_hook_active`, or, since Gemini 0.61.0 sends
 * `stop_hook_active: false` when the continuation pass made a tool call, a
 * text whose part before the join ends with the previous record's text.
 *
 * @example
 * ```ts
 * newPart("a\nb", true, { id: "r1", chars: 1 }); // { text: "b", cumulative: { chars: 3, continues: "r1" } }
 * ```
 */
export function newPart(
  full: string,
  continuing: boolean,
  prev: Facts["previousAssistant"],
): { text: string; cumulative: { chars: number; continues: string | null } } {
  const joins = !!prev && prev.chars !== null && full.length > prev.chars && full[prev.chars] === "\n";
  const extendsPrev = joins && typeof prev!.text === "string" && prev!.text.length > 0 && full.slice(0, prev!.chars!).endsWith(prev!.text);
  if (prev && joins && (continuing || extendsPrev)) {
    return { text: full.slice(prev.chars! + 1), cumulative: { chars: full.length, continues: prev.id } };
  }
  return { text: full, cumulative: { chars: full.length, continues: null } };
}

function reading(hook: HookName, p: Payload, facts: Facts): Reading {
  const base: Reading = { common: COMMON, event: facts.eventName ?? str(p.hook_event_name) };
  switch (hook) {
    case "session-start":
      return { ...base, sessionStart: { cwd: p.cwd, model: p.model, source: p.source, taken: ["cwd", "model", "source"] } };
    case "user-prompt-submit":
      return { ...base, prompt: { text: p.prompt, continuation: isGateReason(p.prompt), taken: ["prompt"] } };
    case "stop": {
      const full = str(p.prompt_response);
      if (full === null) return { ...base, final: { text: null, taken: ["prompt_response"] } };
      const part = newPart(full, p.stop_hook_active === true, facts.previousAssistant ?? null);
      return { ...base, final: { text: part.text, cumulative: part.cumulative, taken: ["prompt_response"] } };
    }
    case "post-tool-use": {
      const response = p.tool_response;
      const error = response && typeof response === "object" ? (response as Payload).error : undefined;
      const failed = error !== undefined && error !== null && error !== false && error !== "";
      return {
        ...base,
        tool: {
          name: p.tool_name,
          useId: p.tool_use_id ?? null,
          input: p.tool_input,
          output: response,
          durationMs: p.duration_ms,
          failed,
          error: typeof error === "string" ? error : error && typeof error === "object" ? str((error as Payload).message) : null,
          taken: ["tool_name", "tool_use_id", "tool_input", "tool_response", "duration_ms"],
        },
      };
    }
    case "session-end":
      return { ...base, end: { reason: p.reason, taken: ["reason"] } };
    default:
      return base;
  }
}

/** The Gemini CLI adapter (`--harness gemini`). */
export const gemini: HarnessAdapter = {
  name: "gemini",
  title: "Gemini CLI",
  events: EVENTS,
  ...sessionKeyed(SESSION_KEYS),
  wants: (hook) => (hook === "stop" ? { previousAssistant: true } : {}),
  records: (hook, p, sessionId, facts) => buildRecords("gemini", hook, p, sessionId, facts, reading(hook, p, facts)),
  stopInput(p) {
    const session_id = firstString(p, SESSION_KEYS);
    if (!session_id) return null;
    return { session_id, cwd: str(p.cwd), stop_hook_active: p.stop_hook_active === true, block_cap: 0, event: "AfterAgent" };
  },
  blockOutput: (reason) => ({ decision: "deny", reason }),
  exit2Blocks: true,
  install: {
    scopes: ["user", "project"],
    path(scope, env, cwd) {
      if (scope === "project") return join(resolve(cwd), ".gemini", "settings.json");
      return join(userHome(env), ".gemini", "settings.json");
    },
    layout: "settings",
    comments: true,
    timeoutUnit: "ms",
    timeoutKey: "timeout",
    commandKey: "command",
    matcherEvents: new Set(["BeforeTool", "AfterTool"]),
    matcher: "*",
    handlerExtra: (event) => ({ name: `tracegate-${event}` }),
    notes: [
      "Gemini loads project hooks (.gemini/settings.json) only in a trusted folder: trust it in Gemini, or set GEMINI_CLI_TRUST_WORKSPACE=true (--skip-trust does NOT load them).",
    ],
  },
};
