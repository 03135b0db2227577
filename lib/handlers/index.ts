/**
 * Handlers: the glue between the hook runtime and the pure adapters. Each
 * gathers the facts its event needs (the base commit, the session outcome),
 * calls the harness adapter, and returns records; only the Stop gate can
 * return a decision.
 */
import { claudeRecords, sessionIdOf, type Facts } from "../harness/claude.ts";
import type { HookName } from "../hook/caps.ts";
import type { HookContext, HookHandler, HookResult } from "../hook/types.ts";
import { newId } from "../trace/digest.ts";
import { UNATTRIBUTED } from "../trace/store.ts";

async function gatherFacts(hook: HookName, ctx: HookContext, sessionId: string): Promise<Facts> {
  const facts: { -readonly [K in keyof Facts]: Facts[K] } = { ts: ctx.now().toISOString(), newId };
  const p = ctx.payload as Record<string, unknown>;
  if (hook === "session-start") {
    // Loaded here, not at the top: only SessionStart needs the git reader.
    const { repoHead } = await import("../git/head.ts");
    facts.baseCommit = typeof p.cwd === "string" ? ((await repoHead(p.cwd))?.commit ?? null) : null;
  }
  if (hook === "session-end") {
    // Loaded here: the outcome check verifies signatures (node:crypto), which only SessionEnd needs.
    const { sessionOutcome } = await import("../gate/outcome.ts");
    facts.outcome = await sessionOutcome(ctx.home, sessionId, ctx.config);
  }
  return facts;
}

/** The observer for any hook: records only, never a decision. */
export function observe(hook: HookName): HookHandler {
  return async (ctx: HookContext): Promise<HookResult> => {
    const p = ctx.payload as Record<string, unknown>;
    const sessionId = sessionIdOf(p) ?? UNATTRIBUTED;
    return { records: claudeRecords(hook, p, sessionId, await gatherFacts(hook, ctx, sessionId)) };
  };
}

/**
 * The handler for a hook subcommand. `stop` becomes the gate when an oracle
 * is configured and the entry was not installed as an observer (`--observe`).
 */
export async function handlerFor(hook: HookName, args: readonly string[]): Promise<HookHandler> {
  if (hook === "stop" && !args.includes("--observe")) {
    const gate = await loadGate();
    if (gate) return gate;
  }
  return observe(hook);
}

/** The gate decides for itself whether an oracle is configured; without one it only observes. */
async function loadGate(): Promise<HookHandler | null> {
  const { createStopGate } = await import("../gate/stop.ts");
  return createStopGate(observe("stop"));
}
