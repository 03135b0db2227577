/**
 * Signed oracle verdicts: the one bit (PASS/FAIL) bound to the task, the
 * session, the base commit, the exact diff and the attempt, signed with
 * Ed25519 over the RFC 8785 canonical JSON of every field but `signature`.
 *
 * Binding all six request facts into the signed bytes is what stops replay:
 * a PASS issued for another session, another attempt, another diff or another
 * trace (the chain head) does not verify against what this Stop sent.
 *
 * @example
 * ```ts
 * import { generateKeyPairSync } from "node:crypto";
 * import { signVerdict, verifyVerdict } from "./verdict.ts";
 * const { privateKey, publicKey } = generateKeyPairSync("ed25519");
 * const req = { task_id: "t", session_id: "s", base_commit: "a".repeat(40), diff_sha256: "0".repeat(64), chain_head: "1".repeat(64), attempt: 1 };
 * const signed = signVerdict({ ...req, verdict: "PASS", tests_hash: "h" },
 *   privateKey.export({ type: "pkcs8", format: "pem" }) as string);
 * verifyVerdict(signed, publicKey.export({ type: "spki", format: "pem" }) as string, req); // { verified: true }
 * ```
 */
import type { KeyObject } from "node:crypto";
import { nodeCrypto } from "../runtime/builtins.ts";
import { sha256Hex } from "../trace/digest.ts";
import { canonicalBytes } from "./jcs.ts";

export type VerdictValue = "PASS" | "FAIL";

/** The request facts a verdict is bound to; the collector checks each against what it sent. */
export interface VerdictBinding {
  readonly task_id: string;
  readonly session_id: string;
  readonly base_commit: string;
  /** sha256 (hex) of the diff's UTF-8 bytes exactly as sent. */
  readonly diff_sha256: string;
  /**
   * The session file's hash-chain head when the Stop asked (see
   * lib/trace/chain.ts): signing it fixes every record written before the
   * Stop, so none can be edited, removed or inserted afterwards unnoticed.
   */
  readonly chain_head: string;
  readonly attempt: number;
}

/** What a collector POSTs to `{oracle.url}/v1/verdicts`. */
export interface VerdictRequest {
  readonly task_id: string;
  readonly session_id: string;
  /** The repository's origin URL with any credentials stripped, or null. */
  readonly repo: string | null;
  readonly base_commit: string;
  /** The unified git patch against base_commit; `diff_sha256` in the verdict is its sha256. */
  readonly diff: string;
  /** The session's chain head; the oracle signs it back unchanged. */
  readonly chain_head: string;
  readonly attempt: number;
}

/** Every signed field. */
export interface VerdictFields extends VerdictBinding {
  readonly verdict: VerdictValue;
  /** Identifies the test list that ran (see the oracle server's docs). */
  readonly tests_hash: string;
  /** ISO 8601 UTC. */
  readonly issued_at: string;
  /** Short id of the signing key: see `keyIdOf`. */
  readonly key_id: string;
}

export interface SignedVerdict extends VerdictFields {
  /** base64 Ed25519 signature over the JCS of every other field. */
  readonly signature: string;
}

export interface VerifyResult {
  readonly verified: boolean;
  /** Why it did not verify; absent when it did. */
  readonly problem?: string;
}

type KeyInput = string | KeyObject;

function publicKeyOf(key: KeyInput): KeyObject {
  if (typeof key !== "string") return key.type === "private" ? nodeCrypto().createPublicKey(key) : key;
  // A private PEM also yields its public half, so one helper serves both sides.
  return nodeCrypto().createPublicKey(key);
}

/**
 * The key id: the first 16 hex digits of the sha256 of the public key's SPKI
 * DER. Short enough to read in a log, long enough that two keys never clash
 * by accident (it is a label, not a security boundary: the signature is).
 *
 * @example
 * ```ts
 * keyIdOf(publicPem); // "3f2a9c0d11e4b7a8"
 * ```
 */
export function keyIdOf(key: KeyInput): string {
  const der = publicKeyOf(key).export({ type: "spki", format: "der" });
  return sha256Hex(der).slice(0, 16);
}

/** sha256 hex of a string's UTF-8 bytes: how `diff_sha256` is computed on both sides. */
export { sha256Hex };

/**
 * Sign a verdict. `key_id` is derived from the key; `issued_at` defaults to now.
 *
 * @example
 * ```ts
 * const signed = signVerdict({ task_id, session_id, base_commit, diff_sha256, chain_head, attempt: 1,
 *   verdict: "FAIL", tests_hash }, privatePem);
 * ```
 */
