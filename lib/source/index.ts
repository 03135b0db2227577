/**
 * Where `sessions`, `show` and `verify` read sessions from: the local data
 * dir, or a synced store (`--from file:///DIR` or `--from s3://BUCKET/PREFIX`).
 * A store is read by listing keys under the URL's prefix (so
 * `s3://traces/acme/api/2026/12` narrows to one repository and month without
 * touching other objects) and fetching only the segments of the sessions
 * asked for; a session's text is its segments concatenated in offset order,
 * which is the local file's complete lines byte for byte.
 */
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { listSessionFiles, SESSION_READ_MAX_BYTES, sessionFileName, sessionPath } from "../trace/store.ts";
import { readBounded } from "../fs/safe-open.ts";

export interface SourceSession {
  /** The session's file name without `.jsonl` (the store's session directory name). */
  readonly name: string;
  /** Where it lives, for messages; its basename is `<name>.jsonl` in every source. */
  readonly label: string;
  readonly bytes: number;
  readonly mtimeMs: number;
}

export interface StoreSource {
  /** The data dir path or the store URL. */
  readonly label: string;
  /** Every session, newest first. */
  list(): Promise<SourceSession[]>;
  /** One session by id, or null. */
  find(sessionId: string): Promise<SourceSession | null>;
  /** A session's text. */
  read(s: SourceSession): Promise<string>;
  /** A session's bytes, exactly as stored: what the hash chain is checked over. */
  readBytes(s: SourceSession): Promise<Buffer>;
}

function localSource(home: string): StoreSource {
  const entry = (path: string, bytes: number, mtimeMs: number): SourceSession => ({ name: basename(path, ".jsonl"), label: path, bytes, mtimeMs });
  return {
    label: home,
    async list() {
      return listSessionFiles(home).map((f) => entry(f.path, f.bytes, f.mtimeMs));
    },
    async find(id) {
      const path = sessionPath(home, id);
      return existsSync(path) ? entry(path, 0, 0) : null;
    },
    async read(s) {
      // Never a FIFO, a device or a symlink planted in the store (lib/fs/safe-open.ts).
      return readBounded(s.label, SESSION_READ_MAX_BYTES, { noFollow: true }).toString("utf8");
    },
    async readBytes(s) {
      return readBounded(s.label, SESSION_READ_MAX_BYTES, { noFollow: true });
    },
  };
}

async function remoteSource(url: string, env: Readonly<Record<string, string | undefined>>): Promise<StoreSource> {
  // Loaded only with --from: the local commands never pay for the store code.
  const [{ openStore }, { parseSegmentKey }] = await Promise.all([import("../sync/open.ts"), import("../sync/layout.ts")]);
  const { store, prefix, url: normal } = openStore(url, env, { reading: true });
  const base = normal.replace(/\/+$/, "");
  interface Remote extends SourceSession {
    readonly keys: readonly { key: string; offset: number; size: number }[];
  }
  let cache: Remote[] | null = null;
  const listAll = async (): Promise<Remote[]> => {
    if (cache) return cache;
    const by = new Map<string, { prefix: string; keys: { key: string; offset: number; size: number }[]; mtimeMs: number }>();
    for await (const o of store.list(prefix)) {
      const k = parseSegmentKey(o.key);
      if (!k) continue;
      const cur = by.get(k.session);
      if (cur && cur.prefix !== k.sessionPrefix) continue; // one prefix per session, as sync writes it
      const e = cur ?? { prefix: k.sessionPrefix, keys: [], mtimeMs: 0 };
      e.keys.push({ key: o.key, offset: k.offset, size: o.size });
      e.mtimeMs = Math.max(e.mtimeMs, o.lastModifiedMs);
      by.set(k.session, e);
    }
    const rel = (p: string) => (prefix && p.startsWith(`${prefix}/`) ? p.slice(prefix.length + 1) : p);
    cache = [...by.entries()]
      .map(([name, e]) => ({
        name,
        label: `${base}/${rel(e.prefix)}.jsonl`,
        bytes: e.keys.reduce((n, k) => n + k.size, 0),
        mtimeMs: e.mtimeMs,
        keys: e.keys.sort((a, b) => a.offset - b.offset),
      }))
      .sort((a, b) => b.mtimeMs - a.mtimeMs || a.name.localeCompare(b.name));
    return cache;
  };
  let inflight = 0;
  const waiting: (() => void)[] = [];
  const limited = async <T>(f: () => Promise<T>): Promise<T> => {
    while (inflight >= 16) await new Promise<void>((r) => waiting.push(r));
    inflight++;
    try {
      return await f();
    } finally {
      inflight--;
      waiting.shift()?.();
    }
  };
  return {
    label: normal,
    list: listAll,
    async find(id) {
      const name = sessionFileName(id).slice(0, -".jsonl".length);
      return (await listAll()).find((s) => s.name === name) ?? null;
    },
    async read(s) {
      return (await readBytes(s)).toString("utf8");
    },
    readBytes,
  };
  // Hoisted, so read() and readBytes share it.
  async function readBytes(s: SourceSession): Promise<Buffer> {
    const keys = (s as Remote).keys;
    const parts = await Promise.all(keys.map((k) => limited(() => store.get(k.key))));
    let at = 0;
    for (const [i, k] of keys.entries()) {
      if (k.offset !== at) throw new Error(`${k.key}: segment starts at ${k.offset}, expected ${at} (a segment is missing)`);
      at += parts[i]!.length;
    }
    return Buffer.concat(parts);
  }
}

/**
 * The source for `--from URL`, or the local data dir without one.
 * Throws with a user-facing message for a bad URL or missing S3 credentials.
 *
 * @example
 * ```ts
 * const src = await openSource(values.from, home, process.env);
 * for (const s of await src.list()) summarize(s.label, await src.read(s));
 * ```
 */
export async function openSource(from: string | undefined, home: string, env: Readonly<Record<string, string | undefined>>): Promise<StoreSource> {
  return from === undefined ? localSource(home) : remoteSource(from, env);
}
