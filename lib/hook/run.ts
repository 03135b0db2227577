/**
 * The hook runtime: everything every hook subcommand must get right, and
 * nothing about any event. It
 *
 * - arms a hard timer at the subcommand's cap, counted from process start
 *   (performance.now() is measured from the process's time origin), that
 *   exits 0;
 * - exits before reading a byte when TRACEGATE_INTERNAL=1 (our own children);
 * - turns every uncaught exception and unhandled rejection into a line in the
 *   error log and exit 0;
 * - drains stdin in chunks, keeping at most the stdin cap;
 * - gives the handler the parsed payload and writes what it returns: records
 *   through the one sanitize-and-append path, then at most one decision as
 *   the only stdout write.
 *
 * It never returns: every path ends in exit 0.
 */
import { basename } from "node:path";
import { DEFAULTS, loadConfig, type Config } from "../config/load.ts";
import { dataDir } from "../config/paths.ts";
import { configuredRedactor } from "../redact/configured.ts";
import { keyedDigest, loadFingerprintKey } from "../redact/fingerprint.ts";
import type { Redactor } from "../redact/index.ts";
import { utf8Head } from "../trace/cap.ts";
import { LOCK_WAIT_MS } from "../trace/lock.ts";
import type { TraceRecord } from "../trace/record.ts";
import { BudgetExceeded, decodeJsonEscapes, sanitize, sanitizeHeaderText, sanitizeWithin } from "../trace/sanitize.ts";
import { appendRecords } from "../trace/store.ts";
import { BUDGET_RESERVE_MS, HOOKS, type HookName } from "./subcommands.ts";
import { logError, TracegateError } from "./errorlog.ts";
import { readStdin, stdinProgress, type StdinProgress, type StdinRead } from "./stdin.ts";
import { emitDecision, muzzleStdout } from "./stdout.ts";
import type { HookBinding, HookContext, HookResolver } from "./types.ts";
import { forwardToViewer } from "../view/forward.ts";
import { oneShotPayload } from "../redact/tiering.ts";

function exit0(): never {
  process.exit(0);
}

/** Milliseconds since the process started, not since main() ran. */
export function sinceStart(): number {
  return performance.now();
}

/** How much of an unparsed payload its record keeps (the rest is hashed). */
export const HEAD_FOR_UNPARSED = 64 * 1024;

/** Why a payload became a `payload_cut` record instead of its event's record. */
export type CutReason = "stdin_cap" | "unparseable" | "not_an_object" | "budget" | "deadline";

/**
 * What the deadline handler needs to keep a record when the hard timer fires
 * before the records were written: stdin read so far, the config if loaded.
 */
const run: { progress: StdinProgress | null; config: Config | null; binding: HookBinding | null; written: boolean } = {
  progress: null,
  config: null,
  binding: null,
  written: false,
};

/**
 * The hard timer fired before any record was written (stdin still arriving,
 * or the work overran): keep a `payload_cut` of what was read, redacted, so
 * the event is not lost. Synchronous and bounded: a 64 KB head.
 */
function writeDeadlineRecord(home: string, hook: HookName): void {
  const p = run.progress;
  if (run.written || !p || p.bytes === 0 || !run.binding) return;
  run.written = true;
  try {
    const head = Buffer.concat(p.head, p.headBytes);
    const input: StdinRead = { data: head, bytes: p.bytes, cut: true, sha256: p.sha256() };
    const config = run.config ?? { ...DEFAULTS, path: "", exists: false, errors: [], repo_errors: [] };
    const caps = { fieldBytes: config.caps.field_bytes, recordBytes: config.caps.record_bytes };
    const rec = unparsedRecord(home, run.binding, input, new TextDecoder("utf-8", { fatal: false }).decode(head), "deadline");
    appendRecords(home, [sanitize(rec, configuredRedactor(config, home), caps)]);
  } catch (e) {
    logError(home, hook, "deadline-record", e);
  }
}

/**
 * The record for a payload kept only as a head: cut at the stdin cap, not
 * JSON, JSON but not an object, or too much work for the deadline. Keep the
 * head, hash the whole: the same byte-bounded head as a cut field, with its
 * JSON escapes decoded so redaction sees `AKIA...` where the payload wrote
 * `\u0041KIA...`; sanitize then redacts and caps it like any field. The
 * harness adapter (through the binding) says whose session it is.
 *
 * The whole is hashed under the data dir's redaction key: a payload's head
 * is redacted, and a plain sha256 of all of it would let whoever holds the
 * trace fill a `[REDACTED:…]` span with guesses until the hash matched.
 */
function unparsedRecord(home: string, binding: HookBinding, input: StdinRead, text: string, reason: CutReason, extra: Record<string, unknown> = {}): TraceRecord {
  const head = decodeJsonEscapes(utf8Head(text, HEAD_FOR_UNPARSED));
  const keyed = keyedDigest(loadFingerprintKey(home), input.sha256);
  return binding.unparsed({ bytes: input.bytes, keyed_sha256: keyed, head, ts: new Date().toISOString(), reason, extra });
}

