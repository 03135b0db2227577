/**
 * A repository's `.tracegate.jsonc` cannot stall, disable or slow anything
 * (issue 10, part 3), with the compiled binary: read only inside a git
 * repository, only from its root, only a small regular file; a FIFO there
 * never hangs a hook; outside a repository no parent directory is searched.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, cleanup, postToolUse, recordsIn, run, tempDir } from "../support/tracegate.ts";

let root: string;
const SECRET = "zebra7391";
const PATTERN = JSON.stringify({ redact: { extra: [{ kind: "zebra", pattern: "zebra[0-9]{4}" }] } });

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`npm run build\``);
  root = tempDir("tg-repocfg-");
});
afterAll(() => cleanup(root));

let n = 0;
function repo(): string {
  const dir = join(root, `repo-${++n}`);
  execFileSync("git", ["init", "-q", dir]);
  mkdirSync(join(dir, "sub"));
  return dir;
}

/** Run post-tool-use from `cwd` with the secret in the tool output; return the stored record's output. */
async function toolOutput(cwd: string): Promise<{ code: number | null; output: string | null }> {
  const home = join(root, `home-${++n}`);
  const r = await run(["post-tool-use"], {
    stdin: postToolUse("s", { cwd, tool_response: { stdout: `the key is ${SECRET}` } }),
    env: { TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(root, "none.jsonc") },
    cwd,
  });
  const rec = recordsIn(home).find((x) => x.type === "tool_call");
  return { code: r.code, output: rec ? JSON.stringify(rec.output) : null };
}

test("the control: a pattern in the repository root's file is applied, from any directory below it", async () => {
  const dir = repo();
  writeFileSync(join(dir, ".tracegate.jsonc"), PATTERN);
  for (const cwd of [dir, join(dir, "sub")]) {
    const r = await toolOutput(cwd);
    expect(r.output).not.toBeNull();
    expect(r.output).not.toContain(SECRET);
  }
});

test("a FIFO named .tracegate.jsonc does not hang the hook: the record is written", async () => {
  const dir = repo();
  execFileSync("mkfifo", [join(dir, ".tracegate.jsonc")]);
  const r = await toolOutput(dir);
  expect(r.code).toBe(0);
  expect(r.output).toContain(SECRET);
});

test("only the root's file: one in a subdirectory is ignored", async () => {
  const dir = repo();
  writeFileSync(join(dir, "sub", ".tracegate.jsonc"), PATTERN);
  expect((await toolOutput(join(dir, "sub"))).output).toContain(SECRET);
});

test("outside a repository no parent directory is searched", async () => {
  const parent = join(root, "plain");
  mkdirSync(join(parent, "a", "b"), { recursive: true });
  writeFileSync(join(parent, ".tracegate.jsonc"), PATTERN);
  writeFileSync(join(parent, "a", ".tracegate.jsonc"), PATTERN);
  expect((await toolOutput(join(parent, "a", "b"))).output).toContain(SECRET);
  expect((await toolOutput(join(parent, "a"))).output).toContain(SECRET);
});

test("a symlink, a directory or a file over 64 KB is not read", async () => {
  const target = join(root, "elsewhere.jsonc");
  writeFileSync(target, PATTERN);
  const linked = repo();
  symlinkSync(target, join(linked, ".tracegate.jsonc"));
  expect((await toolOutput(linked)).output).toContain(SECRET);
  const big = repo();
  writeFileSync(join(big, ".tracegate.jsonc"), PATTERN.slice(0, -1) + `, "$schema": "${"x".repeat(70_000)}"}`);
  expect((await toolOutput(big)).output).toContain(SECRET);
  const asDir = repo();
  mkdirSync(join(asDir, ".tracegate.jsonc"));
  const r = await toolOutput(asDir);
  expect(r.code).toBe(0);
  expect(r.output).toContain(SECRET);
});
