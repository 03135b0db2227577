/**
 * `tracegate run --harness NAME [--task ID] -- CMD...`: the gate around a
 * harness, for a harness that cannot refuse a stop or a headless CI job.
 *
 * It runs CMD (the harness's own non-interactive command; its stdout and
 * stderr pass through untouched, tracegate's own lines go to stderr), lets
 * the installed hooks record the session as usual, and when CMD exits asks
 * the Stop gate, in-process, for the session the hooks recorded: the same
 * diff, oracle request, signature check, `oracle_verdict` record and
 * decision as a Stop hook. On FAIL it resumes the same session with the
 * gate's fixed reason as the next prompt (lib/run/resume.ts), until the gate
 * allows: a verified PASS, or `gate.max_attempts` used up. Then it appends a
 * `session_end` record (`reason: "tracegate-run"`, or `"interrupted"`) with
 * the outcome derived from the session's records.
 *
 * SIGINT and SIGTERM are passed to the running child; the run then ends
 * without another attempt, outcome recorded. Exit status: 0 when the session
 * flipped, 1 when the oracle never passed (or the run was interrupted first),
 * 2 for a usage or set-up error.
 */
import { spawn } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { parseArgs } from "../runtime/builtins.ts";
import { err, fail } from "../cli/print.ts";
import { loadConfig, type Config } from "../config/load.ts";
import { dataDir } from "../config/paths.ts";
import { BLOCK_REASON } from "../gate/decide.ts";
import { sessionOutcome } from "../gate/outcome.ts";
import { ADAPTERS } from "../harness/registry.ts";
import type { HarnessAdapter } from "../harness/types.ts";
import type { HookContext } from "../hook/types.ts";
import { STOP_CAP_MS } from "../hook/subcommands.ts";
import { newId } from "../trace/digest.ts";
import type { TraceRecord } from "../trace/record.ts";
import { listSessionFiles, parseSessionText } from "../trace/store.ts";
import { canResume, checkCommand, type Invocation, ResumeError, RESUMABLE, resumeCommand } from "./resume.ts";

const USAGE = "usage: tracegate run --harness NAME [--task ID] -- CMD...";

/** Times the gate is asked again, without a resume, while the oracle's job is still running. */
const PENDING_RETRIES = 5;

type Env = Record<string, string | undefined>;

interface Parsed {
  readonly adapter: HarnessAdapter;
  readonly task: string | null;
  readonly cmd: string[];
}

function parse(argv: readonly string[]): Parsed {
  const dash = argv.indexOf("--");
  if (dash < 0 || dash === argv.length - 1) throw new ResumeError(`no harness command: put it after --\n${USAGE}`);
  const { values } = parseArgs({
    args: argv.slice(0, dash) as string[],
    options: { harness: { type: "string" }, task: { type: "string" } },
    strict: true,
    allowPositionals: false,
  });
  const name = values.harness;
  if (!name) throw new ResumeError(`--harness is required (one of ${RESUMABLE.join(", ")})\n${USAGE}`);
  if (!Object.hasOwn(ADAPTERS, name) || !canResume(name)) {
    throw new ResumeError(`tracegate run cannot drive harness "${name.slice(0, 40)}": --harness must be one of ${RESUMABLE.join(", ")}`);
  }
  const task = values.task?.trim() || null;
  return { adapter: ADAPTERS[name]!, task, cmd: argv.slice(dash + 1) };
}

/** Session files as they are before the run: path -> bytes. */
function snapshot(home: string): Map<string, number> {
  return new Map(listSessionFiles(home).map((f) => [f.path, f.bytes]));
}

function canonical(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * The session this run's harness recorded: a session file that is new or
 * grew since `before`, whose first session_start is in `cwd`, of this
 * harness, and not a sub-agent's; the earliest such start wins.
 */
export function findRunSession(home: string, before: ReadonlyMap<string, number>, harness: string, cwd: string): { id: string; cwd: string } | null {
  const want = canonical(cwd);
  let best: { id: string; cwd: string; ts: string } | null = null;
  for (const f of listSessionFiles(home)) {
    if ((before.get(f.path) ?? -1) >= f.bytes) continue;
    let text: string;
    try {
      text = readFileSync(f.path, "utf8");
    } catch {
      continue;
    }
    const start = parseSessionText(f.path, text, ["session_start"]).records.find(
      (r) => r.type === "session_start" && r.harness === harness,
    ) as (TraceRecord & { cwd?: unknown; source?: unknown; agent_id?: unknown }) | undefined;
    if (!start || typeof start.cwd !== "string" || start.source === "subagent" || typeof start.agent_id === "string") continue;
    if (canonical(start.cwd) !== want) continue;
    if (!best || start.ts < best.ts) best = { id: start.session_id, cwd: start.cwd, ts: start.ts };
  }
  return best && { id: best.id, cwd: best.cwd };
}

interface ChildResult {
  readonly code: number | null;
  readonly signal: string | null;
  readonly spawnError: string | null;
}

let current: ReturnType<typeof spawn> | null = null;
let interrupted: NodeJS.Signals | null = null;

function runChild(inv: Invocation, env: Env, cwd: string): Promise<ChildResult> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(inv.argv[0]!, inv.argv.slice(1), {
        cwd,
        env: env as NodeJS.ProcessEnv,
        stdio: [inv.stdin === null ? "inherit" : "pipe", "inherit", "inherit"],
      });
    } catch (e) {
      resolve({ code: null, signal: null, spawnError: (e as Error).message });
      return;
    }
    current = child;
    let spawnError: string | null = null;
    child.on("error", (e) => {
      spawnError = e.message;
    });
    if (inv.stdin !== null) {
      child.stdin?.on("error", () => {});
      child.stdin?.end(inv.stdin);
    }
    child.on("close", (code, signal) => {
      current = null;
      resolve({ code, signal, spawnError });
    });
  });
}

