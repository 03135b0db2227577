/**
 * The one record builder every adapter uses: an adapter says where its
 * payload keeps each neutral fact (a `Reading`), and this turns that into
 * the same record types for every harness. Payload keys the reading did not
 * take are kept under `extra` (or, for events without a dedicated record,
 * the whole payload is kept), because harnesses add fields often and a
 * trace that drops them cannot be repaired later.
 */
import type { HookName } from "../hook/subcommands.ts";
import type { TraceRecord } from "../trace/record.ts";
import type { Facts, Payload } from "./types.ts";

/** A string, or null for anything else. */
export function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

/** A finite non-negative number, or null. */
export function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null;
}

/** The first non-empty string among `keys` of `p`. */
export function firstString(p: Payload, keys: readonly string[]): string | null {
  for (const k of keys) {
    const v = p[k];
    if (typeof v === "string" && v.length > 0) return v;
  }
  return null;
}

/**
 * The three session-id facts an adapter gives the seam, from the one list of
 * payload keys that may hold the id: the keys (the runtime redacts them), the
 * id of a parsed payload, and the id still readable in an unparsed head.
 *
 * @example
 * ```ts
 * const ids = sessionKeyed(["sessionId"]);
 * ids.sessionIdOf({ sessionId: "abc" }); // "abc"
 * ```
 */
export function sessionKeyed(keys: readonly string[]): {
  sessionKeys: readonly string[];
  sessionIdOf: (p: Record<string, unknown>) => string | null;
  sessionIdInHead: (head: string) => string | null;
} {
  return { sessionKeys: keys, sessionIdOf: (p) => firstString(p, keys), sessionIdInHead: (head) => sessionIdInHead(head, keys) };
}

/**
 * The session id still readable in the head of a payload that did not parse,
 * under one of `keys` (a JSON string value without escapes).
 *
 * @example
 * ```ts
 * sessionIdInHead('{"sessionId":"abc","x":', ["sessionId"]); // "abc"
 * ```
 */
export function sessionIdInHead(head: string, keys: readonly string[]): string | null {
  for (const k of keys) {
    const m = new RegExp(`"${k}"\\s*:\\s*"([^"\\\\]{1,256})"`).exec(head);
    if (m) return m[1]!;
  }
  return null;
}

/** Everything in `p` not in `skip`, with `__proto__` kept as a plain key. */
export function rest(p: Payload, skip: ReadonlySet<string>): Payload | undefined {
  const entries = Object.entries(p).filter(([k]) => !skip.has(k));
  return entries.length ? Object.fromEntries(entries) : undefined;
}

/** Where one harness's payload keeps the neutral facts of one event. */
export interface Reading {
  /** Payload keys that identify the event and are never kept (session id key, event-name key). */
  readonly common: readonly string[];
  /** The harness's name for this event (`event` on every record). */
  readonly event: string | null;
  readonly agentId?: string | null;
  readonly agentType?: string | null;
  /** Keys consumed by `agentId` / `agentType`. */
  readonly agentKeys?: readonly string[];
  readonly sessionStart?: { readonly cwd: unknown; readonly model: unknown; readonly source: unknown; readonly taken: readonly string[] };
  readonly prompt?: {
    readonly text: unknown;
    /** The prompt is the gate's own block reason fed back by the harness: not a new turn. */
    readonly continuation: boolean;
    readonly taken: readonly string[];
  };
  readonly final?: {
    readonly text: unknown;
    /** Where the text came from when not from the payload. */
    readonly textSource?: "transcript";
    /** A cumulative final text: the full length and the record it continues. */
    readonly cumulative?: { readonly chars: number; readonly continues: string | null };
    readonly taken: readonly string[];
  };
  readonly tool?: {
    readonly name: unknown;
    readonly useId: unknown;
    readonly input: unknown;
    readonly output: unknown;
    readonly durationMs: unknown;
    readonly failed: boolean;
    readonly error: unknown;
    readonly taken: readonly string[];
  };
  readonly end?: { readonly reason: unknown; readonly taken: readonly string[] };
}

