/**
 * `tracegate sync [--to URL] [--session ID] [--dry-run] [--json]`: upload the
 * data dir's sessions to an append-only store. Loaded only for this command
 * (and the SessionEnd child), so hooks never pay for it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sessionsDir } from "../trace/store.ts";
import { parseArgs } from "../runtime/builtins.ts";
import { loadConfig } from "../config/load.ts";
import { dataDir } from "../config/paths.ts";
import { err, fail, out } from "../cli/print.ts";
import { openStore } from "./open.ts";
import { syncStore, type Progress, type SyncSummary } from "./run.ts";

const USAGE = "usage: tracegate sync [--to file:///DIR|s3://BUCKET[/PREFIX]] [--session ID] [--dry-run] [--json]";

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

/** A one-line progress bar on stderr, redrawn at most every 100 ms. */
function progressBar(): { update(p: Progress): void; finish(): void } {
  const t0 = performance.now();
  let last = 0;
  let drawn = false;
  const draw = (p: Progress) => {
    const s = (performance.now() - t0) / 1000;
    const width = 24;
    const filled = p.sessionsTotal ? Math.round((p.sessionsDone / p.sessionsTotal) * width) : width;
    err(`\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${p.sessionsDone}/${p.sessionsTotal} sessions  ${mb(p.bytes)}  ${mb(s > 0 ? p.bytes / s : 0)}/s `);
    drawn = true;
  };
  let latest: Progress | null = null;
  return {
    update(p) {
      latest = p;
      const now = performance.now();
      if (now - last >= 100 || p.sessionsDone === p.sessionsTotal) {
        last = now;
        draw(p);
      }
    },
    finish() {
      if (latest) draw(latest);
      if (drawn) err("\n");
    },
  };
}

/** Wait (bounded) until the SessionEnd hook that started us has appended its record. */
async function awaitSessionEnd(path: string, maxMs = 10_000): Promise<void> {
  const t0 = performance.now();
  while (performance.now() - t0 < maxMs) {
    try {
      const text = readFileSync(path, "utf8");
      if (text.slice(-64 * 1024).includes('"type":"session_end"') && text.endsWith("\n")) return;
    } catch {
      // not there yet
    }
    await Bun.sleep(100);
  }
}

export async function syncCommand(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        to: { type: "string" },
        session: { type: "string" },
        "dry-run": { type: "boolean" },
        json: { type: "boolean" },
        // Internal, for the SessionEnd hook's background child: a sanitised
        // file name instead of the session id, and wait for its record first.
        "session-file": { type: "string" },
        "after-session-end": { type: "boolean" },
      },
    }).values;
  } catch (e) {
    return fail(`${(e as Error).message}\n${USAGE}`, 2);
  }
  const env = process.env;
  const home = dataDir(env);
  const config = await loadConfig(env, null);
  for (const problem of config.errors) err(`tracegate: config: ${problem}\n`);
  const url = values.to ?? config.sync.url;
  if (!url) {
    return fail(`no store to sync to: pass --to file:///DIR or --to s3://BUCKET/PREFIX, or set "sync": { "url": "s3://..." } in ${config.path}\n${USAGE}`, 2);
  }
  let opened;
  try {
    opened = openStore(url, env);
  } catch (e) {
    return fail((e as Error).message, 2);
  }
  const sessionFile = values["session-file"];
  if (sessionFile !== undefined && !/^[A-Za-z0-9_][A-Za-z0-9._-]{0,200}\.jsonl$/.test(sessionFile)) return fail(`bad --session-file ${JSON.stringify(sessionFile)}`, 2);
  if (values["after-session-end"] && sessionFile) await awaitSessionEnd(join(sessionsDir(home), sessionFile));
  const bar = process.stderr.isTTY && !values.json ? progressBar() : null;
  const segmentBytes = Number(env.TRACEGATE_SYNC_SEGMENT_BYTES) || undefined;
  let summary: SyncSummary;
  try {
    summary = await syncStore({
      home,
      url: opened.url,
      rootPrefix: opened.prefix,
      store: opened.store,
      session: values.session,
      sessionFile,
      dryRun: !!values["dry-run"],
      segmentBytes,
      onProgress: bar ? (p) => bar.update(p) : undefined,
    });
  } finally {
    bar?.finish();
  }
  if (values.json) out(`${JSON.stringify(summary)}\n`);
  else {
    for (const c of summary.conflicts) err(`tracegate: conflict: ${c.key}: ${c.reason}\n`);
    for (const e of summary.errors) err(`tracegate: ${e.session ? `${e.session}: ` : ""}${e.error}\n`);
    if (process.stderr.isTTY) {
      err(`${summary.dry_run ? "would upload" : "uploaded"} ${summary.uploaded} segments (${mb(summary.bytes)}), ${summary.skipped} already in ${summary.store}, ${summary.conflicts.length} conflicts, ${summary.errors.length} errors\n`);
    }
  }
  return summary.errors.length || summary.conflicts.length ? 1 : 0;
}
