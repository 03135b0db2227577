/**
 * What the session's own records say about the gate: the state the next Stop
 * starts from, and the session's outcome. Pure functions over records, so
 * SessionEnd, the Stop handler and any reader (`show`, `sessions`, an export)
 * derive the same answer, including when SessionEnd never fired.
 *
 * The Stop handler writes these fields on every `oracle_verdict` record
 * (beyond the schema's required ones) and this module reads them back:
 * `decision` ("block" | "allow"), `blocks_in_row` (this block included),
 * `block_cap`, `outcome` (when this Stop ended the session's gating),
 * `job_id` and `submitted_at` (a pending job), `diff_sha256`.
 *
 * @example
 * ```ts
 * import { outcomeOf } from "./outcome.ts";
 * outcomeOf([]); // "no_oracle"
 * ```
 */
import type { Outcome } from "./decide.ts";

/**
 * The record types the gate state and the outcome are derived from: reading
 * only these (see `readSession`'s type filter) keeps Stop and SessionEnd from
 * parsing megabytes of tool output.
 */
export const GATE_RECORD_TYPES = ["session_start", "message", "oracle_verdict"] as const;

type Rec = Readonly<Record<string, unknown>>;

function isRec(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isVerdict(r: Rec): boolean {
  return r.type === "oracle_verdict" && typeof r.attempt === "number";
}

/**
 * A user prompt starts a turn; an allowed gated Stop ends one. A prompt marked
 * `continuation` is the gate's own reason fed back by the harness (Gemini,
 * Copilot): counting it as a new turn would reset the attempts and let a
 * harness without a block cap loop for ever.
 */
function turnStart(records: readonly unknown[]): number {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (!isRec(r)) continue;
    if (r.type === "message" && r.role === "user" && r.continuation !== true) return i + 1;
    if (isVerdict(r) && r.decision === "allow") return i + 1;
  }
  return 0;
}

export interface PendingJob {
  readonly job_id: string;
  readonly attempt: number;
  readonly diff_sha256: string | null;
  /** ISO time the job was first submitted. */
  readonly submitted_at: string | null;
  /** Stops that have already found this job still running (bounds the provisional blocks). */
  readonly polls: number;
}

export interface GateState {
  /** The commit the session started from (first session_start that had one). */
  readonly base_commit: string | null;
  /** The attempt number the next oracle request uses: unique in the session, so replays never verify. */
  readonly next_attempt: number;
  /** Oracle requests in the current turn (a pending job and its verdict are one). */
  readonly attempts_in_turn: number;
  /** The gate's blocks in a row at the end of the records. */
  readonly consecutive_blocks: number;
  /** A job the previous Stop left pending, if the turn's last verdict record is one. */
  readonly pending?: PendingJob;
}

/**
 * The state the next Stop starts from.
 *
 * @example
 * ```ts
 * gateStateOf([{ type: "session_start", base_commit: "abc" }]);
 * // { base_commit: "abc", next_attempt: 1, attempts_in_turn: 0, consecutive_blocks: 0 }
 * ```
 */
export function gateStateOf(records: readonly unknown[]): GateState {
  let base: string | null = null;
  let maxAttempt = 0;
  for (const r of records) {
    if (!isRec(r)) continue;
    if (base === null && r.type === "session_start" && typeof r.base_commit === "string") base = r.base_commit;
    if (isVerdict(r)) maxAttempt = Math.max(maxAttempt, r.attempt as number);
  }
  const attempts = new Set<number>();
  let blocks = 0;
  let last: Rec | undefined;
  for (let i = turnStart(records); i < records.length; i++) {
    const r = records[i];
    if (!isRec(r) || !isVerdict(r)) continue;
    attempts.add(r.attempt as number);
    if (r.decision === "block") blocks++;
    last = r;
  }
  const state: GateState = {
    base_commit: base,
    next_attempt: maxAttempt + 1,
    attempts_in_turn: attempts.size,
    consecutive_blocks: blocks,
  };
  if (last && last.verdict === "PENDING" && typeof last.job_id === "string") {
    let polls = 0;
    for (let i = turnStart(records); i < records.length; i++) {
      const r = records[i];
      if (isRec(r) && isVerdict(r) && r.verdict === "PENDING" && r.job_id === last.job_id) polls++;
    }
    return {
      ...state,
      pending: {
        job_id: last.job_id,
        attempt: last.attempt as number,
        diff_sha256: typeof last.diff_sha256 === "string" ? last.diff_sha256 : null,
        submitted_at: typeof last.submitted_at === "string" ? last.submitted_at : null,
        polls,
      },
    };
  }
  return state;
}

/**
 * The session's outcome, from its records alone:
 * - `no_oracle`: no verdict was ever recorded (no oracle configured, or never asked);
 * - `flip`: the last verdict is a verified PASS;
 * - `cap`: the last verdict was a block that Claude Code's consecutive-block cap overrode,
 *   so the harness, not the oracle, ended the session;
 * - `no_flip`: anything else (the gate gave up, errors, unverified answers, an interrupted session).
 *
 * @example
 * ```ts
 * outcomeOf([{ type: "oracle_verdict", attempt: 1, verdict: "PASS", verified: true, decision: "allow" }]); // "flip"
 * ```
 */
export function outcomeOf(records: readonly unknown[]): Outcome {
  let last: Rec | undefined;
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (isRec(r) && isVerdict(r)) {
      last = r;
      break;
    }
  }
  if (!last) return "no_oracle";
  if (last.verdict === "PASS" && last.verified === true) return "flip";
  if (last.outcome === "cap") return "cap";
  // Records that predate the `outcome` field: recompute from the counts they carry.
  if (
    last.decision === "block" &&
    typeof last.block_cap === "number" &&
    typeof last.blocks_in_row === "number" &&
    last.block_cap > 0 &&
    last.blocks_in_row > last.block_cap
  ) {
    return "cap";
  }
  return "no_flip";
}
