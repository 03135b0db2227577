/**
 * Inflate bombs and special files in the object store, against the compiled
 * binary: a loose object whose header claims 10 bytes but inflates to
 * 200 MB, and one whose header declares more than the cap, both end in a
 * clear error without inflating the bomb (and without handing it to
 * isomorphic-git, which would). The Stop gate reads objects through the same
 * ObjectStore.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { constants, deflateSync, createDeflate } from "node:zlib";
import { inflate, ObjectTooLargeError } from "../../lib/git/pack.ts";
import { MAX_OBJECT_BYTES } from "../../lib/git/limits.ts";
import { BINARY, cleanup, tempDir } from "../support/tracegate.ts";

let root: string;
beforeAll(() => {
  root = tempDir("tg-bombs-");
});
afterAll(() => cleanup(root));

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
const git = (dir: string, ...args: string[]) => spawnSync("git", ["-C", dir, ...args], { env: GIT_ENV, encoding: "utf8" }).stdout.trim();

/** `header` then `zeros` zero bytes, deflated in a stream (never all in memory). */
async function deflatedZeros(header: string, zeros: number): Promise<Buffer> {
  const d = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  d.on("data", (c: Buffer) => parts.push(c));
  const done = new Promise((r) => d.on("end", r));
  d.write(Buffer.from(header, "latin1"));
  const block = Buffer.alloc(1024 * 1024);
  for (let left = zeros; left > 0; left -= block.length) {
    if (!d.write(left >= block.length ? block : block.subarray(0, left))) await new Promise((r) => d.once("drain", r));
  }
  d.end();
  await done;
  return Buffer.concat(parts);
}

async function repoWithBomb(name: string, bomb: Buffer): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir);
  git(dir, "init", "-q");
  writeFileSync(join(dir, "a.txt"), "hello\n");
  git(dir, "add", "a.txt");
  git(dir, "commit", "-qm", "one");
  const oid = git(dir, "rev-parse", "HEAD:a.txt");
  const file = join(dir, ".git", "objects", oid.slice(0, 2), oid.slice(2));
  chmodSync(file, 0o644);
  writeFileSync(file, bomb);
  // The diff must read the base blob: change the file and touch the index entry's stat.
  writeFileSync(join(dir, "a.txt"), "hello world\n");
  return dir;
}

test("inflate stops at its bound and says so", () => {
  const z = deflateSync(Buffer.alloc(5_000_000));
  expect(inflate(z, 5_000_000)?.length).toBe(5_000_000);
  expect(() => inflate(z, 4_000_000)).toThrow(ObjectTooLargeError);
  expect(inflate(Buffer.from("not zlib"))).toBeNull();
  expect(inflate(deflateSync(Buffer.from("blob 2\0hi")))?.toString()).toBe("blob 2\0hi");
  void constants;
});

test("a loose object whose header claims 10 bytes but inflates to 200 MB: diff fails fast with a clear error", async () => {
  const bomb = await deflatedZeros("blob 10\0", 200 * 1024 * 1024);
  expect(bomb.length).toBeLessThan(1024 * 1024);
  const dir = await repoWithBomb("lying-header", bomb);
  const r = spawnSync("/usr/bin/time", ["-f", "%M", BINARY, "diff", "--cwd", dir], { encoding: "utf8", env: { PATH: process.env.PATH, TRACEGATE_HOME: join(root, "home") } });
  expect(r.status).not.toBe(0);
  expect(r.stderr).toMatch(/inflates past|unreadable/);
  // Peak RSS (KB, last line from time(1)): nowhere near the 200 MB the bomb holds.
  const rss = Number(r.stderr.trim().split("\n").pop());
  expect(rss).toBeLessThan(150 * 1024);
}, 60_000);

test("a loose object whose header declares more than the cap is refused before inflating", async () => {
  const bomb = await deflatedZeros(`blob ${MAX_OBJECT_BYTES + 1}\0`, 200 * 1024 * 1024);
  const dir = await repoWithBomb("over-cap", bomb);
  // Big enough to inflate past the cap: the header check must come first.
  const r = spawnSync(BINARY, ["diff", "--cwd", dir], { encoding: "utf8", env: { PATH: process.env.PATH, TRACEGATE_HOME: join(root, "home") } });
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain("declares");
}, 60_000);

test("a FIFO where a loose object should be does not hang the diff", async () => {
  const dir = await repoWithBomb("fifo-object", Buffer.from("x"));
  const oid = git(dir, "rev-parse", "HEAD:a.txt");
  const file = join(dir, ".git", "objects", oid.slice(0, 2), oid.slice(2));
  rmSync(file);
  expect(spawnSync("mkfifo", [file]).status).toBe(0);
  const r = spawnSync(BINARY, ["diff", "--cwd", dir], { encoding: "utf8", timeout: 20_000, env: { PATH: process.env.PATH, TRACEGATE_HOME: join(root, "home") } });
  expect(r.signal).toBeNull();
  expect(r.status).not.toBe(0);
}, 30_000);
