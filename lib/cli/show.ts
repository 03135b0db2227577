import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { dataDir } from "../config/paths.ts";
import { analyzeSession } from "../gate/outcome.ts";
import type { TraceRecord } from "../trace/record.ts";
import { sessionPath } from "../trace/store.ts";
import { configuredPublicKey } from "./sessions.ts";
import { err, fail, out } from "./print.ts";

function brief(v: unknown, max = 160): string {
  if (v === null || v === undefined) return "";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  const one = s.replace(/\s+/g, " ");
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

/**
 * One human-readable line per record. A verdict shows whether it counts
 * (`checked`, from the analysis), not the `verified` flag stored beside it.
 */
export function describeRecord(r: TraceRecord, checked?: string): string {
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
      return `${head} attempt=${a.attempt} ${a.verdict} ${checked ?? `verified=${a.verified}`}`;
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
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    return fail(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const a = analyzeSession(bytes, { file: path, publicKey: await configuredPublicKey() });
  const ok = new Set(a.verified_lines);
  a.records.forEach((r, i) => {
    const line = a.lines[i]!;
    const checked = r.type === "oracle_verdict" && (r.verdict === "PASS" || r.verdict === "FAIL")
      ? ok.has(line) ? "verified" : "UNVERIFIED"
      : undefined;
    out(parsed.values.json ? `${JSON.stringify(r)}\n` : `${describeRecord(r, checked)}\n`);
  });
  if (!parsed.values.json) out(`outcome ${a.outcome}\n`);
  for (const p of a.corrupt) err(`tracegate: ${path}:${p.line}: ${p.problem}\n`);
  for (const p of a.problems) err(`tracegate: ${path}:${p.line}: ${p.problem}\n`);
  return a.corrupt.length ? 1 : 0;
}
