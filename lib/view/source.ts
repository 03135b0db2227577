/**
 * Where the viewer reads sessions from, read-only: the local store
 * (`<data dir>/sessions/<id>.jsonl`, read a window at a time, see summary.ts)
 * or a synced store (`--from file:///DIR` or `--from s3://BUCKET/PREFIX`),
 * read through the store source that `sessions`, `show` and `verify` use
 * (lib/source/), which knows the bucket layout. A store session is read
 * whole, once, and its row cached by size and time.
 *
 * A session is named by a key the source produced while listing; a key from
 * a request is only ever looked up among listed keys, never joined into a
 * path, so no request can make the viewer read outside the store.
 *
 * @example
 * ```ts
 * const src = await openViewSource(undefined, home, process.env); // the local store
 * for (const e of await src.list()) e.key;
 * ```
 */
import { readdirSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { openSource, type StoreSource } from "../source/index.ts";
import { parseSegmentKey, segmentKey } from "../sync/layout.ts";
import { sessionsDir } from "../trace/store.ts";

export interface Segment {
  readonly path: string;
  readonly bytes: number;
  readonly mtimeMs: number;
}

export interface SessionEntry {
  /** Stable id of the session within its source (its file name). */
  readonly key: string;
  /** Local files, in order; empty for a store session (read with `load`). */
  readonly segments: readonly Segment[];
  readonly bytes: number;
  readonly mtimeMs: number;
  /** `org/repo` when the store's layout says it. */
  readonly repo?: string;
  /** A store session's whole text. */
  readonly load?: () => Promise<string>;
}

export interface Source {
  /** What the page shows as the source (a dir or URL). */
  readonly label: string;
  /** Whether hooks can forward to a viewer of this source (the local store only). */
  readonly local: boolean;
  list(): Promise<SessionEntry[]>;
}

function dirents(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** The local store: every `sessions/*.jsonl` regular file (symlinks are skipped). */
export function localSource(home: string): Source {
  const dir = sessionsDir(home);
  return {
    label: dir,
    local: true,
    async list() {
      const out: SessionEntry[] = [];
      for (const d of dirents(dir)) {
        if (!d.isFile() || !d.name.endsWith(".jsonl")) continue;
        const path = join(dir, d.name);
        try {
          const st = statSync(path);
          if (st.isFile()) out.push({ key: d.name, segments: [{ path, bytes: st.size, mtimeMs: st.mtimeMs }], bytes: st.size, mtimeMs: st.mtimeMs });
        } catch {
          // gone since the listing
        }
      }
      return out;
    },
  };
}

/** `org/repo` from a store session's label (`<url>/<org>/<repo>/<Y>/<M>/<D>/<session>.jsonl`), by the layout's own parser. */
function repoOf(label: string): string | undefined {
  const k = parseSegmentKey(segmentKey(label.replace(/\.jsonl$/, ""), 0));
  return k && k.org && k.repo ? `${k.org}/${k.repo}` : undefined;
}

/** A synced store, through lib/source. */
export function storeSource(store: StoreSource): Source {
  return {
    label: store.label,
    local: false,
    async list() {
      return (await store.list()).map((s) => ({
        key: `${s.name}.jsonl`,
        segments: [],
        bytes: s.bytes,
        mtimeMs: s.mtimeMs,
        repo: repoOf(s.label),
        load: () => store.read(s),
      }));
    },
  };
}

/**
 * The source for `--from` (absent: the local store in `home`). Throws with a
 * user-facing message for a URL the store source cannot open.
 */
export async function openViewSource(from: string | undefined, home: string, env: Readonly<Record<string, string | undefined>>): Promise<Source> {
  if (from === undefined) return localSource(home);
  return storeSource(await openSource(from, home, env));
}
