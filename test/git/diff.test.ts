/**
 * Focused cases of the diff engine: what git itself prints, worktrees,
 * packfiles, submodules, revisions, the size cap, and the CLI's errors.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { diffAgainstBase, NotARepositoryError, UnknownRevisionError } from "../../lib/git/diff.ts";
import { cloneAt, copyIndex, git, gitApply, recordedTree, type Sandbox, sandbox, withGitEnv } from "./helpers.ts";

const MAIN = path.resolve(import.meta.dir, "../../main.ts");
let boxes: Sandbox[] = [];
afterEach(() => {
  for (const b of boxes) b.cleanup();
  boxes = [];
});

function repo(files: Record<string, string | Buffer> = { "a.txt": "one\ntwo\nthree\n" }): { sb: Sandbox; root: string; base: string } {
  const sb = sandbox();
  boxes.push(sb);
  const root = path.join(sb.dir, "repo");
  fs.mkdirSync(root);
  git(sb, root, ["init", "-q"]);
  for (const [p, data] of Object.entries(files)) write(root, p, data);
  git(sb, root, ["add", "-A"]);
  git(sb, root, ["commit", "-q", "-m", "base"]);
  return { sb, root, base: git(sb, root, ["rev-parse", "HEAD"]).trim() };
}

function write(root: string, p: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
  fs.writeFileSync(path.join(root, p), data);
}

/** git's own patch for the same change set (add -A into a throwaway index). */
function gitPatch(sb: Sandbox, root: string, base: string): string {
  const idx = path.join(sb.dir, "git-index");
  copyIndex(path.join(root, ".git", "index"), idx);
  git(sb, root, ["add", "-A"], { GIT_INDEX_FILE: idx });
  const out = git(sb, root, ["diff", "--cached", "--binary", "--no-renames", base], { GIT_INDEX_FILE: idx });
  fs.rmSync(idx);
  return out;
}

async function roundTrip(sb: Sandbox, root: string, base: string, cwd = root): Promise<string> {
  const d = await withGitEnv(sb, () => diffAgainstBase({ cwd, base }));
  const clone = cloneAt(sb, root, base, `clone-${Math.random().toString(36).slice(2)}`);
  gitApply(sb, clone, d.patch);
  expect(recordedTree(sb, clone)).toEqual(recordedTree(sb, root));
  return d.patch;
}

