/**
 * `tracegate prune --older-than AGE [--dry-run]`: delete sessions whose last
 * record is older than AGE. When sync is configured, a session is deleted
 * only once the store shows it holds every byte of it; "cannot tell" keeps it.
 */
import { readFileSync, rmSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "../runtime/builtins.ts";
import { configPath, dataDir } from "../config/paths.ts";
import { listSessionFiles, type SessionFile } from "../trace/store.ts";
import { parseOptions } from "./args.ts";
import { COMMANDS } from "./commands.ts";
import { escapeControl, fail, out } from "./print.ts";
import { parseAge, plural } from "./style.ts";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The sync destination the user config names: its URL, null when sync is not
 * configured, "unknown" when the file cannot be read or parsed.
 */
export async function syncUrl(env: Env): Promise<string | null | "unknown"> {
  let text: string;
  try {
    text = readFileSync(configPath(env), "utf8");
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? null : "unknown";
  }
  const { parse } = await import("jsonc-parser");
  const errors: unknown[] = [];
  const v = parse(text, errors as never, { allowTrailingComma: true });
  if (errors.length || !v || typeof v !== "object") return "unknown";
  if (v.sync === undefined || v.sync === null) return null;
  return typeof v.sync?.url === "string" && v.sync.url ? v.sync.url : "unknown";
}

/** Asks the store whether a session file's current bytes are all in it. */
export type SyncedCheck = (file: SessionFile) => Promise<boolean | "unknown">;

/**
 * The store's own answer, not a local flag: sync's journal only says under
 * which key prefix a session lives (a hint an agent could edit); the store's
 * listing must then show segments covering every byte of the file from offset
 * 0 with no gap. Anything less, or any error reaching the store, is "unknown",
 * and prune keeps the session.
 */
export async function storeSyncedCheck(home: string, url: string, env: Env): Promise<SyncedCheck> {
  const [{ openStore }, { journalPath, loadJournal }, { parseSegmentKey }] = await Promise.all([
    import("../sync/open.ts"),
    import("../sync/journal.ts"),
    import("../sync/layout.ts"),
  ]);
  let store: Awaited<ReturnType<typeof openStore>>["store"];
  try {
    store = openStore(url, env).store;
  } catch {
    return async () => "unknown";
  }
  const journal = loadJournal(journalPath(home, url));
  return async (f) => {
    const hint = journal.get(basename(f.path, ".jsonl"));
    if (!hint) return "unknown";
    try {
      const segments: { offset: number; size: number }[] = [];
      for await (const o of store.list(hint.prefix)) {
        const k = parseSegmentKey(o.key);
        if (k && k.session === basename(f.path, ".jsonl")) segments.push({ offset: k.offset, size: o.size });
      }
      segments.sort((a, b) => a.offset - b.offset);
      let covered = 0;
      for (const g of segments) {
        if (g.offset !== covered) return "unknown";
        covered += g.size;
      }
      return covered === f.bytes ? true : "unknown";
    } catch {
      return "unknown";
    }
  };
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
  const sync = await syncUrl(env);
  if (sync === "unknown") {
    return fail(`cannot tell whether sync is configured: ${configPath(env)} does not parse; fix it (see \`tracegate doctor\`) and run prune again; nothing was deleted`);
  }
  const cutoff = Date.now() - age;
  const old = listSessionFiles(home).filter((f) => lastWrite(f) < cutoff);
  const doomed: SessionFile[] = [];
  const kept: string[] = [];
  const isSynced = sync ? await storeSyncedCheck(home, sync, env) : null;
  for (const f of old) {
    const synced = isSynced ? await isSynced(f) : true;
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
