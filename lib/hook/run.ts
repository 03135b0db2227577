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
import type { TraceRecord } from "../trace/record.ts";
import { utf8Head } from "../trace/cap.ts";
import { sanitize } from "../trace/sanitize.ts";
import { appendRecords } from "../trace/store.ts";
import { HOOKS, type HookName } from "./subcommands.ts";
import { logError, TracegateError } from "./errorlog.ts";
import { drain, type StdinRead } from "./stdin.ts";
import { emitDecision, muzzleStdout } from "./stdout.ts";
import type { HookContext, HookResolver } from "./types.ts";

function exit0(): never {
  process.exit(0);
}

/** Milliseconds since the process started, not since main() ran. */
export function sinceStart(): number {
  return performance.now();
}

/** How much of an unparsed payload its record keeps (the rest is hashed). */
export const HEAD_FOR_UNPARSED = 64 * 1024;

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

/**
 * Sanitise (redact, cap) and append; a failure is logged, never raised. The
 * one write path for records (`tracegate run` writes its verdicts through it too).
 */
export function writeRecords(home: string, hook: string, records: readonly TraceRecord[], config: Config): void {
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
    appendRecords(home, clean);
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
  resolve: HookResolver,
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
    const { harness, rest } = splitHarnessArg(argv);
    const input = await drain(Bun.stdin.stream());
    const text = new TextDecoder("utf-8", { fatal: false }).decode(input.data);
    let payload: unknown;
    try {
      if (input.cut) throw new TracegateError(`payload over the stdin cap (${input.bytes} bytes)`);
      payload = JSON.parse(text);
    } catch (e) {
      logError(home, hook, "parse", e);
      if (input.bytes > 0) {
        const [config, binding] = await Promise.all([loadConfig(env, null), resolve(hook, rest, harness)]);
        // Keep the head, hash the whole: the same byte-bounded head as a cut field.
        const head = utf8Head(text, HEAD_FOR_UNPARSED);
        writeRecords(home, hook, [binding.unparsed({ bytes: input.bytes, sha256: input.sha256, head, ts: new Date().toISOString() })], config);
      }
      exit0();
    }
    if (!payload || typeof payload !== "object" || Array.isArray(payload)) {
      throw new TracegateError("payload is not a JSON object");
    }
    const binding = await resolve(hook, rest, harness);
    const cwd = (payload as Record<string, unknown>).cwd;
    const config = await loadConfig(env, typeof cwd === "string" ? cwd : null);
    for (const problem of config.errors) logError(home, hook, "config", new TracegateError(problem));
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
    writeRecords(home, hook, result.records, config);
    if (result.decision && spec.decides) emitDecision(result.decision);
  } catch (e) {
    logError(home, hook, "handler", e);
  }
  exit0();
}
