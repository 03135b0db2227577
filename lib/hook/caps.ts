/**
 * Every hook subcommand, the harness event it serves, its deadline (counted
 * from process start) and the `timeout` that `tracegate install` declares for
 * it in seconds. The declared timeout is strictly above the cap so the harness
 * never kills a hook that is still inside its own budget: the hard timer in
 * the runtime fires first and exits 0.
 *
 * SessionEnd is special: Claude Code gives all SessionEnd hooks a shared
 * 1.5 s budget and plugin hooks cannot raise it, so its cap stays under that
 * budget whatever the declared timeout says.
 *
 * @example
 * ```ts
 * import { HOOKS } from "./caps.ts";
 * HOOKS["post-tool-use"].capMs; // 2500
 * ```
 */
export interface HookSpec {
  /** Claude Code event name (settings key and `hook_event_name`). */
  readonly event: string;
  /** Hard deadline in ms from process start; the runtime exits 0 when it is reached. */
  readonly capMs: number;
  /** `timeout` (seconds) written into harness settings; always > capMs / 1000. */
  readonly timeoutS: number;
  /** Whether the event takes a tool-name matcher in Claude Code settings. */
  readonly matcher: boolean;
}

/** Observers: well under a second of work in practice; the cap only bounds the pathological case. */
export const OBSERVER_CAP_MS = 2_500;
export const OBSERVER_TIMEOUT_S = 5;
/** SessionEnd must finish inside Claude Code's 1.5 s shared budget even as a plugin hook. */
export const SESSION_END_CAP_MS = 1_200;
export const SESSION_END_TIMEOUT_S = 5;
/** The Stop gate may wait for an oracle; its cap bounds retries and polling. */
export const STOP_CAP_MS = 50_000;
export const STOP_TIMEOUT_S = 60;

/**
 * Redaction and serialisation stop this long before the cap, leaving time to
 * write the record that says what was cut (lib/trace/sanitize.ts): redacting
 * its 64 KB head, the append and the exit took 150-350 ms on the loaded
 * 2-core machine (bench/hostile), so 600 ms keeps them inside the cap.
 */
export const BUDGET_RESERVE_MS = 600;

const observer = (event: string, matcher = false): HookSpec => ({
  event,
  capMs: OBSERVER_CAP_MS,
  timeoutS: OBSERVER_TIMEOUT_S,
  matcher,
});

export const HOOKS = {
  "session-start": observer("SessionStart"),
  "user-prompt-submit": observer("UserPromptSubmit"),
  "pre-tool-use": observer("PreToolUse", true),
  "post-tool-use": observer("PostToolUse", true),
  "post-tool-use-failure": observer("PostToolUseFailure", true),
  stop: { event: "Stop", capMs: STOP_CAP_MS, timeoutS: STOP_TIMEOUT_S, matcher: false },
  "subagent-stop": observer("SubagentStop"),
  "pre-compact": observer("PreCompact"),
  notification: observer("Notification"),
  "session-end": {
    event: "SessionEnd",
    capMs: SESSION_END_CAP_MS,
    timeoutS: SESSION_END_TIMEOUT_S,
    matcher: false,
  },
} as const satisfies Record<string, HookSpec>;

export type HookName = keyof typeof HOOKS;

export function isHookName(name: string): name is HookName {
  return Object.hasOwn(HOOKS, name);
}
