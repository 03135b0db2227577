import type { TraceRecord } from "../trace/record.ts";
import type { Config } from "../config/load.ts";

/** What the runtime hands a handler: the parsed event and the facts it may need. */
export interface HookContext {
  /** Hook subcommand name, e.g. `post-tool-use`. */
  readonly hook: string;
  /** Name of the harness adapter serving this hook (resolved by the handlers, never by the runtime). */
  readonly harness: string;
  /** The parsed stdin payload; never trusted to have any particular shape. */
  readonly payload: unknown;
  /** The data dir (TRACEGATE_HOME resolved). */
  readonly home: string;
  /** Loaded config; `config.errors` lists problems (the hook then collects without gating). */
  readonly config: Config;
  /** Environment, for handlers that read documented variables (e.g. TRACEGATE_TASK_ID). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Arguments after the subcommand name, less `--harness` (e.g. `--observe`). */
  readonly args: readonly string[];
  /** Milliseconds left before the hard deadline. */
  remainingMs(): number;
  /** Wall clock; a function so tests and handlers agree on one source. */
  now(): Date;
}

/**
 * What a handler returns. Observers return records only; the Stop gate may add
 * a decision, which the runtime prints as the single stdout write.
 */
export interface HookResult {
  readonly records: readonly TraceRecord[];
  /** Already in the harness's own output shape; printed as the one stdout line. */
  readonly decision?: Readonly<Record<string, unknown>>;
}

export type HookHandler = (ctx: HookContext) => Promise<HookResult>;

/** A payload the runtime could not parse: what it received, for the record it leaves. */
export interface UnparsedInput {
  /** Bytes received on stdin (all of them, counted past the cap). */
  readonly bytes: number;
  /** HMAC-SHA256 (hex), under the data dir's redaction key, of the sha256 hex of every byte received. */
  readonly keyed_sha256: string;
  /** The first bytes, decoded. */
  readonly head: string;
  /** Wall-clock time as an ISO string. */
  readonly ts: string;
  /** Why it is kept only as a head (e.g. over the stdin cap, not JSON), when the runtime says. */
  readonly reason?: string;
  /** More neutral fields for the record. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * What the handlers give the runtime for one hook subcommand: the handler,
 * the record for a payload that did not parse, and the harness's name. The
 * runtime learns no harness from it, only an opaque name for the context.
 */
export interface HookBinding {
  readonly harness: string;
  /** The payload keys that may hold the session id (for the runtime to treat as identity fields). */
  readonly sessionKeys: readonly string[];
  readonly handle: HookHandler;
  unparsed(input: UnparsedInput): TraceRecord;
}

/** How the runtime asks the handlers for a binding. `harness` is the `--harness` value, if any. */
export type HookResolver = (hook: string, args: readonly string[], harness: string | null) => Promise<HookBinding>;
