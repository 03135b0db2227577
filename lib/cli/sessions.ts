import { parseArgs } from "node:util";
import { dataDir } from "../config/paths.ts";
import { listSessionFiles } from "../trace/store.ts";
import { analyzeSession, type Outcome } from "../gate/outcome.ts";
import { loadConfig } from "../config/load.ts";
import { readPublicKeyPem } from "../oracle/keys.ts";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fail, out } from "./print.ts";

export interface SessionSummary {
  readonly session_id: string;
  readonly file: string;
  readonly records: number;
  readonly first_ts: string | null;
  readonly last_ts: string | null;
  readonly cwd: string | null;
  readonly tool_calls: number;
  readonly ended: boolean;
  /** From `analyzeSession`: signatures that verify, never stored flags. */
  readonly outcome: Outcome;
  readonly corrupt_lines: number;
}

/**
 * Summarise one session file. `publicKey` null makes every verdict
 * unverified; `seen` is shared across files so a verdict copied from another
 * session counts as a replay.
 */
export function summarize(file: string, bytes: Uint8Array, publicKey: string | null = null, seen?: Map<string, string>): SessionSummary {
  const a = analyzeSession(bytes, { file, publicKey, seen });
  const { records } = a;
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
    outcome: a.outcome,
    corrupt_lines: a.corrupt.length,
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
  const publicKey = await configuredPublicKey();
  const seen = new Map<string, string>();
  try {
    // Oldest first for the replay check, listed newest first.
    summaries = listSessionFiles(home).reverse().map((f) => summarize(f.path, readFileSync(f.path), publicKey, seen)).reverse();
  } catch (e) {
    return fail(`cannot read the store at ${home}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (json) {
    for (const s of summaries) out(`${JSON.stringify(s)}\n`);
    return 0;
  }
  if (summaries.length === 0) {
    out(`no sessions in ${home}\n`);
    return 0;
  }
  out("SESSION                                 STARTED                   RECORDS  TOOLS  OUTCOME    CWD\n");
  for (const s of summaries) {
    out(
      `${s.session_id.slice(0, 38).padEnd(39)} ${(s.first_ts ?? "-").padEnd(25)} ${String(s.records).padStart(7)}  ${String(s.tool_calls).padStart(5)}  ${s.outcome.padEnd(9)}  ${s.cwd ?? "-"}${s.corrupt_lines ? `  (${s.corrupt_lines} corrupt lines)` : ""}\n`,
    );
  }
  return 0;
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
