/**
 * Finding a repository and resolving revisions without a git binary.
 *
 * A linked worktree has `.git` as a file (`gitdir: ...`) pointing at a private
 * directory that holds HEAD and the index, whose `commondir` names the shared
 * directory with objects, refs and config. isomorphic-git only knows one
 * gitdir, so HEAD is read here from the private one and everything else goes
 * to the common one.
 *
 * @example
 * ```ts
 * const repo = findRepo("/path/inside/repo");
 * const commit = await resolveRev(repo, "HEAD~1");
 * ```
 */
import fs from "node:fs";
import path from "node:path";
import git from "isomorphic-git";

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
  /** One object cache shared by every isomorphic-git call on this repo. */
  readonly cache: object;
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
        const rel = fs.readFileSync(path.join(gitdir, "commondir"), "utf8").trim();
        if (rel) commondir = path.resolve(gitdir, rel);
      } catch {
        // No commondir file: a main worktree.
      }
      return { root: dir, gitdir, commondir, cache: {} };
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
  let st: fs.Stats;
  try {
    st = fs.statSync(dotgit);
  } catch {
    return null;
  }
  if (st.isDirectory()) return fs.existsSync(path.join(dotgit, "HEAD")) ? dotgit : null;
  if (!st.isFile()) return null;
  try {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotgit, "utf8"));
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
  let head: string;
  try {
    head = fs.readFileSync(path.join(repo.gitdir, "HEAD"), "utf8").trim();
  } catch {
    return null;
  }
  if (/^[0-9a-f]{40}$/.test(head)) return head;
  const m = /^ref:\s*(\S+)$/.exec(head);
  if (!m) return null;
  return resolveRefName(repo, m[1]!);
}

async function resolveRefName(repo: Repo, ref: string): Promise<string | null> {
  try {
    // isomorphic-git reads loose refs and packed-refs of the common dir.
    return await git.resolveRef({ fs, gitdir: repo.commondir, ref });
  } catch {
    return null;
  }
}

async function peelToCommit(repo: Repo, oid: string): Promise<string | null> {
  for (let i = 0; i < 16; i++) {
    let obj;
    try {
      obj = await git.readObject({ fs, gitdir: repo.commondir, oid, cache: repo.cache, format: "parsed" });
    } catch {
      return null;
    }
    if (obj.type === "commit") return oid;
    if (obj.type !== "tag") return null;
    oid = (obj.object as { object: string }).object;
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
        try {
          oid = await git.expandOid({ fs, gitdir: repo.commondir, oid: name.toLowerCase(), cache: repo.cache });
        } catch {
          oid = null;
        }
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
      const { commit } = await git.readCommit({ fs, gitdir: repo.commondir, oid: oid!, cache: repo.cache });
      const parent = commit.parent[i === hops - 1 ? parentIndex : 0];
      if (!parent) throw new UnknownRevisionError(rev);
      oid = parent;
    }
  }
  return oid!;
}

/** The root tree of a commit. */
export async function commitTree(repo: Repo, commit: string): Promise<string> {
  const { commit: c } = await git.readCommit({ fs, gitdir: repo.commondir, oid: commit, cache: repo.cache });
  return c.tree;
}

/**
 * HEAD of a git directory read synchronously with plain file reads (loose
 * ref, then packed-refs), for submodules where one value is all that is
 * needed. Null when unborn or unreadable.
 */
export function readHeadSync(gitdir: string): string | null {
  let commondir = gitdir;
  try {
    const rel = fs.readFileSync(path.join(gitdir, "commondir"), "utf8").trim();
    if (rel) commondir = path.resolve(gitdir, rel);
  } catch {
    // main worktree
  }
  let value: string;
  try {
    value = fs.readFileSync(path.join(gitdir, "HEAD"), "utf8").trim();
  } catch {
    return null;
  }
  for (let depth = 0; depth < 8; depth++) {
    if (/^[0-9a-f]{40}$/.test(value)) return value;
    const m = /^ref:\s*(\S+)$/.exec(value);
    if (!m) return null;
    const ref = m[1]!;
    try {
      value = fs.readFileSync(path.join(commondir, ref), "utf8").trim();
      continue;
    } catch {
      // not loose: look in packed-refs
    }
    try {
      const packed = fs.readFileSync(path.join(commondir, "packed-refs"), "utf8");
      const line = packed.split("\n").find((l) => l.endsWith(` ${ref}`));
      return line ? line.slice(0, 40) : null;
    } catch {
      return null;
    }
  }
  return null;
}
