/**
 * The Stop gate: the handler around the pure `decide`. It gathers the inputs
 * (the session's records, the diff against the base commit, the oracle's
 * answer and its verification) inside the Stop deadline and returns the
 * records to append plus, on a block, the one decision the runtime prints.
 *
 * Without a usable oracle config it is the observer: the assistant message
 * record and nothing else. It never throws: anything unexpected becomes an
 * `ERROR` verdict record, decided by `oracle.on_error`.
 *
 * Records it writes, beyond the schema's required fields (`attempt`,
 * `verdict`, `tests_hash`, `signed`, `verified`): `decision`,
 * `blocks_in_row`, `block_cap`, `outcome` (when this Stop ends the gating),
 * `task_id`, `diff_sha256`, `diff_bytes`, `diff_files`, `job_id` and
 * `submitted_at` (pending), `problem` (why it is not a verified verdict),
 * `elapsed_ms`. `lib/gate/outcome.ts` reads them back.
 *
 * @example
 * ```ts
 * import { createStopGate } from "./stop.ts";
 * const handler = createStopGate(observe("stop"));
 * const { records, decision } = await handler(ctx);
 * ```
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { HookContext, HookHandler, HookResult } from "../hook/types.ts";
import type { OracleVerdictRecord, TraceRecord } from "../trace/record.ts";
import { newId } from "../trace/digest.ts";
import { readSession } from "../trace/store.ts";
import type { StopInput } from "./input.ts";
import { blocksBefore, decide, BLOCK_REASON, DEFAULT_MAX_ATTEMPTS, type Decision, type VerdictState } from "./decide.ts";
import { GATE_RECORD_TYPES, gateStateOf, type GateState } from "./outcome.ts";

/** Task id when neither TRACEGATE_TASK_ID nor the config's `task_id` names one. */
export const DEFAULT_TASK_ID = "default";

/** Time kept back from the Stop cap for writing records and exiting. */
export const STOP_MARGIN_MS = 2_500;

/** Stops that may find the same job still running before the gate calls it an error. */
export const MAX_PENDING_POLLS = 3;

/**
 * The task id sent to the oracle: `TRACEGATE_TASK_ID`, else the user config's
 * `task_id`, else `"default"`. The environment wins so that one user config
 * can serve a grader that runs many tasks, one per process.
 *
 * @example
 * ```ts
 * taskIdFor({ TRACEGATE_TASK_ID: "t-7" }, "cfg-task"); // "t-7"
 * ```
 */
export function taskIdFor(env: Readonly<Record<string, string | undefined>>, configTaskId: string | null): string {
  const fromEnv = env.TRACEGATE_TASK_ID?.trim();
  if (fromEnv) return fromEnv.slice(0, 512);
  return configTaskId ?? DEFAULT_TASK_ID;
}

/** `remote.origin.url` of the repository, credentials removed; null when there is none. */
async function originOf(commondir: string): Promise<string | null> {
  try {
    const { parseGitConfig } = await import("../git/config.ts");
    const url = parseGitConfig(readFileSync(join(commondir, "config"), "utf8")).get("remote.origin.url");
    if (!url) return null;
    // Never hand an oracle a token that happens to sit in a remote URL.
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, "$1");
  } catch {
    return null;
  }
}

interface Answer {
  readonly state: VerdictState;
  readonly signed: Record<string, unknown> | null;
  readonly problem?: string;
  readonly job_id?: string;
}

function claimed(signed: Record<string, unknown> | null): "PASS" | "FAIL" | null {
  const v = signed?.verdict;
  return v === "PASS" || v === "FAIL" ? v : null;
}

const RECORD_VERDICT: Record<VerdictState, OracleVerdictRecord["verdict"]> = {
  none: "ERROR",
  pass: "PASS",
  fail: "FAIL",
  unverified: "ERROR",
  error: "ERROR",
  pending: "PENDING",
};

/**
 * Build the Stop gate around the observer that turns the Stop payload into
 * the assistant message record.
 */