/** `--harness NAME` (or `--harness=NAME`) taken out of argv; null when absent. */
export function splitHarnessArg(argv: readonly string[]): { harness: string | null; rest: string[] } {
  const rest: string[] = [];
  let harness: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--harness") harness = argv[++i] ?? harness;
    else if (a.startsWith("--harness=")) harness = a.slice("--harness=".length);
    else rest.push(a);
  }
  return { harness, rest };
}

/** What the work on this payload must fit in: the cap less what writing a fallback record needs. */
function budgetFor(capMs: number) {
  return { deadline: capMs - BUDGET_RESERVE_MS, now: sinceStart };
}

/**
 * The payload's session id as it will be stored: redacted and capped, so the
 * handler, the file name and every record agree on one id and a secret
 * planted in `session_id` never reaches a file name or the oracle.
 */
function storedIdentity(payload: Record<string, unknown>, keys: readonly string[], redactor: Redactor): void {
  for (const k of keys) if (typeof payload[k] === "string") payload[k] = sanitizeHeaderText(payload[k] as string, redactor);
}

/**
 * How long this append may wait for another hook's append to finish. The
 * wait is synchronous (it holds off the hard timer), so it is bounded by the
 * harness's declared timeout less a second rather than by the cap: on a
 * loaded machine a hook can reach its append late, and waiting a little past
 * the cap beats writing unlocked and forking the chain. SessionEnd's real
 * budget (1.5 s shared) has no such room, so it stays inside its cap.
 */
function lockWaitFor(hook: string): number {
  const spec = Object.hasOwn(HOOKS, hook) ? HOOKS[hook as HookName] : undefined;
  if (!spec) return LOCK_WAIT_MS;
  const until = hook === "session-end" ? spec.capMs - 100 : spec.timeoutS * 1000 - 1000;
  return Math.max(0, Math.min(LOCK_WAIT_MS, until - sinceStart()));
}

/**
 * Sanitise (redact, cap) and append, inside the budget; a record that cannot
 * be sanitised in time is replaced by a `payload_cut` saying what was cut
 * (the payload's sha256, bytes and a redacted head). A failure is logged,
 * never raised. Returns what reached the store. The one write path for
 * records (`tracegate run` writes its verdicts through it too).
 */
export async function writeRecords(
  home: string,
  hook: HookName,
  records: readonly TraceRecord[],
  config: Config,
  fallback?: { input: StdinRead; text: string; binding: HookBinding },
  /** A user command (`tracegate run`) writing through this path: no hook deadline to budget against. */
  opts: { unbounded?: boolean } = {},
): Promise<TraceRecord[]> {
  const redactor = configuredRedactor(config, home);
  const caps = { fieldBytes: config.caps.field_bytes, recordBytes: config.caps.record_bytes };
  const clean: TraceRecord[] = [];
  for (const r of records) {
    try {
      clean.push(opts.unbounded ? sanitize(r, redactor, caps) : await sanitizeWithin(r, redactor, caps, budgetFor(HOOKS[hook].capMs)));
    } catch (e) {
      // A record that cannot be sanitised is never written raw.
      logError(home, hook, "sanitize", e);
      if (e instanceof BudgetExceeded && r.type === "payload_cut") {
        // Already only a head: finish it, bounded, rather than lose it.
        try {
          clean.push(sanitize(r, redactor, caps));
        } catch (e2) {
          logError(home, hook, "sanitize", e2);
        }
      } else if (e instanceof BudgetExceeded && fallback) {
        const cut = unparsedRecord(home, fallback.binding, fallback.input, fallback.text, "budget", { cut_type: r.type });
        try {
          clean.push(sanitize({ ...cut, session_id: r.session_id }, redactor, caps));
        } catch (e2) {
          logError(home, hook, "sanitize", e2);
        }
      }
    }
  }
  run.written = true;
  try {
    const wait = opts.unbounded ? LOCK_WAIT_MS : lockWaitFor(hook);
    const { unlocked } = appendRecords(home, clean, { lockWaitMs: wait });
    for (const file of unlocked) {
      logError(home, hook, "lock", new TracegateError(`append lock not had within ${Math.round(wait)} ms; wrote ${basename(file)} unlocked (its hash chain may fork here)`));
    }
    return clean;
  } catch (e) {
    logError(home, hook, "append", e);
    return [];
  }
}

/**
 * JSON.parse is one synchronous call that no timer can interrupt: a large
 * payload is parsed only if it can still finish inside the budget. Its cost
 * is estimated from the decode just done (the same bytes, one linear pass;
 * measured, parsing takes 1-6x as long; 3x keeps a 30 MB tool output whole on
 * a loaded machine while a 60 MB one dense with secrets is still cut by the
 * sanitize budget after it), so the estimate follows the
 * machine's load.
 */
