/**
 * Claude Code. Snake_case payloads with `session_id` and `hook_event_name`;
 * the final text is `last_assistant_message` on Stop; a block is
 * `{"decision":"block","reason"}` (exit 2 also works); Claude Code ends the
 * turn after CLAUDE_CODE_STOP_HOOK_BLOCK_CAP consecutive blocks (default 8,
 * 0 disables it). Hooks live in `settings.json` (user: `$CLAUDE_CONFIG_DIR`,
 * default `~/.claude`; project `.claude/settings.json`; local
 * `.claude/settings.local.json`), timeouts in seconds.
 */
import { join, resolve } from "node:path";
import { claudeConfigDir } from "../config/paths.ts";
import type { HookName } from "../hook/subcommands.ts";
import type { TraceRecord } from "../trace/record.ts";
import { isGateReason } from "./gemini.ts";
import { buildRecords, firstString, sessionIdInHead, str, type Reading } from "./records.ts";
import type { Env, Facts, HarnessAdapter, Payload } from "./types.ts";

/** The facts a handler gathers (re-exported for tests that build Claude records directly). */
export type { Facts } from "./types.ts";

/** Claude Code's default for CLAUDE_CODE_STOP_HOOK_BLOCK_CAP. */
export const DEFAULT_BLOCK_CAP = 8;

/**
 * Claude Code's block cap from the hook's environment: a non-negative integer,
 * else the default 8.
 *
 * @example
 * ```ts
 * blockCapFrom({ CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: "3" }); // 3
 * ```
 */
export function blockCapFrom(env: Env): number {
  const raw = env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP;
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return DEFAULT_BLOCK_CAP;
  return Number.parseInt(raw, 10);
}

const EVENTS = {
  SessionStart: "session-start",
  UserPromptSubmit: "user-prompt-submit",
  PreToolUse: "pre-tool-use",
  PostToolUse: "post-tool-use",
  PostToolUseFailure: "post-tool-use-failure",
  Stop: "stop",
  SubagentStop: "subagent-stop",
  PreCompact: "pre-compact",
  Notification: "notification",
  SessionEnd: "session-end",
} as const satisfies Record<string, HookName>;

const SESSION_KEYS = ["session_id"];

/** The session id as recorded: the payload's when it is a non-empty string. */
export function sessionIdOf(p: Payload): string | null {
  return firstString(p, SESSION_KEYS);
}

/**
 * How a Claude-style snake_case payload keeps its facts. Codex and Gemini
 * send the same shape and build on this.
 */
export function snakeReading(hook: HookName, p: Payload, event: string | null): Reading {
  const base: Reading = {
    common: ["session_id", "hook_event_name"],
    event: event ?? str(p.hook_event_name),
    agentId: str(p.agent_id),
    agentType: str(p.agent_type),
    agentKeys: ["agent_id", "agent_type"],
  };
  switch (hook) {
    case "session-start":
      return { ...base, sessionStart: { cwd: p.cwd, model: p.model, source: p.source, taken: ["cwd", "model", "source"] } };
    case "user-prompt-submit":
      // The gate's reason as a prompt is `tracegate run` resuming the session: not a new turn.
      return { ...base, prompt: { text: p.prompt, continuation: isGateReason(p.prompt), taken: ["prompt"] } };
    case "stop":
      return { ...base, final: { text: p.last_assistant_message, taken: ["last_assistant_message"] } };
    case "post-tool-use":
    case "post-tool-use-failure":
      return {
        ...base,
        tool: {
          name: p.tool_name,
          useId: p.tool_use_id,
          input: p.tool_input,
          output: p.tool_response,
          durationMs: p.duration_ms,
          failed: hook === "post-tool-use-failure",
          error: p.error,
          taken: ["tool_name", "tool_use_id", "tool_input", "tool_response", "duration_ms", "error"],
        },
      };
    case "session-end":
      return { ...base, end: { reason: p.reason, taken: ["reason"] } };
    default:
      return base;
  }
}

/**
 * Records for one Claude Code hook event.
 *
 * @example
 * ```ts
 * claudeRecords("user-prompt-submit", { session_id: "s", prompt: "hi" }, "s", facts);
 * // [{ type: "message", role: "user", text: "hi", harness: "claude", ... }]
 * ```
 */
export function claudeRecords(hook: HookName, p: Payload, sessionId: string, facts: Facts): TraceRecord[] {
  return buildRecords("claude", hook, p, sessionId, facts, snakeReading(hook, p, facts.eventName ?? null));
}

/** The Claude Code adapter: the default harness. */
export const claude: HarnessAdapter = {
  name: "claude",
  title: "Claude Code",
  events: EVENTS,
  sessionKeys: SESSION_KEYS,
  sessionIdOf,
  sessionIdInHead: (head) => sessionIdInHead(head, SESSION_KEYS),
  wants: () => ({}),
  records: claudeRecords,
  stopInput(p, env) {
    const session_id = sessionIdOf(p);
    if (!session_id) return null;
    return {
      session_id,
      cwd: str(p.cwd),
      stop_hook_active: p.stop_hook_active === true,
      block_cap: blockCapFrom(env),
      event: "Stop",
    };
  },
  blockOutput: (reason) => ({ decision: "block", reason }),
  exit2Blocks: true,
  install: {
    scopes: ["user", "project", "local"],
    path(scope, env, cwd) {
      if (scope === "user") return join(claudeConfigDir(env), "settings.json");
      if (scope === "local") return join(resolve(cwd), ".claude", "settings.local.json");
      return join(resolve(cwd), ".claude", "settings.json");
    },
    layout: "settings",
    timeoutUnit: "s",
    timeoutKey: "timeout",
    commandKey: "command",
    matcherEvents: new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure"]),
  },
};
