/**
 * The patch of a working tree against a base commit: what `git add -A` and
 * `git diff --cached --binary BASE` would print, and what `git apply
 * --binary` on a checkout of BASE turns back into the working tree. No git
 * binary: objects and packfiles are read by objects.ts and pack.ts, refs by
 * refs.ts (isomorphic-git is their fallback), the index and the working tree
 * here.
 *
 * Speed comes from doing what git does: lstat data against the index decides
 * which files to hash, the index's cache tree stands for whole clean
 * subtrees so the base tree is only opened where something differs, and
 * ignored directories are never walked.
 *
 * @example
 * ```ts
 * const d = await diffAgainstBase({ cwd: "/repo", base: "HEAD~1", maxBytes: 1 << 20 });
 * if (d.cut) console.log(`patch cut; full patch is ${d.bytes} bytes, sha256 ${d.sha256}`);
 * ```
 */
import fs from "node:fs";
import path from "node:path";
import { readGitConfig } from "./config.ts";
import { baseRules } from "./ignore.ts";
import { type GitIndex, parseIndex } from "./index-file.ts";
import { type GitObject, MissingObjectError, type ObjectType } from "./objects.ts";
import { PackFormatError } from "./pack.ts";
import { filePatch, type Side } from "./patch.ts";
import { commitTree, findRepo, GitDiffError, type Repo, resolveRev } from "./repo.ts";
import { MODE_GITLINK, scanWorktree, type WorkEntry } from "./worktree.ts";
import { openRegular, readBounded, readTextBounded, readUpTo, UnsafeFileError } from "../fs/safe-open.ts";
import { GIT_LIMITS } from "./limits.ts";

export { GitDiffError, NotARepositoryError, UnknownRevisionError } from "./repo.ts";

export interface RepoDiff {
  /** The patch, cut to at most maxBytes (UTF-8) when `cut`. */
  patch: string;
  /** Byte length of the full patch. */
  bytes: number;
  /** sha256 (hex) of the full patch. */
  sha256: string;
  /** True when `patch` is a prefix of the full patch. */
  cut: boolean;
  /** Number of paths that differ. */
  files: number;
}

/** One changed path, as `tracegate diff --stat` shows it. */
export interface FileStat {
  path: string;
  added: number;
  removed: number;
  binary: boolean;
  oldSize: number;
  newSize: number;
}

export interface DiffOptions {
  /** A directory inside the working tree. */
  cwd: string;
  /** The revision to diff against; default HEAD. */
  base?: string;
  /** Cap on the returned patch in bytes; default 50 MiB (config caps.diff_bytes). */
  maxBytes?: number;
}

export const DEFAULT_MAX_BYTES = 52428800;

interface BaseEntry {
  readonly mode: number;
  readonly oid: string;
}

/** Sort paths in git's order: bytewise on UTF-8. */
function compareBytes(a: string, b: string): number {
  // UTF-16 order equals UTF-8 byte order except around surrogates; fall back only then.
  for (let i = 0; i < a.length && i < b.length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 || y >= 0xd800) return Buffer.compare(Buffer.from(a), Buffer.from(b));
    return x - y;
  }
  return a.length - b.length;
}

