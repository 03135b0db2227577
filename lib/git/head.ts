/**
 * The commit a session starts from: HEAD of the repository containing `cwd`,
 * read without a git binary. Linked worktrees (`.git` as a file) get their
 * own HEAD, not the main worktree's. Null outside a repo; `commit` is null in
 * a repository with no commits yet.
 *
 * @example
 * ```ts
 * const head = await repoHead("/path/inside/repo"); // { root, commit } or null
 * ```
 */
import { findRepo, readHead, type Repo } from "./repo.ts";

export interface RepoHead {
  readonly root: string;
  readonly commit: string | null;
}

export async function repoHead(cwd: string): Promise<RepoHead | null> {
  let repo: Repo;
  try {
    repo = findRepo(cwd);
  } catch {
    return null;
  }
  try {
    return { root: repo.root, commit: await readHead(repo) };
  } catch {
    return { root: repo.root, commit: null };
  }
}
