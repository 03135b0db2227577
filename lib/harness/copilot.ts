/**
 * GitHub Copilot CLI (`@github/copilot` 1.0.102), camelCase dialect (the
 * event names install writes). Payloads carry `sessionId`, `cwd`, `toolName`,
 * `toolArgs`, `toolResult` and a `timestamp` in ms, but **no event name**, so
 * each entry's subcommand (and `--event=NAME` for the others) says which
 * event fired; `stop_hook_active` is snake_case even here. `agentStop` also
 * fires for sub-agents (with `agentId`/`parentAgentId`, and a block there is
 * ignored): only the main agent's is gated, a sub-agent's is kept as an
 * `event` record. Exit 2 does **not** block: the decision is JSON only,
 * `{"decision":"block","reason"}`. Copilot ends the turn after 8 consecutive
 * blocks. `agentStop` carries no final text: the one exception to "the
 * transcript is never read" is a bounded read of the tail of
 * `transcriptPath` for the last `assistant.message`, and that record says
 * `text_source: "transcript"`. A block comes back as a new
 * `userPromptSubmitted` whose prompt is the reason, recorded as a user message
 * marked `continuation`.
 *
 * Hooks live in tracegate's own file `$COPILOT_HOME/hooks/tracegate.json`
 * (default `~/.copilot`) or project `.github/hooks/tracegate.json`,
 * `timeoutSec` in seconds. Snake_case keys (the PascalCase dialect, if
 * someone registers it by hand) are read as a fallback.
 */
import { join, resolve } from "node:path";
import { userHome } from "../config/paths.ts";
import type { HookName } from "../hook/subcommands.ts";
import { isGateReason } from "./gemini.ts";
import { buildRecords, firstString, sessionKeyed, str, type Reading } from "./records.ts";
import type { Facts, HarnessAdapter, Payload } from "./types.ts";

const EVENTS = {
  sessionStart: "session-start",
  userPromptSubmitted: "user-prompt-submit",
  userPromptTransformed: "event",
  preToolUse: "pre-tool-use",
  preMcpToolCall: "event",
  permissionRequest: "event",
  postToolUse: "post-tool-use",
  postToolUseFailure: "post-tool-use-failure",
  errorOccurred: "event",
  agentStop: "stop",
  subagentStart: "event",
  subagentStop: "subagent-stop",
  preCompact: "pre-compact",
  notification: "notification",
  sessionEnd: "session-end",
} as const satisfies Record<string, HookName>;

/** Copilot's consecutive-block cap (observed: 8 blocks, then the turn ends). */
export const COPILOT_BLOCK_CAP = 8;

const SESSION_KEYS = ["sessionId", "session_id"];
/** Each core subcommand serves exactly one camelCase event, so the subcommand names the event. */
const EVENT_OF: Partial<Record<HookName, string>> = Object.fromEntries(
  Object.entries(EVENTS)
    .filter(([, sub]) => sub !== "event")
    .map(([ev, sub]) => [sub, ev]),
);

/** Read the first present key of several spellings; `taken` collects them. */
function pick(p: Payload, keys: readonly string[], taken: string[]): unknown {
  for (const k of keys) {
    if (Object.hasOwn(p, k)) {
      taken.push(...keys);
      return p[k];
    }
  }
  return undefined;
}

function isSubAgent(p: Payload): boolean {
  return typeof p.parentAgentId === "string" || typeof p.agentId === "string";
}

/**
 * Whether a tail of events.jsonl has caught up with this hook: Copilot logs
 * `hook.start` (with the payload as `input`) before it runs a hook, but
 * flushes the file later, so the final `assistant.message` can be missing
 * when agentStop starts. The hook's own `hook.start` line, matched by its
 * payload timestamp and session, means everything before it is on disk.
 *
 * @example
 * ```ts
 * transcriptCaughtUp('{"type":"hook.start","data":{"hookType":"agentStop","input":{"timestamp":1}}}\n', { timestamp: 1 }); // true
 * ```
 */
export function transcriptCaughtUp(tail: string, p: Payload): boolean {
  const ts = p.timestamp;
  if (typeof ts !== "number") return true;
  const lines = tail.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.includes('"hook.start"') || !line.includes(String(ts))) continue;
    try {
      const v = JSON.parse(line) as { type?: unknown; data?: { input?: { timestamp?: unknown; sessionId?: unknown } } };
      if (v?.type === "hook.start" && v.data?.input?.timestamp === ts && (p.sessionId === undefined || v.data.input.sessionId === p.sessionId)) return true;
    } catch {
      // a torn line: keep looking
    }
  }
  return false;
}

/**
 * The last `assistant.message` content in a tail of Copilot's events.jsonl;
 * the first (possibly torn) line of the tail is skipped.
 *
 * @example
 * ```ts
 * finalTextFromTranscript('{"type":"assistant.message","data":{"content":"Done."}}\n'); // "Done."
 * ```
 */
