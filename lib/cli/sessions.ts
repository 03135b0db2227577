/**
 * `tracegate sessions`: the sessions in the store, newest first, with
 * filters; a table on a terminal (colour, relative times, the first prompt),
 * tab-free plain lines when piped, one JSON summary a line with `--json`.
 */
import { basename } from "node:path";
import { parseArgs } from "../runtime/builtins.ts";
import { dataDir } from "../config/paths.ts";
import { loadConfig } from "../config/load.ts";
import { analyzeSession, GATE_RECORD_TYPES, OUTCOMES, type Outcome } from "../gate/outcome.ts";
import { readPublicKeyPem } from "../oracle/keys.ts";
import type { TraceRecord } from "../trace/record.ts";
import { openSource } from "../source/index.ts";
import { parseOptions } from "./args.ts";
import { COMMANDS } from "./commands.ts";
import { escapeControl, fail, out, outputColumns } from "./print.ts";
import { clip, colorEnabled, isTerminal, paint, parseAge, plural, relativeTime } from "./style.ts";

export interface SessionSummary {
  readonly session_id: string;
  readonly file: string;
  readonly harness: string | null;
  readonly records: number;
  readonly first_ts: string | null;
  readonly last_ts: string | null;
  readonly cwd: string | null;
  readonly first_prompt: string | null;
  readonly tool_calls: number;
  readonly ended: boolean;
  /** From `analyzeSession`, the one outcome function: signatures that verify, never stored flags. */
  readonly outcome: Outcome;
  readonly corrupt_lines: number;
}

function text(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (v && typeof v === "object" && typeof (v as { head?: unknown }).head === "string") return (v as { head: string }).head;
  return null;
}

/**
 * A record line's type without parsing the line when that is unambiguous:
 * the first `"type":"` of a line whose only `{` before it is the record's own
 * is the record's type (records put `type` before any nested value). Anything
 * else is parsed. Null for a line that is not a JSON object.
 */
export function lineType(line: string): string | null {
  const i = line.indexOf('"type":"');
  if (i > 0 && line.charCodeAt(0) === 123 && line.lastIndexOf("{", i) === 0 && line.lastIndexOf("[", i) === -1 && line.endsWith("}")) {
    const end = line.indexOf('"', i + 8);
    const t = line.slice(i + 8, end);
    if (/^[a-z_]+$/.test(t)) return t;
  }
  try {
    const v = JSON.parse(line);
    return v && typeof v === "object" && !Array.isArray(v) ? String(v.type) : null;
  } catch {
    return null;
  }
}

/** Record types a summary reads in full; tool calls (the bulk of a store) are only counted. */
const SUMMARY_TYPES = new Set(["session_start", "message", "oracle_verdict", "session_end"]);

/**
 * Summarise one session file. Only the records a summary needs are parsed
 * (start, prompts, verdicts, end, and the first and last line), so listing a
 * large store does not parse megabytes of tool output; the outcome comes from
 * `analyzeSession` under `publicKey` (null: every verdict is unverified), with
 * `seen` shared across files so a verdict copied from another session counts
 * as a replay.
 */
export function summarize(file: string, content: string | Uint8Array, publicKey: string | null = null, seen?: Map<string, string>): SessionSummary {
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  const body = typeof content === "string" ? content : Buffer.from(content).toString("utf8");
  const lines = body.split("\n");
  let records = 0;
  let tools = 0;
  let corrupt = 0;
  let first: TraceRecord | null = null;
  let lastLine: string | null = null;
  let start: { cwd?: unknown } | null = null;
  let prompt: { text?: unknown } | null = null;
  let ended = false;
  const parse = (line: string): Record<string, unknown> | null => {
    try {
      return JSON.parse(line);
    } catch {
      return null;
    }
  };
  for (const line of lines) {
    if (line === "") continue;
    const t = lineType(line);
    if (t === null) {
      corrupt++;
      continue;
    }
    records++;
    lastLine = line;
    if (t === "tool_call") tools++;
    if (first === null) first = parse(line) as unknown as TraceRecord;
    if (!SUMMARY_TYPES.has(t) || (t === "message" && prompt) || (t === "session_start" && start)) {
      if (t === "session_end") ended = true;
      continue;
    }
    const r = parse(line);
    if (!r) continue;
    if (t === "session_start") start = r;
    else if (t === "message" && r.role === "user") prompt = r;
    else if (t === "session_end") ended = true;
  }
  const last = lastLine === null ? null : (parse(lastLine) as { ts?: string } | null);
  return {
    session_id: first?.session_id ?? basename(file, ".jsonl"),
    file,
    harness: first?.harness ?? null,
    records,
    first_ts: first?.ts ?? null,
    last_ts: last?.ts ?? null,
    cwd: text(start?.cwd),
    first_prompt: text(prompt?.text),
    tool_calls: tools,
    ended,
    outcome: analyzeSession(bytes, { file, publicKey, seen, types: GATE_RECORD_TYPES }).outcome,
    corrupt_lines: corrupt,
  };
}

/** The filters `sessions` takes, already checked. */
export interface SessionFilter {
  readonly harness?: string;
  readonly outcome?: string;
  /** Epoch ms: sessions whose last record is at or after it. */
  readonly since?: number;
}

/** Keep the summaries a filter selects. Pure. */
export function filterSessions(list: readonly SessionSummary[], f: SessionFilter): SessionSummary[] {
  return list.filter(
    (s) =>
      (f.harness === undefined || s.harness === f.harness) &&
      (f.outcome === undefined || s.outcome === f.outcome) &&
      (f.since === undefined || Date.parse(s.last_ts ?? s.first_ts ?? "") >= f.since),
  );
}


