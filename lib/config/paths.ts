import { homedir, platform } from "node:os";
import { join } from "node:path";

type Env = Readonly<Record<string, string | undefined>>;

function home(env: Env): string {
  // HOME may be unset for hooks started by a desktop app; fall back to the
  // password database, and to the temp dir only when even that is missing.
  if (env.HOME) return env.HOME;
  try {
    const h = homedir();
    if (h) return h;
  } catch {
    // fall through
  }
  return env.TMPDIR || "/tmp";
}

/**
 * The data dir: `TRACEGATE_HOME`, else `CLAUDE_PLUGIN_DATA`, else the platform's
 * user data dir.
 *
 * @example
 * ```ts
 * dataDir({ TRACEGATE_HOME: "/tmp/tg" }); // "/tmp/tg"
 * ```
 */
export function dataDir(env: Env, os: string = platform()): string {
  if (env.TRACEGATE_HOME) return env.TRACEGATE_HOME;
  if (env.CLAUDE_PLUGIN_DATA) return env.CLAUDE_PLUGIN_DATA;
  if (os === "darwin") return join(home(env), "Library", "Application Support", "tracegate");
  if (os === "win32") return join(env.LOCALAPPDATA || join(home(env), "AppData", "Local"), "tracegate");
  return join(env.XDG_DATA_HOME || join(home(env), ".local", "share"), "tracegate");
}

/**
 * The user config file: `TRACEGATE_CONFIG`, else `config.jsonc` in the user config dir.
 *
 * @example
 * ```ts
 * configPath({ XDG_CONFIG_HOME: "/c" }, "linux"); // "/c/tracegate/config.jsonc"
 * ```
 */
export function configPath(env: Env, os: string = platform()): string {
  if (env.TRACEGATE_CONFIG) return env.TRACEGATE_CONFIG;
  if (os === "darwin") return join(home(env), "Library", "Application Support", "tracegate", "config.jsonc");
  if (os === "win32") return join(env.APPDATA || join(home(env), "AppData", "Roaming"), "tracegate", "config.jsonc");
  return join(env.XDG_CONFIG_HOME || join(home(env), ".config"), "tracegate", "config.jsonc");
}

/** The user's home directory (HOME, else the password database). */
export function userHome(env: Env): string {
  return home(env);
}

/** Claude Code's user settings dir: `CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: Env): string {
  return env.CLAUDE_CONFIG_DIR || join(home(env), ".claude");
}
