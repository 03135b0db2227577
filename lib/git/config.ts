/**
 * The few git config values the diff depends on, read from the global and
 * repository config files the way git layers them (later files win).
 *
 * @example
 * ```ts
 * const cfg = readGitConfig(repo.commondir);
 * cfg.excludesFile; // "/home/me/.config/git/ignore"
 * ```
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readTextBounded } from "../fs/safe-open.ts";
import { GIT_LIMITS } from "./limits.ts";

export interface GitConfig {
  /** The personal ignore file: core.excludesFile, else git's XDG default. */
  readonly excludesFile: string | null;
  /** core.fileMode: false means the exec bit on disk is not trusted. */
  readonly fileMode: boolean;
}

/**
 * Parse `key = value` lines of a git config file into a flat map of
 * `section.key` (lower case; subsections kept as written) to the last value.
 *
 * @example
 * ```ts
 * parseGitConfig("[core]\n\texcludesFile = ~/.gi\n").get("core.excludesfile"); // "~/.gi"
 * ```
 */
export function parseGitConfig(text: string, into = new Map<string, string>()): Map<string, string> {
  let section = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line[0] === "#" || line[0] === ";") continue;
    const sec = /^\[\s*([^\s\]"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (sec) {
      section = sec[1]!.toLowerCase() + (sec[2] !== undefined ? `.${sec[2]}` : "");
      continue;
    }
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!kv || !section) continue;
    into.set(`${section}.${kv[1]!.toLowerCase()}`, kv[2] === undefined ? "true" : unquote(kv[2]));
  }
  return into;
}

function unquote(v: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c === '"') quoted = !quoted;
    else if (c === "\\" && i + 1 < v.length) {
      const n = v[++i]!;
      out += n === "n" ? "\n" : n === "t" ? "\t" : n === "b" ? "\b" : n;
    } else if (!quoted && (c === "#" || c === ";")) break;
    else out += c;
  }
  return out.trimEnd();
}

function readIf(file: string, into: Map<string, string>): void {
  try {
    parseGitConfig(readTextBounded(file, GIT_LIMITS.config), into);
  } catch {
    // A missing config file is the normal case.
  }
}

function expandHome(p: string): string {
  return p === "~" || p.startsWith("~/") ? path.join(os.homedir(), p.slice(1)) : p;
}

/** The layered config of a repository whose common git dir is `commondir`. */
export function readGitConfig(commondir: string, env: NodeJS.ProcessEnv = process.env): GitConfig {
  const home = env.HOME ?? os.homedir();
  const xdg = env.XDG_CONFIG_HOME || path.join(home, ".config");
  const values = new Map<string, string>();
  if (env.GIT_CONFIG_NOSYSTEM !== "1" && env.GIT_CONFIG_NOSYSTEM !== "true") readIf("/etc/gitconfig", values);
  if (env.GIT_CONFIG_GLOBAL) readIf(env.GIT_CONFIG_GLOBAL, values);
  else {
    readIf(path.join(xdg, "git", "config"), values);
    readIf(path.join(home, ".gitconfig"), values);
  }
  readIf(path.join(commondir, "config"), values);
  const excl = values.get("core.excludesfile");
  const fileMode = (values.get("core.filemode") ?? "true").toLowerCase();
  return {
    excludesFile: excl ? expandHome(excl) : path.join(xdg, "git", "ignore"),
    fileMode: !["false", "no", "off", "0"].includes(fileMode),
  };
}
