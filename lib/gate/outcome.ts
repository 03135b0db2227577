/**
 * What a session file says about the gate: the state the next Stop starts
 * from, and the session's outcome. `analyzeSession` is the one function that
 * computes an outcome: from signatures that verify under the configured
 * public key, every stated field equal to the signed payload, the signed
 * session being this one, no signature used twice, and the hash chain intact
 * up to the head each verdict signed. Stored flags (`verified`, `outcome`)
 * never make a flip. SessionEnd, the Stop handler, `sessions`, `show`,
 * `verify` (and later `export`) all call it, so they derive the same answer,
 * including when SessionEnd never fired.
 *
 * The Stop handler writes these fields on every `oracle_verdict` record
 * (beyond the schema's required ones) and this module reads them back:
 * `decision` ("block" | "allow"), `blocks_in_row` (this block included),
 * `block_cap`, `outcome` (when this Stop ended the session's gating),
 * `job_id` and `submitted_at` (a pending job), `diff_sha256`.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * import { analyzeSession } from "./outcome.ts";
 * analyzeSession(readFileSync(file), { file, publicKey }).outcome; // "flip" | "no_flip" | ...
 * ```
 */
import { basename } from "node:path";
import { checkSignature } from "../oracle/verdict.ts";
import { chainStart, lineHash, prevOf, splitLines } from "../trace/chain.ts";
import type { TraceRecord } from "../trace/record.ts";
import { readSessionBytes, sessionFileName, sessionPath } from "../trace/store.ts";
import type { Config } from "../config/load.ts";

/**
 * Every outcome a session can have; the session_end schema's enum is pinned
 * to this list by a test.
 * - `no_oracle`: no verdict was ever recorded (no oracle configured, or never asked);
 * - `flip`: the last verdict is a PASS whose signature verifies under the
 *   configured key and whose every stated field, session and chain check out;
 * - `no_flip`: the gate gave up, errors, a verified FAIL, an interrupted session;
 * - `cap`: the last verdict was a block that Claude Code's consecutive-block cap overrode;
 * - `unverified`: a verdict that does not verify (edited, forged, replayed,
 *   a broken chain before it) or no public key to check it with.
 */
export const OUTCOMES = ["flip", "no_flip", "cap", "no_oracle", "unverified"] as const;

/** A session's outcome: the one type for SessionEnd records, `sessions`, `show` and the gate. */
export type Outcome = (typeof OUTCOMES)[number];

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

/** A job an earlier Stop submitted and found still running. */
export interface PendingJob {
  readonly job_id: string;
  readonly attempt: number;
  readonly diff_sha256: string | null;
  /** ISO time the job was first submitted. */
  readonly submitted_at: string | null;
  /** Stops that have already found this job still running (bounds the provisional blocks). */
  readonly polls: number;
  /** The chain head sent with the job: the verdict signs that one, not the head at pick-up. */
  readonly chain_head: string | null;
}

/** What the session's records say the next Stop starts from. */
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
  // Only counters come from stored fields: they bound how often the gate asks, never what a session is worth.
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
        chain_head: typeof last.chain_head === "string" ? last.chain_head : null,
      },
    };
  }
  return state;
}

/** One finding in a session file: 1-based line, what is wrong. */
export interface LineFinding {
  readonly line: number;
  readonly problem: string;
}

/** Everything `analyzeSession` found in one session file. */
export interface SessionAnalysis {
  /** The session the file belongs to (given, or the first record's). */
  readonly session_id: string | null;
  /** Parsed records (only `types` when given) and the line of each. */
  readonly records: TraceRecord[];
  readonly lines: number[];
  /** Lines that are not JSON objects: torn fragments a killed writer left, or edits. */
  readonly corrupt: readonly LineFinding[];
  /** Tampering and unverifiable verdicts; `verify` exits non-zero on any. */
  readonly problems: readonly LineFinding[];
  /** Worth saying but not wrong (records after the last verdict are not covered by it). */
  readonly notes: readonly LineFinding[];
  readonly outcome: Outcome;
  /** Lines of the PASS/FAIL verdicts that count: signature, fields, session, replay and chain all check out. */
  readonly verified_lines: readonly number[];
  /** The chain head a Stop sends now: the hash of the last line, or the start value of an empty file. */
  readonly head: string;
  /** Lines in the file (a torn tail fragment counts). */
  readonly line_count: number;
}