export function createStopGate(observe: HookHandler, stopInput: (ctx: HookContext) => StopInput | null): HookHandler {
  return async (ctx: HookContext): Promise<HookResult> => {
    const observed = await observe(ctx);
    const oracle = ctx.config.oracle;
    if (!oracle || ctx.config.errors.length > 0 || ctx.config.gate.enabled === false) return observed;
    // The harness adapter reads the payload; null means this Stop is not gated (a sub-agent's).
    const input = stopInput(ctx);
    if (!input) return observed;
    const sessionId = input.session_id;
    const started = performance.now();
    let state: GateState = { base_commit: null, next_attempt: 1, attempts_in_turn: 0, consecutive_blocks: 0 };
    try {
      state = gateStateOf(readSession(ctx.home, sessionId, GATE_RECORD_TYPES).records);
    } catch {
      // An unreadable store reads as a fresh session: attempts restart, never a wedge.
    }
    const common = {
      stop_hook_active: input.stop_hook_active,
      max_attempts: ctx.config.gate.max_attempts ?? DEFAULT_MAX_ATTEMPTS,
      on_error: oracle.on_error,
      consecutive_blocks: state.consecutive_blocks,
      block_cap: input.block_cap,
    };
    const task_id = taskIdFor(ctx.env, ctx.config.task_id);
    const extra: Record<string, unknown> = { task_id };
    let attempt = state.next_attempt;
    // A new request is one more attempt in this turn; so is an error on the way to one,
    // which keeps `on_error: "block"` bounded by max_attempts.
    let attempts = state.attempts_in_turn + 1;
    const askFirst = () => decide({ ...common, verdict: "none", attempts: state.attempts_in_turn });
    // Attempts used up and nothing pending: let the agent stop without even building the diff.
    if (!state.pending && askFirst().action !== "ask-oracle") return observed;
    let answer: Answer;

    try {
      answer = await (async (): Promise<Answer> => {
        if (!state.base_commit) return { state: "error", signed: null, problem: "the session has no base commit (no session_start record from inside a git repository)" };
        const cwd = input.cwd;
        if (!cwd) return { state: "error", signed: null, problem: "the Stop payload has no cwd" };

        const { diffAgainstBase } = await import("../git/diff.ts");
        const { findRepo } = await import("../git/repo.ts");
        const diff = await diffAgainstBase({ cwd, base: state.base_commit, maxBytes: ctx.config.caps.diff_bytes });
        // The diff engine hashed the full patch as it wrote it; when it is not cut that is exactly what is sent.
        const diffSha = diff.sha256;
        Object.assign(extra, { diff_sha256: diffSha, diff_bytes: diff.bytes, diff_files: diff.files });
        if (diff.cut) return { state: "error", signed: null, problem: `the diff (${diff.bytes} bytes) is over caps.diff_bytes; not sent` };

        const budget = () => Math.min(oracle.timeout_s * 1000, ctx.remainingMs() - STOP_MARGIN_MS);
        const { requestVerdict, pollVerdict } = await import("../oracle/client.ts");
        let result;
        if (state.pending && state.pending.diff_sha256 === diffSha) {
          // The job an earlier Stop left running judges exactly this diff: pick it up, same attempt.
          attempt = state.pending.attempt;
          attempts = state.attempts_in_turn;
          Object.assign(extra, { job_id: state.pending.job_id, submitted_at: state.pending.submitted_at });
          if (state.pending.polls >= MAX_PENDING_POLLS) {
            return { state: "error", signed: null, problem: `job still running after ${state.pending.polls} Stops` };
          }
          result = await pollVerdict(oracle.url, state.pending.job_id, budget());
        } else {
          // A pending job for a diff the agent has since changed is abandoned: its verdict would judge old code.
          if (askFirst().action !== "ask-oracle") throw new GateAllows();
          const repo = findRepo(cwd);
          const body = {
            task_id,
            session_id: sessionId,
            repo: await originOf(repo.commondir),
            base_commit: state.base_commit,
            diff: diff.patch,
            attempt,
          };
          Object.assign(extra, { submitted_at: ctx.now().toISOString() });
          result = await requestVerdict({ url: oracle.url, body, deadlineMs: budget() });
        }
        if (result.kind === "pending") return { state: "pending", signed: null, job_id: result.job_id };
        if (result.kind === "error") return { state: "error", signed: null, problem: result.message };
        const signed = typeof result.signed === "object" && result.signed !== null && !Array.isArray(result.signed)
          ? (result.signed as Record<string, unknown>)
          : null;
        const { verifyVerdict } = await import("../oracle/verdict.ts");
        const { readPublicKeyPem } = await import("../oracle/keys.ts");
        let pem: string;
        try {
          pem = readPublicKeyPem(oracle.public_key, ctx.config.path);
        } catch (e) {
          return { state: "unverified", signed, problem: `cannot read oracle.public_key: ${(e as Error).message}` };
        }
        const v = verifyVerdict(result.signed, pem, { task_id, session_id: sessionId, base_commit: state.base_commit, diff_sha256: diffSha, attempt });
        if (!v.verified) return { state: "unverified", signed, problem: v.problem };
        return { state: claimed(signed) === "PASS" ? "pass" : "fail", signed };
      })();
    } catch (e) {
      if (e instanceof GateAllows) return observed;
      answer = { state: "error", signed: null, problem: `gate error: ${(e as Error)?.message ?? String(e)}` };
    }

    const d: Decision = decide({ ...common, verdict: answer.state, attempts });
    const blocked = d.action === "block";
    const claimedVerdict = claimed(answer.signed);
    const record: OracleVerdictRecord = {
      id: newId(),
      type: "oracle_verdict",
      session_id: sessionId,
      harness: ctx.harness,
      ts: ctx.now().toISOString(),
      event: input.event,
      attempt,
      // An answer that did not verify keeps the verdict it claimed, beside verified: false.
      verdict: answer.state === "unverified" && claimedVerdict ? claimedVerdict : RECORD_VERDICT[answer.state],
      tests_hash: typeof answer.signed?.tests_hash === "string" ? answer.signed.tests_hash : null,
      signed: answer.signed,
      verified: answer.state === "pass" || answer.state === "fail",
      decision: blocked ? "block" : "allow",
      blocks_in_row: blocked ? blocksBefore(common) + 1 : 0,
      block_cap: common.block_cap,
      ...(d.outcome ? { outcome: d.outcome } : {}),
      ...extra,
      ...(answer.job_id ? { job_id: answer.job_id } : {}),
      ...(answer.problem ? { problem: answer.problem.slice(0, 1000) } : {}),
      ...(!blocked && d.reason ? { allow_reason: d.reason } : {}),
      elapsed_ms: Math.round(performance.now() - started),
    };
    const records: TraceRecord[] = [...observed.records, record];
    return blocked ? { records, decision: { decision: "block", reason: BLOCK_REASON } } : { records };
  };
}

/** Control flow for "the gate lets the agent stop without asking". */
class GateAllows extends Error {
  constructor() {
    super("gate allows without asking");
  }
}
