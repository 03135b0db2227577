/**
 * Which sessions go into a training set, and why the others do not: a pure
 * function of what the one outcome function (`analyzeSession` in
 * lib/gate/outcome.ts) found in the session's file.
 *
 * Reasons, in the order they are reported (the first that applies is the
 * session's reason; all that apply are listed):
 * - `unverified verdict`: a PASS or FAIL record whose signature does not
 *   verify, or whose fields differ from what was signed. Flagged loudly: a
 *   host wrote its own PASS, or the key is wrong.
 * - `corrupt lines`: lines that do not parse (a torn write, an edit).
 * - `excluded by annotation`: `tracegate annotate SESSION --exclude`.
 * - `no verdict`: the oracle was never asked.
 * - `not flipped`: verdicts that verify, but the last is not a PASS.
 *
 * @example
 * ```ts
 * import { selectionOf } from "./select.ts";
 * selectionOf({ outcome: "flip", corrupt_lines: 0, excluded: false }, "flip").reasons; // []
 * ```
 */

export type ExclusionReason =
  | "unverified verdict"
  | "corrupt lines"
  | "excluded by annotation"
  | "no verdict"
  | "not flipped";

export interface SessionFacts {
  /**
   * The session's outcome from the one outcome function (`analyzeSession`:
   * signatures, stated fields, session, replays and the hash chain).
   * `unverified` means a verdict did not verify.
   */
  readonly outcome: string;
  /** Lines that do not parse, plus chain breaks that no verdict covers (a record edited after the last one). */
  readonly corrupt_lines: number;
  readonly excluded: boolean;
}

export interface Selection {
  readonly selected: boolean;
  /** Every reason that applies, most serious first; empty when selected by `flip`. */
  readonly reasons: readonly ExclusionReason[];
  /** A verdict did not verify: somebody wrote a PASS they were not given, or the key is wrong. */
  readonly flagged: boolean;
}

/** `--only flip` (the default) or `--only all`. */
export type Only = "flip" | "all";

/**
 * Whether a session is exported. `all` still never exports a session whose
 * verdicts do not verify, whose lines are corrupt or that an annotation
 * excluded: those are the checks, not the filter.
 */
export function selectionOf(f: SessionFacts, only: Only): Selection {
  const reasons: ExclusionReason[] = [];
  const unverified = f.outcome === "unverified";
  if (unverified) reasons.push("unverified verdict");
  if (f.corrupt_lines > 0) reasons.push("corrupt lines");
  if (f.excluded) reasons.push("excluded by annotation");
  if (f.outcome === "no_oracle") reasons.push("no verdict");
  else if (!unverified && f.outcome !== "flip") reasons.push("not flipped");
  const hard = unverified || f.corrupt_lines > 0 || f.excluded;
  const selected = only === "all" ? !hard : reasons.length === 0;
  return { selected, reasons, flagged: unverified };
}
