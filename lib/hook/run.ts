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
import { loadConfig, type Config } from "../config/load.ts";
import { dataDir } from "../config/paths.ts";
import { configuredRedactor } from "../redact/configured.ts";
import { newId } from "../trace/digest.ts";
import type { PayloadCutRecord, TraceRecord } from "../trace/record.ts";
import { sanitize } from "../trace/sanitize.ts";
import { LOCK_WAIT_MS } from "../trace/lock.ts";
import { appendRecords, UNATTRIBUTED } from "../trace/store.ts";
import { HOOKS, type HookName } from "./caps.ts";
import { logError, TracegateError } from "./errorlog.ts";
import { drain, type StdinRead } from "./stdin.ts";
import { emitDecision, muzzleStdout } from "./stdout.ts";
import type { HookContext, HookHandler } from "./types.ts";

function exit0(): never {
  process.exit(0);
}

/** Milliseconds since the process started, not since main() ran. */
export function sinceStart(): number {
  return performance.now();
}

const HEAD_FOR_UNPARSED = 64 * 1024;

/** The record for a payload we could not parse (cut at the stdin cap, or not JSON). */
function unparsedRecord(input: StdinRead, text: string, event: string): PayloadCutRecord {
  // Attribute it to its session when the head still says which one.
  const sid = /"session_id"\s*:\s*"([^"\\]{1,256})"/.exec(text.slice(0, HEAD_FOR_UNPARSED))?.[1];
  return {
    id: newId(),
    type: "payload_cut",
    session_id: sid ?? UNATTRIBUTED,
    harness: "claude",
    ts: new Date().toISOString(),
    event,
    bytes: input.bytes,
    sha256: input.sha256,
    head: text.slice(0, HEAD_FOR_UNPARSED),
  };
}

function parseArgs(argv: readonly string[]): { harness: string; rest: string[] } {
  const rest: string[] = [];
  let harness = "claude";
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--harness") harness = argv[++i] ?? harness;
    else if (a.startsWith("--harness=")) harness = a.slice("--harness=".length);
    else rest.push(a);
  }
  return { harness, rest };
}

/** Sanitise (redact, cap) and append; a failure is logged, never raised. */
function writeRecords(home: string, hook: string, records: readonly TraceRecord[], config: Config): void {
  const redactor = configuredRedactor(config, home);
  const caps = { fieldBytes: config.caps.field_bytes, recordBytes: config.caps.record_bytes };
  const clean: TraceRecord[] = [];
  for (const r of records) {
    try {
      clean.push(sanitize(r, redactor, caps));
    } catch (e) {
      // A record that cannot be sanitised is never written raw.
      logError(home, hook, "sanitize", e);
    }
  }
  try {
    // The lock wait is bounded by what is left of this hook's deadline: a synchronous wait would hold off the hard timer.
    const left = (HOOKS[hook as HookName]?.capMs ?? LOCK_WAIT_MS) - sinceStart() - 150;
    appendRecords(home, clean, { lockWaitMs: Math.max(0, Math.min(LOCK_WAIT_MS, left)) });
  } catch (e) {
    logError(home, hook, "append", e);
  }
}

/**
 * Run one hook subcommand to completion and exit 0.
 *
 * @example
 * ```ts
 * await runHook("post-tool-use", process.argv.slice(3), handlerFor);
 * ```
 */
export async function runHook(
  hook: HookName,
  argv: readonly string[],
  resolve: (hook: HookName, args: readonly string[]) => Promise<HookHandler>,
): Promise<never> {
  const env = process.env;
  if (env.TRACEGATE_INTERNAL === "1") exit0();
  const spec = HOOKS[hook];
  const home = dataDir(env);
  const deadline = setTimeout(() => {
    logError(home, hook, "deadline", new TracegateError(`cap of ${spec.capMs} ms reached`));
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
    const { harness, rest } = parseArgs(argv);
    const input = await drain(Bun.stdin.stream());
    const text = new TextDecoder("utf-8", { fatal: false }).decode(input.data);
    let payload: unknown;
    try {
      if (input.cut) throw new TracegateError(`payload over the stdin cap (${input.bytes} bytes)`);
      payload = JSON.parse(text);
    } catch (e) {
      logError(home, hook, "parse", e);
      if (input.bytes > 0) {
        const config = await loadConfig(env, null);
        writeRecords(home, hook, [unparsedRecord(input, text, spec.event)], config);
      }
      exit0();
    }
    if (!payload || typeof payload !== "object" || Array.isArray(payload)) {
      throw new TracegateError("payload is not a JSON object");
    }
    if (harness !== "claude") throw new TracegateError(`unsupported harness "${harness.slice(0, 32)}"`);
    const cwd = (payload as Record<string, unknown>).cwd;
    const config = await loadConfig(env, typeof cwd === "string" ? cwd : null);
    for (const problem of [...config.errors, ...config.repo_errors]) logError(home, hook, "config", new TracegateError(problem));
    const ctx: HookContext = {
      hook,
      harness,
      payload,
      home,
      config,
      env,
      args: rest,
      remainingMs: () => spec.capMs - sinceStart(),
      now: () => new Date(),
    };
    const handler = await resolve(hook, rest);
    const result = await handler(ctx);
    // The decision goes out before any optional work: redacting and appending
    // the records may be slow (a costly pattern, a contended lock), and a
    // block that arrives after the harness's kill is a stop the gate lost.
    if (result.decision && hook === "stop") emitDecision(result.decision);
    writeRecords(home, hook, result.records, config);
  } catch (e) {
    logError(home, hook, "handler", e);
  }
  exit0();
}
