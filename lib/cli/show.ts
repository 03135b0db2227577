/**
 * `tracegate show SESSION [--json]`: one line per record that says what
 * happened (tool and a short input, a failed call's error, the verdict and
 * whether the stop was blocked or allowed and why, the event of a kept
 * payload); `--json` prints the full records.
 */
import { parseArgs } from "../runtime/builtins.ts";
import { dataDir } from "../config/paths.ts";
import { analyzeSession } from "../gate/outcome.ts";
import type { TraceRecord } from "../trace/record.ts";
import { parseOptions } from "./args.ts";
import { COMMANDS } from "./commands.ts";
import { err, escapeControl, fail, out } from "./print.ts";
import { openSource } from "../source/index.ts";
import { resolveIn } from "./resolve.ts";
import { configuredPublicKey } from "./sessions.ts";
import { clip, colorEnabled, isTerminal, localTime, type Paint, paint } from "./style.ts";

// Everything taken from a record is escaped: a hostile payload or a hand-edited
// session file must not be able to drive the terminal.
function str(v: unknown): string | null {
  if (typeof v === "string") return escapeControl(v);
  if (v && typeof v === "object" && typeof (v as { head?: unknown }).head === "string") return escapeControl((v as { head: string }).head);
  return null;
}

const word = (v: unknown): string => escapeControl(String(v ?? "?"));

function brief(v: unknown, max: number): string {
  if (v === null || v === undefined) return "";
  const s = str(v) ?? escapeControl(JSON.stringify(v) ?? "");
  return clip(s, max);
}

/** The field of a tool's input that says what the call did, by tool name. */
const INPUT_KEYS = ["command", "file_path", "path", "pattern", "url", "query", "description", "prompt", "notebook_path"];

/**
 * A short description of a tool input: the command, path, pattern or URL it
 * names, else its JSON.
 *
 * @example
 * ```ts
 * shortInput({ command: "npm test" }); // "npm test"
 * shortInput({ file_path: "/a/b.ts", old_string: "x" }); // "/a/b.ts"
 * ```
 */
export function shortInput(input: unknown, max = 80): string {
  if (input && typeof input === "object" && !Array.isArray(input)) {
    const o = input as Record<string, unknown>;
    for (const k of INPUT_KEYS) {
      const s = str(o[k]);
      if (s !== null) return clip(s, max);
    }
  }
  return brief(input, max);
}

/** Why a tool call failed: its error text, or the exit code its output carries. */
function failure(a: Record<string, unknown>): string {
  const e = str(a.error);
  const o = a.output as Record<string, unknown> | null;
  const code = o && typeof o === "object" ? (o.exit_code ?? o.exitCode ?? o.code) : undefined;
  // Claude Code reports a failed Bash call as "Exit code N\n<stderr>".
  const m = e ? /^exit code (\d+)\s*/i.exec(e) : null;
  const exit = typeof code === "number" ? code : m ? Number(m[1]) : null;
  const rest = e && m ? e.slice(m[0].length) : e;
  const parts = [exit !== null ? `exit ${exit}` : null, rest ? clip(rest, 100) : null].filter(Boolean);
  return parts.length ? parts.join(": ") : "failed";
}

/**
 * Why the gate let the agent stop, in words: the gate's own reason, with the
 * oracle error it stands for made specific.
 *
 * @example
 * ```ts
 * whyAllowed("oracle error, on_error allow", "oracle unreachable: connection refused"); // "oracle unreachable (on_error allow)"
 * whyAllowed("max attempts reached", null); // "attempts used up"
 * ```
 */
export function whyAllowed(reason: string | null, problem: string | null): string {
  if (reason === null) return "";
  if (reason === "max attempts reached") return "attempts used up";
  const policy = / on_error allow$/.test(reason) ? " (on_error allow)" : "";
  if (/^oracle error/.test(reason)) {
    if (problem && /unreachable|deadline reached|timed out|ECONNREFUSED/i.test(problem)) return `oracle unreachable${policy}`;
    return `oracle error${policy}`;
  }
  if (/did not verify/.test(reason)) return `verdict did not verify${policy}`;
  return reason;
}

/**
 * The verdict line: what the oracle said and what the gate did with it.
 * `counts` is the outcome function's word on this verdict (signature, fields,
 * session, replay, chain); without it, the stored flag is all there is.
 */
function verdictLine(a: Record<string, unknown>, p: Paint, counts?: boolean): string {
  const verdict = word(a.verdict);
  const coloured = verdict === "PASS" ? p.green(verdict) : verdict === "FAIL" ? p.red(verdict) : p.yellow(verdict);
  const bad = counts === undefined ? a.verified === false : !counts;
  const unverified = bad && verdict !== "ERROR" && verdict !== "PENDING" ? p.red(" UNVERIFIED") : "";
  const attempt = `attempt ${word(a.attempt)}`;
  let decision = "";
  if (a.decision === "block") {
    decision = `stop ${p.red("blocked")}${verdict === "PENDING" ? ": waiting for the oracle" : ""}`;
    if (a.outcome === "cap") decision += " (harness block cap reached; the turn ends)";
  } else if (a.decision === "allow") {
    const why = whyAllowed(str(a.allow_reason), str(a.problem));
    decision = `stop ${p.green("allowed")}${why ? `: ${why}` : ""}`;
  }
  const problem = str(a.problem);
  return [`${coloured}${unverified}`, attempt, decision, problem ? p.dim(`(${clip(problem, 120)})`) : ""].filter(Boolean).join("  ");
}

