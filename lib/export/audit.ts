/**
 * The verdict facts export needs about one session: how many PASS/FAIL
 * verdict records it has, how many of them fail to verify, and the outcome
 * computed from the verified ones only.
 *
 * A verdict counts only when its signature verifies under the oracle's public
 * key AND every field the record states equals the signed payload AND the
 * signed session is this session AND the same signature is not used twice.
 * Anything else is unverified, whatever `verified` or `verdict` the stored
 * line claims: those are what an agent on the host can edit.
 */
import { verifyVerdict } from "../oracle/verdict.ts";

type Rec = Readonly<Record<string, unknown>>;

function isRec(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export interface VerdictAudit {
  readonly verdicts: number;
  readonly unverified: number;
  /** `flip` when the last verdict is a PASS and every verdict verifies; `no_flip` otherwise; `no_oracle` with none. */
  readonly outcome: "flip" | "no_flip" | "no_oracle" | "unverified";
  /** One line per unverified verdict: record id and why. */
  readonly problems: readonly string[];
  /** Each verdict as exported: what was signed, and whether it verified. */
  readonly list: readonly { attempt: number | null; verdict: string; verified: boolean; decision: string | null; signed: unknown }[];
}

const STATED = ["verdict", "attempt", "task_id", "base_commit", "diff_sha256", "tests_hash"] as const;

/**
 * Audit a session's verdict records against the oracle's public key.
 *
 * @example
 * ```ts
 * auditVerdicts("s1", records, publicPem).outcome; // "flip"
 * ```
 */
export function auditVerdicts(sessionId: string, records: readonly unknown[], publicKey: string | null): VerdictAudit {
  let verdicts = 0;
  const problems: string[] = [];
  const seen = new Set<string>();
  const list: VerdictAudit["list"][number][] = [];
  let lastVerified: string | null = null;
  for (const r of records) {
    if (!isRec(r) || r.type !== "oracle_verdict") continue;
    const claimed = r.verdict;
    const s = isRec(r.signed) ? r.signed : null;
    // ERROR and PENDING records carry no verdict; one that nevertheless holds a signature is judged like any other.
    if (claimed !== "PASS" && claimed !== "FAIL" && !s) continue;
    verdicts++;
    const problem = ((): string | null => {
      if (!s) return "no signed verdict";
      if (!publicKey) return "no oracle public key to check it with";
      const v = verifyVerdict(s, publicKey, {
        task_id: String(s.task_id),
        session_id: sessionId,
        base_commit: String(s.base_commit),
        diff_sha256: String(s.diff_sha256),
        attempt: Number(s.attempt),
      });
      if (!v.verified) return v.problem ?? "does not verify";
      for (const f of STATED) {
        if (r[f] !== undefined && r[f] !== s[f]) return `the record's ${f} ${JSON.stringify(r[f])} is not the signed ${JSON.stringify(s[f])}`;
      }
      const sig = String(s.signature);
      if (seen.has(sig)) return "the same signed verdict appears twice (replay)";
      seen.add(sig);
      return null;
    })();
    if (problem) problems.push(`${String(r.id ?? "?")}: ${problem}`);
    else lastVerified = String(s!.verdict);
    list.push({
      attempt: typeof r.attempt === "number" ? r.attempt : null,
      verdict: s && !problem ? String(s.verdict) : String(claimed ?? "ERROR"),
      verified: !problem,
      decision: typeof r.decision === "string" ? r.decision : null,
      signed: r.signed ?? null,
    });
  }
  const unverified = problems.length;
  const outcome = verdicts === 0 ? "no_oracle" : !publicKey || unverified > 0 ? "unverified" : lastVerified === "PASS" ? "flip" : "no_flip";
  return { verdicts, unverified, outcome, problems, list };
}