export function finalTextFromTranscript(tail: string, fromStart = true): string | null {
  const lines = tail.split("\n");
  const first = fromStart ? 0 : 1;
  for (let i = lines.length - 1; i >= first; i--) {
    const line = lines[i]!;
    if (!line.includes('"assistant.message"')) continue;
    try {
      const v = JSON.parse(line) as { type?: unknown; data?: { content?: unknown } };
      if (v?.type !== "assistant.message") continue;
      const c = v.data?.content;
      if (typeof c === "string") return c;
      if (Array.isArray(c)) {
        const text = c.map((x) => (typeof x === "string" ? x : typeof x?.text === "string" ? x.text : "")).join("");
        return text;
      }
      return null;
    } catch {
      // a torn or foreign line: keep looking
    }
  }
  return null;
}

function reading(hook: HookName, p: Payload, facts: Facts): Reading {
  const base: Reading = {
    common: SESSION_KEYS,
    event: facts.eventName ?? EVENT_OF[hook] ?? str(p.hook_event_name) ?? str(p.hookName),
    agentId: str(p.agentId) ?? str(p.agent_id),
    agentType: str(p.agentType) ?? str(p.agent_type),
    agentKeys: ["agentId", "agentType", "agent_id", "agent_type"],
  };
  const taken: string[] = [];
  switch (hook) {
    case "session-start":
      return {
        ...base,
        sessionStart: { cwd: pick(p, ["cwd"], taken), model: pick(p, ["model"], taken), source: pick(p, ["source"], taken), taken },
      };
    case "user-prompt-submit": {
      const text = pick(p, ["prompt"], taken);
      return { ...base, prompt: { text, continuation: isGateReason(text), taken } };
    }
    case "stop":
      // A sub-agent's agentStop is not the session's final message: kept whole.
      if (isSubAgent(p)) return base;
      return { ...base, final: { text: facts.transcriptText ?? null, textSource: "transcript", taken: [] } };
    case "post-tool-use":
    case "post-tool-use-failure": {
      const output = pick(p, ["toolResult", "tool_result"], taken);
      const resultType = output && typeof output === "object" ? ((output as Payload).resultType ?? (output as Payload).result_type) : null;
      const failed = hook === "post-tool-use-failure" || resultType === "failure" || resultType === "error";
      return {
        ...base,
        tool: {
          name: pick(p, ["toolName", "tool_name"], taken),
          useId: pick(p, ["toolCallId", "toolUseId", "tool_use_id"], taken) ?? null,
          input: pick(p, ["toolArgs", "tool_input", "toolInput"], taken),
          output,
          durationMs: pick(p, ["durationMs", "duration_ms"], taken),
          failed,
          error: pick(p, ["error"], taken),
          taken,
        },
      };
    }
    case "session-end":
      return { ...base, end: { reason: pick(p, ["reason"], taken), taken } };
    default:
      return base;
  }
}

/** The Copilot CLI adapter (`--harness copilot`), camelCase dialect. */
export const copilot: HarnessAdapter = {
  name: "copilot",
  title: "Copilot CLI",
  events: EVENTS,
  ...sessionKeyed(SESSION_KEYS),
  wants(hook, p) {
    if (hook !== "stop" || isSubAgent(p)) return {};
    return { transcriptPath: str(p.transcriptPath) ?? str(p.transcript_path) };
  },
  records: (hook, p, sessionId, facts) => buildRecords("copilot", hook, p, sessionId, facts, reading(hook, p, facts)),
  stopInput(p) {
    const session_id = firstString(p, SESSION_KEYS);
    // Copilot ignores a block in a sub-agent: gate the main agent only.
    if (!session_id || isSubAgent(p)) return null;
    return {
      session_id,
      cwd: str(p.cwd),
      stop_hook_active: p.stop_hook_active === true,
      block_cap: COPILOT_BLOCK_CAP,
      event: "agentStop",
    };
  },
  blockOutput: (reason) => ({ decision: "block", reason }),
  exit2Blocks: false,
  finalTextFromTranscript,
  transcriptCaughtUp,
  install: {
    scopes: ["user", "project"],
    path(scope, env, cwd) {
      if (scope === "project") return join(resolve(cwd), ".github", "hooks", "tracegate.json");
      return join(env.COPILOT_HOME || join(userHome(env), ".copilot"), "hooks", "tracegate.json");
    },
    layout: "own-file",
    timeoutUnit: "s",
    timeoutKey: "timeoutSec",
    commandKey: "bash",
    matcherEvents: new Set(),
    fileHeader: { version: 1 },
    notes: [
      "Copilot skips repository hooks (.github/hooks/) in an untrusted folder: run copilot with --trust-folder, or set COPILOT_ALLOW_ALL=true. User hooks ($COPILOT_HOME/hooks/) need no trust.",
    ],
  },
};
