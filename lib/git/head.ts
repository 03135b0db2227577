/**
 * The commit a session starts from: HEAD of the repository containing `cwd`,
 * read with isomorphic-git (no git binary at run time). Null outside a repo or
 * in a repository with no commits yet.
 *
 * @example
 * ```ts
 * const head = await repoHead("/path/inside/repo"); // { root, commit } or null
 * ```
 */
import fs from "node:fs";
import git from "isomorphic-git";

export interface RepoHead {
  readonly root: string;
  readonly commit: string | null;
}

export async function repoHead(cwd: string): Promise<RepoHead | null> {
  let root: string;
  try {
    root = await git.findRoot({ fs, filepath: cwd });
  } catch {
    return null;
  }
  try {
    const commit = await git.resolveRef({ fs, dir: root, ref: "HEAD" });
    return { root, commit };
  } catch {
    return { root, commit: null };
  }
}
