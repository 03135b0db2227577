/**
 * Finding a repository and resolving revisions without a git binary.
 *
 * A linked worktree has `.git` as a file (`gitdir: ...`) pointing at a private
 * directory that holds HEAD and the index, whose `commondir` names the shared
 * directory with objects, refs and config. Refs are read by refs.ts and
 * objects by objects.ts (both say why not isomorphic-git); isomorphic-git is
 * loaded only as a fallback, for names and objects they cannot resolve.
 *
 * @example
 * ```ts
 * const repo = findRepo("/path/inside/repo");
 * const commit = await resolveRev(repo, "HEAD~1");
 * ```
 */
import fs from "node:fs";
import path from "node:path";
import { MissingObjectError, ObjectStore } from "./objects.ts";
import { RefStore } from "./refs.ts";
import { readTextBounded } from "../fs/safe-open.ts";
import { GIT_LIMITS } from "./limits.ts";
import { isomorphicGit } from "../runtime/third-party.ts";

/** Base class of the errors a caller can show to a user as they are. */
export class GitDiffError extends Error {
  override name = "GitDiffError";
}

/** `cwd` is not inside a git working tree. */
export class NotARepositoryError extends GitDiffError {
  override name = "NotARepositoryError";
  constructor(readonly cwd: string) {
    super(`not a git repository (or any parent up to /): ${cwd}`);
  }
}

/** A revision that does not name a commit in the repository. */
export class UnknownRevisionError extends GitDiffError {
  override name = "UnknownRevisionError";
  constructor(readonly rev: string) {
    super(`unknown revision: ${rev}`);
  }
}

export interface Repo {
  /** The working tree's top directory. */
  readonly root: string;
  /** The worktree's own git directory (HEAD, index). */
  readonly gitdir: string;
  /** The shared git directory (objects, refs, config, info/exclude). */
  readonly commondir: string;
  /** The object database (with alternates), read on demand. */
  readonly objects: ObjectStore;
  /** Loose and packed refs, HEAD from the worktree's own git dir. */
  readonly refs: RefStore;
}

/**
 * The repository containing `cwd`, or a NotARepositoryError.
 *
 * @example
 * ```ts
 * findRepo(process.cwd()).root; // "/home/me/project"
 * ```
 */
export function findRepo(cwd: string): Repo {
  let dir = path.resolve(cwd);
  if (!isDir(dir)) throw new NotARepositoryError(cwd);
  for (;;) {
    const dotgit = path.join(dir, ".git");
    const gitdir = gitdirOf(dotgit);
    if (gitdir) {
      let commondir = gitdir;
      try {
        const rel = readTextBounded(path.join(gitdir, "commondir"), GIT_LIMITS.smallFile).trim();
        if (rel) commondir = path.resolve(gitdir, rel);
      } catch {
        // No commondir file: a main worktree.
      }
      return { root: dir, gitdir, commondir, objects: new ObjectStore(path.join(commondir, "objects")), refs: new RefStore(gitdir, commondir) };
    }
    const up = path.dirname(dir);
    if (up === dir) throw new NotARepositoryError(cwd);
    dir = up;
  }
}

/**
 * The git directory a `.git` entry points at: itself when a directory with a
 * HEAD, the target of a `gitdir:` file, else null.
 */
export function gitdirOf(dotgit: string): string | null {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dotgit, { throwIfNoEntry: false });
  } catch {
    return null; // ENOTDIR and the like
  }
  if (!st) return null;
  if (st.isDirectory()) return fs.existsSync(path.join(dotgit, "HEAD")) ? dotgit : null;
  if (!st.isFile()) return null;
  try {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(readTextBounded(dotgit, GIT_LIMITS.smallFile));
    if (!m) return null;
    const target = path.resolve(path.dirname(dotgit), m[1]!);
    return fs.existsSync(path.join(target, "HEAD")) ? target : null;
  } catch {
    return null;
  }
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The commit HEAD points at, or null on an unborn branch. */
export async function readHead(repo: Repo): Promise<string | null> {
  return repo.refs.resolveFull("HEAD");
}

async function resolveRefName(repo: Repo, ref: string): Promise<string | null> {
  const own = repo.refs.resolve(ref);
  if (own) return own;
  try {
    // Only for names the files above do not resolve: isomorphic-git is slow to load.
    const git = await isomorphicGit();
    const { boundedFs } = await import("./safe-fs.ts");
    return await git.resolveRef({ fs: boundedFs, gitdir: repo.commondir, ref });
  } catch {
    return null;
  }
}

