/**
 * The Stop gate's decision, as a pure function of what the handler gathered:
 * the verdict at hand, the attempts and blocks so far, the harness flag and
 * the policy. No I/O, no clock: every combination is a row in a table test.
 *
 * The handler calls it twice at most: first with `verdict: "none"` (should we
 * ask the oracle at all?), then with the answer it got.
 *
 * @example
 * ```ts
 * import { decide } from "./decide.ts";
 * decide({ verdict: "fail", attempts: 1, stop_hook_active: false, max_attempts: 3,
 *          on_error: "allow", consecutive_blocks: 0, block_cap: 8 });
 * // { action: "block", reason: BLOCK_REASON }
 * ```
 */
import type { Outcome } from "./outcome.ts";

/**
 * The one reason the gate ever gives the agent. Fixed on purpose: the oracle's
 * test output never reaches the model, so the agent cannot fit its answer to
 * the hidden tests, and a provisional (slow-oracle) block reads the same.
 */
export const BLOCK_REASON =
  "The task's oracle reported FAIL: the tests for this task do not pass yet. Keep working on the task, then stop again when you believe it is done.";

/** Claude Code's default for CLAUDE_CODE_STOP_HOOK_BLOCK_CAP. */
export const DEFAULT_BLOCK_CAP = 8;

/**
 * The verdict state the handler has in hand:
 * - `none`: no answer yet for this Stop (the first call);
 * - `pass` / `fail`: a signed verdict that verified against the configured key and this request;
 * - `unverified`: an answer that did not verify (bad signature, wrong key, replay): never a PASS;
 * - `error`: the oracle was unreachable, answered an error, or a pending job outlived `timeout_s`;
 * - `pending`: the oracle accepted the job (202) and has not finished inside this Stop's deadline.
 */
export type VerdictState = "none" | "pass" | "fail" | "unverified" | "error" | "pending";


export interface DecideInput {
  readonly verdict: VerdictState;
  /** Oracle requests made in this turn, counting the one `verdict` answers. */
  readonly attempts: number;
  /** From the Stop payload: Claude is already continuing because a Stop hook blocked. */
  readonly stop_hook_active: boolean;
  /** `gate.max_attempts` (>= 1). */
  readonly max_attempts: number;
  /** `oracle.on_error`: what an error or an unverified answer does. */
  readonly on_error: "allow" | "block";
  /** The gate's blocks in a row before this Stop, counted from the session's records. */
  readonly consecutive_blocks: number;
  /** CLAUDE_CODE_STOP_HOOK_BLOCK_CAP (default 8; 0 disables Claude Code's cap). */
  readonly block_cap: number;
}

export interface Decision {
  readonly action: "allow" | "block" | "ask-oracle";
  /** `BLOCK_REASON` on a block; why the gate allowed, for the record, on an allow. */
  readonly reason?: string;
  /**
   * How the session ends if this Stop ends it: `flip` on a verified PASS,
   * `no_flip` when the gate gives up, `cap` when this block is the one Claude
   * Code overrides. Absent when the agent keeps working.
   */
  readonly outcome?: Outcome;
}

/**
 * The blocks that really precede this Stop. Claude Code sends
 * `stop_hook_active: false` on the first Stop of a turn, so a count left over
 * from an earlier turn (a lost UserPromptSubmit record) must not carry over.
 * The flag never decides whether to ask the oracle: after a block it is
 * always true, and the gate must still see the PASS that ends the loop.
 */
export function blocksBefore(input: Pick<DecideInput, "stop_hook_active" | "consecutive_blocks">): number {
  return input.stop_hook_active ? Math.max(0, input.consecutive_blocks) : 0;
}

/**
 * A block Claude Code will override: it has already honoured `block_cap`
 * blocks in a row (observed: with the default 8, the 9th block ends the turn).
 */
export function blockHitsCap(input: Pick<DecideInput, "stop_hook_active" | "consecutive_blocks" | "block_cap">): boolean {
  return input.block_cap > 0 && blocksBefore(input) >= input.block_cap;
}

function block(input: DecideInput): Decision {
  return blockHitsCap(input)
    ? { action: "block", reason: BLOCK_REASON, outcome: "cap" }
    : { action: "block", reason: BLOCK_REASON };
}

/**
 * Decide what the Stop does. See the module doc for the table; in short:
 * verified PASS allows (flip); FAIL blocks until the last attempt, which
 * allows (no_flip); errors and unverified answers follow `on_error`; a
 * pending job blocks provisionally; any block Claude Code will override is
 * marked `cap`.
 *
 * @example
 * ```ts
 * decide({ ...input, verdict: "pass" }); // { action: "allow", outcome: "flip", reason: "oracle PASS" }
 * ```
 */
export function decide(input: DecideInput): Decision {
  const max = Math.max(1, Math.floor(input.max_attempts));
  const last = input.attempts >= max;
  switch (input.verdict) {
    case "none":
      return last
        ? { action: "allow", reason: "max attempts reached", outcome: "no_flip" }
        : { action: "ask-oracle" };
    case "pass":
      return { action: "allow", reason: "oracle PASS", outcome: "flip" };
    case "fail":
      // The last attempt's FAIL lets the agent stop: blocking once more would
      // buy work that no verdict ever judges.
      return last ? { action: "allow", reason: "max attempts reached", outcome: "no_flip" } : block(input);
    case "pending":
      // The job already counts as an attempt; the next Stop picks its verdict up.
      return block(input);
    case "unverified":
    case "error": {
      if (input.on_error === "allow") {
        return { action: "allow", reason: `oracle ${input.verdict === "error" ? "error" : "answer did not verify"}, on_error allow`, outcome: "no_flip" };
      }
      return last ? { action: "allow", reason: "max attempts reached", outcome: "no_flip" } : block(input);
    }
  }
}

/**
 * Claude Code's block cap from the hook's environment: a non-negative integer,
 * else the default 8.
 *
 * @example
 * ```ts
 * blockCapFrom({ CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: "3" }); // 3
 * ```
 */
export function blockCapFrom(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP;
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return DEFAULT_BLOCK_CAP;
  return Number.parseInt(raw, 10);
}
