/**
 * What the Stop gate needs from a Stop event, in neutral terms. Each harness
 * adapter reads it out of its own payload (`HarnessAdapter.stopInput`); the
 * gate never sees a payload field or a harness name.
 */
export interface StopInput {
  readonly session_id: string;
  readonly cwd: string | null;
  /** The harness says it is already continuing because of a Stop hook. */
  readonly stop_hook_active: boolean;
  /** Consecutive blocks after which the harness overrides the hook; 0 = the harness has no cap. */
  readonly block_cap: number;
  /** The harness's own name for its Stop event, for the verdict record. */
  readonly event: string;
}
