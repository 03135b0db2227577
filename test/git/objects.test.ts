/**
 * The object reader (objects.ts, pack.ts) and ref resolution (refs.ts)
 * against git itself: every object git lists in a repository must come back
 * with the same type and bytes, whatever shape git stored it in (loose,
 * packed whole, OFS_DELTA and REF_DELTA chains, several packs, thin packs
 * completed with --fix-thin, 64-bit offset tables, version 1 indexes,
 * alternates), without falling back to isomorphic-git.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { deflateSync } from "node:zlib";
import { diffAgainstBase, GitDiffError } from "../../lib/git/diff.ts";
import { ObjectStore } from "../../lib/git/objects.ts";
import { applyDelta, PackFormatError } from "../../lib/git/pack.ts";
import { findRepo, resolveRev } from "../../lib/git/repo.ts";
import { git, prng, type Sandbox, sandbox, withGitEnv } from "./helpers.ts";

let boxes: Sandbox[] = [];
afterEach(() => {
  for (const b of boxes) b.cleanup();
  boxes = [];
});

function newRepo(): { sb: Sandbox; root: string } {
  const sb = sandbox();
  boxes.push(sb);
  const root = path.join(sb.dir, "repo");
  fs.mkdirSync(root);
  git(sb, root, ["init", "-q"]);
  return { sb, root };
}

/**
 * A history where files grow and change a little each commit, so git's
 * delta search finds long chains of blobs and trees.
 */
function history(sb: Sandbox, root: string, commits: number, seed = 7): void {
  const r = prng(seed);
  const lines: string[][] = Array.from({ length: 6 }, (_, f) => Array.from({ length: 60 }, (_, i) => `file ${f} line ${i} ${"x".repeat(i % 13)}`));
  for (let c = 0; c < commits; c++) {
    for (let f = 0; f < lines.length; f++) {
      const l = lines[f]!;
      l[Math.floor(r() * l.length)] = `edit ${c} ${r().toString(36)}`;
      if (r() < 0.5) l.splice(Math.floor(r() * l.length), 0, `inserted ${c}`);
      fs.mkdirSync(path.join(root, `dir${f % 3}`), { recursive: true });
      fs.writeFileSync(path.join(root, `dir${f % 3}`, `f${f}.txt`), `${l.join("\n")}\n`);
    }
    if (c % 4 === 0) fs.writeFileSync(path.join(root, `bin${c}.dat`), randomBytes(3000 + c * 10));
    git(sb, root, ["add", "-A"]);
    git(sb, root, ["commit", "-q", "-m", `c${c}`]);
  }
}

