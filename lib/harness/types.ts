/**
 * The seam between tracegate and one harness. An adapter owns everything
 * that differs between harnesses: its event names and the subcommand each
 * runs, where its payloads keep the session id, cwd, tool input and output
 * and the final text, how it says "block", its block cap, where its hook
 * config lives and in which units its timeouts are. The hook runtime, the
 * store, redaction, the diff and the oracle never see a harness name; the
 * handlers reach an adapter only through the registry.
 *
 * Adapters are pure: facts that need I/O (the base commit, the previous
 * assistant message, a transcript tail) are asked for through `wants` and
 * gathered by the handlers.
 */
import type { HookName } from "../hook/subcommands.ts";
import type { TraceRecord } from "../trace/record.ts";
import type { Outcome as SessionOutcome } from "../gate/outcome.ts";
import type { StopInput } from "../gate/input.ts";

/** A parsed hook payload: never trusted to have any particular shape. */
export type Payload = Record<string, unknown>;
/** The hook's environment (read only for documented variables, never recorded). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Facts the handler gathered for one event; the adapter turns them into records. */
export interface Facts {
  readonly ts: string;
  newId(): string;
  /** HEAD of the repo containing cwd at SessionStart, the session's first event (null outside a repo). */
  readonly baseCommit?: string | null;
  /** Session outcome at SessionEnd, derived from the session's records. */
  readonly outcome?: SessionOutcome;
  /** The harness event name when argv names it (`event --event=NAME`). */
  readonly eventName?: string | null;
  /** The session's last assistant message record so far (for cumulative final texts). */
  readonly previousAssistant?: { readonly id: string; readonly chars: number | null; readonly text?: string | null } | null;
  /** The final text read from the tail of the harness's transcript, when the adapter asked for it. */
  readonly transcriptText?: string | null;
  /** A session_end record for this session exists already (a harness that fires SessionEnd twice). */
  readonly sessionEnded?: boolean;
}

/** What an adapter needs gathered for one event, beyond the defaults. */
export interface FactNeeds {
  /** Read the session's last assistant message record. */
  readonly previousAssistant?: boolean;
  /** Read the tail of this transcript file for the final text. */
  readonly transcriptPath?: string | null;
}

/** `null` from `stopInput` means "do not gate this Stop" (a sub-agent's Stop, an unknown harness). */
export type { StopInput } from "../gate/input.ts";

/** The units a harness's hook timeouts are written in. */
export type TimeoutUnit = "s" | "ms";

/** Where and how install writes this harness's hook config. */
export interface InstallSpec {
  /** Scopes the harness has, in the order doctor lists them. */
  readonly scopes: readonly string[];
  /** The config file of a scope. */
  path(scope: string, env: Env, cwd: string): string;
  /**
   * `settings`: a `hooks` object of event arrays of matcher groups merged into
   * a file the user owns (Claude Code, Codex, Gemini); `own-file`: a hooks file
   * that is tracegate's alone (Copilot's `hooks/*.json` directories); `plugin`:
   * a plugin module that is tracegate's alone (OpenCode), rendered by `plugin`.
   */
  readonly layout: "settings" | "own-file" | "plugin";
  /** The `plugin` layout: the file's text for a binary, and its entries read back (null: not tracegate's). */
  readonly plugin?: PluginFile;
  /** Event arrays hold handlers directly, not matcher groups (Cursor's hooks.json). */
  readonly flat?: boolean;
  /** The harness's reader accepts comments in a `settings` file (Gemini strips them). */
  readonly comments?: boolean;
  readonly timeoutUnit: TimeoutUnit;
  /** The handler key that holds the timeout (`timeout`, Copilot's `timeoutSec`). */
  readonly timeoutKey: string;
  /** The key that holds the shell command (`command`, Copilot's `bash`). */
  readonly commandKey: string;
  /** Events whose groups take a tool-name matcher, and the match-everything value written. */
  readonly matcherEvents: ReadonlySet<string>;
  readonly matcher?: string;
  /** The most this harness lets a hook run for an event, in seconds, when it clamps. */
  readonly clampS?: Readonly<Record<string, number>>;
  /** Extra fixed fields on each handler (Gemini's `name`). */
  handlerExtra?(event: string): Readonly<Record<string, unknown>>;
  /** Top-level fields of an own-file (Copilot's `version`). */
  readonly fileHeader?: Readonly<Record<string, unknown>>;
  /** What the user must do besides install for the hooks to run (trust), printed by install. */
  readonly notes?: readonly string[];
}

/** A plugin file install writes whole (the `plugin` layout). */
export interface PluginFile {
  /** The whole file for this binary; `gate: false` registers the stop as an observer. */
  render(bin: string, gate: boolean): string;
  /** The entries a file of ours holds (`args` start with the subcommand), or null when the file is not tracegate's. */
  parse(text: string): PluginEntry[] | null;
}

/** One event a plugin file passes to the binary. */
export interface PluginEntry {
  readonly event: string;
  readonly bin: string;
  /** The subcommand and its arguments. */
  readonly args: readonly string[];
  /** How long the plugin lets the child run, in ms. */
  readonly timeout_ms: number;
}

/** One harness: everything tracegate knows about it, in one object (see the module doc). */
export interface HarnessAdapter {
  /** The `--harness` name and the `harness` field of every record. */
  readonly name: string;
  /** Human name for messages. */
  readonly title: string;
  /** Harness event name to the subcommand that serves it; install registers every one. */
  readonly events: Readonly<Record<string, HookName>>;
  /** The payload keys that may hold the session id, in the order they are tried. */
  readonly sessionKeys: readonly string[];
  /** The session's working directory in a payload, when not `cwd` (Cursor's `workspace_roots[0]`). */
  cwdOf?(p: Payload): string | null;
  /** The session id in a payload, or null. */
  sessionIdOf(p: Payload): string | null;
  /** The session id still readable in the head of a payload that did not parse. */
  sessionIdInHead(head: string): string | null;
  /** Which extra facts this event needs. */
  wants(hook: HookName, p: Payload, facts: { readonly eventName: string | null }): FactNeeds;
  /** Records for one event: a pure function of the payload and the facts. */
  records(hook: HookName, p: Payload, sessionId: string, facts: Facts): TraceRecord[];
  /** The gate's inputs from a Stop payload, or null when this Stop is not gated. */
  stopInput(p: Payload, env: Env): StopInput | null;
  /** The harness's output for "refuse the stop with this reason" (printed as one JSON line). */
  blockOutput(reason: string): Readonly<Record<string, unknown>>;
  /** Whether exit 2 also blocks a stop in this harness (documentation; tracegate always uses JSON). */
  readonly exit2Blocks: boolean;
  /** The final text of a transcript tail (Copilot), when `wants` asked for one. */
  finalTextFromTranscript?(tail: string, fromStart: boolean): string | null;
  /**
   * Whether a transcript tail already holds what was written before this hook
   * fired (Copilot flushes events.jsonl after the hook starts); the handler
   * re-reads for a short, bounded while until it does.
   */
  transcriptCaughtUp?(tail: string, p: Payload): boolean;
  readonly install: InstallSpec;
}