/** The header fields of a commit or tag (`tree`, `parent`, `object`, ...), first value of each and every parent. */
function headerFields(data: Buffer): { get(k: string): string | undefined; parents: string[] } {
  const end = data.indexOf("\n\n");
  const fields = new Map<string, string>();
  const parents: string[] = [];
  for (const line of data.toString("utf8", 0, end < 0 ? data.length : end).split("\n")) {
    if (line.startsWith(" ")) continue; // continuation of a multi-line header (gpgsig)
    const sp = line.indexOf(" ");
    if (sp < 0) continue;
    const k = line.slice(0, sp);
    if (k === "parent") parents.push(line.slice(sp + 1));
    if (!fields.has(k)) fields.set(k, line.slice(sp + 1));
  }
  return { get: (k) => fields.get(k), parents };
}

async function readCommitObject(repo: Repo, oid: string): Promise<{ tree: string; parents: string[] }> {
  const obj = await repo.objects.read(oid);
  if (obj.type !== "commit") throw new GitDiffError(`object ${oid} is a ${obj.type}, not a commit`);
  const h = headerFields(obj.data);
  const tree = h.get("tree");
  if (!tree) throw new GitDiffError(`commit ${oid} has no tree`);
  return { tree, parents: h.parents };
}

async function peelToCommit(repo: Repo, oid: string): Promise<string | null> {
  for (let i = 0; i < 16; i++) {
    let obj;
    try {
      obj = await repo.objects.read(oid);
    } catch {
      return null;
    }
    if (obj.type === "commit") return oid;
    if (obj.type !== "tag") return null;
    const target = headerFields(obj.data).get("object");
    if (!target) return null;
    oid = target;
  }
  return null;
}

/**
 * The commit a revision names: a full or abbreviated id, `HEAD`, a branch,
 * tag or other ref, each optionally followed by `~N`, `^` or `^N`.
 * Throws UnknownRevisionError when it names nothing.
 *
 * @example
 * ```ts
 * await resolveRev(repo, "main~2"); // "3f2a..."
 * ```
 */
export async function resolveRev(repo: Repo, rev: string): Promise<string> {
  const m = /^(.*?)((?:~\d*|\^\d*)*)$/.exec(rev);
  const name = m?.[1] ?? rev;
  const suffix = m?.[2] ?? "";
  let oid: string | null = null;
  if (name === "HEAD" || name === "@") oid = await readHead(repo);
  else if (name !== "") {
    if (/^[0-9a-f]{40}$/i.test(name)) oid = name.toLowerCase();
    else {
      oid = await resolveRefName(repo, name);
      if (!oid && /^[0-9a-f]{4,39}$/i.test(name)) {
        // Two matches or none: ambiguous or unknown, both an unknown revision here.
        const found = repo.objects.expand(name);
        oid = found.length === 1 ? found[0]! : null;
      }
    }
  }
  if (oid) oid = await peelToCommit(repo, oid);
  if (!oid) throw new UnknownRevisionError(rev);
  for (const step of suffix.match(/[~^]\d*/g) ?? []) {
    const n = step.length > 1 ? Number(step.slice(1)) : 1;
    const hops = step[0] === "~" ? n : 1;
    const parentIndex = step[0] === "~" ? 0 : n - 1;
    if (step[0] === "^" && n === 0) continue;
    for (let i = 0; i < hops; i++) {
      const { parents } = await readCommitObject(repo, oid!);
      const parent = parents[i === hops - 1 ? parentIndex : 0];
      if (!parent) throw new UnknownRevisionError(rev);
      oid = parent;
    }
  }
  return oid!;
}

/** The root tree of a commit. */
export async function commitTree(repo: Repo, commit: string): Promise<string> {
  try {
    return (await readCommitObject(repo, commit)).tree;
  } catch (e) {
    if (e instanceof MissingObjectError) throw new GitDiffError(e.message);
    throw e;
  }
}

/**
 * HEAD of a git directory read synchronously with plain file reads (loose
 * ref, then packed-refs), for submodules where one value is all that is
 * needed. Null when unborn or unreadable.
 */
export function readHeadSync(gitdir: string): string | null {
  let commondir = gitdir;
  try {
    const rel = readTextBounded(path.join(gitdir, "commondir"), GIT_LIMITS.smallFile).trim();
    if (rel) commondir = path.resolve(gitdir, rel);
  } catch {
    // main worktree
  }
  return new RefStore(gitdir, commondir).resolveFull("HEAD");
}
