/** repoHead: the base commit a session records, main and linked worktrees. */
import { afterEach, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { repoHead } from "../../lib/git/head.ts";
import { git, type Sandbox, sandbox } from "./helpers.ts";

let sb: Sandbox | null = null;
afterEach(() => sb?.cleanup());

test("repoHead: null outside a repo, null commit when unborn, each worktree's own HEAD", async () => {
  sb = sandbox();
  expect(await repoHead(sb.dir)).toBeNull();
  const root = path.join(sb.dir, "r");
  fs.mkdirSync(path.join(root, "sub"), { recursive: true });
  git(sb, root, ["init", "-q"]);
  expect(await repoHead(path.join(root, "sub"))).toEqual({ root, commit: null });
  fs.writeFileSync(path.join(root, "a"), "a\n");
  git(sb, root, ["add", "a"]);
  git(sb, root, ["commit", "-qm", "one"]);
  const first = git(sb, root, ["rev-parse", "HEAD"]).trim();
  const wt = path.join(sb.dir, "wt");
  git(sb, root, ["worktree", "add", "-q", "-b", "side", wt]);
  fs.writeFileSync(path.join(wt, "b"), "b\n");
  git(sb, wt, ["add", "b"]);
  git(sb, wt, ["commit", "-qm", "two"]);
  const second = git(sb, wt, ["rev-parse", "HEAD"]).trim();
  git(sb, root, ["pack-refs", "--all"]);
  expect(await repoHead(root)).toEqual({ root, commit: first });
  expect(await repoHead(wt)).toEqual({ root: wt, commit: second });
});
