/**
 * Opening files safely on the hook path. The agent runs as the same user as
 * the hook and can put anything where the hook looks: a FIFO (an open for
 * reading blocks until a writer comes, and no timer can fire while the
 * thread sits in `open()`), `/dev/zero` (a read never ends), a symlink to a
 * file the user cares about (an append lands in it), a hard link (the same).
 * Every file the hook path opens goes through here:
 *
 * - `O_NONBLOCK` always, so opening a FIFO returns at once; then `fstat` on
 *   the descriptor (not the path, so nothing can be swapped in between) must
 *   say "regular file", else the file is refused;
 * - reads are bounded: a file over its bound is refused, never read whole;
 * - files tracegate writes (session files, errors.log, redact.key, keys,
 *   backups) are opened with `O_NOFOLLOW`, must be owned by the user and have
 *   one link, and their directory must be a real directory (not a symlink)
 *   owned by the user;
 * - files that replace others are written to a fresh temporary file in the
 *   same directory (created `O_EXCL`, mode fixed before the first byte) and
 *   renamed into place: rename replaces a symlink, it never writes through it.
 *
 * Every refusal is an UnsafeFileError with a `code`, which the error log
 * records without any path or content.
 */
import fs from "node:fs";
import path from "node:path";

const C = fs.constants;
// Windows has neither flag; there the checks after open still apply.
const O_NOFOLLOW = C.O_NOFOLLOW ?? 0;
const O_NONBLOCK = C.O_NONBLOCK ?? 0;
const O_CLOEXEC = (C as Record<string, number>).O_CLOEXEC ?? 0;

/** A file refused by the safe-open policy; `code` says why (never the path's content). */
export class UnsafeFileError extends Error {
  override name = "UnsafeFileError";
  constructor(
    readonly code: "ENOTREG" | "ENOTDIR_REAL" | "EOWNER" | "ELINKS" | "ETOOBIG",
    what: string,
  ) {
    super(`${what}: ${code}`);
  }
}

export interface ReadOptions {
  /** Refuse a symlink as the last path component (files tracegate itself writes). Default: follow. */
  readonly noFollow?: boolean;
}

function uid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

function checkOwner(st: fs.Stats, what: string): void {
  const me = uid();
  if (me !== undefined && st.uid !== me) throw new UnsafeFileError("EOWNER", what);
}

/**
 * Open `file` for reading without blocking and check it is a regular file.
 * Returns the descriptor and its stats; the caller closes it.
 */
export function openRegular(file: string, opts: ReadOptions = {}): { fd: number; st: fs.Stats } {
  const fd = fs.openSync(file, C.O_RDONLY | O_NONBLOCK | O_CLOEXEC | (opts.noFollow ? O_NOFOLLOW : 0));
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new UnsafeFileError("ENOTREG", "read");
    return { fd, st };
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
}

/** Read at most `len` bytes from `fd` at `position` (or the current offset when null). */
export function readUpTo(fd: number, len: number, position: number | null = null): Buffer {
  const buf = Buffer.allocUnsafe(len);
  let got = 0;
  while (got < len) {
    let n: number;
    try {
      n = fs.readSync(fd, buf, got, len - got, position === null ? null : position + got);
    } catch (e) {
      // O_NONBLOCK on something that is not a regular file after all: stop, never spin.
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") break;
      throw e;
    }
    if (n === 0) break;
    got += n;
  }
  return got === len ? buf : buf.subarray(0, got);
}

/**
 * The whole of a regular file of at most `maxBytes`; refuses FIFOs, devices,
 * directories and anything larger. Missing files throw ENOENT as usual.
 *
 * @example
 * ```ts
 * import { readBounded } from "./safe-open.ts";
 * const head = readBounded("/repo/.git/HEAD", 4096).toString("utf8");
 * ```
 */
export function readBounded(file: string, maxBytes: number, opts: ReadOptions = {}): Buffer {
  const { fd, st } = openRegular(file, opts);
  try {
    if (st.size > maxBytes) throw new UnsafeFileError("ETOOBIG", "read");
    // One byte more than allowed tells a file that grew since fstat from one that did not.
    const buf = readUpTo(fd, Math.min(maxBytes, st.size) + 1, 0);
    if (buf.length > maxBytes) throw new UnsafeFileError("ETOOBIG", "read");
    return buf;
  } finally {
    fs.closeSync(fd);
  }
}