function cli(args: string[], env: Record<string, string>): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { env: { ...env, TRACEGATE_INTERNAL: "1" }, encoding: "utf8" });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe("the patch", () => {
  test("is byte-identical to git's for text, CRLF, no final newline, modes, symlinks, quoting, new binaries", async () => {
    const { sb, root, base } = repo({
      "a.txt": "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\nl13\nl14\nl15\n",
      "crlf.txt": "x\r\ny\r\n",
      "nonl.txt": "no newline",
      "gone.txt": "bye\n",
      "empty.txt": "",
      "run.sh": "#!/bin/sh\n",
      "with space.txt": "s\n",
      "old.bin": Buffer.from([0, 1, 2, 3, 250]),
    });
    fs.symlinkSync("a.txt", path.join(root, "link"));
    git(sb, root, ["add", "link"]);
    git(sb, root, ["commit", "-q", "-m", "link"]);
    const head = git(sb, root, ["rev-parse", "HEAD"]).trim();
    write(root, "a.txt", "l1\nL2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\nL13\nl14\nl15\nl16");
    write(root, "crlf.txt", "x\r\nz\r\n");
    write(root, "nonl.txt", "no newline\n");
    fs.rmSync(path.join(root, "gone.txt"));
    fs.rmSync(path.join(root, "old.bin"));
    fs.chmodSync(path.join(root, "run.sh"), 0o755);
    fs.rmSync(path.join(root, "link"));
    fs.symlinkSync("nonl.txt", path.join(root, "link"));
    write(root, "with space.txt", "s2\n");
    write(root, 'dir/h\u00e9llo "q"\t.txt', "q\n");
    write(root, "dir/new.bin", Buffer.from([0, 9, 8, 7, 0, 0, 1]));
    write(root, "newempty", "");
    const ours = await withGitEnv(sb, () => diffAgainstBase({ cwd: root, base: head }));
    expect(ours.patch).toBe(gitPatch(sb, root, head));
    expect(ours.files).toBe(11);
    await roundTrip(sb, root, base);
  });

  test("is empty for a clean tree, and for files touched without a change", async () => {
    const { sb, root, base } = repo({ "a.txt": "x\n", "d/b.txt": "y\n" });
    expect(await withGitEnv(sb, () => diffAgainstBase({ cwd: root }))).toEqual({
      patch: "",
      bytes: 0,
      sha256: createHash("sha256").update("").digest("hex"),
      cut: false,
      files: 0,
    });
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(root, "a.txt"), later, later);
    write(root, "d/b.txt", "y\n"); // rewritten, same bytes
    write(root, "ignored.log", "z\n");
    write(root, ".git/info/exclude", "*.log\n");
    expect((await withGitEnv(sb, () => diffAgainstBase({ cwd: path.join(root, "d"), base }))).patch).toBe("");
  });

  test("includes commits made after the base, staged and unstaged edits, and new nested files", async () => {
    const { sb, root, base } = repo({ "a.txt": "1\n", "keep.txt": "k\n" });
    write(root, "a.txt", "2\n");
    git(sb, root, ["commit", "-qam", "after"]);
    write(root, "staged.txt", "s\n");
    git(sb, root, ["add", "staged.txt"]);
    write(root, "keep.txt", "k2\n");
    write(root, "new/deep/er/file.txt", "n\n");
    const patch = await roundTrip(sb, root, base);
    for (const p of ["a.txt", "staged.txt", "keep.txt", "new/deep/er/file.txt"]) expect(patch).toContain(`diff --git a/${p} b/${p}\n`);
    // Against HEAD the committed edit is no longer part of the change.
    const sinceHead = await withGitEnv(sb, () => diffAgainstBase({ cwd: root }));
    expect(sinceHead.patch).not.toContain("a/a.txt");
    expect(sinceHead.files).toBe(3);
  });

  test("never walks an ignored directory and honours core.excludesFile", async () => {
    const { sb, root, base } = repo({ ".gitignore": "node_modules/\n", "a.txt": "a\n" });
    fs.writeFileSync(path.join(sb.env.HOME!, "excludes"), "*.swp\n");
    write(root, "node_modules/x/index.js", "x\n");
    write(root, "a.txt.swp", "swap\n");
    write(root, "b.txt", "b\n");
    // An unreadable directory inside an ignored one would fail a walker that enters it.
    fs.mkdirSync(path.join(root, "node_modules/locked"));
    fs.chmodSync(path.join(root, "node_modules/locked"), 0);
    try {
      const d = await withGitEnv(sb, () => diffAgainstBase({ cwd: root, base }));
      expect(d.files).toBe(1);
      expect(d.patch).toContain("b/b.txt");
    } finally {
      fs.chmodSync(path.join(root, "node_modules/locked"), 0o755);
    }
  });
});

describe("repositories", () => {
  test("a linked worktree (.git is a file) diffs its own HEAD and index", async () => {
    const { sb, root, base } = repo({ "a.txt": "a\n" });
    const wt = path.join(sb.dir, "wt");
    git(sb, root, ["worktree", "add", "-q", "-b", "feature", wt]);
    expect(fs.statSync(path.join(wt, ".git")).isFile()).toBe(true);
    write(wt, "a.txt", "changed in worktree\n");
    git(sb, wt, ["commit", "-qam", "wt commit"]);
    write(wt, "b.txt", "new in worktree\n");
    write(root, "main-only.txt", "not part of the worktree\n");
    const sinceHead = await withGitEnv(sb, () => diffAgainstBase({ cwd: wt }));
    expect(sinceHead.files).toBe(1);
    expect(sinceHead.patch).toContain("b/b.txt");
    const sinceMain = await withGitEnv(sb, () => diffAgainstBase({ cwd: wt, base: "main" }));
    expect(sinceMain.files).toBe(2);
    expect(sinceMain.patch).not.toContain("main-only");
    await roundTrip(sb, wt, base);
  });

  test("packfiles and packed refs after git gc", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) files[`d${i % 5}/f${i}.txt`] = `file ${i}\n`.repeat(20);
    const { sb, root, base } = repo(files);
    git(sb, root, ["tag", "-a", "-m", "tagged", "v1"]);
    write(root, "d1/f1.txt", "edited\n");
    git(sb, root, ["commit", "-qam", "second"]);
    git(sb, root, ["gc", "-q", "--aggressive"]);
    expect(fs.readdirSync(path.join(root, ".git/objects")).filter((d) => /^[0-9a-f]{2}$/.test(d))).toEqual([]);
    expect(fs.existsSync(path.join(root, ".git/refs/tags/v1"))).toBe(false);
    write(root, "d2/f2.txt", "edited too\n");
    const byTag = await withGitEnv(sb, () => diffAgainstBase({ cwd: root, base: "v1" }));
    const byId = await withGitEnv(sb, () => diffAgainstBase({ cwd: root, base: base.slice(0, 10) }));
    const byParent = await withGitEnv(sb, () => diffAgainstBase({ cwd: root, base: "HEAD~1" }));
    expect(byTag.files).toBe(2);
    expect(byId).toEqual(byTag);
    expect(byParent).toEqual(byTag);
    await roundTrip(sb, root, base);
  });

  test("a submodule shows as a pointer change", async () => {
    const sub = repo({ "s.txt": "s1\n" });
    const { sb, root } = repo({ "a.txt": "a\n" });
    git(sb, root, ["-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.root, "sub"]);
    git(sb, root, ["commit", "-qm", "add sub"]);
    const base = git(sb, root, ["rev-parse", "HEAD"]).trim();
    const subdir = path.join(root, "sub");
    write(subdir, "s.txt", "s2\n");
    git(sb, subdir, ["commit", "-qam", "sub moves"]);
    const moved = git(sb, subdir, ["rev-parse", "HEAD"]).trim();
    const d = await withGitEnv(sb, () => diffAgainstBase({ cwd: root, base }));
    expect(d.patch).toBe(gitPatch(sb, root, base));
    expect(d.patch).toContain(`+Subproject commit ${moved}\n`);
    expect(d.patch).toContain(`-Subproject commit ${sub.base}\n`);
    expect(d.patch).not.toContain("s.txt");
  });
});