const PARSE_PER_DECODE = 3;
const PARSE_ALWAYS_BYTES = 1024 * 1024;
const PARSE_OVER_BUDGET = { reason: "budget" as const, error: new TracegateError("no time left in the budget to parse the payload") };

function fitsBeforeParse(input: StdinRead, decodeMs: number, deadline: number): boolean {
  if (input.cut || input.bytes <= PARSE_ALWAYS_BYTES) return true;
  return sinceStart() + PARSE_PER_DECODE * decodeMs < deadline;
}

/** Parse stdin as a JSON object, or say why it is kept only as a `payload_cut`. */
function parsePayload(input: StdinRead, text: string): { payload: Record<string, unknown> } | { reason: CutReason; error: unknown } {
  if (input.cut) return { reason: "stdin_cap", error: new TracegateError(`payload over the stdin cap (${input.bytes} bytes read)`) };
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (e) {
    return { reason: "unparseable", error: e };
  }
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) {
    return { reason: "not_an_object", error: new TracegateError("payload is not a JSON object") };
  }
  return { payload: payload as Record<string, unknown> };
}

/**
 * Run one hook subcommand to completion and exit 0.
 *
 * @example
 * ```ts
 * await runHook("post-tool-use", process.argv.slice(3), bindingFor);
 * ```
 */
export async function runHook(
  hook: HookName,
  argv: readonly string[],
  resolve: HookResolver,
): Promise<never> {
  const env = process.env;
  if (env.TRACEGATE_INTERNAL === "1") exit0();
  const spec = HOOKS[hook];
  const home = dataDir(env);
  const deadline = setTimeout(() => {
    logError(home, hook, "deadline", new TracegateError(`cap of ${spec.capMs} ms reached`));
    writeDeadlineRecord(home, hook);
    exit0();
  }, Math.max(0, spec.capMs - sinceStart()));
  deadline.unref?.();
  process.on("uncaughtException", (e) => {
    logError(home, hook, "uncaught", e);
    exit0();
  });
  process.on("unhandledRejection", (e) => {
    logError(home, hook, "unhandled-rejection", e);
    exit0();
  });
  // Libraries must not print either: stdout is for the Stop decision only.
  muzzleStdout((e) => logError(home, hook, "stray-output", e));

  try {
    const { harness, rest } = splitHarnessArg(argv);
    // Resolved first: even a payload that never parses is recorded in its harness's terms.
    // A binding that cannot be had must not cost the harness its pipe: stdin is still drained, then exit.
    const found = await resolve(hook, rest, harness).catch((e: unknown) => {
      logError(home, hook, "binding", e);
      return null;
    });
    run.binding = found;
    const progress = stdinProgress(HEAD_FOR_UNPARSED);
    run.progress = progress;
    const input = await readStdin(budgetFor(spec.capMs).deadline, progress);
    if (!found) exit0();
    // A hook redacts its one payload and exits: a large one is redacted below the JIT's top tier (tiering.ts).
    oneShotPayload(input.bytes);
    const binding = found;
    // A cut payload is kept only as its head: decode no more than that.
    const decodeStarted = sinceStart();
    const text = new TextDecoder("utf-8", { fatal: false }).decode(input.cut ? input.data.subarray(0, HEAD_FOR_UNPARSED) : input.data);
    const parsed = fitsBeforeParse(input, sinceStart() - decodeStarted, budgetFor(spec.capMs).deadline) ? parsePayload(input, text) : PARSE_OVER_BUDGET;
    if (!("payload" in parsed)) {
      logError(home, hook, "parse", parsed.error);
      if (input.bytes > 0) {
        const config = await loadConfig(env, null);
        run.config = config;
        await writeRecords(home, hook, [unparsedRecord(home, binding, input, text, parsed.reason)], config);
      }
      exit0();
    }
    const { payload } = parsed;
    const cwd = payload.cwd;
    const config = await loadConfig(env, typeof cwd === "string" ? cwd : null);
    run.config = config;
    // Problems only, never their text: a repository config's path is the payload's cwd.
    const problems = config.errors.length + config.repo_errors.length;
    if (problems) logError(home, hook, "config", new TracegateError(`${problems} config problem(s); run \`tracegate doctor\``));
    storedIdentity(payload, binding.sessionKeys, configuredRedactor(config, home));
    const ctx: HookContext = {
      hook,
      harness: binding.harness,
      payload,
      home,
      config,
      env,
      args: rest,
      remainingMs: () => spec.capMs - sinceStart(),
      now: () => new Date(),
    };
    const result = await binding.handle(ctx);
    // The decision goes out before any optional work: redacting and appending
    // the records may be slow (a costly pattern, a contended lock), and a
    // block that arrives after the harness's kill is a stop the gate lost.
    if (result.decision && spec.decides) emitDecision(result.decision);
    const written = await writeRecords(home, hook, result.records, config, { input, text, binding });
    // Display only, after the store has the records and the decision is out.
    await forwardToViewer(home, hook, written, ctx.remainingMs);
  } catch (e) {
    logError(home, hook, "handler", e);
  }
  exit0();
}
