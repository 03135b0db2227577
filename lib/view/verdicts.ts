/**
 * The page never trusts a stored `verified: true`: a hostile agent can write
 * its own session file. For each verdict record that claims to be verified,
 * the viewer checks the signature again with the user's configured oracle
 * key (the record-level part of `tracegate verify`'s check: signature, every
 * stated field, the session), and the page shows the result beside the
 * stored flag. Replays and the hash chain need the whole file; `verify` and
 * `sessions` report those.
 *
 * @example
 * ```ts
 * const key = await configuredPublicKey(process.env);
 * signatureChecks(records, key); // { "<record id>": { state: "ok" } }
 * ```
 */
import { loadConfig } from "../config/load.ts";
import { storedVerdictProblem } from "../gate/outcome.ts";
import { readPublicKeyPem } from "../oracle/keys.ts";
import type { TraceRecord } from "../trace/record.ts";

export type SignatureCheck =
  | { readonly state: "ok" }
  | { readonly state: "fails"; readonly problem: string }
  | { readonly state: "unchecked"; readonly problem: string };

export interface ConfiguredKey {
  /** The PEM text, or null when none is configured or it cannot be read. */
  readonly pem: string | null;
  /** Why there is no key, for the page. */
  readonly problem: string | null;
}

/** The user config's `oracle.public_key`, read once when the viewer starts. */
export async function configuredPublicKey(env: Readonly<Record<string, string | undefined>>): Promise<ConfiguredKey> {
  const config = await loadConfig(env, null);
  if (!config.oracle) return { pem: null, problem: "no oracle.public_key is configured to check it" };
  try {
    return { pem: readPublicKeyPem(config.oracle.public_key, config.path), problem: null };
  } catch (e) {
    return { pem: null, problem: `cannot read oracle.public_key (${(e as NodeJS.ErrnoException).code ?? "error"})` };
  }
}

/** A check for every verdict record that claims `verified: true`, by record id. */
export function signatureChecks(records: readonly TraceRecord[], key: ConfiguredKey): Record<string, SignatureCheck> {
  const out: Record<string, SignatureCheck> = {};
  for (const r of records) {
    const a = r as unknown as Record<string, unknown>;
    if (a.type !== "oracle_verdict" || a.verified !== true || typeof a.id !== "string") continue;
    if (!key.pem) {
      out[a.id] = { state: "unchecked", problem: key.problem ?? "no key" };
      continue;
    }
    const problem = storedVerdictProblem(a, key.pem);
    out[a.id] = problem ? { state: "fails", problem } : { state: "ok" };
  }
  return out;
}

/** One verdict record's check, for the sessions list (claimed flips only). */
export function verdictCheck(key: ConfiguredKey): (verdict: Record<string, unknown>) => "ok" | "fails" | "unchecked" {
  return (verdict) => {
    if (verdict.verified !== true) return "fails";
    const id = typeof verdict.id === "string" ? verdict.id : "";
    const c = signatureChecks([{ ...verdict, id } as unknown as TraceRecord], key)[id];
    return c ? c.state : "unchecked";
  };
}