/** Ask the Stop gate for the session, as a Stop hook would; returns whether it blocked. */
async function askGate(adapter: HarnessAdapter, sessionId: string, cwd: string, blocked: boolean, home: string, config: Config, env: Env): Promise<{ blocked: boolean; pending: boolean; asked: boolean }> {
  const [{ createStopGate }, { writeRecords }] = await Promise.all([import("../gate/stop.ts"), import("../hook/run.ts")]);
  const started = performance.now();
  const gate = createStopGate(
    async () => ({ records: [] }),
    () => ({ session_id: sessionId, cwd, stop_hook_active: blocked, block_cap: 0, event: "tracegate-run" }),
  );
  const ctx: HookContext = {
    hook: "stop",
    harness: adapter.name,
    payload: {},
    home,
    config,
    env,
    args: [],
    remainingMs: () => STOP_CAP_MS - (performance.now() - started),
    now: () => new Date(),
  };
  const result = await gate(ctx);
  await writeRecords(home, "stop", result.records, config, undefined, { unbounded: true });
  const verdict = result.records.find((r) => r.type === "oracle_verdict") as { verdict?: unknown } | undefined;
  return { blocked: result.decision !== undefined, pending: verdict?.verdict === "PENDING", asked: verdict !== undefined };
}

/** `tracegate run --harness NAME [--task ID] -- CMD...` */
export async function runCommand(argv: string[]): Promise<number> {
  let p: Parsed;
  try {
    p = parse(argv);
    checkCommand(p.adapter.name, p.cmd);
  } catch (e) {
    return fail((e as Error).message, 2);
  }
  const env: Env = { ...process.env };
  if (p.task) env.TRACEGATE_TASK_ID = p.task;
  const cwd = process.cwd();
  const home = dataDir(env);
  const config = await loadConfig(env, cwd);
  if (config.errors.length) return fail(`the config has problems, so nothing would be gated:\n  ${config.errors.join("\n  ")}\nfix them (tracegate doctor) and run again`, 2);
  if (!config.oracle) return fail(`no oracle is configured (oracle.url and oracle.public_key in ${config.path}): tracegate run has nothing to ask`, 2);
  if (config.gate.enabled === false) return fail(`gate.enabled is false in ${config.path}: tracegate run would never gate`, 2);

  const forward = (sig: NodeJS.Signals) => () => {
    interrupted ??= sig;
    // A Ctrl-C at a terminal already reached the whole foreground group, the harness included:
    // a second SIGINT would read as "press again to force quit" to some harnesses.
    if (sig === "SIGINT" && process.stdin.isTTY) return;
    try {
      current?.kill(sig);
    } catch {
      // already gone
    }
  };
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);

  const before = snapshot(home);
  let inv: Invocation = { argv: p.cmd, stdin: null };
  let session: { id: string; cwd: string } | null = null;
  let attempts = 0;
  let blocked = false;
  let lastExit: number | null = null;
  try {
    for (;;) {
      const r = await runChild(inv, env, cwd);
      lastExit = r.code;
      if (r.spawnError) return fail(`cannot run ${p.cmd[0]}: ${r.spawnError}`, 2);
      session ??= findRunSession(home, before, p.adapter.name, cwd);
      if (!session) {
        return fail(
          `${p.adapter.title} exited ${r.code ?? r.signal} and no ${p.adapter.name} session was recorded in ${home}: install the hooks first (tracegate install --harness ${p.adapter.name}, without --gate: tracegate run is the gate)`,
          2,
        );
      }
      if (interrupted) break;
      let g = await askGate(p.adapter, session.id, session.cwd, blocked, home, config, env);
      for (let i = 0; g.pending && i < PENDING_RETRIES && !interrupted; i++) g = await askGate(p.adapter, session.id, session.cwd, true, home, config, env);
      if (g.asked) attempts++;
      if (!g.blocked || interrupted) break;
      blocked = true;
      err(`tracegate run: the oracle did not pass (attempt ${attempts}); resuming ${p.adapter.title} session ${session.id}\n`);
      inv = resumeCommand(p.adapter.name, p.cmd, session.id, BLOCK_REASON);
    }
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }

  // The one outcome function: from the verdicts that verify, never from stored flags.
  const outcome = await sessionOutcome(home, session!.id, config);
  const { writeRecords } = await import("../hook/run.ts");
  await writeRecords(
    home,
    "session-end",
    [
      {
        id: newId(),
        type: "session_end",
        session_id: session!.id,
        harness: p.adapter.name,
        ts: new Date().toISOString(),
        event: "tracegate-run",
        reason: interrupted ? "interrupted" : "tracegate-run",
        outcome,
        attempts,
        harness_exit: lastExit,
        ...(interrupted ? { signal: interrupted } : {}),
      } as TraceRecord,
    ],
    config,
    undefined,
    { unbounded: true },
  );
  err(`tracegate run: session ${session!.id}: outcome ${outcome} after ${attempts} oracle attempt(s)${interrupted ? ` (interrupted by ${interrupted})` : ""}\n`);
  return outcome === "flip" ? 0 : 1;
}
