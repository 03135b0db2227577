import { parseArgs } from "node:util";
import { dataDir } from "../config/paths.ts";
import { listSessionFiles, parseSessionText } from "../trace/store.ts";
import { outcomeOf } from "../gate/outcome.ts";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fail, out, escapeControl } from "./print.ts";

export interface SessionSummary {
  readonly session_id: string;
  readonly file: string;
  readonly records: number;
  readonly first_ts: string | null;
  readonly last_ts: string | null;
  readonly cwd: string | null;
  readonly tool_calls: number;
  readonly ended: boolean;
  readonly outcome: string;
  readonly corrupt_lines: number;
}

/** Summarise one session file's text. */
export function summarize(file: string, text: string): SessionSummary {
  const { records, problems } = parseSessionText(file, text);
  const start = records.find((r) => r.type === "session_start") as { cwd?: unknown } | undefined;
  return {
    session_id: records[0]?.session_id ?? basename(file, ".jsonl"),
    file,
    records: records.length,
    first_ts: records[0]?.ts ?? null,
    last_ts: records.at(-1)?.ts ?? null,
    cwd: typeof start?.cwd === "string" ? start.cwd : null,
    tool_calls: records.filter((r) => r.type === "tool_call").length,
    ended: records.some((r) => r.type === "session_end"),
    outcome: outcomeOf(records),
    corrupt_lines: problems.length,
  };
}

/** `tracegate sessions [--json]`: the sessions in the store, newest first. */
export async function sessionsCommand(argv: string[]): Promise<number> {
  let json = false;
  try {
    json = !!parseArgs({ args: argv, options: { json: { type: "boolean" } } }).values.json;
  } catch (e) {
    return fail(`${(e as Error).message}\nusage: tracegate sessions [--json]`, 2);
  }
  const home = dataDir(process.env);
  let summaries: SessionSummary[];
  try {
    summaries = listSessionFiles(home).map((f) => summarize(f.path, readFileSync(f.path, "utf8")));
  } catch (e) {
    return fail(`cannot read the store at ${home}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (json) {
    for (const s of summaries) out(`${escapeControl(JSON.stringify(s), { json: true })}\n`);
    return 0;
  }
  if (summaries.length === 0) {
    out(`no sessions in ${home}\n`);
    return 0;
  }
  out("SESSION                                 STARTED                   RECORDS  TOOLS  OUTCOME    CWD\n");
  for (const s of summaries) {
    // Stored text is the agent's: never let it reach the terminal as control sequences.
    out(escapeControl(
      `${s.session_id.slice(0, 38).padEnd(39)} ${(s.first_ts ?? "-").padEnd(25)} ${String(s.records).padStart(7)}  ${String(s.tool_calls).padStart(5)}  ${s.outcome.padEnd(9)}  ${s.cwd ?? "-"}${s.corrupt_lines ? `  (${s.corrupt_lines} corrupt lines)` : ""}\n`,
    ));
  }
  return 0;
}
