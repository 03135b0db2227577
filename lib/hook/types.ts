import type { TraceRecord } from "../trace/record.ts";
import type { Config } from "../config/load.ts";

/** What the runtime hands a handler: the parsed event and the facts it may need. */
export interface HookContext {
  /** Hook subcommand name, e.g. `post-tool-use`. */
  readonly hook: string;
  /** Harness that fired the hook (`claude` unless `--harness` says otherwise). */
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
  readonly decision?: { readonly decision: "block"; readonly reason: string };
}

export type HookHandler = (ctx: HookContext) => Promise<HookResult>;