/**
 * Records for one event from a harness's reading of it.
 *
 * @example
 * ```ts
 * buildRecords("claude", "user-prompt-submit", p, "s1", facts,
 *   { common: ["session_id", "hook_event_name"], event: "UserPromptSubmit",
 *     prompt: { text: p.prompt, continuation: false, taken: ["prompt"] } });
 * // [{ type: "message", role: "user", text: "...", harness: "claude", ... }]
 * ```
 */
export function buildRecords(
  harness: string,
  hook: HookName,
  p: Payload,
  sessionId: string,
  facts: Facts,
  r: Reading,
): TraceRecord[] {
  const common = new Set(r.common);
  const agentKeys = r.agentKeys ?? [];
  const base = {
    id: facts.newId(),
    session_id: sessionId,
    harness,
    ts: facts.ts,
    ...(r.event !== null ? { event: r.event } : {}),
    ...(typeof r.agentId === "string" ? { agent_id: r.agentId } : {}),
    ...(typeof r.agentType === "string" ? { agent_type: r.agentType } : {}),
  };
  const withExtra = <T extends object>(rec: T, taken: readonly string[]): T => {
    const extra = rest(p, new Set([...common, ...taken, ...agentKeys]));
    return extra ? { ...rec, extra } : rec;
  };
  const whole = () => rest(p, common) ?? {};
  switch (hook) {
    case "session-start": {
      const s = r.sessionStart;
      if (!s) break;
      return [
        withExtra(
          {
            ...base,
            type: "session_start" as const,
            cwd: str(s.cwd),
            base_commit: facts.baseCommit ?? null,
            ...(str(s.model) !== null ? { model: str(s.model)! } : {}),
            ...(str(s.source) !== null ? { source: str(s.source)! } : {}),
          },
          s.taken,
        ),
      ];
    }
    case "user-prompt-submit": {
      const u = r.prompt;
      if (!u) break;
      return [
        withExtra(
          { ...base, type: "message" as const, role: "user" as const, text: str(u.text), ...(u.continuation ? { continuation: true } : {}) },
          u.taken,
        ),
      ];
    }
    case "stop": {
      const f = r.final;
      if (!f) break;
      return [
        withExtra(
          {
            ...base,
            type: "message" as const,
            role: "assistant" as const,
            text: str(f.text),
            ...(f.textSource ? { text_source: f.textSource } : {}),
            ...(f.cumulative ? { cumulative: f.cumulative } : {}),
          },
          f.taken,
        ),
      ];
    }
    case "post-tool-use":
    case "post-tool-use-failure": {
      const t = r.tool;
      if (!t) break;
      return [
        withExtra(
          {
            ...base,
            type: "tool_call" as const,
            tool_name: str(t.name),
            tool_use_id: str(t.useId),
            input: t.input ?? null,
            output: t.output ?? null,
            duration_ms: num(t.durationMs),
            status: t.failed ? ("error" as const) : ("ok" as const),
            ...(t.failed && str(t.error) !== null ? { error: str(t.error)! } : {}),
          },
          t.taken,
        ),
      ];
    }
    case "session-end": {
      const e = r.end;
      if (!e) break;
      return [
        withExtra(
          {
            ...base,
            type: "session_end" as const,
            reason: str(e.reason),
            outcome: facts.outcome ?? "no_oracle",
            ...(facts.sessionEnded ? { repeat: true } : {}),
          },
          e.taken,
        ),
      ];
    }
    case "pre-tool-use":
      return [{ ...base, type: "pre_tool_use", payload: whole() }];
    case "notification":
      return [{ ...base, type: "notification", payload: whole() }];
    case "pre-compact":
      return [{ ...base, type: "pre_compact", payload: whole() }];
    case "subagent-stop":
      return [{ ...base, type: "subagent_stop", payload: whole() }];
    case "event":
      break;
  }
  // Anything the reading does not cover is kept whole: nothing is dropped.
  return [{ ...base, type: "event", payload: whole() }];
}
