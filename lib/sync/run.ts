/**
 * The sync engine: every session file of a data dir, cut into segments of
 * complete lines, each created in the store with a conditional PUT. What is
 * already there comes from the store (its listing, or the journal that caches
 * it); the store is the only authority, so a killed run, a concurrent run or
 * a deleted journal can at worst repeat a PUT that then answers 412 and is
 * checked by sha256, never write a byte twice or over another.
 */
import { nodeCrypto } from "../runtime/builtins.ts";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { basename, join } from "node:path";
import { listSessionFiles, sessionPath, sessionsDir, type SessionFile } from "../trace/store.ts";
import { loadJournal, journalPath, saveJournal, type Journal } from "./journal.ts";
import { datePath, parseSegmentKey, segmentKey, sessionPrefix, type ParsedKey } from "./layout.ts";
import { sha256Of, StoreError, type ObjectInfo, type ObjectStore } from "./objects.ts";
import { orgRepo } from "./repo.ts";
import { DEFAULT_SEGMENT_BYTES, segmentEnd } from "./segments.ts";

export interface SyncOptions {
  readonly home: string;
  /** The store URL as given (journal key, messages). */
  readonly url: string;
  /** Key prefix inside the store ("" for a file store's root). */
  readonly rootPrefix: string;
  readonly store: ObjectStore;
  /** Only this session id. */
  readonly session?: string;
  /** Only this session file name (`<name>.jsonl` in the sessions dir). */
  readonly sessionFile?: string;
  readonly dryRun?: boolean;
  readonly segmentBytes?: number;
  readonly concurrency?: number;
  readonly onProgress?: (p: Progress) => void;
}

export interface Progress {
  readonly sessionsDone: number;
  readonly sessionsTotal: number;
  readonly bytes: number;
}

export interface Conflict {
  readonly session: string;
  readonly key: string;
  readonly reason: string;
}

export interface SyncError {
  readonly session?: string;
  readonly error: string;
}

/** The `--json` summary. */
export interface SyncSummary {
  readonly store: string;
  readonly dry_run: boolean;
  sessions: number;
  /** Segments created by this run (with --dry-run: that would be created). */
  uploaded: number;
  /** Segments found already in the store with the same bytes. */
  skipped: number;
  /** Bytes uploaded (or that would be). */
  bytes: number;
  conflicts: Conflict[];
  errors: SyncError[];
}

interface Known {
  prefix: string;
  end: number;
  /** Listed segments not yet checked against local bytes (cold start only). */
  listed?: ObjectInfo[];
}

const FIRST_CHUNK = 1024 * 1024;
/** What the store's `<session>` component may be: the names `sessionFileName` produces. */
const SESSION_FILE = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,200}\.jsonl$/;

function readRange(fd: number, start: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let off = 0;
  while (off < length) {
    const n = readSync(fd, buf, off, length - off, start + off);
    if (n === 0) break;
    off += n;
  }
  return off === length ? buf : buf.subarray(0, off);
}

/** Offset just past the last newline (0 if none). */
function completeEnd(fd: number, size: number): number {
  const step = 64 * 1024;
  for (let end = size; end > 0; end -= step) {
    const start = Math.max(0, end - step);
    const i = readRange(fd, start, end - start).lastIndexOf(0x0a);
    if (i >= 0) return start + i + 1;
  }
  return 0;
}

/** The session's prefix from its own bytes: first record's date, session_start's cwd. */
function derivePrefix(fd: number, end: number, root: string, session: string, repoCache: Map<string, { org: string; repo: string }>): string {
  const head = readRange(fd, 0, Math.min(end, FIRST_CHUNK)).toString("utf8");
  const lines = head.split("\n");
  if (end > FIRST_CHUNK) lines.pop(); // may be cut
  let ts: unknown = null;
  let cwd: string | null = null;
  for (const [i, line] of lines.entries()) {
    if (!line) continue;
    let rec: any;
    try {
      rec = JSON.parse(line);
    } catch {
      if (i === 0) break;
      continue;
    }
    if (i === 0) ts = rec?.ts;
    if (rec?.type === "session_start") {
      cwd = typeof rec.cwd === "string" ? rec.cwd : null;
      break;
    }
  }
  const key = cwd ?? "";
  let slug = repoCache.get(key);
  if (!slug) repoCache.set(key, (slug = orgRepo(cwd)));
  return sessionPrefix(root, slug.org, slug.repo, datePath(ts), session);
}

