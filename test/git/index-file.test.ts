/**
 * The index reader against git: entries (path, mode, id, stage, flags, stat
 * data) as `git ls-files` reports them in index versions 2, 3 and 4, and
 * the cache tree's ids as the trees git commits. A wrong cache-tree id would
 * not break a patch, only make the diff read every tree, so it is pinned
 * here.
 */
import { afterEach, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { parseIndex } from "../../lib/git/index-file.ts";
import { git, type Sandbox, sandbox } from "./helpers.ts";

let boxes: Sandbox[] = [];
afterEach(() => {
  for (const b of boxes) b.cleanup();
  boxes = [];
});

function setup(): { sb: Sandbox; root: string } {
  const sb = sandbox();
  boxes.push(sb);
  const root = path.join(sb.dir, "repo");
  fs.mkdirSync(root);
  git(sb, root, ["init", "-q"]);
  const files: Record<string, string> = {
    "a.txt": "a\n",
    "src/b.ts": "b\n",
    "src/deep/c.ts": "c\n",
    "src/deep/d.ts": "d\n",
    "docs/ünï.md": "u\n",
    [`long/${"x".repeat(200)}/${"y".repeat(200)}.txt`]: "long name\n",
  };
  for (const [p, data] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), data);
  }
  fs.chmodSync(path.join(root, "src/b.ts"), 0o755);
  git(sb, root, ["add", "-A"]);
  git(sb, root, ["commit", "-q", "-m", "base"]);
  return { sb, root };
}

/** `git ls-files -s` as "mode oid stage\tpath" lines, and the same built from parseIndex. */
function compare(sb: Sandbox, root: string): void {
  const idx = parseIndex(fs.readFileSync(path.join(root, ".git", "index")));
  const ours = idx.entries.map((e) => `${e.mode.toString(8)} ${e.oid} ${e.stage}\t${e.path}`);
  const theirs = git(sb, root, ["ls-files", "-s", "-z"]).split("\0").filter(Boolean);
  expect(ours).toEqual(theirs);
  const st = fs.lstatSync(path.join(root, "src/deep/d.ts"));
  const a = idx.entries.find((e) => e.path === "src/deep/d.ts")!;
  expect(a.size).toBe(st.size);
  expect(a.ino).toBe(st.ino % 2 ** 32);
  expect(a.mtimeS).toBe(Math.floor(st.mtimeMs / 1000));
}

test("entries match git ls-files in index versions 2, 3 and 4, flags included", () => {
  const { sb, root } = setup();
  compare(sb, root);
  // A name of 4095 bytes or more saturates the length in the flags; only the index has it.
  const blob = git(sb, root, ["hash-object", "-w", "--stdin"], {}, "x\n").trim();
  const huge = `${"h/".repeat(100)}${"z".repeat(4000)}`;
  git(sb, root, ["update-index", "--add", "--cacheinfo", `100644,${blob},${huge}`]);
  expect(parseIndex(fs.readFileSync(path.join(root, ".git", "index"))).entries.some((e) => e.path === huge)).toBe(true);
  compare(sb, root);
  git(sb, root, ["update-index", "--index-version", "4"]);
  expect(parseIndex(fs.readFileSync(path.join(root, ".git", "index"))).version).toBe(4);
  compare(sb, root);
  // Extended flags make a version 3 index.
  git(sb, root, ["update-index", "--index-version", "3"]);
  git(sb, root, ["update-index", "--skip-worktree", "src/deep/c.ts"]);
  fs.writeFileSync(path.join(root, "new.txt"), "n\n");
  git(sb, root, ["add", "-N", "new.txt"]);
  git(sb, root, ["update-index", "--assume-unchanged", "a.txt"]);
  const idx = parseIndex(fs.readFileSync(path.join(root, ".git", "index")));
  expect(idx.version).toBe(3);
  const by = new Map(idx.entries.map((e) => [e.path, e]));
  expect(by.get("src/deep/c.ts")!.skipWorktree).toBe(true);
  expect(by.get("new.txt")!.intentToAdd).toBe(true);
  expect(by.get("a.txt")!.assumeValid).toBe(true);
  expect(by.get("src/b.ts")!.skipWorktree || by.get("src/b.ts")!.intentToAdd || by.get("src/b.ts")!.assumeValid).toBe(false);
  compare(sb, root);
});

test("conflict stages", () => {
  const { sb, root } = setup();
  git(sb, root, ["checkout", "-q", "-b", "other"]);
  fs.writeFileSync(path.join(root, "a.txt"), "other\n");
  git(sb, root, ["commit", "-qam", "other"]);
  git(sb, root, ["checkout", "-q", "-"]);
  fs.writeFileSync(path.join(root, "a.txt"), "mine\n");
  git(sb, root, ["commit", "-qam", "mine"]);
  try {
    git(sb, root, ["merge", "-q", "other"]);
  } catch {
    // the conflict is the point
  }
  const stages = parseIndex(fs.readFileSync(path.join(root, ".git", "index")))
    .entries.filter((e) => e.path === "a.txt")
    .map((e) => e.stage);
  expect(stages).toEqual([1, 2, 3]);
  compare(sb, root);
});

test("cache tree ids are the committed trees; invalidated directories are absent", () => {
  const { sb, root } = setup();
  let tree = parseIndex(fs.readFileSync(path.join(root, ".git", "index"))).cacheTree;
  for (const dir of ["", "src", "src/deep", "docs", "long"]) {
    expect(`${dir} ${tree.get(dir)}`).toBe(`${dir} ${git(sb, root, ["rev-parse", `HEAD:${dir}`]).trim()}`);
  }
  fs.writeFileSync(path.join(root, "src/deep/c.ts"), "changed\n");
  git(sb, root, ["add", "src/deep/c.ts"]);
  tree = parseIndex(fs.readFileSync(path.join(root, ".git", "index"))).cacheTree;
  expect(tree.has("src/deep")).toBe(false);
  expect(tree.has("src")).toBe(false);
  expect(tree.has("")).toBe(false);
  expect(tree.get("docs")).toBe(git(sb, root, ["rev-parse", "HEAD:docs"]).trim());
});
