/**
 * The hook side of live display: challenge the listener a discovery record
 * names, and post the hook's records only to one that proves it holds the
 * record's token. Loaded by forward.ts only when a record exists.
 *
 * - The pid is dead: the record is stale; clean it, send nothing.
 * - Connection refused, a wrong answer, a malformed answer, no answer in
 *   time: not a viewer we can use; clean the record (only if it is still the
 *   one we read), send nothing. A genuine viewer that was only busy puts its
 *   record back within two seconds (see cli.ts), so a planted listener that
 *   never answers costs one hook one deadline, not every hook.
 *
 * Each request has its own small deadline, both clipped to what is left of
 * the hook's cap less a margin, so a dead or hostile listener costs at most
 * CHALLENGE_MS + POST_MS and never pushes a hook past its cap.
 *
 * @example
 * ```ts
 * await forward(home, "post-tool-use", records, () => 2000);
 * ```
 */
import type { TraceRecord } from "../trace/record.ts";
import { cleanIfUnchanged, constantTimeEqual, eventMac, pidAlive, proofFor, randomHex, readDiscovery } from "./discovery.ts";

/** Deadline for the challenge round trip. */
export const CHALLENGE_MS = 250;
/** Deadline for the event post. */
export const POST_MS = 250;
/** Time always left to the hook after forwarding, for exit. */
export const MARGIN_MS = 200;
/** A forwarded record larger than this (as JSON) arrives cut to its identifying fields. */
export const EVENT_LIMIT_BYTES = 64 * 1024;
/** The most of a challenge answer we read; a genuine one is 64 hex characters. */
const ANSWER_MAX = 256;

/** Fields a cut event keeps: enough to place it in its session and timeline. */
const KEPT = ["id", "type", "session_id", "harness", "ts", "event", "tool_name", "tool_use_id", "status", "duration_ms", "role", "attempt", "verdict", "verified", "decision", "outcome", "reason"];
const KEPT_STRING_MAX = 256;

function keepValue(v: unknown): unknown {
  if (typeof v === "string") return v.slice(0, KEPT_STRING_MAX);
  if (typeof v === "number" || typeof v === "boolean" || v === null) return v;
  // A field cut by the store's cap: keep a short head, drop the rest.
  if (v && typeof v === "object" && typeof (v as { head?: unknown }).head === "string") {
    return (v as { head: string }).head.slice(0, KEPT_STRING_MAX);
  }
  return undefined;
}

/**
 * A record as it travels to the viewer: whole when small, else cut to the
 * identifying fields plus the full record's size and digest (the store keeps
 * the whole record; the page fetches it from there when opened).
 *
 * @example
 * ```ts
 * cutForDisplay(hugeToolCall); // { id, type, session_id, tool_name, tool_use_id, ..., view_cut: { bytes, sha256 } }
 * ```
 */
export function cutForDisplay(r: TraceRecord, limit = EVENT_LIMIT_BYTES): Record<string, unknown> {
  const json = JSON.stringify(r);
  const bytes = Buffer.byteLength(json, "utf8");
  if (bytes <= limit) return r as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const src = r as unknown as Record<string, unknown>;
  for (const k of KEPT) {
    const v = keepValue(src[k]);
    if (v !== undefined) out[k] = v;
  }
  out.view_cut = { bytes, sha256: new Bun.CryptoHasher("sha256").update(json).digest("hex") };
  return out;
}

/** At most `max` bytes of a response body, as text. */
async function boundedText(res: Response, max: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  try {
    while (n <= max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      n += value.length;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  if (n > max) return "";
  return Buffer.concat(chunks).toString("utf8");
}

/** Challenge, prove, post. Never throws (forward.ts also guards). */
export async function forward(home: string, hook: string, records: readonly TraceRecord[], remainingMs: () => number): Promise<void> {
  const { record, text } = readDiscovery(home);
  if (!record) return;
  if (!pidAlive(record.pid)) {
    cleanIfUnchanged(home, text);
    return;
  }
  const base = `http://127.0.0.1:${record.port}`;
  const nonce = randomHex(16);
  const challengeMs = Math.min(CHALLENGE_MS, remainingMs() - MARGIN_MS - POST_MS);
  if (challengeMs <= 0) return;
  let answer: string;
  try {
    const res = await fetch(`${base}/_hook/challenge?nonce=${nonce}`, { signal: AbortSignal.timeout(challengeMs), redirect: "manual" });
    answer = res.status === 200 ? (await boundedText(res, ANSWER_MAX)).trim() : "";
  } catch {
    cleanIfUnchanged(home, text);
    return;
  }
  if (!constantTimeEqual(answer, proofFor(record.token, nonce))) {
    cleanIfUnchanged(home, text);
    return;
  }
  const postMs = Math.min(POST_MS, remainingMs() - MARGIN_MS);
  if (postMs <= 0) return;
  const body = JSON.stringify({ hook, records: records.map((r) => cutForDisplay(r)) });
  try {
    const res = await fetch(`${base}/_hook/event`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", "x-tracegate-nonce": nonce, "x-tracegate-mac": eventMac(record.token, nonce, body) },
      signal: AbortSignal.timeout(postMs),
      redirect: "manual",
    });
    await res.body?.cancel();
  } catch {
    // Display only: the record is already in the store.
  }
}
