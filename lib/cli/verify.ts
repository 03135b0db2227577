/**
 * `tracegate verify [SESSION] [--public-key FILE] [--from URL] [--json]`:
 * every stored record checked against its JSON Schema (ahead-of-time
 * compiled validators), and every session run through `analyzeSession`, the
 * one outcome function: each PASS/FAIL verdict's signature under the oracle's
 * public key, every field the record states against the signed payload, the
 * signed session against the file's, signatures used twice (within a session
 * or across sessions), and the hash chain up to the head each verdict signed.
 * Every problem is reported with file and line; any problem exits 1.
 *
 * `--public-key` names the key to trust instead of the config's: the config
 * is writable by the agent, the oracle operator's published key is not.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "../runtime/builtins.ts";
import { loadConfig } from "../config/load.ts";
import { dataDir } from "../config/paths.ts";
import * as validators from "../generated/validators.js";
import type { Validate } from "../generated/validators.js";
import { analyzeSession } from "../gate/outcome.ts";
import { readPublicKeyPem } from "../oracle/keys.ts";
import { openSource, type SourceSession, type StoreSource } from "../source/index.ts";
import { fail, out } from "./print.ts";
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

const USAGE = "usage: tracegate verify [SESSION] [--public-key FILE] [--from URL] [--json]";

export async function verifyCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { json: { type: "boolean" }, from: { type: "string" }, "public-key": { type: "string" } }, allowPositionals: true });
  } catch (e) {
    return fail(`${(e as Error).message}\n${USAGE}`, 2);
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
  let publicKey: string | null = null;
  const keyFile = parsed.values["public-key"];
  if (typeof keyFile === "string") {
    try {
      publicKey = readFileSync(keyFile, "utf8");
    } catch (e) {
      return fail(`cannot read --public-key ${keyFile} (${(e as NodeJS.ErrnoException).code ?? "error"})`);
    }
  } else {
    const config = await loadConfig(process.env, null);
    try {
      publicKey = config.oracle ? readPublicKeyPem(config.oracle.public_key, config.path) : null;
    } catch (e) {
      return fail(`cannot read oracle.public_key (${(e as NodeJS.ErrnoException).code ?? "error"}); check ${config.path} or pass --public-key FILE`);
    }
  }
  const findings: Finding[] = [];
  const notes: Finding[] = [];
  const outcomes: Record<string, string> = {};
  const seen = new Map<string, string>();
  let count = 0;
  // Oldest first, so a replay is reported where the copy is, not where the original is.
  for (const session of [...sessions].reverse()) {
    const file = session.label;
    let bytes: Buffer;
    try {
      bytes = await source.readBytes(session);
    } catch (e) {
      findings.push({ file, line: 0, problem: `unreadable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message ?? "error"})` });
      continue;
    }
    const a = analyzeSession(bytes, { file, publicKey, seen });
    outcomes[basename(file)] = a.outcome;
    for (const c of a.corrupt) findings.push({ file, line: c.line, problem: c.problem });
    a.records.forEach((r, i) => {
      count++;
      for (const p of schemaProblems(r)) findings.push({ file, line: a.lines[i]!, problem: p });
    });
    for (const p of a.problems) findings.push({ file, ...p });
    for (const n of a.notes) notes.push({ file, ...n });
  }
  findings.sort((x, y) => (x.file === y.file ? x.line - y.line : x.file < y.file ? -1 : 1));
  if (parsed.values.json) {
    out(`${JSON.stringify({ files: sessions.length, records: count, problems: findings, notes, outcomes })}\n`);
  } else {
    for (const f of findings) out(`${basename(f.file)}:${f.line}: ${f.problem}\n`);
    for (const n of notes) out(`${basename(n.file)}:${n.line}: note: ${n.problem}\n`);
    if (!publicKey) out("note: no oracle public key (config oracle.public_key or --public-key): no verdict can be checked\n");
    out(`${plural(count, "record")} in ${plural(sessions.length, "session")}: ${findings.length ? plural(findings.length, "problem") : "all valid"}\n`);
  }
  return findings.length ? 1 : 0;
}