describe("the size cap", () => {
  test("cuts the patch and keeps the full patch's sha256 and size", async () => {
    const { sb, root, base } = repo({ "a.txt": "a\n" });
    for (let i = 0; i < 20; i++) write(root, `f${i}.txt`, `line ${i}\n`.repeat(50));
    const full = await withGitEnv(sb, () => diffAgainstBase({ cwd: root, base }));
    expect(full.cut).toBe(false);
    expect(full.sha256).toBe(createHash("sha256").update(full.patch).digest("hex"));
    const cut = await withGitEnv(sb, () => diffAgainstBase({ cwd: root, base, maxBytes: 1000 }));
    expect(cut.cut).toBe(true);
    expect(cut.sha256).toBe(full.sha256);
    expect(cut.bytes).toBe(full.bytes);
    expect(cut.files).toBe(full.files);
    expect(Buffer.byteLength(cut.patch)).toBeLessThanOrEqual(1000);
    expect(full.patch.startsWith(cut.patch)).toBe(true);
    expect(cut.patch.endsWith("\n")).toBe(true);
  });
});

describe("errors", () => {
  test("outside a repository and with an unknown revision", async () => {
    const sb = sandbox();
    boxes.push(sb);
    await expect(diffAgainstBase({ cwd: sb.dir })).rejects.toBeInstanceOf(NotARepositoryError);
    await expect(diffAgainstBase({ cwd: path.join(sb.dir, "missing") })).rejects.toBeInstanceOf(NotARepositoryError);
    const { root } = repo();
    await expect(diffAgainstBase({ cwd: root, base: "no-such-branch" })).rejects.toBeInstanceOf(UnknownRevisionError);
    await expect(diffAgainstBase({ cwd: root, base: "HEAD~5" })).rejects.toBeInstanceOf(UnknownRevisionError);
    await expect(diffAgainstBase({ cwd: root, base: "0".repeat(40) })).rejects.toBeInstanceOf(UnknownRevisionError);
  });

  test("tracegate diff: exit codes, messages, --stat", () => {
    const { sb, root, base } = repo({ "a.txt": "one\ntwo\n" });
    const notRepo = cli(["diff", "--cwd", sb.env.HOME!], sb.env);
    expect(notRepo.code).toBe(1);
    expect(notRepo.stdout).toBe("");
    expect(notRepo.stderr).toContain("not a git repository");
    const badRev = cli(["diff", "--cwd", root, "--base", "nope"], sb.env);
    expect(badRev.code).toBe(1);
    expect(badRev.stderr).toContain("unknown revision: nope");
    expect(cli(["diff", "--bogus"], sb.env).code).toBe(2);

    write(root, "a.txt", "one\nTWO\nthree\n");
    write(root, "b.bin", Buffer.from([0, 1, 2]));
    const patch = cli(["diff", "--cwd", root, "--base", base], sb.env);
    expect(patch.code).toBe(0);
    expect(patch.stdout).toBe(gitPatch(sb, root, base));
    const stat = cli(["diff", "--cwd", root, "--stat"], sb.env);
    expect(stat.code).toBe(0);
    const idx = path.join(sb.dir, "stat-index");
    copyIndex(path.join(root, ".git", "index"), idx);
    git(sb, root, ["add", "-A"], { GIT_INDEX_FILE: idx });
    expect(stat.stdout).toBe(git(sb, root, ["diff", "--cached", "--stat", base], { GIT_INDEX_FILE: idx }));
    expect(stat.stdout).toContain("2 files changed, 2 insertions(+), 1 deletion(-)\n");
  });
});