/**
 * One human-readable line per record (without the time column).
 *
 * @example
 * ```ts
 * describeRecord({ id: "1", session_id: "s", harness: "claude", ts: "t", type: "tool_call", tool_name: "Bash", tool_use_id: "u", input: { command: "ls" }, output: null, status: "ok", duration_ms: 5 });
 * // "tool        Bash  ls  ok 5ms"
 * ```
 */
export function describeRecord(r: TraceRecord, p: Paint = paint(false), counts?: boolean): string {
  const a = r as unknown as Record<string, unknown>;
  const kind = (label: string) => p.bold(label.padEnd(10));
  switch (r.type) {
    case "session_start": {
      const base = typeof a.base_commit === "string" ? escapeControl(a.base_commit.slice(0, 12)) : "none (not a git repo)";
      const model = str(a.model);
      const source = str(a.source);
      return `${kind("start")}  ${brief(a.cwd, 100)}  base ${base}${model ? `  model ${model}` : ""}${source ? `  (${source})` : ""}`;
    }
    case "message":
      return a.role === "user" ? `${kind("prompt")}  ${p.cyan(brief(a.text, 160))}` : `${kind("assistant")}  ${brief(a.text, 160)}`;
    case "tool_call": {
      const name = p.bold(str(a.tool_name) ?? "?");
      const ms = typeof a.duration_ms === "number" ? ` ${a.duration_ms}ms` : "";
      const status = a.status === "error" ? p.red(`FAILED ${failure(a)}`) : p.dim(`ok${ms}`);
      return `${kind("tool")}  ${name}  ${shortInput(a.input)}  ${status}`;
    }
    case "oracle_verdict":
      return `${kind("verdict")}  ${verdictLine(a, p, counts)}`;
    case "session_end":
      return `${kind("end")}  ${str(a.reason) ?? "?"}  outcome ${word(a.outcome)}`;
    case "payload_cut" as string:
      return `${kind("cut")}  ${str(a.event) ?? "payload"} not kept whole: ${word(a.bytes)} bytes (not JSON or over the stdin cap)`;
    default: {
      const payload = (a.payload ?? {}) as Record<string, unknown>;
      const event = str(a.event) ?? str(payload.hook_event_name) ?? r.type;
      const tool = str(payload.tool_name);
      const detail = tool ? `${tool}  ${shortInput(payload.tool_input)}` : brief(payload.message ?? payload.trigger ?? payload.agent_type ?? "", 100);
      return `${kind("event")}  ${event}${detail ? `  ${detail}` : ""}`;
    }
  }
}

/** `tracegate show SESSION [--json]`. */
export async function showCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: parseOptions(COMMANDS.show!), strict: true, allowPositionals: true });
  let body: Buffer;
  let label: string;
  try {
    const source = await openSource(values.from as string | undefined, dataDir(process.env), process.env);
    const found = await resolveIn(source, positionals[0]!);
    if ("error" in found) return fail(found.error);
    label = found.label;
    try {
      body = await source.readBytes(found);
    } catch (e) {
      return fail(`cannot read ${found.label} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); check its permissions`);
    }
  } catch (e) {
    return fail(`cannot read the store: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  // The one outcome function: which verdicts count, and the session's outcome.
  const a = analyzeSession(body, { file: label, publicKey: await configuredPublicKey() });
  const counted = new Set(a.verified_lines);
  const tty = isTerminal(1);
  const p = paint(colorEnabled(1));
  a.records.forEach((r, i) => {
    if (values.json) out(`${escapeControl(JSON.stringify(r), { json: true })}\n`);
    else out(`${formatLine(r, tty, p, counted.has(a.lines[i]!))}\n`);
  });
  // On a terminal, a last line with the session's outcome; piped output stays one line per record.
  if (!values.json && tty) out(`${p.dim("".padEnd(24))}  ${p.bold("outcome".padEnd(10))}  ${a.outcome}\n`);
  for (const x of a.corrupt) err(`tracegate: ${label}:${x.line}: ${x.problem}; the other lines are shown\n`);
  for (const x of a.problems) err(`tracegate: ${label}:${x.line}: ${x.problem}\n`);
  return a.corrupt.length ? 1 : 0;
}

/** A record with its time: local wall clock on a terminal, the stored ISO time otherwise. */
export function formatLine(r: TraceRecord, tty: boolean, p: Paint, counts?: boolean): string {
  const ts = typeof r.ts === "string" ? r.ts : "";
  return `${p.dim(escapeControl(tty ? localTime(ts) : ts))}  ${describeRecord(r, p, counts)}`;
}
