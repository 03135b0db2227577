/**
 * A local cache of what is already in a store, so a sync with nothing new
 * does no I/O beyond a stat per session. It only ever records offsets the
 * store confirmed (a 200 or a 412 with equal bytes), and it is a hint, never
 * the authority: losing or deleting it makes the next run rebuild it from the
 * store's listing, and a stale entry only costs a 412 answered by comparing
 * sha256s, so neither can cause a duplicate or an overwrite.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Of } from "./objects.ts";

export interface JournalEntry {
  /** The session's key prefix in the store. */
  readonly prefix: string;
  /** Bytes of the session file confirmed in the store (segments cover [0, end)). */
  readonly end: number;
}

export type Journal = Map<string, JournalEntry>;

/** The journal file for one store URL. */
export function journalPath(home: string, url: string): string {
  return join(home, "sync", `journal-${sha256Of(Buffer.from(url)).slice(0, 16)}.json`);
}

/** Load a journal; a missing or damaged one is empty. */
export function loadJournal(path: string): Journal {
  try {
    const v = JSON.parse(readFileSync(path, "utf8"));
    const out: Journal = new Map();
    for (const [k, e] of Object.entries(v.sessions ?? {})) {
      const x = e as JournalEntry;
      if (typeof x?.prefix === "string" && Number.isSafeInteger(x.end) && x.end >= 0) out.set(k, { prefix: x.prefix, end: x.end });
    }
    return out;
  } catch {
    return new Map();
  }
}

/** Write a journal atomically (temp file + rename). */
export function saveJournal(path: string, url: string, j: Journal): void {
  mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ url, sessions: Object.fromEntries(j) }), { mode: 0o600 });
  renameSync(tmp, path);
}