/** Group a listing by session: prefix and segments in offset order. */
function indexListing(objects: ObjectInfo[]): Map<string, { prefix: string; segments: ObjectInfo[] }> {
  const out = new Map<string, { prefix: string; segments: ObjectInfo[] }>();
  for (const o of objects) {
    const k: ParsedKey | null = parseSegmentKey(o.key);
    if (!k) continue;
    const cur = out.get(k.session);
    // One session lives under one prefix; should two exist, the first in key order wins.
    if (cur && cur.prefix !== k.sessionPrefix) continue;
    if (cur) cur.segments.push(o);
    else out.set(k.session, { prefix: k.sessionPrefix, segments: [o] });
  }
  for (const v of out.values()) v.segments.sort((a, b) => a.key.localeCompare(b.key));
  return out;
}

async function pool<T>(items: readonly T[], n: number, work: (t: T) => Promise<void>, stop: () => boolean): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop()) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/**
 * Sync a data dir to a store.
 *
 * @example
 * ```ts
 * const summary = await syncStore({ home, url: "file:///srv/t", rootPrefix: "", store: new FileStore("/srv/t") });
 * summary.uploaded; // segments created
 * ```
 */
export async function syncStore(opts: SyncOptions): Promise<SyncSummary> {
  const summary: SyncSummary = { store: opts.url, dry_run: !!opts.dryRun, sessions: 0, uploaded: 0, skipped: 0, bytes: 0, conflicts: [], errors: [] };
  const maxBytes = opts.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  let fatal: StoreError | null = null;
  try {
    await opts.store.check();
  } catch (e) {
    summary.errors.push({ error: (e as Error).message });
    return summary;
  }
  let files: SessionFile[];
  try {
    files = listSessionFiles(opts.home);
  } catch (e) {
    summary.errors.push({ error: `cannot list the sessions in ${opts.home}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
    return summary;
  }
  const single = opts.session ?? opts.sessionFile;
  if (single !== undefined) {
    const want = opts.session !== undefined ? sessionPath(opts.home, opts.session) : join(sessionsDir(opts.home), opts.sessionFile!);
    files = files.filter((f) => f.path === want);
    if (files.length === 0) {
      summary.errors.push({ session: single, error: `no session "${single}" in ${opts.home}` });
      return summary;
    }
  }
  const jpath = journalPath(opts.home, opts.url);
  const journal: Journal = loadJournal(jpath);
  const nameOf = (f: SessionFile) => basename(f.path, ".jsonl");
  summary.sessions = files.length;
  // The no-op fast path: the journal says the store holds every byte of the file.
  const work = files.filter((f) => journal.get(nameOf(f))?.end !== f.bytes);
  let done = files.length - work.length;
  const progress = () => opts.onProgress?.({ sessionsDone: done, sessionsTotal: files.length, bytes: summary.bytes });
  progress();
  if (work.length === 0) return summary;

  // Cold sessions (no journal entry): what the store holds comes from its listing.
  let listed: Map<string, { prefix: string; segments: ObjectInfo[] }> | null = null;
  const listPrefix = async (prefix: string) => {
    const all: ObjectInfo[] = [];
    for await (const o of opts.store.list(prefix)) all.push(o);
    return indexListing(all);
  };
  const repoCache = new Map<string, { org: string; repo: string }>();

  const one = async (f: SessionFile): Promise<void> => {
    const name = nameOf(f);
    if (!SESSION_FILE.test(basename(f.path))) {
      summary.errors.push({ session: name, error: `${f.path}: not a session file name; skipped` });
      return;
    }
    let fd: number;
    try {
      // No symlinks and no FIFOs: a file planted in the sessions dir cannot make sync upload or block on something else.
      fd = openSync(f.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (e) {
      summary.errors.push({ session: name, error: `cannot read ${f.path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
      return;
    }
    if (!fstatSync(fd).isFile()) {
      closeSync(fd);
      summary.errors.push({ session: name, error: `cannot read ${f.path}: not a regular file` });
      return;
    }
    try {
      const size = fstatSync(fd).size;
      const end = completeEnd(fd, size);
      if (end < size) summary.errors.push({ session: name, error: `${f.path} ends in a torn line: ${size - end} bytes after the last newline were not synced` });
      let known: Known | undefined = journal.get(name);
      if (!known) {
        let entry = listed?.get(name);
        if (!entry && !listed && single !== undefined) {
          // One session: list only its own prefix rather than the whole store.
          entry = (await listPrefix(derivePrefix(fd, end, opts.rootPrefix, name, repoCache))).get(name);
        }
        known = entry ? { prefix: entry.prefix, end: 0, listed: entry.segments } : { prefix: derivePrefix(fd, end, opts.rootPrefix, name, repoCache), end: 0 };
      }
      let start = known.end;
      if (start > end) {
        summary.conflicts.push({ session: name, key: segmentKey(known.prefix, 0), reason: `the store holds ${start} bytes of this session, the local file only ${end} complete bytes (truncated or replaced?)` });
        return;
      }
      // Listed segments must tile the file from 0 with the same bytes (MD5 = ETag of a single PUT).
      for (const seg of known.listed ?? []) {
        const offset = parseSegmentKey(seg.key)!.offset;
        if (offset !== start) {
          summary.conflicts.push({ session: name, key: seg.key, reason: `segment starts at ${offset}, expected ${start}: the store's segments do not tile the file` });
          return;
        }
        if (start + seg.size > end) {
          summary.conflicts.push({ session: name, key: seg.key, reason: `the store holds ${start + seg.size} bytes of this session, the local file only ${end} complete bytes` });
          return;
        }
        const local = readRange(fd, start, seg.size);
        // A single PUT's ETag is the MD5 of its bytes; without one (a file store), compare the bytes.
        // An ETag that is not the MD5 (server-side encryption) falls back to the sha256 metadata.
        const same =
          (seg.etag !== null && nodeCrypto().createHash("md5").update(local).digest("hex") === seg.etag) ||
          ((await opts.store.head(seg.key))?.sha256 ?? sha256Of(await opts.store.get(seg.key))) === sha256Of(local);
        if (!same) {
          summary.conflicts.push({ session: name, key: seg.key, reason: "the store holds different bytes at this offset; not overwritten" });
          return;
        }
        start += seg.size;
        summary.skipped++;
      }
      if (start > 0) journal.set(name, { prefix: known.prefix, end: start });
      while (start < end && !fatal) {
        const window = readRange(fd, start, Math.min(end - start, maxBytes));
        let segEnd = segmentEnd(window, start, maxBytes);
        let body: Uint8Array = window;
        // One line longer than the ceiling: read on until its newline; it is a segment of its own.
        for (let want = maxBytes * 2; segEnd === null; want *= 2) {
          body = readRange(fd, start, Math.min(end - start, want));
          segEnd = segmentEnd(body, start, maxBytes);
        }
        body = body.subarray(0, segEnd - start);
        const key = segmentKey(known.prefix, start);
        const sha = sha256Of(body);
        if (opts.dryRun) {
          summary.uploaded++;
          summary.bytes += body.length;
          start = segEnd;
          continue;
        }
        const r = await opts.store.putIfAbsent(key, body, sha);
        if (r === "created") {
          summary.uploaded++;
          summary.bytes += body.length;
        } else {
          // Someone (a concurrent or an earlier, killed run) created it: same bytes or a conflict.
          const h = await opts.store.head(key);
          if (!h) throw new StoreError("other", `PUT ${key} answered 412 but the object is not there`);
          if (start + h.size > end) {
            summary.conflicts.push({ session: name, key, reason: `the store's segment holds ${h.size} bytes, more than the local file's ${end - start} complete bytes from this offset` });
            return;
          }
          const theirs = h.sha256 ?? sha256Of(await opts.store.get(key));
          const ours = h.size === body.length ? sha : sha256Of(readRange(fd, start, h.size));
          if (theirs !== ours) {
            summary.conflicts.push({ session: name, key, reason: `the store holds different bytes at this offset (sha256 ${theirs.slice(0, 16)}…, local ${ours.slice(0, 16)}…); not overwritten` });
            return;
          }
          summary.skipped++;
          segEnd = start + h.size;
        }
        start = segEnd;
        journal.set(name, { prefix: known.prefix, end: start });
      }
    } catch (e) {
      if (e instanceof StoreError && e.kind !== "other") fatal = e;
      else summary.errors.push({ session: name, error: e instanceof StoreError ? e.message : `reading ${f.path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
    } finally {
      closeSync(fd);
      done++;
      progress();
    }
  };

  try {
    if (single === undefined && work.some((f) => !journal.has(nameOf(f)))) listed = await listPrefix(opts.rootPrefix);
    await pool(work, opts.concurrency ?? 8, one, () => fatal !== null);
  } catch (e) {
    if (e instanceof StoreError) fatal = e;
    else throw e;
  } finally {
    if (!opts.dryRun) {
      try {
        saveJournal(jpath, opts.url, journal);
      } catch {
        // only a cache: the next run rebuilds it from the store
      }
    }
  }
  if (fatal) summary.errors.push({ error: (fatal as StoreError).message });
  return summary;
}