function readIndex(repo: Repo): { index: GitIndex; mtimeMs: number } {
  const file = path.join(repo.gitdir, "index");
  let buf: Buffer;
  let mtimeMs: number;
  try {
    const { fd, st } = openRegular(file);
    try {
      if (st.size > GIT_LIMITS.index) throw new GitDiffError("the git index is larger than tracegate reads");
      buf = readUpTo(fd, st.size, 0);
      mtimeMs = st.mtimeMs;
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    // A FIFO or device where the index should be is refused, not read as "no index".
    if (e instanceof UnsafeFileError || e instanceof GitDiffError) throw new GitDiffError(`the git index is unreadable (${(e as UnsafeFileError).code ?? e.message})`);
    return { index: { version: 2, entries: [], cacheTree: new Map(), incomplete: false }, mtimeMs: 0 };
  }
  const index = parseIndex(buf);
  if (index.incomplete) throw new GitDiffError("split or sparse index is not supported; run `git update-index --no-split-index` or disable sparse index");
  return { index, mtimeMs };
}

function readText(file: string | null): string {
  if (!file) return "";
  try {
    return readTextBounded(file, GIT_LIMITS.config);
  } catch {
    return "";
  }
}

/** An object of the expected type; a missing, corrupt or mistyped one is a GitDiffError a user can read. */
async function readObject(repo: Repo, oid: string, type: ObjectType): Promise<GitObject> {
  let obj: GitObject;
  try {
    obj = await repo.objects.read(oid);
  } catch (e) {
    if (e instanceof MissingObjectError) throw new GitDiffError(`${e.message}: the repository is incomplete`);
    if (e instanceof PackFormatError) throw new GitDiffError(`object ${oid} is unreadable: ${e.message}`);
    throw e;
  }
  if (obj.type !== type) throw new GitDiffError(`object ${oid} is a ${obj.type}, not a ${type}`);
  return obj;
}

/**
 * The base tree flattened to path -> entry, except for subtrees whose id the
 * cache tree gives for a clean directory: those are equal on both sides and
 * go to `skipped` instead.
 */
async function flattenBase(
  repo: Repo,
  treeOid: string,
  cacheTree: Map<string, string>,
  dirty: Set<string>,
): Promise<{ base: Map<string, BaseEntry>; skipped: Set<string> }> {
  const base = new Map<string, BaseEntry>();
  const skipped = new Set<string>();
  const visit = async (oid: string, prefix: string): Promise<void> => {
    const obj = await readObject(repo, oid, "tree");
    for (const e of parseTree(obj.data)) {
      const p = prefix === "" ? e.name : `${prefix}/${e.name}`;
      if (e.mode === 0o040000) {
        if (!dirty.has(p) && cacheTree.get(p) === e.oid) skipped.add(p);
        else await visit(e.oid, p);
      } else base.set(p, { mode: e.mode, oid: e.oid });
    }
  };
  if (!dirty.has("") && cacheTree.get("") === treeOid) skipped.add("");
  else await visit(treeOid, "");
  return { base, skipped };
}

/** Entries of a raw tree object: `mode SP name NUL oid(20)` repeated. */
export function parseTree(bytes: Uint8Array): { mode: number; name: string; oid: string }[] {
  // Buffer's native utf8/hex slicing, without a view or a copy per entry.
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: { mode: number; name: string; oid: string }[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const sp = buf.indexOf(32, pos);
    const nul = buf.indexOf(0, sp);
    if (sp < 0 || nul < 0 || nul + 21 > buf.length) throw new GitDiffError("corrupt tree object");
    let mode = 0;
    for (let i = pos; i < sp; i++) mode = mode * 8 + (buf[i]! - 48);
    out.push({ mode, name: buf.toString("utf8", sp + 1, nul), oid: buf.toString("hex", nul + 1, nul + 21) });
    pos = nul + 21;
  }
  return out;
}

/**
 * Whether a path lies under one of the `skipped` directories. Paths come in
 * index order, so consecutive ones mostly share their directory: the answer
 * for the last directory is kept.
 */
function skippedTest(skipped: Set<string>): (p: string) => boolean {
  if (skipped.size === 0) return () => false;
  if (skipped.has("")) return () => true;
  let lastDir: string | null = null;
  let lastAnswer = false;
  return (p) => {
    const slash = p.lastIndexOf("/");
    if (slash < 0) return false;
    const dir = p.slice(0, slash);
    if (dir === lastDir) return lastAnswer;
    let answer = false;
    for (let i = dir.length; i > 0; i = dir.lastIndexOf("/", i - 1)) {
      if (skipped.has(i === dir.length ? dir : dir.slice(0, i))) {
        answer = true;
        break;
      }
    }
    lastDir = dir;
    lastAnswer = answer;
    return answer;
  };
}

/** Incremental sha256 and byte count of the full patch, keeping at most `max` bytes of it. */
class CappedSink {
  // Bun's hasher: node:crypto's createHash loads the stream classes, about 15 ms.
  private readonly hash = new Bun.CryptoHasher("sha256");
  private readonly kept: string[] = [];
  bytes = 0;
  cut = false;
  private keptBytes = 0;
  constructor(private readonly max: number) {}

  push(text: string): void {
    if (text === "") return;
    const n = Buffer.byteLength(text, "utf8");
    this.hash.update(text, "utf8");
    this.bytes += n;
    if (this.cut) return;
    if (this.keptBytes + n <= this.max) {
      this.kept.push(text);
      this.keptBytes += n;
      return;
    }
    this.cut = true;
    // Keep whole lines of the section that crosses the cap, and never half a character.
    const room = this.max - this.keptBytes;
    const buf = Buffer.from(text, "utf8").subarray(0, room);
    const nl = buf.lastIndexOf(10);
    if (nl >= 0) this.kept.push(buf.subarray(0, nl + 1).toString("utf8"));
  }

  finish(): { patch: string; bytes: number; sha256: string; cut: boolean } {
    return { patch: this.kept.join(""), bytes: this.bytes, sha256: this.hash.digest("hex"), cut: this.cut };
  }
}

/**
 * Visit every differing path in git's order with the bytes of both sides.
 * Shared by the patch and by --stat.
 */
async function eachChange(
  opts: DiffOptions,
  onFile: (p: string, a: Side | null, b: Side | null) => void,
): Promise<void> {
  const repo = findRepo(opts.cwd);
  try {
    await changesIn(repo, opts, onFile);
  } finally {
    repo.objects.close(); // pack file descriptors; the Stop hook runs this in a longer-lived process
  }
}

async function changesIn(
  repo: Repo,
  opts: DiffOptions,
  onFile: (p: string, a: Side | null, b: Side | null) => void,
): Promise<void> {
  const commit = await resolveRev(repo, opts.base ?? "HEAD");
  const tree = await commitTree(repo, commit);
  const { index, mtimeMs } = readIndex(repo);
  const cfg = readGitConfig(repo.commondir);
  const rules = baseRules([readText(cfg.excludesFile), readText(path.join(repo.commondir, "info", "exclude"))]);
  const wt = scanWorktree({ root: repo.root, index, rules, fileMode: cfg.fileMode, indexMtimeMs: mtimeMs });
  const { base, skipped } = await flattenBase(repo, tree, index.cacheTree, wt.dirty);

  const paths = new Set<string>(base.keys());
  const underSkipped = skippedTest(skipped);
  for (const p of wt.entries.keys()) if (!underSkipped(p)) paths.add(p);
  const sorted = [...paths].sort(compareBytes);

  const blob = async (oid: string): Promise<Uint8Array> => (await readObject(repo, oid, "blob")).data;
  const content = async (p: string, e: BaseEntry | WorkEntry, fromWorktree: boolean): Promise<Uint8Array> => {
    if (e.mode === MODE_GITLINK) return Buffer.from(`Subproject commit ${e.oid}\n`);
    if ("data" in e && e.data) return e.data;
    if (fromWorktree) {
      // A stat-clean tracked file: its bytes on disk are the index blob.
      try {
        const abs = path.join(repo.root, p);
        const data = (e.mode & 0o170000) === 0o120000 ? fs.readlinkSync(abs, "buffer") : readBounded(abs, GIT_LIMITS.object);
        return data;
      } catch {
        // skip-worktree or vanished: fall through to the object store
      }
    }
    return blob(e.oid);
  };

  for (const p of sorted) {
    const a = base.get(p);
    const b = wt.entries.get(p);
    if (a && b && a.mode === b.mode && a.oid === b.oid) continue;
    const sideA: Side | null = a ? { mode: a.mode, oid: a.oid, data: await content(p, a, false) } : null;
    const sideB: Side | null = b ? { mode: b.mode, oid: b.oid, data: await content(p, b, true) } : null;
    onFile(p, sideA, sideB);
  }
}

/**
 * The patch of the working tree at `cwd` (new untracked files included,
 * ignored ones not) against `base`. `sha256` and `bytes` describe the full
 * patch even when `patch` was cut to `maxBytes`.
 * Throws NotARepositoryError or UnknownRevisionError (both GitDiffError).
 *
 * @example
 * ```ts
 * const { patch, files } = await diffAgainstBase({ cwd: process.cwd() });
 * ```
 */
export async function diffAgainstBase(opts: DiffOptions): Promise<RepoDiff> {
  const sink = new CappedSink(opts.maxBytes ?? DEFAULT_MAX_BYTES);
  let files = 0;
  await eachChange(opts, (p, a, b) => {
    const fp = filePatch(p, a, b);
    if (fp.text === "") return;
    files++;
    sink.push(fp.text);
  });
  return { ...sink.finish(), files };
}

/**
 * Per-file line counts of the same change set, for `tracegate diff --stat`.
 *
 * @example
 * ```ts
 * (await diffStat({ cwd: "." }))[0]; // { path: "a.txt", added: 2, removed: 1, binary: false, ... }
 * ```
 */
export async function diffStat(opts: DiffOptions): Promise<FileStat[]> {
  const stats: FileStat[] = [];
  await eachChange(opts, (p, a, b) => {
    const fp = filePatch(p, a, b);
    if (fp.text === "") return;
    stats.push({
      path: p,
      added: fp.added,
      removed: fp.removed,
      binary: fp.binary,
      oldSize: a?.data.length ?? 0,
      newSize: b?.data.length ?? 0,
    });
  });
  return stats;
}
