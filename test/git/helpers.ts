/**
 * Test helpers: the real git CLI builds repositories and applies patches, so
 * the diff engine is checked against git itself. Never used at run time.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A temporary world for one test: a home with its own global git config. */
export interface Sandbox {
  readonly dir: string;
  readonly env: Record<string, string>;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tg-git-")));
  const home = path.join(dir, "home");
  fs.mkdirSync(home);
  const globalConfig = path.join(home, "gitconfig");
  fs.writeFileSync(
    globalConfig,
    "[user]\n\tname = T\n\temail = t@example.invalid\n[init]\n\tdefaultBranch = main\n[core]\n\texcludesFile = " +
      path.join(home, "excludes") +
      "\n[gc]\n\tauto = 0\n[advice]\n\tdetachedHead = false\n[protocol \"file\"]\n\tallow = always\n",
  );
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    GIT_CONFIG_GLOBAL: globalConfig,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_DATE: "2020-01-01T00:00:00Z",
    GIT_COMMITTER_DATE: "2020-01-01T00:00:00Z",
    LC_ALL: "C",
  };
  return { dir, env, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Run git; throw with its stderr when it fails. Returns stdout. */
export function git(sb: Sandbox, cwd: string, args: string[], extraEnv: Record<string, string> = {}, input?: string): string {
  const r = spawnSync("git", args, { cwd, env: { ...sb.env, ...extraEnv }, encoding: "utf8", input, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed (${r.status}):\n${r.stderr}`);
  return r.stdout;
}

/** Run `fn` with process.env pointing git config lookups at the sandbox's home. */
export async function withGitEnv<T>(sb: Sandbox, fn: () => Promise<T>): Promise<T> {
  const keys = ["HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM"];
  const saved = keys.map((k) => process.env[k]);
  for (const k of keys) process.env[k] = sb.env[k];
  try {
    return await fn();
  } finally {
    keys.forEach((k, i) => {
      if (saved[i] === undefined) delete process.env[k];
      else process.env[k] = saved[i];
    });
  }
}

/**
 * What `git add -A` would record for a working tree, as sorted
 * "mode oid stage\tpath" lines: every non-ignored path with its content id
 * (a symlink's id is its target's), found with a throwaway index.
 */
export function recordedTree(sb: Sandbox, repo: string): string[] {
  const gitdir = git(sb, repo, ["rev-parse", "--absolute-git-dir"]).trim();
  const tmpIndex = path.join(sb.dir, `index-${process.hrtime.bigint()}`);
  const real = path.join(gitdir, "index");
  if (fs.existsSync(real)) {
    copyIndex(real, tmpIndex);
    // The truth, not git's stat cache: an index older than every entry makes
    // git treat each entry as racily clean and compare content. Without this,
    // a same-size edit whose times git sees as unchanged (git compares ctime
    // to the second here; the diff engine does not) was missed by the
    // reference, and the round trip blamed the engine that got it right.
    fs.utimesSync(tmpIndex, new Date(1000), new Date(1000)); // not 0: git reads a zero index time as "unknown"
  }
  try {
    const env = { GIT_INDEX_FILE: tmpIndex };
    git(sb, repo, ["add", "-A"], env);
    return git(sb, repo, ["ls-files", "-s", "-z"], env).split("\0").filter(Boolean).sort();
  } finally {
    fs.rmSync(tmpIndex, { force: true });
  }
}

/**
 * Copy an index keeping its mtime: git trusts entries older than the index
 * file, so a fresh mtime would make git miss same-size edits made in the
 * same second as the last index write.
 */
export function copyIndex(from: string, to: string): void {
  fs.copyFileSync(from, to);
  const st = fs.statSync(from);
  fs.utimesSync(to, st.atime, st.mtime);
}

/** A fresh checkout of `commit` from `src`, in a new directory. */
export function cloneAt(sb: Sandbox, src: string, commit: string, name: string): string {
  const dst = path.join(sb.dir, name);
  git(sb, sb.dir, ["clone", "-q", "--shared", "--no-checkout", src, dst]);
  git(sb, dst, ["checkout", "-q", "--detach", commit]);
  const excl = path.join(src, ".git", "info", "exclude");
  if (fs.existsSync(excl)) fs.copyFileSync(excl, path.join(dst, ".git", "info", "exclude"));
  return dst;
}

/** Apply a patch with the real `git apply --binary`; throws with git's message on failure. */
export function gitApply(sb: Sandbox, repo: string, patch: string): void {
  if (patch === "") return;
  const file = path.join(sb.dir, `patch-${process.hrtime.bigint()}.diff`);
  fs.writeFileSync(file, patch);
  try {
    git(sb, repo, ["apply", "--binary", "--whitespace=nowarn", file]);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

export { prng } from "../support/prng.ts";
