/**
 * A session's records as one harness-neutral conversation: the turns a model
 * saw and produced, in order. Both export formats render this, so a Codex and
 * a Claude Code session that did the same thing export to the same structure;
 * the harness only shows up in the metadata.
 *
 * Pure: records in, turns out. Only what the model saw becomes a turn: user
 * prompts, tool calls with their results, the assistant's final messages and
 * the gate's fixed block reason (Claude Code, Codex and the others all hand
 * it to the model as the next input). Everything else (pre-tool-use events,
 * notifications, payloads that could not be parsed) stays out.
 *
 * @example
 * ```ts
 * import { conversationOf } from "./conversation.ts";
 * const turns = conversationOf([
 *   { type: "message", role: "user", text: "add a test", ts: "2026-01-01T00:00:00.000Z" },
 *   { type: "message", role: "assistant", text: "done", ts: "2026-01-01T00:00:05.000Z" },
 * ]).turns;
 * turns.map((t) => t.kind); // ["user", "assistant"]
 * ```
 */
import { BLOCK_REASON } from "../gate/decide.ts";

export interface UserTurn {
  readonly kind: "user";
  readonly text: string;
  readonly ts: string | null;
}

export interface ToolTurn {
  readonly kind: "tool";
  /** The harness's call id; a stable one is made up from the record id when it has none. */
  readonly call_id: string;
  readonly name: string;
  /** Always a JSON object (a non-object input is wrapped as `{input: ...}`). */
  readonly arguments: Record<string, unknown>;
  /** The result as the model read it: text. */
  readonly output: string;
  readonly status: "ok" | "error";
  readonly ts: string | null;
}

export interface AssistantTurn {
  readonly kind: "assistant";
  readonly text: string;
  readonly ts: string | null;
}

/** The gate refused the stop: the fixed reason is the model's next input. */
export interface GateTurn {
  readonly kind: "gate";
  readonly text: string;
  readonly attempt: number | null;
  readonly ts: string | null;
}

export type Turn = UserTurn | ToolTurn | AssistantTurn | GateTurn;

export interface Conversation {
  readonly turns: readonly Turn[];
  /** Record ids left out because an annotation excluded them. */
  readonly excluded_records: readonly string[];
}

type Rec = Readonly<Record<string, unknown>>;

function isRec(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A stored text field as text. A value cut at the field cap keeps its head and
 * says how much is missing, so a reader never takes the head for the whole.
 */
export function textOf(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "";
  if (isRec(v) && v.cut === true && typeof v.head === "string") {
    return `${v.head}\n[… cut by tracegate: ${String(v.bytes)} bytes in all, sha256 ${String(v.sha256)}]`;
  }
  return JSON.stringify(v);
}

/**
 * A tool result as the text the model read. Harnesses shape it differently
 * (Claude Code's Bash gives `{stdout, stderr}`, Codex a string, others
 * `{output}` or `{content: [{text}]}`); the common forms become plain text so
 * the same command exports alike, anything else is its JSON.
 */
export function toolOutputText(v: unknown): string {
  if (typeof v === "string" || v === null || v === undefined) return textOf(v);
  if (!isRec(v)) return JSON.stringify(v);
  if (v.cut === true) return textOf(v);
  if (typeof v.stdout === "string" || typeof v.stderr === "string") {
    const parts = [textOf(v.stdout), textOf(v.stderr)].filter((s) => s !== "");
    return parts.join("\n");
  }
  for (const key of ["output", "result", "text", "content"]) {
    const inner = v[key];
    if (typeof inner === "string") return inner;
    if (Array.isArray(inner) && inner.every((p) => isRec(p) && typeof p.text === "string")) {
      return inner.map((p) => (p as Rec).text as string).join("\n");
    }
  }
  return JSON.stringify(v);
}

function argumentsOf(v: unknown): Record<string, unknown> {
  if (isRec(v) && v.cut !== true) return { ...v };
  if (v === null || v === undefined) return {};
  return { input: isRec(v) ? textOf(v) : v };
}

function ts(r: Rec): string | null {
  return typeof r.ts === "string" ? r.ts : null;
}

/** Record ids and whole-session exclusions that `annotation` records ask for. */
export interface Exclusions {
  readonly session: boolean;
  readonly records: ReadonlySet<string>;
  readonly notes: readonly string[];
}

/**
 * What the session's annotations say. A later annotation never undoes an
 * earlier exclusion: corrections only add.
 *
 * @example
 * ```ts
 * exclusionsOf([{ type: "annotation", exclude: true }]).session; // true
 * ```
 */
export function exclusionsOf(records: readonly unknown[]): Exclusions {
  let session = false;
  const ids = new Set<string>();
  const notes: string[] = [];
  for (const r of records) {
    if (!isRec(r) || r.type !== "annotation") continue;
    if (typeof r.note === "string") notes.push(r.note);
    if (r.exclude !== true) continue;
    if (typeof r.record_id === "string") ids.add(r.record_id);
    else session = true;
  }
  return { session, records: ids, notes };
}

/**
 * The conversation in a session's records.
 *
 * Sub-agent records (`agent_id` set) are left out: their turns were never in
 * the main agent's context.
 */
export function conversationOf(records: readonly unknown[]): Conversation {
  const { records: skip } = exclusionsOf(records);
  const turns: Turn[] = [];
  const excluded: string[] = [];
  for (const r of records) {
    if (!isRec(r)) continue;
    if (typeof r.id === "string" && skip.has(r.id)) {
      excluded.push(r.id);
      continue;
    }
    if (typeof r.agent_id === "string") continue;
    switch (r.type) {
      case "message": {
        const text = textOf(r.text);
        if (r.role === "user") turns.push({ kind: "user", text, ts: ts(r) });
        else if (r.role === "assistant" && text !== "") turns.push({ kind: "assistant", text, ts: ts(r) });
        break;
      }
      case "tool_call":
        turns.push({
          kind: "tool",
          call_id: typeof r.tool_use_id === "string" && r.tool_use_id ? r.tool_use_id : `call_${String(r.id ?? turns.length)}`,
          name: textOf(r.tool_name) || "unknown",
          arguments: argumentsOf(r.input),
          output: r.status === "error" && r.error !== undefined && (r.output === null || r.output === undefined)
            ? textOf(r.error)
            : toolOutputText(r.output),
          status: r.status === "error" ? "error" : "ok",
          ts: ts(r),
        });
        break;
      case "oracle_verdict":
        if (r.decision === "block") {
          turns.push({ kind: "gate", text: BLOCK_REASON, attempt: typeof r.attempt === "number" ? r.attempt : null, ts: ts(r) });
        }
        break;
    }
  }
  return { turns, excluded_records: excluded };
}
