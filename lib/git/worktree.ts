/**
 * The state of the working tree as `git add -A` would record it, found the
 * way git finds it: every index entry whose lstat data still matches the
 * index is taken at its recorded id without reading the file; only files
 * whose stat changed are hashed; untracked files are found by walking the
 * directories that are not ignored.
 *
 * @example
 * ```ts
 * const wt = scanWorktree({ root, index, rules, fileMode: true, indexMtimeMs });
 * wt.entries.get("src/a.ts"); // { mode: 0o100644, oid: "..." }
 * wt.dirty.has("src");        // something under src/ differs from the index
 * ```
 */
import fs from "node:fs";
import path from "node:path";
import type { GitIndex, IndexEntry } from "./index-file.ts";
import { isIgnored, type Rules, withDir } from "./ignore.ts";
import { gitdirOf, readHeadSync } from "./repo.ts";
import { readBounded, readTextBounded } from "../fs/safe-open.ts";
import { GIT_LIMITS } from "./limits.ts";

export const MODE_FILE = 0o100644;
export const MODE_EXEC = 0o100755;
export const MODE_LINK = 0o120000;
export const MODE_GITLINK = 0o160000;

export interface WorkEntry {
  readonly mode: number;
  readonly oid: string;
  /** The bytes, when the scan had to read them (changed or untracked files). */
  readonly data?: Buffer;
}

export interface Worktree {
  /** Every path git add -A would record, with its mode and blob id. */
  readonly entries: Map<string, WorkEntry>;
  /** Directories ("" for the root) under which some path differs from the index. */
  readonly dirty: Set<string>;
}

export interface ScanOptions {
  readonly root: string;
  readonly index: GitIndex;
  readonly rules: Rules;
  /** core.fileMode: when false the exec bit comes from the index. */
  readonly fileMode: boolean;
  /** The index file's mtime: entries not older than it are "racily clean" and hashed. */
  readonly indexMtimeMs: number;
}

/**
 * git's blob id of some bytes. Bun's hasher: node:crypto's createHash loads
 * the stream classes on first use, about 15 ms.
 */
export function blobOid(data: Uint8Array): string {
  return new Bun.CryptoHasher("sha1").update(`blob ${data.length}\0`).update(data).digest("hex");
}

function markDirty(dirty: Set<string>, p: string): void {
  let i = p.lastIndexOf("/");
  while (i >= 0) {
    const dir = p.slice(0, i);
    if (dirty.has(dir)) return;
    dirty.add(dir);
    i = dir.lastIndexOf("/");
  }
  dirty.add("");
}

function modeOf(st: fs.Stats, fileMode: boolean, indexMode: number | undefined): number | null {
  const type = st.mode & 0o170000;
  if (type === 0o120000) return MODE_LINK;
  if (type !== 0o100000) return null;
  if (!fileMode) return indexMode === MODE_EXEC ? MODE_EXEC : MODE_FILE;
  return st.mode & 0o100 ? MODE_EXEC : MODE_FILE;
}

function statMatches(e: IndexEntry, st: fs.Stats): boolean {
  // Stats carry times as float milliseconds; 1 microsecond is below any
  // change that could also keep size, inode and ctime equal.
  return (
    Math.abs(st.mtimeMs - (e.mtimeS * 1000 + e.mtimeNs / 1e6)) < 0.001 &&
    Math.abs(st.ctimeMs - (e.ctimeS * 1000 + e.ctimeNs / 1e6)) < 0.001 &&
    st.size % 0x100000000 === e.size &&
    st.ino % 0x100000000 === e.ino
  );
}