/** What `analyzeSession` checks a file against. */
export interface AnalyzeOptions {
  /** The session file's path: its name must be the session id's file name. */
  readonly file: string;
  /** The oracle's public key (PEM). Null: every verdict is unverified, never a flip. */
  readonly publicKey: string | null;
  /** The session this file must be; default the first record's `session_id`. */
  readonly sessionId?: string;
  /** Signatures already seen (signature -> "file:line"), shared across files to catch replays between sessions. */
  readonly seen?: Map<string, string>;
  /** Parse only these record types (the chain is still checked over every line). */
  readonly types?: readonly string[];
}

/** Fields a verdict record may state; each one it states must equal the signed payload's. */
const STATED_FIELDS = ["verdict", "attempt", "task_id", "session_id", "base_commit", "diff_sha256", "tests_hash", "chain_head"] as const;
/** Of those, the ones a PASS/FAIL record must state. */
const REQUIRED_FIELDS = new Set(["verdict", "attempt", "session_id", "tests_hash"]);

function capOf(r: Rec): boolean {
  if (r.outcome === "cap") return true;
  // Records that predate the `outcome` field: recompute from the counts they carry.
  return (
    r.decision === "block" &&
    typeof r.block_cap === "number" &&
    typeof r.blocks_in_row === "number" &&
    r.block_cap > 0 &&
    r.blocks_in_row > r.block_cap
  );
}

interface Chain {
  readonly hashes: string[];
  /** 1-based lines whose link does not match the line before. */
  readonly breaks: number[];
  /** Of those, the lines with no link at all (written before chaining, or not by the store). */
  readonly unlinked: number[];
  readonly start: string;
  /** hash -> first 1-based line with it. */
  readonly lineOf: Map<string, number>;
}

function chainOf(lines: readonly Uint8Array[], sessionId: string): Chain {
  const start = chainStart(sessionId);
  const hashes: string[] = [];
  const breaks: number[] = [];
  const unlinked: number[] = [];
  const lineOf = new Map<string, number>();
  let prev = start;
  lines.forEach((l, i) => {
    const link = prevOf(l);
    if (link !== prev) breaks.push(i + 1);
    if (link === null) unlinked.push(i + 1);
    const h = lineHash(l);
    hashes.push(h);
    if (!lineOf.has(h)) lineOf.set(h, i + 1);
    prev = h;
  });
  return { hashes, breaks, unlinked, start, lineOf };
}

/**
 * Analyse one session file: parse it, check its chain and every verdict, and
 * compute the outcome. Pure: bytes and a key in, findings out.
 *
 * @example
 * ```ts
 * const a = analyzeSession(new TextEncoder().encode(text), { file: path, publicKey: pem });
 * a.outcome;  // "flip" only for a PASS that verifies in every respect
 * a.problems; // [{ line: 7, problem: "verdict field verdict \"PASS\" is not the signed \"FAIL\"" }]
 * ```
 */
