/**
 * `tracegate annotate SESSION [--record ID] (--exclude | --note TEXT)`: a
 * correction is a new record that points at the old one, never an edit. It
 * goes through the same redact-and-append path as every hook record, so a
 * note cannot put a secret on disk either, and a later `sync` uploads it
 * like any other line.
 */
import { parseArgs } from "../runtime/builtins.ts";
import { loadConfig } from "../config/load.ts";
import { dataDir } from "../config/paths.ts";
import { configuredRedactor } from "../redact/configured.ts";
import { newId } from "../trace/digest.ts";
import type { AnnotationRecord } from "../trace/record.ts";
import { sanitize } from "../trace/sanitize.ts";
import { appendRecords, readSession } from "../trace/store.ts";
import { resolveSession } from "./resolve.ts";
import { parseOptions } from "./args.ts";
import { COMMANDS } from "./commands.ts";
import { fail, out } from "./print.ts";

const SEE_HELP = "see `tracegate annotate --help`";

export async function annotateCommand(argv: string[]): Promise<number> {
  // The command table is the one parser spec (help is printed from it too).
  const { values, positionals } = parseArgs({ args: argv, options: parseOptions(COMMANDS.annotate!), strict: true, allowPositionals: true }) as {
    values: { record?: string; exclude?: boolean; note?: string };
    positionals: string[];
  };
  const typed = positionals[0];
  if (!typed || positionals.length > 1) return fail(`give exactly one session id; ${SEE_HELP}`, 2);
  if (!values.exclude && values.note === undefined) return fail(`say what the annotation does: --exclude or --note TEXT; ${SEE_HELP}`, 2);
  const home = dataDir(process.env);
  const found = resolveSession(home, typed);
  if ("error" in found) return fail(found.error, 2);
  const { records } = readSession(home, found.id);
  // The stored session id (the file's own records say it; the file name may be a mapped form of it).
  const id = records[0]?.session_id ?? found.id;
  if (values.record !== undefined && !records.some((r) => r.id === values.record)) {
    return fail(`session ${id} has no record with id "${values.record}" (\`tracegate show ${id} --json\` lists the ids)`, 2);
  }
  const config = await loadConfig(process.env, null);
  const record: AnnotationRecord = {
    id: newId(),
    type: "annotation",
    session_id: id,
    harness: records[0]?.harness ?? "tracegate",
    ts: new Date().toISOString(),
    ...(values.record !== undefined ? { record_id: values.record } : {}),
    ...(values.exclude ? { exclude: true as const } : {}),
    ...(values.note !== undefined ? { note: values.note } : {}),
  };
  appendRecords(home, [sanitize(record, configuredRedactor(config, home))]);
  out(`annotated ${values.record ? `record ${values.record} of ` : ""}session ${id}: ${values.exclude ? "excluded from exports" : "note added"}\n`);
  return 0;
}
