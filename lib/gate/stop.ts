/**
 * The Stop gate: the handler around the pure `decide`, in three steps.
 *
 * 1. gather: the session's gate state and chain head (from `analyzeSession`,
 *    the one outcome function), the policy, the task id. No network.
 * 2. ask: the diff against the base commit, the oracle's answer and its
 *    verification; every failure is a value (`Answer`), never an exception.
 * 3. record: the `oracle_verdict` record and, on a block, the decision the
 *    runtime prints before it writes any record.
 *
 * Without a usable oracle config it is the observer: the assistant message
 * record and nothing else. It never throws: anything unexpected becomes an
 * `ERROR` verdict record, decided by `oracle.on_error`.
 *
 * Records it writes, beyond the schema's required fields (`attempt`,
 * `verdict`, `tests_hash`, `signed`, `verified`): `decision`,
 * `blocks_in_row`, `block_cap`, `outcome` (when this Stop ends the gating),
 * `task_id`, `base_commit`, `chain_head`, `diff_sha256`, `diff_bytes`,
 * `diff_files`, `job_id` and `submitted_at` (pending), `problem` (why it is
 * not a verified verdict), `elapsed_ms`. `lib/gate/outcome.ts` reads them back
 * and checks every one the signature covers against the signed payload.
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
import type { OracleConfig } from "../config/load.ts";
import type { HookContext, HookHandler, HookResult } from "../hook/types.ts";
import type { OracleVerdictRecord, TraceRecord } from "../trace/record.ts";
import { newId } from "../trace/digest.ts";
import { readSessionBytes, sessionPath } from "../trace/store.ts";
import { blockCapFrom, blocksBefore, decide, BLOCK_REASON, type DecideInput, type Decision, type VerdictState } from "./decide.ts";
import { analyzeSession, GATE_RECORD_TYPES, gateStateOf, type GateState } from "./outcome.ts";

/** Task id when neither TRACEGATE_TASK_ID nor the config's `task_id` names one. */
export const DEFAULT_TASK_ID = "default";

/** Time kept back from the Stop cap for printing the decision, writing records and exiting. */
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

/** What step 1 found: everything the ask and the record need, read once. */
interface Gathered {
  readonly oracle: OracleConfig;
  readonly sessionId: string;
  readonly cwd: string | null;
  readonly task_id: string;
  readonly state: GateState;
  /** The session file's chain head, sent to the oracle and signed back. */
  readonly head: string;
  /** The configured public key (PEM), or why it could not be read. */
  readonly key: { readonly pem: string } | { readonly problem: string };
  /** Everything `decide` needs but the verdict and the attempt count. */
  readonly policy: Omit<DecideInput, "verdict" | "attempts">;
}

