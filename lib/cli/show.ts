import { existsSync } from "node:fs";
import { readBounded } from "../fs/safe-open.ts";
import { parseArgs } from "node:util";
import { dataDir } from "../config/paths.ts";
import type { TraceRecord } from "../trace/record.ts";
import { parseSessionText, SESSION_READ_MAX_BYTES, sessionPath } from "../trace/store.ts";
import { err, escapeControl, fail, out } from "./print.ts";

function brief(v: unknown, max = 160): string {
  if (v === null || v === undefined) return "";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  const one = s.replace(/\s+/g, " ");
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

/** One human-readable line per record. */
export function describeRecord(r: TraceRecord): string {
  const a = r as unknown as Record<string, unknown>;
  const head = `${r.ts}  ${r.type.padEnd(14)}`;
  switch (r.type) {
    case "session_start":
      return `${head} cwd=${brief(a.cwd)} base=${a.base_commit ?? "none"}${a.model ? ` model=${brief(a.model)}` : ""}`;
    case "message":
      return `${head} ${a.role}: ${brief(a.text)}`;
    case "tool_call":
      return `${head} ${brief(a.tool_name)} ${a.status}${a.duration_ms !== null ? ` ${a.duration_ms}ms` : ""} in=${brief(a.input, 80)} out=${brief(a.output, 80)}`;
    case "oracle_verdict":
      return `${head} attempt=${a.attempt} ${a.verdict} verified=${a.verified}`;
    case "session_end":
      return `${head} reason=${brief(a.reason)} outcome=${a.outcome}`;
    default:
      return `${head} ${brief((a.payload ?? a.head) as unknown)}`;
  }
}

/** `tracegate show SESSION [--json]`. */
export async function showCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { json: { type: "boolean" } }, allowPositionals: true });
  } catch (e) {
    return fail(`${(e as Error).message}\nusage: tracegate show SESSION [--json]`, 2);
  }
  const id = parsed.positionals[0];
  if (!id || parsed.positionals.length > 1) return fail("usage: tracegate show SESSION [--json]", 2);
  const home = dataDir(process.env);
  const path = sessionPath(home, id);
  if (!existsSync(path)) return fail(`no session "${id}" in ${home} (run \`tracegate sessions\` to list them)`);
  let text: string;
  try {
    // Never a FIFO, a device or a symlink planted where the session file should be.
    text = readBounded(path, SESSION_READ_MAX_BYTES, { noFollow: true }).toString("utf8");
  } catch (e) {
    return fail(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const { records, problems } = parseSessionText(path, text);
  // Stored text is the agent's: never let it reach the terminal as control sequences.
  for (const r of records) out(parsed.values.json ? `${escapeControl(JSON.stringify(r), { json: true })}\n` : `${escapeControl(describeRecord(r))}\n`);
  for (const p of problems) err(`tracegate: ${p.file}:${p.line}: corrupt line (${p.error})\n`);
  return problems.length ? 1 : 0;
}