export function signVerdict(
  fields: Omit<VerdictFields, "key_id" | "issued_at"> & { readonly issued_at?: string },
  privateKey: KeyInput,
): SignedVerdict {
  const priv = typeof privateKey === "string" ? nodeCrypto().createPrivateKey(privateKey) : privateKey;
  const body: VerdictFields = {
    task_id: fields.task_id,
    session_id: fields.session_id,
    base_commit: fields.base_commit,
    diff_sha256: fields.diff_sha256,
    chain_head: fields.chain_head,
    attempt: fields.attempt,
    verdict: fields.verdict,
    tests_hash: fields.tests_hash,
    issued_at: fields.issued_at ?? new Date().toISOString(),
    key_id: keyIdOf(priv),
  };
  const signature = nodeCrypto().sign(null, canonicalBytes(body), priv).toString("base64");
  return { ...body, signature };
}

const STRING_FIELDS = ["task_id", "session_id", "base_commit", "diff_sha256", "chain_head", "tests_hash", "issued_at", "key_id", "signature"] as const;
const BINDING_FIELDS = ["task_id", "session_id", "base_commit", "diff_sha256", "chain_head", "attempt"] as const;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function shapeProblem(v: unknown): string | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "verdict is not an object";
  const o = v as Record<string, unknown>;
  for (const f of STRING_FIELDS) {
    if (typeof o[f] !== "string") return `field ${f} is missing or not a string`;
  }
  if (typeof o.attempt !== "number" || !Number.isSafeInteger(o.attempt)) return "field attempt is missing or not an integer";
  if (o.verdict !== "PASS" && o.verdict !== "FAIL") return "field verdict is neither PASS nor FAIL";
  return undefined;
}

/**
 * Check that a verdict is well formed and signed by the given key, without
 * asking which request it answers (the caller compares the fields it knows).
 * Never throws.
 *
 * @example
 * ```ts
 * checkSignature(stored.signed, publicPem); // { verified: true } or { verified: false, problem }
 * ```
 */
export function checkSignature(signed: unknown, publicKey: KeyInput): VerifyResult {
  try {
    const shape = shapeProblem(signed);
    if (shape) return { verified: false, problem: shape };
    const o = signed as Record<string, unknown>;
    let pub: KeyObject;
    try {
      pub = publicKeyOf(publicKey);
      if (pub.asymmetricKeyType !== "ed25519") return { verified: false, problem: "configured public key is not Ed25519" };
    } catch {
      return { verified: false, problem: "configured public key cannot be read" };
    }
    if (o.key_id !== keyIdOf(pub)) {
      return { verified: false, problem: `verdict key_id ${String(o.key_id)} is not the configured key ${keyIdOf(pub)}` };
    }
    const sigText = o.signature as string;
    const sig = Buffer.from(sigText, "base64");
    if (!BASE64.test(sigText) || sig.length !== 64) return { verified: false, problem: "signature is not 64 bytes of base64" };
    const { signature: _omit, ...rest } = o;
    if (!nodeCrypto().verify(null, canonicalBytes(rest), pub, sig)) return { verified: false, problem: "signature does not verify" };
    return { verified: true };
  } catch (e) {
    return { verified: false, problem: `verification failed: ${(e as Error)?.message ?? String(e)}` };
  }
}

/**
 * Verify a verdict against the configured public key and the facts of the
 * request it answers. Never throws; anything wrong is `verified: false` with
 * the reason in `problem`.
 *
 * @example
 * ```ts
 * const r = verifyVerdict(answer, publicPem, { task_id, session_id, base_commit, diff_sha256, chain_head, attempt });
 * if (!r.verified) console.error(r.problem);
 * ```
 */
export function verifyVerdict(signed: unknown, publicKey: KeyInput, expected: VerdictBinding): VerifyResult {
  const sig = checkSignature(signed, publicKey);
  if (!sig.verified) return sig;
  const o = signed as Record<string, unknown>;
  // The signature is good; now make sure it answers this request and not another one.
  for (const f of BINDING_FIELDS) {
    if (o[f] !== expected[f]) {
      return { verified: false, problem: `verdict ${f} ${JSON.stringify(o[f])} does not match the request's ${JSON.stringify(expected[f])}` };
    }
  }
  return { verified: true };
}