/** lstat, or null when the path is gone (ENOENT, or ENOTDIR when a parent became a file). */
function lstatOrNull(abs: string): fs.Stats | null {
  try {
    return fs.lstatSync(abs, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

function readContent(abs: string, mode: number): Buffer {
  return mode === MODE_LINK ? Buffer.from(fs.readlinkSync(abs, "buffer")) : readBounded(abs, GIT_LIMITS.object);
}

/** The commit a submodule's checkout is at, or null when it is not checked out. */
function submoduleHead(abs: string): string | null {
  const gitdir = gitdirOf(path.join(abs, ".git"));
  return gitdir ? readHeadSync(gitdir) : null;
}

/** Scan the working tree against the index. */
export function scanWorktree(opts: ScanOptions): Worktree {
  const { root, index, fileMode, indexMtimeMs } = opts;
  const entries = new Map<string, WorkEntry>();
  const dirty = new Set<string>();
  // Tracked paths are the keys of `entries` plus these, which the index has
  // but the disk no longer does (no second 100,000-entry set).
  const gone = new Set<string>();
  let last: string | null = null;
  const gitlinks = new Set<string>();
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;

  for (const e of index.entries) {
    const p = e.path;
    if (p === last) continue; // later stages of a conflict (the index sorts them together)
    last = p;
    if (e.skipWorktree || (e.assumeValid && e.stage === 0)) {
      entries.set(p, e);
      continue;
    }
    // Index paths are already normal; concatenation is cheaper than path.join per file.
    const abs = `${prefix}${p}`;
    if (e.mode === MODE_GITLINK) {
      gitlinks.add(p);
      const head = submoduleHead(abs);
      const oid = head ?? e.oid;
      entries.set(p, { mode: MODE_GITLINK, oid });
      if (oid !== e.oid) markDirty(dirty, p);
      continue;
    }
    const st = lstatOrNull(abs);
    if (!st) {
      gone.add(p);
      markDirty(dirty, p); // deleted
      continue;
    }
    const mode = modeOf(st, fileMode, e.mode);
    if (mode === null) {
      gone.add(p);
      markDirty(dirty, p); // replaced by a directory (its files are found by the walk)
      continue;
    }
    const conflicted = e.stage !== 0;
    const racy = e.mtimeS * 1000 + e.mtimeNs / 1e6 >= indexMtimeMs - 0.001;
    if (!conflicted && !e.intentToAdd && mode === e.mode && !racy && statMatches(e, st)) {
      // The index entry itself: its id is decoded only if the diff looks at this path.
      entries.set(p, e);
      continue;
    }
    let data: Buffer;
    try {
      data = readContent(abs, mode);
    } catch {
      gone.add(p);
      markDirty(dirty, p);
      continue;
    }
    const oid = blobOid(data);
    entries.set(p, { mode, oid, data });
    if (conflicted || e.intentToAdd || oid !== e.oid || mode !== e.mode) markDirty(dirty, p);
  }

  const walk = (abs: string, rel: string, rules: Rules): void => {
    let list: fs.Dirent[];
    try {
      list = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    let hasGit = false;
    for (const d of list) {
      if (d.name === ".git") hasGit = true;
      else if (d.name === ".gitignore" && d.isFile()) {
        try {
          rules = withDir(rules, rel, readTextBounded(`${abs}${path.sep}.gitignore`, GIT_LIMITS.config));
        } catch {
          // unreadable: git would warn and go on
        }
      }
    }
    if (rel !== "" && hasGit && gitdirOf(`${abs}${path.sep}.git`)) {
      // An embedded repository: git add -A records it as a gitlink, and does not look inside.
      const head = submoduleHead(abs);
      if (head) {
        entries.set(rel, { mode: MODE_GITLINK, oid: head });
        markDirty(dirty, rel);
      }
      return;
    }
    for (const d of list) {
      const name = d.name;
      if (name === ".git") continue;
      const childRel = rel === "" ? name : `${rel}/${name}`;
      let isDir = d.isDirectory();
      let isFile = d.isFile() || d.isSymbolicLink();
      if (!isDir && !isFile) {
        const st = lstatOrNull(`${abs}${path.sep}${name}`);
        if (!st) continue;
        isDir = st.isDirectory();
        isFile = st.isFile() || st.isSymbolicLink();
      }
      if (isDir) {
        if (gitlinks.has(childRel)) continue; // a submodule, handled above
        if (isIgnored(rules, childRel, true)) continue;
        walk(`${abs}${path.sep}${name}`, childRel, rules);
      } else if (isFile) {
        if (entries.has(childRel) || gone.has(childRel)) continue; // tracked
        if (isIgnored(rules, childRel, false)) continue;
        const childAbs = `${abs}${path.sep}${name}`;
        let data: Buffer;
        try {
          const st = fs.lstatSync(childAbs);
          const m = modeOf(st, true, undefined);
          if (m === null) continue;
          data = readContent(childAbs, m);
          entries.set(childRel, { mode: m, oid: blobOid(data), data });
        } catch {
          continue;
        }
        markDirty(dirty, childRel);
      }
    }
  };
  walk(root, "", opts.rules);
  return { entries, dirty };
}
