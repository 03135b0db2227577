/**
 * Handlers: the glue between the hook runtime and the harness adapters. For
 * one subcommand and `--harness` name they pick the adapter (registry),
 * gather the facts its event needs (the base commit, the session outcome, a
 * cumulative text's previous part, a transcript tail), call the adapter for
 * records, and, on Stop, run the gate with the adapter's reading of the
 * payload and put its decision into the adapter's output shape.
 */
import { adapterFor } from "../harness/registry.ts";
import type { Facts, HarnessAdapter, Payload } from "../harness/types.ts";
import { EVENT_FLAG, OBSERVE_FLAG, type HookName } from "../hook/subcommands.ts";
import type { HookBinding, HookContext, HookHandler, HookResult, UnparsedInput } from "../hook/types.ts";
import { newId } from "../trace/digest.ts";
import type { PayloadCutRecord } from "../trace/record.ts";
import { readSession, UNATTRIBUTED } from "../trace/store.ts";


/** The harness event named in argv (`--event=NAME`), if any. */
export function eventArg(args: readonly string[]): string | null {
  const a = args.find((x) => x.startsWith(EVENT_FLAG));
  const v = a?.slice(EVENT_FLAG.length) ?? "";
  return /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(v) ? v : null;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function lastAssistant(records: readonly unknown[]): Facts["previousAssistant"] {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i] as Record<string, unknown> | null;
    if (!r || r.type !== "message" || r.role !== "assistant" || typeof r.id !== "string") continue;
    const c = r.cumulative as { chars?: unknown } | undefined;
    return { id: r.id, chars: typeof c?.chars === "number" ? c.chars : null, text: typeof r.text === "string" ? r.text : null };
  }
  return null;
}

/** How long a Stop waits at most for a harness's transcript to catch up with the hook. */
const TRANSCRIPT_WAIT_MS = 1_500;

async function gatherFacts(adapter: HarnessAdapter, hook: HookName, ctx: HookContext, sessionId: string): Promise<Facts> {
  const eventName = eventArg(ctx.args);
  const facts: Mutable<Facts> = { ts: ctx.now().toISOString(), newId, eventName };
  const p = ctx.payload as Payload;
  if (hook === "session-start") {
    // Loaded here, not at the top: only SessionStart needs the git reader.
    const { repoHead } = await import("../git/head.ts");
    const cwd = adapter.cwdOf ? adapter.cwdOf(p) : typeof p.cwd === "string" ? p.cwd : null;
    facts.baseCommit = cwd !== null ? ((await repoHead(cwd))?.commit ?? null) : null;
  }
  if (hook === "session-end") {
    // Loaded here: the outcome check verifies signatures (node:crypto), which only SessionEnd needs.
    const { sessionOutcome } = await import("../gate/outcome.ts");
    facts.outcome = await sessionOutcome(ctx.home, sessionId, ctx.config);
    facts.sessionEnded = readSession(ctx.home, sessionId, ["session_end"]).records.length > 0;
  }
  const needs = adapter.wants(hook, p, { eventName });
  if (needs.previousAssistant) {
    try {
      facts.previousAssistant = lastAssistant(readSession(ctx.home, sessionId, ["message"]).records);
    } catch {
      facts.previousAssistant = null;
    }
  }
  if (needs.transcriptPath && adapter.finalTextFromTranscript) {
    const { readTail } = await import("./transcript.ts");
    const caughtUp = adapter.transcriptCaughtUp;
    let tail = readTail(needs.transcriptPath);
    // The harness may still be writing what came before this hook (Copilot creates and flushes its
    // transcript lazily: on a first turn the file may not exist yet): re-read, bounded.
    for (let waited = 0; caughtUp && !(tail && caughtUp(tail.text, p)) && waited < TRANSCRIPT_WAIT_MS; waited += 20) {
      await Bun.sleep(20);
      tail = readTail(needs.transcriptPath);
    }
    facts.transcriptText = tail ? adapter.finalTextFromTranscript(tail.text, tail.fromStart) : null;
  }
  return facts;
}

/** The observer for any hook of one harness: records only, never a decision. */
export function observe(adapter: HarnessAdapter, hook: HookName): HookHandler {
  return async (ctx: HookContext): Promise<HookResult> => {
    const p = ctx.payload as Payload;
    const sessionId = adapter.sessionIdOf(p) ?? UNATTRIBUTED;
    const records = adapter.records(hook, p, sessionId, await gatherFacts(adapter, hook, ctx, sessionId));
    if (hook === "session-end" && ctx.config.sync?.on_session_end && ctx.config.sync.url && sessionId !== UNATTRIBUTED) {
      // Loaded only when enabled; the child waits for this hook's record, so it is spawned first.
      (await import("../sync/background.ts")).startBackgroundSync(ctx.home, sessionId, ctx.env);
    }
    return { records };
  };
}

/** The gate decides for itself whether an oracle is configured; without one it only observes. */
async function gated(adapter: HarnessAdapter): Promise<HookHandler> {
  const { createStopGate } = await import("../gate/stop.ts");
  const gate = createStopGate(observe(adapter, "stop"), (ctx) => adapter.stopInput(ctx.payload as Payload, ctx.env));
  return async (ctx) => {
    const result = await gate(ctx);
    if (!result.decision) return result;
    // The gate speaks neutral {decision: "block", reason}; the harness gets its own shape.
    return { records: result.records, decision: adapter.blockOutput(String(result.decision.reason)) };
  };
}

/** The record for a payload that could not be parsed, attributed when its head still names the session. */
function unparsedRecord(adapter: HarnessAdapter, hook: HookName, args: readonly string[], input: UnparsedInput): PayloadCutRecord {
  const event = eventArg(args) ?? Object.entries(adapter.events).find(([, sub]) => sub === hook)?.[0];
  return {
    id: newId(),
    type: "payload_cut",
    session_id: adapter.sessionIdInHead(input.head) ?? UNATTRIBUTED,
    harness: adapter.name,
    ts: input.ts,
    ...(event ? { event } : {}),
    bytes: input.bytes,
    keyed_sha256: input.keyed_sha256,
    head: input.head,
    ...(input.reason ? { reason: input.reason } : {}),
    ...input.extra,
  } as PayloadCutRecord;
}

/**
 * The binding for a hook subcommand and `--harness` name. `stop` becomes the
 * gate when an oracle is configured and the entry was not installed as an
 * observer (`--observe`).
 *
 * @example
 * ```ts
 * const b = await bindingFor("stop", [], "gemini");
 * b.harness; // "gemini"
 * ```
 */
export async function bindingFor(hook: string, args: readonly string[], harness: string | null): Promise<HookBinding> {
  const adapter = adapterFor(harness);
  const sub = hook as HookName;
  const handle = sub === "stop" && !args.includes(OBSERVE_FLAG) ? await gated(adapter) : observe(adapter, sub);
  return {
    harness: adapter.name,
    sessionKeys: adapter.sessionKeys,
    handle,
    unparsed: (input) => unparsedRecord(adapter, sub, args, input),
  };
}
