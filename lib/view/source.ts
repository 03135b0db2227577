/**
 * Where the viewer reads sessions from, read-only: the local store
 * (`<data dir>/sessions/<id>.jsonl`, one file a session) or a synced tree on
 * disk (`file:///dir`, the bucket layout
 * `<prefix>/<org>/<repo>/<YYYY>/<MM>/<DD>/<session>/<segment>.jsonl`, one
 * directory a session whose segments concatenate in name order).
 *
 * A session is named by a key the source produced while listing; a key from
 * a request is only ever looked up among listed keys, never joined into a
 * path, so no request can make the viewer read outside the store.
 *
 * @example
 * ```ts
 * const src = openSource(undefined, home);          // the local store
 * const src2 = openSource("file:///mnt/traces", home);
 * for (const e of src.list()) e.segments;
 * ```
 */
import { readdirSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sessionsDir } from "../trace/store.ts";

export interface Segment {
  readonly path: string;
  readonly bytes: number;
  readonly mtimeMs: number;
}

export interface SessionEntry {
  /** Stable id of the session within its source (a file name, or the session's relative dir). */
  readonly key: string;
  /** The session's files in order; their concatenation is the session's JSONL. */
  readonly segments: readonly Segment[];
  /** `org/repo` when the layout says it. */
  readonly repo?: string;
}

export interface Source {
  /** What the page shows as the source (a dir or URL). */
  readonly label: string;
  list(): SessionEntry[];
}

/** A `--from` value the viewer cannot read; the message says what to do. */
export class SourceError extends Error {}

function dirents(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function segment(path: string): Segment | null {
  try {
    const st = statSync(path);
    return st.isFile() ? { path, bytes: st.size, mtimeMs: st.mtimeMs } : null;
  } catch {
    return null;
  }
}

/** The local store: every `sessions/*.jsonl` regular file (symlinks are skipped). */
export function localSource(home: string): Source {
  const dir = sessionsDir(home);
  return {
    label: dir,
    list() {
      const out: SessionEntry[] = [];
      for (const d of dirents(dir)) {
        if (!d.isFile() || !d.name.endsWith(".jsonl")) continue;
        const seg = segment(join(dir, d.name));
        if (seg) out.push({ key: d.name, segments: [seg] });
      }
      return out;
    },
  };
}

/** Directories only, never through a symlink, in name order. */
function subdirs(dir: string): string[] {
  return dirents(dir)
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

/**
 * A synced tree on disk: `<root>/<org>/<repo>/<YYYY>/<MM>/<DD>/<session>/<segment>.jsonl`.
 * Symlinked directories and files are not followed.
 */
export function fileTreeSource(root: string, label = root): Source {
  return {
    label,
    list() {
      const out: SessionEntry[] = [];
      for (const org of subdirs(root))
        for (const repo of subdirs(join(root, org)))
          for (const y of subdirs(join(root, org, repo)))
            for (const m of subdirs(join(root, org, repo, y)))
              for (const d of subdirs(join(root, org, repo, y, m)))
                for (const s of subdirs(join(root, org, repo, y, m, d))) {
                  const dir = join(root, org, repo, y, m, d, s);
                  const segments = dirents(dir)
                    .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
                    .map((e) => e.name)
                    .sort()
                    .map((n) => segment(join(dir, n)))
                    .filter((x): x is Segment => x !== null);
                  if (segments.length) out.push({ key: [org, repo, y, m, d, s].join("/"), segments, repo: `${org}/${repo}` });
                }
      return out;
    },
  };
}

/**
 * The source for `--from` (absent: the local store in `home`).
 * Throws SourceError for a URL it cannot read.
 */
export function openSource(from: string | undefined, home: string): Source {
  if (from === undefined) return localSource(home);
  let url: URL;
  try {
    url = new URL(from);
  } catch {
    throw new SourceError(`--from "${from}" is not a URL; use file:///path/to/synced/traces`);
  }
  if (url.protocol === "file:") {
    let root: string;
    try {
      root = fileURLToPath(url);
    } catch {
      throw new SourceError(`--from ${from} is not a local file URL; use file:///absolute/path`);
    }
    try {
      if (!statSync(root).isDirectory()) throw new Error("not a directory");
    } catch {
      throw new SourceError(`--from ${from}: ${root} is not a readable directory`);
    }
    return fileTreeSource(root, from);
  }
  if (url.protocol === "s3:") {
    throw new SourceError(`--from s3:// is not readable by the viewer yet; sync the bucket to a directory and use --from file:///that/dir`);
  }
  throw new SourceError(`--from ${url.protocol} URLs are not supported; use file:///path/to/synced/traces`);
}