/** What step 2 produced. */
interface Answer {
  readonly state: VerdictState;
  readonly signed: Record<string, unknown> | null;
  /** The attempt number this answer belongs to, and the attempts in the turn counting it. */
  readonly attempt: number;
  readonly attempts: number;
  readonly problem?: string;
  readonly job_id?: string;
  /** Facts for the record (diff size and hash, submission time, job id). */
  readonly facts: Readonly<Record<string, unknown>>;
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

/** Step 1. Null when the gate has nothing to do (no oracle, a broken user config, no session id). */
async function gather(ctx: HookContext): Promise<Gathered | null> {
  const oracle = ctx.config.oracle;
  if (!oracle || ctx.config.errors.length > 0 || ctx.config.gate.enabled === false) return null;
  const p = (ctx.payload ?? {}) as Record<string, unknown>;
  const sessionId = typeof p.session_id === "string" && p.session_id.length > 0 ? p.session_id : null;
  if (!sessionId) return null;
  let key: Gathered["key"];
  try {
    const { readPublicKeyPem } = await import("../oracle/keys.ts");
    key = { pem: readPublicKeyPem(oracle.public_key, ctx.config.path) };
  } catch (e) {
    key = { problem: `cannot read oracle.public_key: ${(e as Error).message}` };
  }
  let state: GateState = { base_commit: null, next_attempt: 1, attempts_in_turn: 0, consecutive_blocks: 0 };
  let head: string;
  try {
    const a = analyzeSession(readSessionBytes(ctx.home, sessionId) ?? new Uint8Array(), {
      file: sessionPath(ctx.home, sessionId),
      publicKey: "pem" in key ? key.pem : null,
      sessionId,
      types: GATE_RECORD_TYPES,
    });
    state = gateStateOf(a.records);
    head = a.head;
  } catch {
    // An unreadable store reads as a fresh session: attempts restart, never a wedge.
    const { chainStart } = await import("../trace/chain.ts");
    head = chainStart(sessionId);
  }
  return {
    oracle,
    sessionId,
    cwd: typeof p.cwd === "string" ? p.cwd : null,
    task_id: taskIdFor(ctx.env, ctx.config.task_id),
    state,
    head,
    key,
    policy: {
      stop_hook_active: p.stop_hook_active === true,
      max_attempts: ctx.config.gate.max_attempts,
      on_error: oracle.on_error,
      consecutive_blocks: state.consecutive_blocks,
      block_cap: blockCapFrom(ctx.env),
    },
  };
}

/** Whether the gate may ask the oracle again in this turn at all. */
function mayAsk(g: Gathered): boolean {
  return decide({ ...g.policy, verdict: "none", attempts: g.state.attempts_in_turn }).action === "ask-oracle";
}

/**
 * Step 2: build the diff, ask (or pick up the pending job), verify. Returns
 * null when the gate lets the agent stop without asking (attempts used up).
 */
async function ask(ctx: HookContext, g: Gathered): Promise<Answer | null> {
  const { state } = g;
  // A new request is one more attempt in this turn; so is an error on the way to one,
  // which keeps `on_error: "block"` bounded by max_attempts.
  const fresh = { attempt: state.next_attempt, attempts: state.attempts_in_turn + 1 };
  const facts: Record<string, unknown> = {};
  const fail = (at: { attempt: number; attempts: number }, problem: string): Answer => ({ state: "error", signed: null, ...at, problem, facts });
  try {
    if (!state.base_commit) return fail(fresh, "the session has no base commit (no session_start record from inside a git repository)");
    if (!g.cwd) return fail(fresh, "the Stop payload has no cwd");
    const { diffAgainstBase } = await import("../git/diff.ts");
    const diff = await diffAgainstBase({ cwd: g.cwd, base: state.base_commit, maxBytes: ctx.config.caps.diff_bytes });
    // The diff engine hashed the full patch as it wrote it; when it is not cut that is exactly what is sent.
    Object.assign(facts, { diff_sha256: diff.sha256, diff_bytes: diff.bytes, diff_files: diff.files });
    const pickUp = state.pending && state.pending.diff_sha256 === diff.sha256 ? state.pending : null;
    // A pending job for a diff the agent has since changed is abandoned: its verdict would judge old code.
    if (!pickUp && !mayAsk(g)) return null;
    const at = pickUp ? { attempt: pickUp.attempt, attempts: state.attempts_in_turn } : fresh;
    // A picked-up job was sent (and is signed) with the head of its own Stop.
    const head = pickUp?.chain_head ?? g.head;
    facts.chain_head = head;
    if (diff.cut) return fail(at, `the diff (${diff.bytes} bytes) is over caps.diff_bytes; not sent`);

    const budget = () => Math.min(g.oracle.timeout_s * 1000, ctx.remainingMs() - STOP_MARGIN_MS);
    const { requestVerdict, pollVerdict } = await import("../oracle/client.ts");
    let result;
    if (pickUp) {
      // The job an earlier Stop left running judges exactly this diff: pick it up, same attempt.
      Object.assign(facts, { job_id: pickUp.job_id, submitted_at: pickUp.submitted_at });
      if (pickUp.polls >= MAX_PENDING_POLLS) return fail(at, `job still running after ${pickUp.polls} Stops`);
      result = await pollVerdict(g.oracle.url, pickUp.job_id, budget(), { token: g.oracle.token });
    } else {
      const { findRepo } = await import("../git/repo.ts");
      const body = {
        task_id: g.task_id,
        session_id: g.sessionId,
        repo: await originOf(findRepo(g.cwd).commondir),
        base_commit: state.base_commit,
        diff: diff.patch,
        chain_head: head,
        attempt: at.attempt,
      };
      Object.assign(facts, { submitted_at: ctx.now().toISOString() });
      result = await requestVerdict({ url: g.oracle.url, token: g.oracle.token, body, deadlineMs: budget() });
    }
    if (result.kind === "pending") return { state: "pending", signed: null, ...at, job_id: result.job_id, facts };
    if (result.kind === "error") return fail(at, result.message);
    const signed = typeof result.signed === "object" && result.signed !== null && !Array.isArray(result.signed)
      ? (result.signed as Record<string, unknown>)
      : null;
    if (!("pem" in g.key)) return { state: "unverified", signed, ...at, problem: g.key.problem, facts };
    const { verifyVerdict } = await import("../oracle/verdict.ts");
    const v = verifyVerdict(result.signed, g.key.pem, {
      task_id: g.task_id,
      session_id: g.sessionId,
      base_commit: state.base_commit,
      diff_sha256: diff.sha256,
      chain_head: head,
      attempt: at.attempt,
    });
    if (!v.verified) return { state: "unverified", signed, ...at, problem: v.problem, facts };
    return { state: claimed(signed) === "PASS" ? "pass" : "fail", signed, ...at, facts };
  } catch (e) {
    return fail(fresh, `gate error: ${(e as Error)?.message ?? String(e)}`);
  }
}

/** Step 3: the record of this Stop's answer and decision. */
function verdictRecord(ctx: HookContext, g: Gathered, a: Answer, d: Decision, elapsedMs: number): OracleVerdictRecord {
  const blocked = d.action === "block";
  const claimedVerdict = claimed(a.signed);
  return {
    id: newId(),
    type: "oracle_verdict",
    session_id: g.sessionId,
    harness: ctx.harness,
    ts: ctx.now().toISOString(),
    event: "Stop",
    attempt: a.attempt,
    // An answer that did not verify keeps the verdict it claimed, beside verified: false.
    verdict: a.state === "unverified" && claimedVerdict ? claimedVerdict : RECORD_VERDICT[a.state],
    tests_hash: typeof a.signed?.tests_hash === "string" ? a.signed.tests_hash : null,
    signed: a.signed,
    verified: a.state === "pass" || a.state === "fail",
    decision: blocked ? "block" : "allow",
    blocks_in_row: blocked ? blocksBefore(g.policy) + 1 : 0,
    block_cap: g.policy.block_cap,
    ...(d.outcome ? { outcome: d.outcome } : {}),
    task_id: g.task_id,
    ...(g.state.base_commit ? { base_commit: g.state.base_commit } : {}),
    chain_head: g.head,
    ...a.facts,
    ...(a.job_id ? { job_id: a.job_id } : {}),
    ...(a.problem ? { problem: a.problem.slice(0, 1000) } : {}),
    ...(!blocked && d.reason ? { allow_reason: d.reason } : {}),
    elapsed_ms: elapsedMs,
  };
}

/**
 * Build the Stop gate around the observer that turns the Stop payload into
 * the assistant message record.
 */
export function createStopGate(observe: HookHandler): HookHandler {
  return async (ctx: HookContext): Promise<HookResult> => {
    const started = performance.now();
    const observed = await observe(ctx);
    const g = await gather(ctx);
    // Attempts used up and nothing pending: let the agent stop without even building the diff.
    if (!g || (!g.state.pending && !mayAsk(g))) return observed;
    const a = await ask(ctx, g);
    if (!a) return observed;
    const d = decide({ ...g.policy, verdict: a.state, attempts: a.attempts });
    const records: TraceRecord[] = [...observed.records, verdictRecord(ctx, g, a, d, Math.round(performance.now() - started))];
    return d.action === "block" ? { records, decision: { decision: "block", reason: BLOCK_REASON } } : { records };
  };
}