/** `readBounded` as UTF-8 text. */
export function readTextBounded(file: string, maxBytes: number, opts: ReadOptions = {}): string {
  return readBounded(file, maxBytes, opts).toString("utf8");
}

/** `readBounded`, or null when the file is missing or refused. */
export function readBoundedOrNull(file: string, maxBytes: number, opts: ReadOptions = {}): Buffer | null {
  try {
    return readBounded(file, maxBytes, opts);
  } catch {
    return null;
  }
}

/**
 * Check that `dir` is a real directory (not a symlink, unless `mayBeLink`:
 * the data dir itself may be a link the user made) owned by the user.
 *
 * @example
 * ```ts
 * import { checkRealDir } from "./safe-open.ts";
 * checkRealDir("/home/u/.local/share/tracegate/sessions");
 * ```
 */
export function checkRealDir(dir: string, opts: { mayBeLink?: boolean } = {}): void {
  const st = opts.mayBeLink ? fs.statSync(dir) : fs.lstatSync(dir);
  if (!st.isDirectory()) throw new UnsafeFileError("ENOTDIR_REAL", "directory");
  checkOwner(st, "directory");
}

/**
 * Create `dir` (and parents) 0700 when missing, then check it is a real
 * directory owned by the user. Parents that already exist may be symlinks
 * (the user may keep the data dir elsewhere); `dir` itself may not.
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkRealDir(dir);
}

/**
 * Open a file tracegate appends to (session files, errors.log): created 0600,
 * never through a symlink, refused unless it is a regular file owned by the
 * user with a single link, in a real directory owned by the user (the data
 * dir itself, with `dirMayBeLink`, may be reached through a symlink). A FIFO
 * or device there is refused without blocking.
 *
 * @example
 * ```ts
 * import { openAppend } from "./safe-open.ts";
 * const fd = openAppend("/home/u/.local/share/tracegate/errors.log");
 * ```
 */
export function openAppend(file: string, mode = 0o600, opts: { dirMayBeLink?: boolean; readable?: boolean } = {}): number {
  checkRealDir(path.dirname(file), { mayBeLink: opts.dirMayBeLink });
  // `readable`: the store reads the file's tail back through the same descriptor (the hash chain's link).
  const access = opts.readable ? C.O_RDWR : C.O_WRONLY;
  const fd = fs.openSync(file, access | C.O_APPEND | C.O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new UnsafeFileError("ENOTREG", "append");
    checkOwner(st, "append");
    // A hard link would make this append land in another file of the user's.
    if (st.nlink > 1) throw new UnsafeFileError("ELINKS", "append");
    return fd;
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
}

function writeAllSync(fd: number, data: Uint8Array): void {
  let off = 0;
  while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
}

/**
 * Create a new file that must not exist yet (no symlink, no earlier file) with
 * `mode` set before the first byte is written. Throws EEXIST otherwise.
 *
 * @example
 * ```ts
 * import { createExclusive } from "./safe-open.ts";
 * createExclusive("/srv/keys/oracle.key", pem, 0o600);
 * ```
 */
export function createExclusive(file: string, data: string | Uint8Array, mode = 0o600): void {
  const fd = fs.openSync(file, C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  try {
    // umask can only take bits away; fchmod makes the mode exact, still before any byte.
    try {
      fs.fchmodSync(fd, mode);
    } catch {
      // filesystems without modes
    }
    writeAllSync(fd, typeof data === "string" ? Buffer.from(data, "utf8") : data);
    fs.fsyncSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    try {
      fs.unlinkSync(file);
    } catch {
      // already gone
    }
    throw e;
  }
  fs.closeSync(fd);
}

/**
 * Replace `file` with `data` without ever writing through what is there: the
 * bytes go to a fresh temporary file (mode set before the first byte) that is
 * renamed over `file`. A symlink at `file` is replaced, its target untouched.
 *
 * @example
 * ```ts
 * import { replaceFile } from "./safe-open.ts";
 * replaceFile(".claude/settings.json.tracegate.bak", original, 0o600);
 * ```
 */
export function replaceFile(file: string, data: string | Uint8Array, mode = 0o600): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  createExclusive(tmp, data, mode);
  try {
    fs.renameSync(tmp, file);
  } catch (e) {
    try {
      fs.unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw e;
  }
}
