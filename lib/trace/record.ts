/**
 * Neutral trace records: one JSON object per line in a session's store file.
 * Every record carries `id`, `type`, `session_id`, `harness`, `ts`; the rest
 * depends on the type. Anything a harness sent that has no named field is
 * kept under `extra` so new harness fields are never dropped.
 */
import type { Outcome } from "../gate/outcome.ts";

/** A string field that was longer than the cap: its head plus the full value's digest. */
export interface CutString {
  readonly cut: true;
  readonly head: string;
  /** sha256 (hex) of the full, redacted value. */
  readonly sha256: string;
  /** UTF-8 byte length of the full, redacted value. */
  readonly bytes: number;
}

export type MaybeCut = string | CutString;

interface Base {
  readonly id: string;
  readonly session_id: string;
  readonly harness: string;
  readonly ts: string;
  /** The harness's own event name, as received. */
  readonly event?: string;
  readonly agent_id?: string;
  readonly agent_type?: string;
  readonly extra?: Readonly<Record<string, unknown>>;
}

export interface SessionStartRecord extends Base {
  readonly type: "session_start";
  readonly cwd: MaybeCut | null;
  readonly base_commit: string | null;
  readonly model?: MaybeCut;
  readonly source?: MaybeCut;
}

export interface MessageRecord extends Base {
  readonly type: "message";
  readonly role: "user" | "assistant";
  readonly text: MaybeCut | null;
}

export interface ToolCallRecord extends Base {
  readonly type: "tool_call";
  readonly tool_name: MaybeCut | null;
  readonly tool_use_id: MaybeCut | null;
  readonly input: unknown;
  readonly output: unknown;
  readonly duration_ms: number | null;
  readonly status: "ok" | "error";
  readonly error?: MaybeCut;
}

export interface OracleVerdictRecord extends Base {
  readonly type: "oracle_verdict";
  readonly attempt: number;
  readonly verdict: "PASS" | "FAIL" | "ERROR" | "PENDING";
  readonly tests_hash: string | null;
  readonly signed: unknown;
  readonly verified: boolean;
  readonly [k: string]: unknown;
}

export interface SessionEndRecord extends Base {
  readonly type: "session_end";
  readonly reason: MaybeCut | null;
  readonly outcome: Outcome;
}

/** Events with no dedicated shape (PreToolUse, Notification, ...) keep their payload whole. */
export interface EventRecord extends Base {
  readonly type:
    | "pre_tool_use"
    | "notification"
    | "pre_compact"
    | "subagent_stop"
    | "event";
  readonly payload: unknown;
}

/** A payload that could not be parsed or was cut at the stdin cap. */
export interface PayloadCutRecord extends Base {
  readonly type: "payload_cut";
  readonly bytes: number;
  /**
   * HMAC-SHA256 (hex), under the data dir's `redact.key`, of the sha256 hex of
   * every byte received: the same payload gives the same value within a data
   * dir, and a guess at a secret in it cannot be tested without the key.
   */
  readonly keyed_sha256: string;
  readonly head: MaybeCut;
}

/**
 * A correction (`tracegate annotate`): records are never edited, so a note on
 * a session or one of its records, or an exclusion from training sets, is a
 * new record that points at the old one by id (no `record_id`: the session).
 */
export interface AnnotationRecord extends Base {
  readonly type: "annotation";
  readonly record_id?: string;
  readonly exclude?: true;
  readonly note?: MaybeCut;
}

export type TraceRecord =
  | SessionStartRecord
  | AnnotationRecord
  | MessageRecord
  | ToolCallRecord
  | OracleVerdictRecord
  | SessionEndRecord
  | EventRecord
  | PayloadCutRecord;

export type RecordType = TraceRecord["type"];

/** Fields tracegate writes itself: identifiers, never redacted, cut or shrunk. */
export const HEADER_FIELDS: ReadonlySet<string> = new Set(["id", "type", "session_id", "harness", "ts", "event"]);

/**
 * Fields of an `oracle_verdict` record that are cryptographic evidence: the
 * oracle's signed answer and the digests it binds (written by the gate from
 * the oracle's response and tracegate's own hashes, never from a payload).
 * Redaction must not touch them: an Ed25519 signature is exactly the kind of
 * high-entropy string the redactor removes, and a redacted signature is a
 * verdict nobody can verify.
 */
export const VERDICT_EVIDENCE_FIELDS: ReadonlySet<string> = new Set(["signed", "chain_head", "diff_sha256", "tests_hash", "base_commit"]);
