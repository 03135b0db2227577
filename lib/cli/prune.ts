/**
 * `tracegate prune --older-than AGE [--dry-run]`: delete sessions whose last
 * record is older than AGE. When sync is configured, a session is deleted
 * only once `isSynced` can show it was uploaded; "cannot tell" keeps it.
 */
import { readFileSync, rmSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { configPath, dataDir } from "../config/paths.ts";
import { listSessionFiles, type SessionFile } from "../trace/store.ts";
import { parseOptions } from "./args.ts";
import { COMMANDS } from "./commands.ts";
import { escapeControl, fail, out } from "./print.ts";
import { parseAge, plural } from "./style.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** Whether the user config names a sync destination; "unknown" when the file cannot be read or parsed. */
export async function syncConfigured(env: Env): Promise<boolean | "unknown"> {
  let text: string;
  try {
    text = readFileSync(configPath(env), "utf8");
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? false : "unknown";
  }
  const { parse } = await import("jsonc-parser");
  const errors: unknown[] = [];
  const v = parse(text, errors as never, { allowTrailingComma: true });
  if (errors.length || !v || typeof v !== "object") return "unknown";
  return v.sync !== undefined && v.sync !== null;
}

/**
 * Whether one session file's current contents are known to be uploaded by
 * `tracegate sync`. Only sync can answer "yes" (it knows what it uploaded);
 * this is the one place prune asks, so sync's ledger lookup goes here. Until
 * a build has that ledger the answer is "unknown", and prune keeps the
 * session: with sync configured, nothing unsynced is ever deleted.
 */
export function isSynced(_home: string, _file: SessionFile): boolean | "unknown" {
  return "unknown";
}

/** A session's age reference: its file's last write (records are appended, never rewritten). */
function lastWrite(f: SessionFile): number {
  return f.mtimeMs;
}

/** `tracegate prune --older-than AGE [--dry-run]` */
export async function pruneCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: parseOptions(COMMANDS.prune!), strict: true });
  const v = values as { "older-than"?: string; "dry-run"?: boolean };
  if (v["older-than"] === undefined) return fail("prune needs --older-than AGE, e.g. `tracegate prune --older-than 30d --dry-run`", 2);
  const age = parseAge(v["older-than"]);
  if (age === null) return fail(`--older-than takes an age such as 30d, 12h, 90m or 2w, not "${v["older-than"]}"`, 2);
  const env = process.env;
  const home = dataDir(env);
  const sync = await syncConfigured(env);
  if (sync === "unknown") {
    return fail(`cannot tell whether sync is configured: ${configPath(env)} does not parse; fix it (see \`tracegate doctor\`) and run prune again; nothing was deleted`);
  }
  const cutoff = Date.now() - age;
  const old = listSessionFiles(home).filter((f) => lastWrite(f) < cutoff);
  const doomed: SessionFile[] = [];
  const kept: string[] = [];
  for (const f of old) {
    const synced = sync ? isSynced(home, f) : true;
    if (synced === true) doomed.push(f);
    else kept.push(basename(f.path, ".jsonl"));
  }
  const bytes = doomed.reduce((n, f) => n + f.bytes, 0);
  const verb = v["dry-run"] ? "would delete" : "deleted";
  for (const f of doomed) {
    if (!v["dry-run"]) rmSync(f.path, { force: true });
    out(`${verb} ${escapeControl(basename(f.path, ".jsonl"))}\n`);
  }
  out(`${verb} ${plural(doomed.length, "session")} older than ${v["older-than"]} (${(bytes / 1048576).toFixed(1)} MB) in ${home}${v["dry-run"] ? "; nothing was deleted (dry run)" : ""}\n`);
  if (kept.length) {
    out(`kept ${plural(kept.length, "old session")} not yet known to be synced (sync is configured): run \`tracegate sync\` first\n`);
  }
  return 0;
}
