/**
 * What a session's own verdict records claim its outcome is: the last
 * verdict's PASS (flip), a block the harness's cap overrode (cap), any other
 * verdict (no_flip), none (no_oracle). For tests of a harness's loop, which
 * check the gate's records beside the verdicts they assert one by one.
 * Trust never comes from this: the outcome a user sees is `analyzeSession`'s,
 * from signatures and the hash chain (test/gate/tamper.test.ts pins that).
 */
export function claimedOutcome(records: readonly Record<string, unknown>[]): string {
  const last = records.findLast((r) => r.type === "oracle_verdict" && typeof r.attempt === "number");
  if (!last) return "no_oracle";
  if (last.verdict === "PASS" && last.verified === true) return "flip";
  return last.outcome === "cap" ? "cap" : "no_flip";
}
