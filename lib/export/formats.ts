/**
 * The two export formats, as pure renderers of a conversation plus the
 * session's metadata:
 *
 * - `atif`: one Agent Trajectory Interchange Format (ATIF v1.4) trajectory
 *   per session. User prompts and the gate's block reason are `user` steps
 *   (the reason is what the model read next; `extra.tracegate.kind` says it
 *   came from the gate), each tool call is an `agent` step with its
 *   `tool_calls` and the matching `observation`, each final message an
 *   `agent` step. The root `extra.tracegate` carries the task, harness, base
 *   commit, outcome and every verdict with its signature.
 * - `chat-jsonl`: one line per session in the OpenAI chat fine-tuning shape
 *   (`messages` of `user`, `assistant` with `tool_calls`, `tool` with
 *   `tool_call_id`, final `assistant`), which Hugging Face TRL's SFT trainer
 *   reads; the same metadata sits beside `messages` under `metadata`.
 *
 * @example
 * ```ts
 * import { toAtif, toChat } from "./formats.ts";
 * const meta = { session_id: "s1", harness: "claude", model: null, task_id: "t", base_commit: null, outcome: "flip", verdicts: [] };
 * const turns = [{ kind: "user", text: "hi", ts: null }, { kind: "assistant", text: "hello", ts: null }] as const;
 * toAtif(turns, meta).steps.length; // 2
 * toChat(turns, meta).messages[1]; // { role: "assistant", content: "hello" }
 * ```
 */
import type { Turn } from "./conversation.ts";

export const ATIF_VERSION = "ATIF-v1.4";

export interface ExportVerdict {
  readonly attempt: number | null;
  readonly verdict: string;
  readonly verified: boolean;
  readonly decision: string | null;
  /** The oracle's signed payload, as stored. */
  readonly signed: unknown;
}

export interface SessionMeta {
  readonly session_id: string;
  readonly harness: string;
  readonly model: string | null;
  readonly task_id: string | null;
  readonly base_commit: string | null;
  readonly outcome: string;
  readonly verdicts: readonly ExportVerdict[];
  /** Free-form notes from `tracegate annotate --note`. */
  readonly notes?: readonly string[];
}

/** The ATIF agent name for each harness tracegate knows; others keep their own name. */
const AGENT_NAMES: Readonly<Record<string, string>> = {
  claude: "claude-code",
  codex: "codex-cli",
  gemini: "gemini-cli",
  copilot: "copilot-cli",
  opencode: "opencode",
  cursor: "cursor",
};

function metaExtra(meta: SessionMeta): Record<string, unknown> {
  return {
    tracegate: {
      task_id: meta.task_id,
      harness: meta.harness,
      base_commit: meta.base_commit,
      outcome: meta.outcome,
      verdicts: meta.verdicts,
      ...(meta.notes?.length ? { notes: meta.notes } : {}),
    },
  };
}

function withTs<T extends object>(step: T, ts: string | null): T {
  return ts ? { ...step, timestamp: ts } : step;
}

/** One ATIF trajectory. */
export function toAtif(turns: readonly Turn[], meta: SessionMeta): {
  schema_version: string;
  session_id: string;
  agent: Record<string, unknown>;
  steps: Record<string, unknown>[];
  final_metrics: Record<string, unknown>;
  extra: Record<string, unknown>;
} {
  const steps = turns.map((t, i): Record<string, unknown> => {
    const step_id = i + 1;
    switch (t.kind) {
      case "user":
        return withTs({ step_id, source: "user", message: t.text }, t.ts);
      case "gate":
        return withTs({ step_id, source: "user", message: t.text, extra: { tracegate: { kind: "gate_block", attempt: t.attempt } } }, t.ts);
      case "assistant":
        return withTs({ step_id, source: "agent", message: t.text }, t.ts);
      case "tool":
        return withTs(
          {
            step_id,
            source: "agent",
            message: "",
            tool_calls: [{ tool_call_id: t.call_id, function_name: t.name, arguments: t.arguments }],
            observation: { results: [{ source_call_id: t.call_id, content: t.output }] },
            ...(t.status === "error" ? { extra: { tracegate: { status: "error" } } } : {}),
          },
          t.ts,
        );
    }
  });
  return {
    schema_version: ATIF_VERSION,
    session_id: meta.session_id,
    agent: {
      name: AGENT_NAMES[meta.harness] ?? meta.harness,
      version: "unknown",
      ...(meta.model ? { model_name: meta.model } : {}),
    },
    steps,
    final_metrics: { total_steps: steps.length },
    extra: metaExtra(meta),
  };
}

export interface ChatMessage {
  readonly role: "user" | "assistant" | "tool";
  readonly content: string;
  readonly tool_calls?: readonly { id: string; type: "function"; function: { name: string; arguments: string } }[];
  readonly tool_call_id?: string;
}

/** One chat-jsonl example. */
export function toChat(turns: readonly Turn[], meta: SessionMeta): { messages: ChatMessage[]; metadata: Record<string, unknown> } {
  const messages: ChatMessage[] = [];
  for (const t of turns) {
    switch (t.kind) {
      case "user":
      case "gate":
        messages.push({ role: "user", content: t.text });
        break;
      case "assistant":
        messages.push({ role: "assistant", content: t.text });
        break;
      case "tool":
        messages.push({
          role: "assistant",
          content: "",
          tool_calls: [{ id: t.call_id, type: "function", function: { name: t.name, arguments: JSON.stringify(t.arguments) } }],
        });
        messages.push({ role: "tool", tool_call_id: t.call_id, content: t.output });
        break;
    }
  }
  return { messages, metadata: { session_id: meta.session_id, ...(metaExtra(meta).tracegate as object) } };
}
