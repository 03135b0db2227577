/**
 * The discovery record a running `tracegate view` leaves in the data dir, and
 * the proof a hook asks of the listener it names.
 *
 * The record says where a viewer listens (a port on 127.0.0.1: there is no host
 * field, so a forged record cannot send events off the machine), which process
 * it is, and a fresh random proof token. The file is 0600 and written through a
 * temp file opened with O_EXCL|O_NOFOLLOW and renamed into place, so a symlink
 * planted at either path is never followed. A hook trusts the listener only if
 * it answers `sha256(token + ":" + nonce)` for a nonce the hook just drew: a
 * live pid or an open port proves nothing, and the token never crosses the wire.
 *
 * This module is loaded on the hook path (lazily, only when a record exists),
 * so it uses Bun's hasher and the global Web Crypto, never `node:crypto`.
 *
 * @example
 * ```ts
 * const rec = newDiscovery(port);
 * writeDiscovery(home, rec);
 * proofFor(rec.token, nonce) === answer;
 * ```
 */
import { closeSync, constants, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { DISCOVERY_FILE } from "./forward.ts";

export { DISCOVERY_FILE };
/** Largest discovery record a hook reads; anything bigger is not ours. */
const MAX_RECORD_BYTES = 4096;

/** What a running viewer tells hooks about itself (the file's exact JSON shape). */
export interface Discovery {
  /** Always 1; a reader refuses other versions. */
  readonly v: 1;
  readonly port: number;
  readonly pid: number;
  /** 64 hex characters; the viewer's secret for the proof and the event MAC. */
  readonly token: string;
  /** ISO time the viewer started. */
  readonly started_at: string;
}

/** `<data dir>/view.json`. */
export function discoveryPath(home: string): string {
  return join(home, DISCOVERY_FILE);
}

/** `n` random bytes as hex, from the global Web Crypto. */
export function randomHex(n: number): string {
  const b = crypto.getRandomValues(new Uint8Array(n));
  return Buffer.from(b).toString("hex");
}

/** A fresh record for a viewer listening on `port` in this process. */
export function newDiscovery(port: number, now: Date = new Date()): Discovery {
  return { v: 1, port, pid: process.pid, token: randomHex(32), started_at: now.toISOString() };
}

/** The answer a genuine listener gives for `nonce`: sha256 hex of `token:nonce`. */
export function proofFor(token: string, nonce: string): string {
  return new Bun.CryptoHasher("sha256").update(`${token}:${nonce}`).digest("hex");
}

/** HMAC-SHA256 (hex) the hook puts on an event post, keyed by the token, over the nonce and body. */
export function eventMac(token: string, nonce: string, body: string): string {
  return new Bun.CryptoHasher("sha256", token).update(`${nonce}\n${body}`).digest("hex");
}

/**
 * Compare two strings in time that depends only on their lengths: the
 * expected side is always a fixed-length hex digest, so the length says nothing.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  let diff = x.length ^ y.length;
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Parse a record's text; null when it is not exactly the shape a viewer writes. */
export function parseDiscovery(text: string): Discovery | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return null;
  const r = v as Record<string, unknown>;
  if (r.v !== 1) return null;
  if (!Number.isInteger(r.port) || (r.port as number) < 1 || (r.port as number) > 65535) return null;
  if (!Number.isInteger(r.pid) || (r.pid as number) < 1) return null;
  if (typeof r.token !== "string" || !HEX64.test(r.token)) return null;
  if (typeof r.started_at !== "string" || r.started_at.length > 64) return null;
  return { v: 1, port: r.port as number, pid: r.pid as number, token: r.token, started_at: r.started_at };
}

export interface ReadDiscovery {
  /** The record, when the file is one we would have written. */
  readonly record: Discovery | null;
  /** The exact text read (for compare-before-unlink); null when nothing was read. */
  readonly text: string | null;
}

/**
 * Read the record without following a symlink: it must be a regular file of
 * this user, not readable or writable by group or others, and small. A record
 * that fails those checks is ignored (and, being unreadable as ours, left for
 * `cleanIfUnchanged` to remove).
 */
export function readDiscovery(home: string): ReadDiscovery {
  const path = discoveryPath(home);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return { record: null, text: null };
  }
  try {
    const st = lstatSync(path);
    if (!st.isFile() || st.size > MAX_RECORD_BYTES) return { record: null, text: null };
    if (typeof process.getuid === "function" && st.uid !== process.getuid()) return { record: null, text: null };
    // POSIX only: Windows reports 0666 for every file; the data dir's ACL is what guards it there.
    if (process.platform !== "win32" && (st.mode & 0o077) !== 0) return { record: null, text: null };
    const text = readFileSync(fd, "utf8").slice(0, MAX_RECORD_BYTES);
    return { record: parseDiscovery(text), text };
  } catch {
    return { record: null, text: null };
  } finally {
    closeSync(fd);
  }
}

/**
 * Write the record for this viewer: temp file created O_EXCL|O_NOFOLLOW with
 * mode 0600, fsync, then rename over the record (rename replaces a symlink
 * rather than following it). Throws on I/O errors.
 */
export function writeDiscovery(home: string, rec: Discovery): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const path = discoveryPath(home);
  const tmp = `${path}.${process.pid}.${randomHex(6)}.tmp`;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
  try {
    writeSync(fd, `${JSON.stringify(rec)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw e;
  }
}

/**
 * Remove the record only if it still holds exactly `text`: a viewer that
 * started since we read it is left alone. Never throws.
 */
export function cleanIfUnchanged(home: string, text: string | null): boolean {
  const path = discoveryPath(home);
  try {
    const now = lstatSync(path).isSymbolicLink() ? null : readFileSync(path, "utf8");
    if (text !== null && now !== text) return false;
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Remove this viewer's own record on exit (not one a newer viewer wrote). Never throws. */
export function removeOwnDiscovery(home: string, rec: Discovery): void {
  const { record, text } = readDiscovery(home);
  if (record && record.token === rec.token && record.pid === rec.pid) cleanIfUnchanged(home, text);
}

/** Whether a process with this pid exists (EPERM: it exists but is not ours). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
