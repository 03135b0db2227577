/**
 * The safe-open policy on its own: FIFOs and devices refused without
 * blocking, reads bounded, no-follow and single-link for what tracegate
 * writes, real directories owned by the user, modes fixed before any byte.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chownSync, linkSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync, closeSync, writeSync } from "node:fs";
import { join } from "node:path";
import { checkRealDir, createExclusive, openAppend, readBounded, replaceFile, UnsafeFileError } from "../../lib/fs/safe-open.ts";
import { cleanup, tempDir } from "../support/tracegate.ts";

let dir: string;
beforeAll(() => {
  dir = tempDir("tg-safe-open-");
});
afterAll(() => cleanup(dir));

const code = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code;
  }
};

describe("reads", () => {
  test("a regular file under the bound reads whole; over it is refused", () => {
    const f = join(dir, "small");
    writeFileSync(f, "hello");
    expect(readBounded(f, 5).toString()).toBe("hello");
    expect(code(() => readBounded(f, 4))).toBe("ETOOBIG");
  });

  test("a FIFO is refused at once, not waited on", () => {
    const f = join(dir, "fifo");
    expect(Bun.spawnSync(["mkfifo", f]).exitCode).toBe(0);
    expect(code(() => readBounded(f, 1024))).toBe("ENOTREG");
  });

  test("/dev/zero and a directory are refused; a missing file is ENOENT", () => {
    expect(code(() => readBounded("/dev/zero", 1024))).toBe("ENOTREG");
    expect(code(() => readBounded(dir, 1024))).toBe("ENOTREG");
    expect(code(() => readBounded(join(dir, "missing"), 1024))).toBe("ENOENT");
  });

  test("noFollow refuses a symlink; by default a symlink to a regular file is read", () => {
    const f = join(dir, "target");
    writeFileSync(f, "t");
    const l = join(dir, "link");
    symlinkSync(f, l);
    expect(readBounded(l, 10).toString()).toBe("t");
    expect(code(() => readBounded(l, 10, { noFollow: true }))).toBe("ELOOP");
  });
});

describe("appends", () => {
  test("creates 0600 and appends", () => {
    const f = join(dir, "log");
    const fd = openAppend(f);
    writeSync(fd, "a\n");
    closeSync(fd);
    expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(readFileSync(f, "utf8")).toBe("a\n");
  });

  test("a symlink, a hard link, a FIFO or a file of another user is refused", () => {
    const victim = join(dir, "victim");
    writeFileSync(victim, "v");
    symlinkSync(victim, join(dir, "sym.log"));
    linkSync(victim, join(dir, "hard.log"));
    Bun.spawnSync(["mkfifo", join(dir, "fifo.log")]);
    expect(code(() => openAppend(join(dir, "sym.log")))).toBe("ELOOP");
    expect(code(() => openAppend(join(dir, "hard.log")))).toBe("ELINKS");
    // No reader: the non-blocking open itself fails (ENXIO); with one, fstat refuses it.
    expect(["ENOTREG", "ENXIO"]).toContain(code(() => openAppend(join(dir, "fifo.log")))!);
    if (process.getuid?.() === 0) {
      const other = join(dir, "other.log");
      writeFileSync(other, "");
      chownSync(other, 65534, 65534);
      expect(code(() => openAppend(other))).toBe("EOWNER");
    }
    expect(readFileSync(victim, "utf8")).toBe("v");
  });

  test("the directory must be real, unless it is the data dir the user linked", () => {
    const real = join(dir, "realdir");
    mkdirSync(real);
    const link = join(dir, "linkdir");
    symlinkSync(real, link);
    expect(code(() => openAppend(join(link, "x.log")))).toBe("ENOTDIR_REAL");
    expect(code(() => checkRealDir(link))).toBe("ENOTDIR_REAL");
    closeSync(openAppend(join(link, "y.log"), 0o600, { dirMayBeLink: true }));
    expect(lstatSync(join(real, "y.log")).isFile()).toBe(true);
  });
});

describe("writes that replace", () => {
  test("createExclusive refuses anything already there, a dangling symlink included", () => {
    const f = join(dir, "key");
    createExclusive(f, "secret", 0o600);
    expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(code(() => createExclusive(f, "again"))).toBe("EEXIST");
    symlinkSync(join(dir, "nowhere"), join(dir, "dangling"));
    expect(code(() => createExclusive(join(dir, "dangling"), "x"))).toBe("EEXIST");
    expect(code(() => lstatSync(join(dir, "nowhere")))).toBe("ENOENT");
  });

  test("replaceFile replaces a symlink rather than writing through it", () => {
    const victim = join(dir, "victim2");
    writeFileSync(victim, "keep");
    const f = join(dir, "backup");
    symlinkSync(victim, f);
    replaceFile(f, "new", 0o640);
    expect(readFileSync(victim, "utf8")).toBe("keep");
    expect(lstatSync(f).isSymbolicLink()).toBe(false);
    expect(readFileSync(f, "utf8")).toBe("new");
    expect(statSync(f).mode & 0o777).toBe(0o640);
  });

  test("UnsafeFileError carries its code and no path", () => {
    const e = new UnsafeFileError("ENOTREG", "read");
    expect(e.code).toBe("ENOTREG");
    expect(e.message).toBe("read: ENOTREG");
  });
});
