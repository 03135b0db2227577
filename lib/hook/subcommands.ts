/**
 * The hook subcommand registry: every subcommand a harness can run, its
 * deadline (counted from process start) and the timeout, in seconds, that
 * install declares for it. It names no harness and no harness event: which
 * event of which harness runs which subcommand is each adapter's business
 * (`lib/harness/<name>.ts`), and each adapter converts the declared timeout
 * into its own units. This file is the one place the cap defaults live.
 *
 * The declared timeout is strictly above the cap so a harness never kills a
 * hook that is still inside its own budget: the runtime's hard timer fires
 * first and exits 0.
 *
 * @example
 * ```ts
 * import { HOOKS } from "./subcommands.ts";
 * HOOKS["post-tool-use"].capMs; // 2500
 * ```
 */
export interface HookSpec {
  /** Hard deadline in ms from process start; the runtime exits 0 when it is reached. */
  readonly capMs: number;
  /** Timeout (seconds) install declares for it; always > capMs / 1000. */
  readonly timeoutS: number;
  /** Whether the subcommand may print a decision (only the Stop gate). */
  readonly decides: boolean;
}

/** Observers: well under a second of work in practice; the cap only bounds the pathological case. */
export const OBSERVER_CAP_MS = 2_500;
/** Declared timeout for observers, seconds. */
export const OBSERVER_TIMEOUT_S = 5;
/**
 * SessionEnd must finish inside the tightest SessionEnd budget of any harness
 * (Claude Code: 1.5 s shared, which plugin hooks cannot raise; Codex clamps
 * SessionEnd to 3 s).
 */
export const SESSION_END_CAP_MS = 1_200;
/** Declared timeout for SessionEnd, seconds (a harness may clamp it lower, still above the cap). */
export const SESSION_END_TIMEOUT_S = 5;
/** The Stop gate may wait for an oracle; its cap bounds retries and polling. */
export const STOP_CAP_MS = 50_000;
/** Declared timeout for the Stop gate, seconds. */
export const STOP_TIMEOUT_S = 60;

const observer: HookSpec = { capMs: OBSERVER_CAP_MS, timeoutS: OBSERVER_TIMEOUT_S, decides: false };

/** Every hook subcommand and its spec. */
export const HOOKS = {
  "session-start": observer,
  "user-prompt-submit": observer,
  "pre-tool-use": observer,
  "post-tool-use": observer,
  "post-tool-use-failure": observer,
  stop: { capMs: STOP_CAP_MS, timeoutS: STOP_TIMEOUT_S, decides: true },
  "subagent-stop": observer,
  "pre-compact": observer,
  notification: observer,
  "session-end": { capMs: SESSION_END_CAP_MS, timeoutS: SESSION_END_TIMEOUT_S, decides: false },
  /**
   * Any other harness event, named by `--event=NAME` (Copilot payloads do not
   * carry their event name): recorded whole as an `event` record.
   */
  event: observer,
} as const satisfies Record<string, HookSpec>;

/** A hook subcommand name. */
export type HookName = keyof typeof HOOKS;

/** Whether `name` is a hook subcommand (main.ts routes it to the runtime). */
export function isHookName(name: string): name is HookName {
  return Object.hasOwn(HOOKS, name);
}

/** Argument the Stop subcommand receives when it must record only, never gate. */
export const OBSERVE_FLAG = "--observe";
/** Prefix of the argument that names the harness event for the generic `event` subcommand. */
export const EVENT_FLAG = "--event=";
/** Prefix of the argument that names the harness (absent: the default harness). */
export const HARNESS_FLAG = "--harness=";
