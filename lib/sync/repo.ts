/**
 * `org/repo` of a session: from the git remote of the repository at the
 * session's cwd (`origin`, else the first remote), else `_local/<repo dir>`,
 * else `_local/_none`. Only git's config file is read; nothing runs git.
 */
import { readFileSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { parseGitConfig } from "../git/config.ts";
import { repoSlug, safeComponent } from "./layout.ts";

/** A small regular file's text, or null: a hostile repo's FIFO or huge file cannot stall sync. */
function readSmall(path: string): string | null {
  try {
    const st = statSync(path);
    return st.isFile() && st.size <= 1 << 20 ? readFileSync(path, "utf8") : null;
  } catch {
    return null;
  }
}

function findGit(cwd: string): { root: string; gitdir: string } | null {
  let dir = cwd;
  for (let i = 0; i < 128; i++) {
    const dotgit = join(dir, ".git");
    try {
      const st = statSync(dotgit);
      if (st.isDirectory()) return { root: dir, gitdir: dotgit };
      if (st.isFile()) {
        const m = /^gitdir:\s*(.+)$/m.exec(readSmall(dotgit) ?? "");
        if (m) {
          let gitdir = m[1]!.trim();
          if (!isAbsolute(gitdir)) gitdir = resolve(dir, gitdir);
          // A worktree keeps its config in the common dir.
          const common = join(gitdir, "commondir");
          const commondir = readSmall(common);
          if (commondir) gitdir = resolve(gitdir, commondir.trim());
          return { root: dir, gitdir };
        }
      }
    } catch {
      // not here; go up
    }
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
  return null;
}

/**
 * The `org` and `repo` components for a session whose cwd is `cwd` (null when unknown).
 *
 * @example
 * ```ts
 * orgRepo("/home/me/src/api"); // { org: "acme", repo: "api" } with origin github.com/acme/api
 * orgRepo(null);               // { org: "_local", repo: "_none" }
 * ```
 */
export function orgRepo(cwd: string | null): { org: string; repo: string } {
  if (!cwd || !isAbsolute(cwd)) return { org: "_local", repo: "_none" };
  const git = findGit(cwd);
  if (git) {
    const text = readSmall(join(git.gitdir, "config"));
    const cfg = text === null ? null : parseGitConfig(text);
    if (cfg) {
      const origin = cfg.get("remote.origin.url");
      const any = origin ?? [...cfg.entries()].find(([k]) => k.startsWith("remote.") && k.endsWith(".url"))?.[1];
      const slug = any ? repoSlug(any) : null;
      if (slug) return slug;
    }
    return { org: "_local", repo: safeComponent(basename(git.root), "_none") };
  }
  return { org: "_local", repo: safeComponent(basename(cwd), "_none") };
}
