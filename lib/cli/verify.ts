/**
 * `tracegate verify [SESSION]`: every stored record checked against its JSON
 * Schema (ahead-of-time compiled validators), and every oracle verdict's
 * signature checked again with the configured public key, so a record edited
 * on disk after the fact is caught.
 */
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../config/load.ts";
import { dataDir } from "../config/paths.ts";
import * as validators from "../generated/validators.js";
import type { Validate } from "../generated/validators.js";
import { readPublicKeyPem } from "../oracle/keys.ts";
import { verifyVerdict } from "../oracle/verdict.ts";
import type { TraceRecord } from "../trace/record.ts";
import { parseSessionText } from "../trace/store.ts";
import { fail, out } from "./print.ts";
import { openSource, type SourceSession, type StoreSource } from "../source/index.ts";
import { resolveIn } from "./resolve.ts";
import { plural } from "./style.ts";

export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly problem: string;
}

const byType = validators as unknown as Record<string, Validate | undefined>;

/** Schema problems of one record, as readable strings. */
export function schemaProblems(record: unknown): string[] {
  const type = (record as { type?: unknown })?.type;
  const validate = typeof type === "string" ? byType[`record_${type}`] : undefined;
  if (!validate) return [`unknown record type ${JSON.stringify(type)}`];
  if (validate(record)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? e.keyword}`);
}

/** Re-check a stored verdict's signature against the facts the record itself carries. */
export function verdictProblem(record: TraceRecord, publicKey: string | null): string | null {
  const r = record as unknown as Record<string, any>;
  if (r.type !== "oracle_verdict" || !r.signed || !r.verified) return null;
  if (!publicKey) return "verdict marked verified but no oracle.public_key is configured to check it";
  const s = r.signed;
  const result = verifyVerdict(s, publicKey, {
    task_id: s.task_id,
    session_id: r.session_id,
    base_commit: s.base_commit,
    diff_sha256: r.diff_sha256 ?? s.diff_sha256,
    attempt: r.attempt,
  });
  return result.verified ? null : `verdict marked verified does not verify: ${result.problem}`;
}

export async function verifyCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { json: { type: "boolean" }, from: { type: "string" } }, allowPositionals: true });
  } catch (e) {
    return fail(`${(e as Error).message}\nusage: tracegate verify [SESSION] [--json]`, 2);
  }
  const id = parsed.positionals[0];
  let source: StoreSource;
  let sessions: SourceSession[];
  try {
    source = await openSource(parsed.values.from, dataDir(process.env), process.env);
    if (id) {
      const found = await resolveIn(source, id);
      if ("error" in found) return fail(found.error);
      sessions = [found];
    } else {
      sessions = await source.list();
    }
  } catch (e) {
    return fail(`cannot read the store: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const files = sessions.map((s) => s.label);
  const config = await loadConfig(process.env, null);
  let publicKey: string | null = null;
  try {
    publicKey = config.oracle ? readPublicKeyPem(config.oracle.public_key, config.path) : null;
  } catch (e) {
    return fail(`cannot read oracle.public_key (${(e as NodeJS.ErrnoException).code ?? "error"}); check ${config.path}`);
  }
  const findings: Finding[] = [];
  let count = 0;
  for (const session of sessions) {
    const file = session.label;
    let text: string;
    try {
      text = await source.read(session);
    } catch (e) {
      findings.push({ file, line: 0, problem: `unreadable (${(e as NodeJS.ErrnoException).code ?? "error"})` });
      continue;
    }
    const { records, lines, problems } = parseSessionText(file, text);
    for (const p of problems) findings.push({ file, line: p.line, problem: `corrupt line: ${p.error}` });
    for (const [i, r] of records.entries()) {
      const line = lines[i]!;
      count++;
      for (const p of schemaProblems(r)) findings.push({ file, line, problem: p });
      const v = verdictProblem(r, publicKey);
      if (v) findings.push({ file, line, problem: v });
    }
  }
  if (parsed.values.json) {
    out(`${JSON.stringify({ files: files.length, records: count, problems: findings })}\n`);
  } else {
    for (const f of findings) out(`${basename(f.file)}:${f.line}: ${f.problem}\n`);
    out(`${plural(count, "record")} in ${plural(files.length, "session")}: ${findings.length ? plural(findings.length, "problem") : "all valid"}\n`);
  }
  return findings.length ? 1 : 0;
}
