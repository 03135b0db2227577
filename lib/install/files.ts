/**
 * The file side of install and uninstall: where each scope's settings file
 * lives, reading it, backing it up, and replacing it atomically with the same
 * mode. A settings file that is a symlink (dotfile managers do that) is
 * written through: the link stays, its target is replaced.
 */
import {
  chmodSync,
  closeSync,
  copyFileSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Created } from "./settings.ts";

type Env = Readonly<Record<string, string | undefined>>;

export const SCOPES = ["user", "project", "local"] as const;
export type Scope = (typeof SCOPES)[number];

/** Suffix of the copy taken before every write that changes a settings file. */
export const BACKUP_SUFFIX = ".tracegate.bak";

/** A settings file as read: its text ("" when missing) and mode. */
export interface SettingsFile {
  readonly path: string;
  readonly exists: boolean;
  readonly text: string;
  readonly mode: number;
}

/** Read a settings file; a missing file reads as empty. */
export function readSettingsFile(path: string): SettingsFile {
  try {
    const text = readFileSync(path, "utf8");
    return { path, exists: true, text, mode: statSync(path).mode & 0o7777 };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { path, exists: false, text: "", mode: 0o644 };
    throw e;
  }
}

function target(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Copy the current file beside itself (same mode) before it is changed. */
export function backupSettings(file: SettingsFile): string | null {
  if (!file.exists) return null;
  const dest = `${file.path}${BACKUP_SUFFIX}`;
  copyFileSync(target(file.path), dest);
  chmodSync(dest, file.mode);
  return dest;
}

/**
 * Replace a file's contents atomically: a temp file in the same directory,
 * fsync, chmod to `mode`, rename over the target.
 *
 * @example
 * ```ts
 * writeAtomic("/tmp/x/settings.json", "{}\n", 0o644);
 * ```
 */
export function writeAtomic(path: string, text: string, mode: number): void {
  const dest = target(path);
  mkdirSync(dirname(dest), { recursive: true });
  const tmp = join(dirname(dest), `.${Date.now().toString(36)}-${process.pid}.tracegate.tmp`);
  const fd = openSync(tmp, "wx", mode);
  try {
    const buf = Buffer.from(text, "utf8");
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  try {
    chmodSync(tmp, mode);
    renameSync(tmp, dest);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Remove a settings file install created (uninstall left it `{}`). */
export function removeFile(path: string): void {
  unlinkSync(path);
}

/**
 * What install created, per settings file, kept in the data dir so uninstall
 * removes exactly those containers and nothing the user had (an empty
 * `"Stop": []` of theirs stays).
 */
export interface InstallState {
  [settingsPath: string]: Created & { file: boolean; dir: string | null };
}

const STATE = "install-state.json";

/** Read the install state; a missing or unreadable one is empty. */
export function readState(dataDir: string): InstallState {
  try {
    const v = JSON.parse(readFileSync(join(dataDir, STATE), "utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** Write the install state atomically (0600). */
export function writeState(dataDir: string, state: InstallState): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeAtomic(join(dataDir, STATE), `${JSON.stringify(state, null, 2)}\n`, 0o600);
}

/** The key a settings file has in the state: its real path where it exists. */
export function stateKey(path: string): string {
  return target(path);
}
