/**
 * The append-only store: one JSONL file per session under
 * `<data dir>/sessions/`. Appends to one file take an exclusive lock, chain
 * each record to the line before it and go out in one `write()` on an
 * O_APPEND descriptor, so hook processes running in parallel (parallel tool
 * calls) never interleave, overwrite or fork the chain. Nothing here rewrites
 * a line; corrections are new records.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { chainedLine, chainStart, lineHash } from "./chain.ts";
import { sha256Hex } from "./digest.ts";
import { acquireLock } from "./lock.ts";
import type { TraceRecord } from "./record.ts";

export const SESSIONS_DIR = "sessions";
/** Where records with no usable session id go, so nothing is dropped. */
export const UNATTRIBUTED = "unattributed";

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * A file name for a session id that can never leave the sessions dir: safe
 * ids are used as they are; anything else (slashes, dots, NUL, 5,000
 * characters) becomes `_<readable part>-<sha256 prefix>`. Safe ids never start
 * with `_`, so the two forms cannot collide.
 *
 * @example
 * ```ts
 * sessionFileName("3f2a-uuid");   // "3f2a-uuid.jsonl"
 * sessionFileName("../../x");     // "_x-<16 hex>.jsonl"
 * ```
 */
export function sessionFileName(sessionId: string): string {
  if (SAFE_ID.test(sessionId)) return `${sessionId}.jsonl`;
  const readable = sessionId.replace(/[^A-Za-z0-9-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40);
  const digest = sha256Hex(sessionId).slice(0, 16);
  return `_${readable}${readable ? "-" : ""}${digest}.jsonl`;
}

export function sessionsDir(home: string): string {
  return join(home, SESSIONS_DIR);
}

export function sessionPath(home: string, sessionId: string): string {
  return join(sessionsDir(home), sessionFileName(sessionId));
}

/** Serialise one record as a JSONL line (unchained; the store chains what it appends). */
export function recordLine(record: TraceRecord): Buffer {
  return Buffer.from(`${JSON.stringify(record)}\n`, "utf8");
}

const TAIL_CHUNK = 64 * 1024;

/**
 * What the next append must know about the file's end: whether the last byte
 * is a newline (if not, a torn fragment ends the file and the append starts a
 * fresh line first) and the hash of the last line (the fragment included),
 * which the next record's link must carry. Reads backwards from the end, so
 * only the last line is read, however long the file.
 */
function tailOf(fd: number, sessionId: string): { needsNewline: boolean; prev: string } {
  const size = fstatSync(fd).size;
  if (size === 0) return { needsNewline: false, prev: chainStart(sessionId) };
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  const needsNewline = last[0] !== 0x0a;
  const lineEnd = needsNewline ? size : size - 1;
  const chunks: Buffer[] = [];
  let pos = lineEnd;
  while (pos > 0) {
    const len = Math.min(TAIL_CHUNK, pos);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, pos - len);
    const nl = buf.lastIndexOf(0x0a);
    if (nl >= 0) {
      chunks.unshift(buf.subarray(nl + 1));
      break;
    }
    chunks.unshift(buf);
    pos -= len;
  }
  return { needsNewline, prev: lineHash(Buffer.concat(chunks)) };
}

export interface AppendOptions {
  /** How long to wait for another process's append to finish. Default `LOCK_WAIT_MS`. */
  readonly lockWaitMs?: number;
}

/**
 * Append records to their session file: directory 0700, file 0600. Per file,
 * under an exclusive lock (see lock.ts), the tail is read, each record is
 * chained to the line before it (see chain.ts) and the group goes out in one
 * write() on an O_APPEND descriptor, starting on a fresh line even when a
 * killed writer left a torn fragment. Throws on I/O errors (the hook runtime
 * logs them).
 */
export function appendRecords(home: string, records: readonly TraceRecord[], opts: AppendOptions = {}): void {
  if (records.length === 0) return;
  const dir = sessionsDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const byFile = new Map<string, TraceRecord[]>();
  for (const r of records) {
    const path = sessionPath(home, r.session_id);
    byFile.set(path, [...(byFile.get(path) ?? []), r]);
  }
  for (const [path, group] of byFile) {
    const release = acquireLock(`${path}.lock`, opts.lockWaitMs);
    try {
      const fd = openSync(path, "a+", 0o600);
      try {
        const tail = tailOf(fd, group[0]!.session_id);
        const parts: Buffer[] = tail.needsNewline ? [Buffer.from("\n")] : [];
        let prev = tail.prev;
        for (const r of group) {
          const line = chainedLine(r, prev);
          prev = lineHash(line);
          parts.push(line, Buffer.from("\n"));
        }
        const out = Buffer.concat(parts);
        const n = writeSync(fd, out);
        // A short write leaves a torn line; the next append starts a fresh line after it.
        if (n !== out.length) throw new Error(`short write ${n}/${out.length}`);
      } finally {
        closeSync(fd);
      }
    } finally {
      release?.();
    }
  }
}

export interface LineProblem {
  readonly file: string;
  readonly line: number;
  readonly error: string;
}

export interface SessionRead {
  readonly records: TraceRecord[];
  /** The 1-based line of each record in `records`, for reports. */
  readonly lines: number[];
  readonly problems: LineProblem[];
}

/**
 * Parse a session file's text; corrupt lines are reported with their number
 * and skipped. With `types`, only records of those types are parsed: a line is
 * skipped unless it contains `"type":"<t>"`, which JSON string escaping makes
 * impossible inside a string value, so the filter never drops a wanted record
 * and spares parsing megabytes of tool output on the Stop and SessionEnd path.
 */
export function parseSessionText(file: string, text: string, types?: readonly string[]): SessionRead {
  const records: TraceRecord[] = [];
  const recordLines: number[] = [];
  const problems: LineProblem[] = [];
  const lines = text.split("\n");
  const needles = types?.map((t) => `"type":${JSON.stringify(t)}`);
  lines.forEach((line, i) => {
    if (line === "" && i === lines.length - 1) return;
    if (needles && !needles.some((n) => line.includes(n))) return;
    try {
      const v = JSON.parse(line);
      if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error("not a JSON object");
      if (types && !types.includes(v.type)) return;
      records.push(v as TraceRecord);
      recordLines.push(i + 1);
    } catch (e) {
      problems.push({ file, line: i + 1, error: e instanceof Error ? e.message.slice(0, 200) : "unreadable" });
    }
  });
  return { records, lines: recordLines, problems };
}

/**
 * A session file's bytes, or null when there is none. The one place the
 * store reads a whole file, so a safer open can replace it here.
 */
export function readSessionBytes(home: string, sessionId: string): Buffer | null {
  const path = sessionPath(home, sessionId);
  if (!existsSync(path)) return null;
  return readFileSync(path);
}

/** Read a session's records (optionally only some types); a missing file is an empty session. */
export function readSession(home: string, sessionId: string, types?: readonly string[]): SessionRead {
  const path = sessionPath(home, sessionId);
  if (!existsSync(path)) return { records: [], lines: [], problems: [] };
  return parseSessionText(path, readFileSync(path, "utf8"), types);
}

export interface SessionFile {
  readonly path: string;
  readonly bytes: number;
  readonly mtimeMs: number;
}

/** Every session file in the store, newest first. */
export function listSessionFiles(home: string): SessionFile[] {
  const dir = sessionsDir(home);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith(".jsonl"))
    .map((n) => {
      const path = join(dir, n);
      const st = statSync(path);
      return { path, bytes: st.size, mtimeMs: st.mtimeMs };
    })
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
}
