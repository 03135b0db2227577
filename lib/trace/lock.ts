/**
 * A cross-process exclusive lock for appending to one session file: a lock
 * file created with O_CREAT|O_EXCL beside it. Hooks for parallel tool calls
 * run as separate processes and append to the same file; computing the
 * chain's "previous line" and writing the next one must not interleave.
 *
 * A holder keeps the lock for one tail read and one write (well under a
 * millisecond to a few ms), so a lock file older than `STALE_MS` belongs to a
 * process that died (SIGKILL, the hook's hard deadline) and is broken. A lock
 * whose writer pid is gone on this host is broken at once. Waiting is bounded:
 * a caller that cannot get the lock in time writes anyway (a record is never
 * dropped; at worst the chain forks, which `verify` reports).
 *
 * @example
 * ```ts
 * const release = acquireLock("/data/sessions/s.jsonl.lock", 1500);
 * try { append(); } finally { release?.(); }
 * ```
 */
import { closeSync, constants, fstatSync, linkSync, lstatSync, openSync, readSync, renameSync, unlinkSync, writeSync } from "node:fs";

/** A lock this old is a dead holder's. */
export const STALE_MS = 2_000;
/** Default bound on waiting for the lock. */
export const LOCK_WAIT_MS = 1_500;

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  Atomics.wait(SLEEPER, 0, 0, Math.max(1, ms));
}

/** The pid written in a lock file, read without following links or blocking on a FIFO. */
function lockPid(path: string): number | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buf = Buffer.alloc(32);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const pid = Number.parseInt(buf.subarray(0, n).toString("latin1"), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Break the lock if it is stale. The lock is renamed aside first and the
 * renamed file's inode compared with the one judged stale, so a waiter that
 * lost a race never deletes a lock another process has just taken.
 */
function breakIfStale(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  const age = Date.now() - st.mtimeMs;
  const pid = age > 50 ? lockPid(path) : null;
  const dead = pid !== null && pid !== process.pid && !alive(pid);
  if (age <= STALE_MS && !dead) return;
  const aside = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  try {
    if (lstatSync(aside).ino !== st.ino) {
      // We moved a fresh lock: put it back unless someone took a new one meanwhile.
      try {
        linkSync(aside, path);
      } catch {
        // A newer lock is in place; the one we moved is lost, as its holder's release is a no-op.
      }
    }
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      // gone already
    }
  }
}

/**
 * Take the lock, waiting at most `waitMs`. Returns the release function, or
 * null when the lock could not be had in time (or cannot exist here, e.g. a
 * read-only directory): the caller proceeds unlocked.
 */
export function acquireLock(path: string, waitMs: number = LOCK_WAIT_MS): (() => void) | null {
  const end = performance.now() + Math.max(0, waitMs);
  for (let i = 0; ; i++) {
    let fd: number | undefined;
    try {
      fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
      writeSync(fd, `${process.pid}\n`);
      const ino = fstatSync(fd).ino;
      return () => {
        try {
          // Only remove our own lock: a breaker may have replaced it after we stalled.
          if (lstatSync(path).ino === ino) unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") return null;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    breakIfStale(path);
    if (performance.now() >= end) return null;
    sleepSync(Math.min(1 + i, 8));
  }
}
