/**
 * Claude Code payloads to neutral records: a pure function of the hook name,
 * the parsed payload and a few facts the handler gathered (time, ids, the
 * base commit). Fields this adapter does not name are kept under `extra`
 * (or, for events without a dedicated record, the whole payload is kept),
 * because Claude Code adds fields often and a trace that drops them cannot be
 * repaired later.
 */
import type { Outcome } from "../gate/outcome.ts";
import type { HookName } from "../hook/caps.ts";
import type { TraceRecord } from "../trace/record.ts";

export interface Facts {
  readonly ts: string;
  newId(): string;
  /** HEAD of the repo containing cwd at SessionStart (null outside a repo). */
  readonly baseCommit?: string | null;
  /** Session outcome at SessionEnd, derived from the session's records. */
  readonly outcome?: Outcome;
}

type Payload = Record<string, unknown>;

/** Fields every Claude Code event carries; kept only where they say something. */
const COMMON = new Set(["session_id", "hook_event_name"]);

function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null;
}

/** Everything in `p` not in `taken`, with `__proto__` kept as a plain key. */
function rest(p: Payload, taken: readonly string[]): Payload | undefined {
  const skip = new Set([...COMMON, ...taken]);
  const entries = Object.entries(p).filter(([k]) => !skip.has(k));
  return entries.length ? Object.fromEntries(entries) : undefined;
}

/** The session id as recorded: the payload's when it is a string, else a stable marker. */
export function sessionIdOf(p: Payload): string | null {
  const id = p.session_id;
  return typeof id === "string" && id.length > 0 ? id : null;
}

/**
 * Records for one Claude Code hook event.
 *
 * @example
 * ```ts
 * claudeRecords("user-prompt-submit", { session_id: "s", prompt: "hi" }, facts);
 * // [{ type: "message", role: "user", text: "hi", ... }]
 * ```
 */
export function claudeRecords(hook: HookName, p: Payload, sessionId: string, facts: Facts): TraceRecord[] {
  const base = {
    id: facts.newId(),
    session_id: sessionId,
    harness: "claude",
    ts: facts.ts,
    ...(typeof p.hook_event_name === "string" ? { event: p.hook_event_name } : {}),
    ...(typeof p.agent_id === "string" ? { agent_id: p.agent_id } : {}),
    ...(typeof p.agent_type === "string" ? { agent_type: p.agent_type } : {}),
  };
  const withExtra = <T extends object>(r: T, taken: readonly string[]): T => {
    const extra = rest(p, [...taken, "agent_id", "agent_type"]);
    return extra ? { ...r, extra } : r;
  };
  switch (hook) {
    case "session-start":
      return [
        withExtra(
          {
            ...base,
            type: "session_start" as const,
            cwd: str(p.cwd),
            base_commit: facts.baseCommit ?? null,
            ...(str(p.model) !== null ? { model: str(p.model)! } : {}),
            ...(str(p.source) !== null ? { source: str(p.source)! } : {}),
          },
          ["cwd", "model", "source"],
        ),
      ];
    case "user-prompt-submit":
      return [withExtra({ ...base, type: "message" as const, role: "user" as const, text: str(p.prompt) }, ["prompt"])];
    case "stop":
      return [
        withExtra({ ...base, type: "message" as const, role: "assistant" as const, text: str(p.last_assistant_message) }, [
          "last_assistant_message",
        ]),
      ];
    case "post-tool-use":
    case "post-tool-use-failure": {
      const failed = hook === "post-tool-use-failure";
      return [
        withExtra(
          {
            ...base,
            type: "tool_call" as const,
            tool_name: str(p.tool_name),
            tool_use_id: str(p.tool_use_id),
            input: p.tool_input ?? null,
            output: p.tool_response ?? null,
            duration_ms: num(p.duration_ms),
            status: failed ? ("error" as const) : ("ok" as const),
            ...(failed && str(p.error) !== null ? { error: str(p.error)! } : {}),
          },
          ["tool_name", "tool_use_id", "tool_input", "tool_response", "duration_ms", "error"],
        ),
      ];
    }
    case "session-end":
      return [
        withExtra(
          { ...base, type: "session_end" as const, reason: str(p.reason), outcome: facts.outcome ?? "no_oracle" },
          ["reason"],
        ),
      ];
    case "pre-tool-use":
      return [{ ...base, type: "pre_tool_use", payload: rest(p, []) ?? {} }];
    case "notification":
      return [{ ...base, type: "notification", payload: rest(p, []) ?? {} }];
    case "pre-compact":
      return [{ ...base, type: "pre_compact", payload: rest(p, []) ?? {} }];
    case "subagent-stop":
      return [{ ...base, type: "subagent_stop", payload: rest(p, []) ?? {} }];
  }
}