export function analyzeSession(bytes: Uint8Array, opts: AnalyzeOptions): SessionAnalysis {
  const all = splitLines(bytes);
  const tail = all.pop()!;
  if (tail.length > 0) all.push(tail);
  const needles = opts.types?.map((t) => Buffer.from(`"type":${JSON.stringify(t)}`, "utf8"));
  const records: TraceRecord[] = [];
  const recordLines: number[] = [];
  const corrupt: LineFinding[] = [];
  const problems: LineFinding[] = [];
  const notes: LineFinding[] = [];
  all.forEach((l, i) => {
    if (needles && !needles.some((n) => Buffer.from(l.buffer, l.byteOffset, l.byteLength).includes(n))) return;
    try {
      const v = JSON.parse(Buffer.from(l.buffer, l.byteOffset, l.byteLength).toString("utf8"));
      if (!isRec(v)) throw new Error("not a JSON object");
      if (opts.types && !opts.types.includes(v.type as string)) return;
      records.push(v as unknown as TraceRecord);
      recordLines.push(i + 1);
    } catch (e) {
      const torn = i === all.length - 1 && tail.length > 0;
      corrupt.push({ line: i + 1, problem: torn ? "torn fragment at the end of the file (a write was cut off)" : `corrupt line: ${e instanceof Error ? e.message.slice(0, 200) : "unreadable"}` });
    }
  });
  const sessionId = opts.sessionId ?? (typeof records[0]?.session_id === "string" ? records[0].session_id : null);
  const chain = chainOf(all, sessionId ?? "");
  const head = chain.hashes.at(-1) ?? chain.start;
  if (sessionId !== null && opts.file.endsWith(".jsonl") && basename(opts.file) !== sessionFileName(sessionId)) {
    problems.push({ line: recordLines[0] ?? 1, problem: `the file is named ${basename(opts.file)} but holds session ${JSON.stringify(sessionId)} (whose file is ${sessionFileName(sessionId)})` });
  }
  if (chain.breaks.length) {
    const first = chain.breaks[0]!;
    const more = chain.breaks.length - 1;
    const why = chain.unlinked.includes(first)
      ? "this line carries no prev_sha256 link (written before records were chained, or not by tracegate's store)"
      : "this line does not link to the line before it (a record was edited, removed, reordered or inserted)";
    problems.push({ line: first, problem: `hash chain broken: ${why}${more ? `; ${more} more breaks after it` : ""}` });
  }

  // Signatures used more than once in this file, or already seen elsewhere.
  const sigLines = new Map<string, number[]>();
  records.forEach((r, i) => {
    const sig = isRec((r as Rec).signed) ? ((r as Rec).signed as Rec).signature : undefined;
    if (typeof sig === "string") sigLines.set(sig, [...(sigLines.get(sig) ?? []), recordLines[i]!]);
  });

  let lastVerdict: { rec: Rec; line: number; ok: boolean } | undefined;
  let lastCovered = 0;
  let anyBad = false;
  const verifiedLines: number[] = [];
  records.forEach((rr, i) => {
    const r = rr as unknown as Rec;
    if (!isVerdict(r)) return;
    const line = recordLines[i]!;
    const bad = (problem: string): void => {
      // A record the gate itself wrote as unverified is history, not tampering.
      if (r.verified === false && r.verdict !== "ERROR" && r.verdict !== "PENDING") notes.push({ line, problem: `the oracle's answer did not verify when recorded: ${problem}` });
      else {
        problems.push({ line, problem });
        anyBad = true;
      }
    };
    if (r.verdict !== "PASS" && r.verdict !== "FAIL") {
      if (r.verified === true || (r.signed !== null && r.signed !== undefined)) bad(`a ${String(r.verdict)} verdict record claims a signature or verified: true`);
      lastVerdict = { rec: r, line, ok: true };
      return;
    }
    const why = verdictProblem(r, line, opts, sessionId, chain, sigLines);
    if (why) bad(why);
    else {
      lastCovered = Math.max(lastCovered, line);
      verifiedLines.push(line);
    }
    if (!why && typeof (r.signed as Rec).signature === "string") opts.seen?.set((r.signed as Rec).signature as string, `${opts.file}:${line}`);
    lastVerdict = { rec: r, line, ok: !why };
  });

  let outcome: Outcome;
  if (!lastVerdict) outcome = "no_oracle";
  else if (!opts.publicKey || anyBad || !lastVerdict.ok) outcome = "unverified";
  else if (lastVerdict.rec.verdict === "PASS") outcome = "flip";
  else outcome = capOf(lastVerdict.rec) ? "cap" : "no_flip";

  if (lastCovered > 0 && lastCovered < all.length) {
    const span = lastCovered + 1 === all.length ? `line ${all.length} comes` : `lines ${lastCovered + 1}-${all.length} come`;
    notes.push({ line: lastCovered + 1, problem: `${span} after the last signed verdict: not covered by a verdict` });
  }
  return { session_id: sessionId, records, lines: recordLines, corrupt, problems, notes, outcome, verified_lines: verifiedLines, head, line_count: all.length };
}

