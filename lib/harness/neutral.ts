/**
 * The adapter for a `--harness` name tracegate does not know: nothing is
 * dropped and nothing is guessed. Every event is kept whole as an `event`
 * record (SessionStart as `session_start`, so the base commit is still
 * taken), under whichever common session-id key the payload has; Stop is
 * recorded, never gated, because tracegate does not know how this harness
 * refuses a stop. It has no hook config, so install refuses it.
 */
import { buildRecords, firstString, sessionIdInHead, str } from "./records.ts";
import type { HarnessAdapter } from "./types.ts";

const SESSION_KEYS = ["session_id", "sessionId", "sessionID", "conversation_id"];

/** The name recorded for an unknown harness: its own when it is a plain short word. */
export function neutralName(name: string): string {
  return /^[a-z0-9][a-z0-9_-]{0,31}$/i.test(name) ? name.toLowerCase() : "unknown";
}

/**
 * A neutral adapter recording under `name`.
 *
 * @example
 * ```ts
 * neutralAdapter("windsurf").records("stop", { session_id: "s" }, "s", facts)[0].type; // "event"
 * ```
 */
export function neutralAdapter(name: string): HarnessAdapter {
  const recorded = neutralName(name);
  return {
    name: recorded,
    title: `unknown harness "${recorded}"`,
    events: {},
    sessionKeys: SESSION_KEYS,
    sessionIdOf: (p) => firstString(p, SESSION_KEYS),
    sessionIdInHead: (head) => sessionIdInHead(head, SESSION_KEYS),
    wants: () => ({}),
    records(hook, p, sessionId, facts) {
      const common = SESSION_KEYS.filter((k) => typeof p[k] === "string");
      const event = facts.eventName ?? str(p.hook_event_name) ?? str(p.hookName);
      if (hook === "session-start") {
        return buildRecords(recorded, hook, p, sessionId, facts, {
          common,
          event,
          sessionStart: { cwd: p.cwd, model: p.model, source: p.source, taken: ["cwd", "model", "source"] },
        });
      }
      return buildRecords(recorded, "event", p, sessionId, facts, { common, event });
    },
    stopInput: () => null,
    blockOutput: (reason) => ({ decision: "block", reason }),
    exit2Blocks: false,
    install: {
      scopes: [],
      path: () => {
        throw new Error(`tracegate has no hook config for harness "${recorded}"`);
      },
      layout: "settings",
      timeoutUnit: "s",
      timeoutKey: "timeout",
      commandKey: "command",
      matcherEvents: new Set(),
    },
  };
}