/** Every object git has, as `oid -> {type, data}`, from `git cat-file --batch-all-objects --batch`. */
function allObjects(sb: Sandbox, root: string): Map<string, { type: string; data: Buffer }> {
  const { spawnSync } = require("node:child_process") as typeof import("node:child_process");
  const r = spawnSync("git", ["cat-file", "--batch-all-objects", "--batch"], { cwd: root, env: sb.env, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(r.stderr.toString());
  const out = r.stdout as Buffer;
  const map = new Map<string, { type: string; data: Buffer }>();
  let pos = 0;
  while (pos < out.length) {
    const nl = out.indexOf(10, pos);
    const [oid, type, size] = out.toString("latin1", pos, nl).split(" ");
    const start = nl + 1;
    map.set(oid!, { type: type!, data: out.subarray(start, start + Number(size)) });
    pos = start + Number(size) + 1;
  }
  return map;
}

/** Read every object git lists through the store and require the same type and bytes. */
function expectSameObjects(sb: Sandbox, root: string, store = new ObjectStore(path.join(root, ".git", "objects"))): number {
  const objects = allObjects(sb, root);
  expect(objects.size).toBeGreaterThan(0);
  for (const [oid, want] of objects) {
    const got = store.readSync(oid);
    expect(got?.type).toBe(want.type as never);
    if (!got?.data.equals(want.data)) throw new Error(`object ${oid} differs`);
  }
  // Every abbreviation finds its object (among at most `limit` matches).
  for (const oid of objects.keys()) {
    for (const n of [4, 5, 7, 8, 40]) {
      const found = store.expand(oid.slice(0, n), 1000);
      if (!found.includes(oid)) throw new Error(`expand(${oid.slice(0, n)}) misses ${oid}: ${found}`);
      const want = [...objects.keys()].filter((o) => o.startsWith(oid.slice(0, n))).sort();
      expect(found).toEqual(want);
    }
  }
  expect(store.fallbacks).toBe(0);
  store.close();
  return objects.size;
}

/** Pack entry kinds by offset, read from the raw pack bytes at the offsets `git verify-pack -v` gives. */
function entryKinds(sb: Sandbox, root: string): { ofs: number; ref: number; whole: number; maxDepth: number } {
  const packDir = path.join(root, ".git", "objects", "pack");
  const kinds = { ofs: 0, ref: 0, whole: 0, maxDepth: 0 };
  for (const idx of fs.readdirSync(packDir).filter((n) => n.endsWith(".idx"))) {
    const pack = fs.readFileSync(path.join(packDir, idx.replace(/\.idx$/, ".pack")));
    for (const line of git(sb, root, ["verify-pack", "-v", path.join(packDir, idx)]).split("\n")) {
      const m = /^[0-9a-f]{40} +\w+ +\d+ +\d+ +(\d+)(?: +(\d+))?/.exec(line);
      if (!m) continue;
      const kind = (pack[Number(m[1])]! >> 4) & 7;
      if (kind === 6) kinds.ofs++;
      else if (kind === 7) kinds.ref++;
      else kinds.whole++;
      kinds.maxDepth = Math.max(kinds.maxDepth, Number(m[2] ?? 0));
    }
  }
  return kinds;
}

function looseCount(root: string): number {
  const dir = path.join(root, ".git", "objects");
  return fs.readdirSync(dir).filter((d) => /^[0-9a-f]{2}$/.test(d)).reduce((n, d) => n + fs.readdirSync(path.join(dir, d)).length, 0);
}

describe("object store", () => {
  test("loose objects only", () => {
    const { sb, root } = newRepo();
    history(sb, root, 3);
    expect(fs.existsSync(path.join(root, ".git", "objects", "pack")) && fs.readdirSync(path.join(root, ".git", "objects", "pack")).length).toBeFalsy();
    expectSameObjects(sb, root);
  });

  test("git gc --aggressive: long OFS_DELTA chains of blobs and trees", () => {
    const { sb, root } = newRepo();
    history(sb, root, 40);
    git(sb, root, ["gc", "-q", "--aggressive"]);
    expect(looseCount(root)).toBe(0);
    const kinds = entryKinds(sb, root);
    expect(kinds.ofs).toBeGreaterThan(50);
    expect(kinds.ref).toBe(0);
    expect(kinds.maxDepth).toBeGreaterThan(10);
    expectSameObjects(sb, root);
  });

  test("the diff leaves no pack file open", async () => {
    if (!fs.existsSync("/proc/self/fd")) return; // Linux only
    const { sb, root } = newRepo();
    history(sb, root, 6, 11);
    git(sb, root, ["gc", "-q"]);
    fs.writeFileSync(path.join(root, "dir1", "f1.txt"), "changed\n");
    const packFds = () =>
      fs.readdirSync("/proc/self/fd").filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`).endsWith(".pack");
        } catch {
          return false;
        }
      }).length;
    const before = packFds();
    const d = await withGitEnv(sb, () => diffAgainstBase({ cwd: root, base: "HEAD~3" }));
    expect(d.files).toBeGreaterThan(0);
    expect(packFds()).toBe(before);
  });

  test("REF_DELTA packs (pack-objects without --delta-base-offset)", () => {
    const { sb, root } = newRepo();
    history(sb, root, 25);
    const list = git(sb, root, ["rev-list", "--objects", "--all"]);
    const packDir = path.join(root, ".git", "objects", "pack");
    fs.mkdirSync(packDir, { recursive: true });
    git(sb, root, ["pack-objects", "-q", "--window=50", "--depth=50", path.join(packDir, "pack")], {}, list);
    git(sb, root, ["prune-packed"]);
    expect(looseCount(root)).toBe(0);
    const kinds = entryKinds(sb, root);
    expect(kinds.ref).toBeGreaterThan(50);
    expect(kinds.ofs).toBe(0);
    expect(kinds.maxDepth).toBeGreaterThan(5);
    expectSameObjects(sb, root);
  });

  test("a thin pack completed with index-pack --fix-thin (REF_DELTA to appended bases), beside an older pack", () => {
    const { sb, root } = newRepo();
    history(sb, root, 10, 1);
    const old = git(sb, root, ["rev-parse", "HEAD"]).trim();
    history(sb, root, 10, 2);
    // The receiving side has the old history packed; the new commits arrive as a thin pack.
    const dst = path.join(sb.dir, "dst");
    git(sb, sb.dir, ["clone", "-q", "--bare", "--no-local", root, dst]);
    git(sb, dst, ["update-ref", "refs/heads/main", old]);
    git(sb, dst, ["gc", "-q", "--prune=now"]);
    const { spawnSync } = require("node:child_process") as typeof import("node:child_process");
    const packed = spawnSync("git", ["pack-objects", "-q", "--thin", "--stdout", "--window=50", "--depth=50", "--revs"], {
      cwd: root,
      env: sb.env,
      input: `main\n^${old}\n`,
      maxBuffer: 1 << 30,
    });
    expect(packed.status).toBe(0);
    const r = spawnSync("git", ["index-pack", "--stdin", "--fix-thin"], { cwd: dst, env: sb.env, input: packed.stdout });
    expect(r.status).toBe(0);
    git(sb, dst, ["update-ref", "refs/heads/main", git(sb, root, ["rev-parse", "main"]).trim()]);
    const packs = fs.readdirSync(path.join(dst, "objects", "pack")).filter((n) => n.endsWith(".idx"));
    expect(packs.length).toBe(2);
    // The bare repo is its own git dir: check it holds REF_DELTAs, then read everything.
    let ref = 0;
    for (const idx of packs) {
      const pack = fs.readFileSync(path.join(dst, "objects", "pack", idx.replace(/\.idx$/, ".pack")));
      for (const line of git(sb, dst, ["verify-pack", "-v", path.join(dst, "objects", "pack", idx)]).split("\n")) {
        const m = /^[0-9a-f]{40} +\w+ +\d+ +\d+ +(\d+)/.exec(line);
        if (m && ((pack[Number(m[1])]! >> 4) & 7) === 7) ref++;
      }
    }
    expect(ref).toBeGreaterThan(0);
    const store = new ObjectStore(path.join(dst, "objects"));
    const objects = allObjects(sb, dst);
    for (const [oid, want] of objects) {
      const got = store.readSync(oid);
      expect(got?.type).toBe(want.type as never);
      if (!got?.data.equals(want.data)) throw new Error(`object ${oid} differs`);
    }
    expect(store.fallbacks).toBe(0);
    store.close();
  });

  test("several packs plus loose objects, and a version 1 index", () => {
    const { sb, root } = newRepo();
    history(sb, root, 8, 3);
    git(sb, root, ["repack", "-q", "-d"]);
    history(sb, root, 8, 4);
    git(sb, root, ["repack", "-q", "-d"]);
    history(sb, root, 4, 5); // left loose
    const packDir = path.join(root, ".git", "objects", "pack");
    expect(fs.readdirSync(packDir).filter((n) => n.endsWith(".idx")).length).toBe(2);
    expect(looseCount(root)).toBeGreaterThan(0);
    expectSameObjects(sb, root);
    // Rewrite one index as version 1 (what git wrote before 1.5.2).
    const idx = fs.readdirSync(packDir).find((n) => n.endsWith(".idx"))!;
    const packFile = path.join(packDir, idx.replace(/\.idx$/, ".pack"));
    fs.chmodSync(path.join(packDir, idx), 0o644);
    fs.rmSync(path.join(packDir, idx));
    git(sb, root, ["index-pack", "--index-version=1", packFile]);
    expect(fs.readFileSync(path.join(packDir, idx)).readUInt32BE(0)).not.toBe(0xff744f63);
    expectSameObjects(sb, root);
  });

  test("a version 2 index whose offsets go through the 64-bit offset table", () => {
    const { sb, root } = newRepo();
    history(sb, root, 12, 6);
    git(sb, root, ["gc", "-q"]);
    const packDir = path.join(root, ".git", "objects", "pack");
    const idx = fs.readdirSync(packDir).find((n) => n.endsWith(".idx"))!;
    const before = fs.statSync(path.join(packDir, idx)).size;
    fs.chmodSync(path.join(packDir, idx), 0o644);
    fs.rmSync(path.join(packDir, idx));
    // Objects past offset 64 get 64-bit table entries, as in a pack over 2 GiB.
    git(sb, root, ["index-pack", "--index-version=2,64", path.join(packDir, idx.replace(/\.idx$/, ".pack"))]);
    const grown = fs.statSync(path.join(packDir, idx)).size - before;
    expect(grown).toBeGreaterThan(8 * 50);
    expectSameObjects(sb, root);
  });

  test("alternates: a clone --shared reads its objects from the source", async () => {
    const { sb, root } = newRepo();
    history(sb, root, 6, 8);
    git(sb, root, ["gc", "-q"]);
    const clone = path.join(sb.dir, "shared");
    git(sb, sb.dir, ["clone", "-q", "--shared", root, clone]);
    expect(fs.existsSync(path.join(clone, ".git", "objects", "info", "alternates"))).toBe(true);
    expect(looseCount(clone)).toBe(0);
    expectSameObjects(sb, clone, new ObjectStore(path.join(clone, ".git", "objects")));
    fs.writeFileSync(path.join(clone, "dir0", "f0.txt"), "replaced\n");
    const d = await withGitEnv(sb, () => diffAgainstBase({ cwd: clone, base: "HEAD~2" }));
    // Text sections match git's byte for byte; binary literals differ only in zlib's choices.
    const text = (p: string) => p.split(/^(?=diff --git)/m).filter((s) => !s.includes("GIT binary patch"));
    const want = git(sb, clone, ["diff", "--binary", "--no-renames", "HEAD~2"]);
    expect(d.files).toBe(want.split(/^diff --git/m).length - 1);
    expect(text(d.patch)).toEqual(text(want));
    expect(text(d.patch).length).toBeGreaterThan(2);
  });

  test("a blob whose deflated form is larger than itself (read past the first guess)", () => {
    const { sb, root } = newRepo();
    // Hand-made pack: one blob deflated with fixed Huffman codes over random bytes, which
    // grows it by several percent, more than the reader's first read allows for.
    const data = randomBytes(200_000);
    const z = deflateSync(data, { level: 1, strategy: 4 /* Z_FIXED */ });
    expect(z.length).toBeGreaterThan(data.length + (data.length >> 6) + 64);
    const head: number[] = [];
    let size = data.length;
    let c = (3 << 4) | (size & 15);
    size = Math.floor(size / 16);
    while (size > 0) {
      head.push(c | 0x80);
      c = size & 0x7f;
      size = Math.floor(size / 128);
    }
    head.push(c);
    const body = Buffer.concat([Buffer.from("PACK"), Buffer.from([0, 0, 0, 2, 0, 0, 0, 1]), Buffer.from(head), z]);
    const pack = Buffer.concat([body, createHash("sha1").update(body).digest()]);
    const packDir = path.join(root, ".git", "objects", "pack");
    fs.mkdirSync(packDir, { recursive: true });
    const file = path.join(packDir, "pack-handmade.pack");
    fs.writeFileSync(file, pack);
    git(sb, root, ["index-pack", file]);
    expect(expectSameObjects(sb, root)).toBe(1);
  });
});

describe("damaged repositories", () => {
  test("a missing or corrupt object is a GitDiffError naming it, not a crash", async () => {
    const { sb, root } = newRepo();
    fs.writeFileSync(path.join(root, "a.txt"), "one\n");
    git(sb, root, ["add", "-A"]);
    git(sb, root, ["commit", "-q", "-m", "one"]);
    const blob = git(sb, root, ["rev-parse", "HEAD:a.txt"]).trim();
    const file = path.join(root, ".git", "objects", blob.slice(0, 2), blob.slice(2));
    fs.writeFileSync(path.join(root, "a.txt"), "two\n");
    fs.chmodSync(file, 0o644);
    fs.writeFileSync(file, Buffer.from("not zlib at all"));
    const corrupt = await withGitEnv(sb, () => diffAgainstBase({ cwd: root })).catch((e) => e);
    expect(corrupt).toBeInstanceOf(GitDiffError);
    expect(String(corrupt.message)).toContain(`object ${blob} is unreadable`);
    fs.rmSync(file);
    const missing = await withGitEnv(sb, () => diffAgainstBase({ cwd: root })).catch((e) => e);
    expect(missing).toBeInstanceOf(GitDiffError);
    expect(String(missing.message)).toContain(`object ${blob} not found`);
  });
});

describe("deltas", () => {
  test("applyDelta copies and inserts, and refuses a delta for another base", () => {
    const base = Buffer.from("hello, world\n");
    // src 13, dst 19: copy 0..7, insert "there ", copy 7..13
    const delta = Buffer.from([13, 19, 0x80 | 0x01 | 0x10, 0, 7, 6, ...Buffer.from("there "), 0x80 | 0x01 | 0x10, 7, 6]);
    expect(applyDelta(base, delta).toString()).toBe("hello, there world\n");
    expect(() => applyDelta(Buffer.from("short"), delta)).toThrow(PackFormatError);
    expect(() => applyDelta(base, Buffer.from([13, 19, 0]))).toThrow(PackFormatError);
  });
});

describe("revisions", () => {
  test("resolve like git rev-parse: short and full refs, packed refs, annotated tags, remotes, abbreviations", async () => {
    const { sb, root } = newRepo();
    history(sb, root, 5, 9);
    git(sb, root, ["tag", "light"]);
    git(sb, root, ["tag", "-a", "-m", "annotated", "v1", "HEAD~2"]);
    git(sb, root, ["branch", "topic", "HEAD~1"]);
    git(sb, root, ["update-ref", "refs/remotes/origin/main", "HEAD~3"]);
    git(sb, root, ["symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main"]);
    const names = ["HEAD", "main", "topic", "light", "v1", "refs/tags/v1", "origin/main", "origin", "HEAD~1", "main^", "v1~1", "topic^1~1", "HEAD^2"];
    const check = async (): Promise<void> => {
      const repo = findRepo(root);
      for (const name of names) {
        const want = (() => {
          try {
            return git(sb, root, ["rev-parse", "--verify", "-q", `${name}^{commit}`]).trim();
          } catch {
            return null;
          }
        })();
        const got = await resolveRev(repo, name).catch(() => null);
        expect(`${name} ${got}`).toBe(`${name} ${want}`);
      }
      const head = git(sb, root, ["rev-parse", "HEAD"]).trim();
      expect(await resolveRev(repo, head.slice(0, 7))).toBe(head);
      expect(await resolveRev(repo, head.toUpperCase())).toBe(head);
      expect(repo.objects.fallbacks).toBe(0);
    };
    await check();
    git(sb, root, ["pack-refs", "--all"]);
    git(sb, root, ["gc", "-q"]);
    expect(fs.existsSync(path.join(root, ".git", "refs", "tags", "v1"))).toBe(false);
    await check();
  });

  test("an ambiguous abbreviation is an unknown revision", async () => {
    const { sb, root } = newRepo();
    // Enough blobs that two share their first four hex digits.
    const seen = new Map<string, string>();
    let pair: [string, string] | null = null;
    for (let i = 0; pair === null; i++) {
      const oid = createHash("sha1").update(`blob ${String(i).length}\0${i}`).digest("hex");
      const prev = seen.get(oid.slice(0, 4));
      if (prev) pair = [prev, oid];
      seen.set(oid.slice(0, 4), oid);
    }
    const input = [...seen.values()].length; // the blobs written below include the pair
    expect(input).toBeGreaterThan(1);
    for (const oid of pair) {
      const i = [...Array(100000).keys()].find((k) => createHash("sha1").update(`blob ${String(k).length}\0${k}`).digest("hex") === oid)!;
      git(sb, root, ["hash-object", "-w", "--stdin"], {}, String(i));
    }
    const repo = findRepo(root);
    expect(repo.objects.expand(pair[0].slice(0, 4)).sort()).toEqual([...pair].sort());
    expect(repo.objects.expand(pair[0].slice(0, 12))).toEqual([pair[0]]);
    await expect(resolveRev(repo, pair[0].slice(0, 4))).rejects.toThrow(/unknown revision/);
  });
});