/** `--since`: an age (7d) or a date/time (2026-11-30, 2026-11-30T12:00Z). */
export function parseSince(v: string, now = Date.now()): number | null {
  const age = parseAge(v);
  if (age !== null) return now - age;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

/** `tracegate sessions [--json] [--limit N] [--harness NAME] [--outcome O] [--since WHEN]` */
export async function sessionsCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: parseOptions(COMMANDS.sessions!), strict: true });
  const v = values as { json?: boolean; limit?: string; harness?: string; outcome?: string; since?: string; from?: string };
  let limit: number | undefined;
  if (v.limit !== undefined) {
    limit = Number(v.limit);
    if (!Number.isInteger(limit) || limit < 1) return fail(`--limit must be a whole number >= 1, not "${v.limit}"`, 2);
  }
  if (v.outcome !== undefined && !(OUTCOMES as readonly string[]).includes(v.outcome)) {
    return fail(`--outcome must be one of ${OUTCOMES.join(", ")}, not "${v.outcome}"`, 2);
  }
  let since: number | undefined;
  if (v.since !== undefined) {
    const t = parseSince(v.since);
    if (t === null) return fail(`--since takes an age (30m, 2h, 7d) or a date (2026-11-30), not "${v.since}"`, 2);
    since = t;
  }
  let home = dataDir(process.env);
  let all: SessionSummary[];
  const publicKey = await configuredPublicKey();
  const seen = new Map<string, string>();
  try {
    const source = await openSource(v.from, home, process.env);
    home = source.label;
    all = [];
    // One session at a time: a store of thousands of sessions is never all in memory at once.
    // Oldest first for the replay check (a signature seen before is the copy), listed newest first.
    for (const f of (await source.list()).reverse()) all.unshift(summarize(f.label, await source.readBytes(f), publicKey, seen));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    return fail(`cannot read the store at ${home} (${code}); check its permissions, or set TRACEGATE_HOME to the right data dir`);
  }
  const tty = isTerminal(1);
  const selected = filterSessions(all, { harness: v.harness, outcome: v.outcome, since });
  const cap = limit ?? (tty && !v.json ? 20 : Infinity);
  const shown = selected.slice(0, cap);
  if (v.json) {
    for (const s of shown) out(`${escapeControl(JSON.stringify(s), { json: true })}\n`);
    return 0;
  }
  if (shown.length === 0) {
    const filtered = selected.length !== all.length;
    out(filtered ? `no sessions match (${plural(all.length, "session")} in ${home})\n` : `no sessions in ${home}\n`);
    return 0;
  }
  out(renderTable(shown, { tty, color: colorEnabled(1), width: outputColumns() }));
  if (selected.length > shown.length) {
    out(`${plural(selected.length - shown.length, "more session")} not shown (--limit ${selected.length} shows all)\n`);
  }
  return 0;
}

const OUTCOME_COLOR: Record<Outcome, "green" | "red" | "yellow" | "dim"> = { flip: "green", no_flip: "red", cap: "yellow", no_oracle: "dim", unverified: "red" };

/** The sessions table. Pure: the caller says whether it is a terminal. */
export function renderTable(rows: readonly SessionSummary[], o: { tty: boolean; color: boolean; width: number; now?: number }): string {
  const p = paint(o.color);
  const cells = rows.map((s) => [
    escapeControl(s.session_id),
    o.tty ? relativeTime(s.last_ts ?? s.first_ts ?? "", o.now) : (s.first_ts ?? "-"),
    s.harness ?? "-",
    String(s.records),
    String(s.tool_calls),
    s.outcome,
  ]);
  const head = ["SESSION", o.tty ? "ACTIVE" : "STARTED", "HARNESS", "RECORDS", "TOOLS", "OUTCOME"];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  if (o.tty) widths[0] = Math.min(widths[0]!, 36);
  const fit = (s: string, i: number) => (i === 3 || i === 4 ? s.padStart(widths[i]!) : clip(s, widths[i]!).padEnd(widths[i]!));
  const used = widths.reduce((a, b) => a + b + 2, 0);
  const promptWidth = o.tty ? Math.max(10, o.width - used - 1) : 200;
  const lines = [p.bold([...head.map((h, i) => fit(h, i)), "PROMPT"].join("  "))];
  rows.forEach((s, r) => {
    const c = cells[r]!.map((v, i) => fit(v, i));
    c[5] = p[OUTCOME_COLOR[s.outcome] ?? "dim"](c[5]!);
    c[0] = p.cyan(c[0]!);
    const prompt = s.first_prompt === null ? p.dim("-") : escapeControl(clip(s.first_prompt, promptWidth));
    const corrupt = s.corrupt_lines ? p.red(`  (${plural(s.corrupt_lines, "corrupt line")})`) : "";
    lines.push(`${c.join("  ")}  ${prompt}${corrupt}`);
  });
  return `${lines.join("\n")}\n`;
}

/**
 * The configured oracle public key (PEM), or null when none is configured or
 * it cannot be read: the outcome is then `unverified`, never `flip`.
 */
export async function configuredPublicKey(): Promise<string | null> {
  try {
    const config = await loadConfig(process.env, null);
    return config.oracle ? readPublicKeyPem(config.oracle.public_key, config.path) : null;
  } catch {
    return null;
  }
}
