/**
 * OpenAI Codex CLI (`@openai/codex` 0.171.0). Claude's payload shape
 * (snake_case, `session_id`, `hook_event_name`) plus `turn_id`, which stays
 * the same across Stop-block continuations. PostToolUse carries the combined
 * output text with no exit code, and there is no failure event, so every tool
 * call is recorded `status: "ok"`. A block is `{"decision":"block","reason"}`
 * (exit 2 also works); Codex has **no block cap**, so the gate's own
 * `max_attempts` is what ends a loop. SessionEnd and Interrupt are clamped to
 * 3 s by Codex. Hooks live in `$CODEX_HOME/hooks.json` (default
 * `~/.codex/hooks.json`) and project `.codex/hooks.json`, timeouts in seconds;
 * Codex runs them only once trusted (see the README).
 */
import { join, resolve } from "node:path";
import { userHome } from "../config/paths.ts";
import type { HookName } from "../hook/subcommands.ts";
import { snakeReading } from "./claude.ts";
import { buildRecords, firstString, sessionKeyed, str } from "./records.ts";
import type { HarnessAdapter } from "./types.ts";

const EVENTS = {
  SessionStart: "session-start",
  UserPromptSubmit: "user-prompt-submit",
  PreToolUse: "pre-tool-use",
  PermissionRequest: "event",
  PostToolUse: "post-tool-use",
  PreCompact: "pre-compact",
  PostCompact: "event",
  SubagentStart: "event",
  SubagentStop: "subagent-stop",
  Stop: "stop",
  Interrupt: "event",
  SessionEnd: "session-end",
} as const satisfies Record<string, HookName>;

const SESSION_KEYS = ["session_id"];

/** The Codex CLI adapter (`--harness codex`). */
export const codex: HarnessAdapter = {
  name: "codex",
  title: "Codex CLI",
  events: EVENTS,
  ...sessionKeyed(SESSION_KEYS),
  wants: () => ({}),
  records: (hook, p, sessionId, facts) =>
    buildRecords("codex", hook, p, sessionId, facts, snakeReading(hook, p, facts.eventName ?? null)),
  stopInput(p) {
    const session_id = firstString(p, SESSION_KEYS);
    if (!session_id) return null;
    return { session_id, cwd: str(p.cwd), stop_hook_active: p.stop_hook_active === true, block_cap: 0, event: "Stop" };
  },
  blockOutput: (reason) => ({ decision: "block", reason }),
  exit2Blocks: true,
  install: {
    scopes: ["user", "project"],
    path(scope, env, cwd) {
      if (scope === "project") return join(resolve(cwd), ".codex", "hooks.json");
      return join(env.CODEX_HOME || join(userHome(env), ".codex"), "hooks.json");
    },
    layout: "settings",
    timeoutUnit: "s",
    timeoutKey: "timeout",
    commandKey: "command",
    matcherEvents: new Set(["PreToolUse", "PostToolUse", "PermissionRequest"]),
    matcher: "*",
    // Codex prints "clamping SessionEnd hook timeout to 3s" (and the same for Interrupt).
    clampS: { SessionEnd: 3, Interrupt: 3 },
    notes: [
      "Codex skips hooks it has not trusted: review them once with /hooks in the Codex TUI (or run codex exec --dangerously-bypass-hook-trust).",
      "Project hooks (.codex/hooks.json) also need the project trusted: codex exec --trust, or [projects.\"/abs/path\"] trust_level = \"trusted\" in config.toml.",
    ],
  },
};