/**
 * The part of a PASS/FAIL verdict record's check that needs only the record:
 * the signature verifies under the key, every field the record states equals
 * the signed one, and it was signed for `sessionId`. Replays and the hash
 * chain need the whole file: `analyzeSession` adds them. Null when it holds.
 *
 * @example
 * ```ts
 * verdictRecordProblem(record, publicPem, "sess-1"); // null, or why it does not count
 * ```
 */
export function verdictRecordProblem(r: Readonly<Record<string, unknown>>, publicKey: string | null, sessionId: string | null): string | null {
  if (!publicKey) return "cannot check this verdict's signature: no oracle public key is configured";
  const sig = checkSignature(r.signed, publicKey);
  if (!sig.verified) return `verdict signature: ${sig.problem}`;
  const s = r.signed as Rec;
  for (const f of STATED_FIELDS) {
    if (!(f in r)) {
      if (REQUIRED_FIELDS.has(f)) return `verdict record does not state ${f}`;
      continue;
    }
    if (r[f] !== s[f]) return `verdict record's ${f} ${JSON.stringify(r[f])} is not the signed ${JSON.stringify(s[f])}`;
  }
  if (s.session_id !== sessionId) return `verdict was signed for session ${JSON.stringify(s.session_id)}, not this session ${JSON.stringify(sessionId)}`;
  return null;
}

/**
 * verdictRecordProblem for a stored verdict record on its own: checked for
 * the session it names, and a record that holds no signed verdict fails.
 *
 * @example
 * ```ts
 * storedVerdictProblem({ type: "oracle_verdict", verdict: "PASS", signed: null }, publicPem); // "the record holds no signed verdict"
 * ```
 */
export function storedVerdictProblem(r: Readonly<Record<string, unknown>>, publicKey: string | null): string | null {
  if (!r.signed) return "the record holds no signed verdict";
  return verdictRecordProblem(r, publicKey, typeof r.session_id === "string" ? r.session_id : null);
}

/** Why a PASS/FAIL verdict record does not count, or null when it does. */
function verdictProblem(
  r: Rec,
  line: number,
  opts: AnalyzeOptions,
  sessionId: string | null,
  chain: Chain,
  sigLines: Map<string, number[]>,
): string | null {
  const own = verdictRecordProblem(r, opts.publicKey, sessionId);
  if (own) return own;
  const s = r.signed as Rec;
  const uses = sigLines.get(s.signature as string) ?? [];
  if (uses.length > 1) return `replay: the same signed verdict appears on lines ${uses.join(", ")}`;
  const elsewhere = opts.seen?.get(s.signature as string);
  if (elsewhere && elsewhere !== `${opts.file}:${line}`) return `replay: the same signed verdict is already at ${elsewhere}`;
  const head = s.chain_head as string;
  const k = head === chain.start ? 0 : chain.lineOf.get(head);
  const brokenBefore = chain.breaks.find((b) => b <= (k ?? line - 1));
  if (k === undefined || k >= line) {
    return `the chain head this verdict signed matches no earlier line: a record before it was edited, removed, reordered or inserted${brokenBefore ? ` (first break at line ${brokenBefore})` : ""}`;
  }
  if (brokenBefore !== undefined) return `the hash chain is broken at line ${brokenBefore}, before this signed verdict`;
  return null;
}

/**
 * A stored session's outcome under the configured public key: what SessionEnd
 * records. Never throws; an unreadable key or store reads as `unverified`
 * when the session has verdicts (the analysis decides), `no_oracle` when the
 * file cannot be read at all.
 *
 * @example
 * ```ts
 * await sessionOutcome(home, "sess-1", config); // "flip" | "no_flip" | "cap" | "no_oracle" | "unverified"
 * ```
 */
export async function sessionOutcome(home: string, sessionId: string, config: Pick<Config, "oracle" | "path">): Promise<Outcome> {
  let pem: string | null = null;
  try {
    if (config.oracle) pem = (await import("../oracle/keys.ts")).readPublicKeyPem(config.oracle.public_key, config.path);
  } catch {
    pem = null;
  }
  try {
    const bytes = readSessionBytes(home, sessionId);
    if (!bytes) return "no_oracle";
    return analyzeSession(bytes, { file: sessionPath(home, sessionId), publicKey: pem, sessionId, types: GATE_RECORD_TYPES }).outcome;
  } catch {
    return "no_oracle";
  }
}
