/**
 * Which Claude Code versions are on this machine, and which hook events all
 * of them know. Claude Code before 2.1.101 ignores the whole settings file
 * when one event name in it is unknown, so registering an event an older
 * Claude Code has never heard of would silently disable every other hook of
 * the user's. Install registers only events every Claude Code found knows,
 * and doctor says which were left out and why.
 *
 * Found: `claude` on PATH (asked `--version`), the native installer's
 * versions (`~/.local/share/claude/versions/<version>`) and the old local npm
 * install (`$CLAUDE_CONFIG_DIR/local`). What an old version knows is read
 * from its own code: each event name is a string literal in it. When that
 * cannot be read, only the events hooks shipped with are registered.
 */
import { spawnSync } from "node:child_process";
import { closeSync, readdirSync, realpathSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { claudeConfigDir } from "../config/paths.ts";
import { openRegular, readBoundedOrNull, readUpTo } from "../fs/safe-open.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** From this version on, an unknown event name is skipped, not fatal to the file. */
export const UNKNOWN_EVENTS_SAFE_SINCE = "2.1.101";

/** The events Claude Code's hooks shipped with: known to every version that has hooks. */
export const FIRST_EVENTS: readonly string[] = ["PreToolUse", "PostToolUse", "Notification", "Stop", "SubagentStop"];

/** One Claude Code installation. */
export interface ClaudeCode {
  readonly source: "PATH" | "native install" | "local install";
  readonly path: string;
  readonly version: string | null;
  /** The event names its code contains; null when not read (new enough, or unreadable). */
  readonly events: readonly string[] | null;
}

/** An event install leaves out, and why. */
export interface LeftOut {
  readonly event: string;
  readonly because: string;
}

/**
 * Compare dotted versions numerically.
 *
 * @example
 * ```ts
 * import { compareVersions } from "./claude-versions.ts";
 * compareVersions("2.1.99", "2.1.101"); // -1
 * ```
 */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

const VERSION = /(\d+\.\d+\.\d+)/;
const SCAN_MAX_BYTES = 512 * 1024 * 1024;

/** Which of `names` appear as string literals in a file, read in bounded chunks. */
function namesIn(file: string, names: readonly string[]): string[] | null {
  let fd: number;
  try {
    fd = openRegular(file).fd;
  } catch {
    return null;
  }
  const found = new Set<string>();
  const needles = names.map((n) => [n, Buffer.from(`"${n}"`), Buffer.from(`'${n}'`)] as const);
  const chunk = 4 * 1024 * 1024;
  const overlap = 64;
  try {
    let carry = Buffer.alloc(0);
    for (let at = 0; at < SCAN_MAX_BYTES; at += chunk) {
      const got = readUpTo(fd, chunk, at);
      if (got.length === 0) break;
      const buf = Buffer.concat([carry, got]);
      for (const [n, dq, sq] of needles) if (!found.has(n) && (buf.includes(dq) || buf.includes(sq))) found.add(n);
      if (found.size === names.length) break;
      carry = buf.subarray(Math.max(0, buf.length - overlap));
    }
  } finally {
    closeSync(fd);
  }
  return [...found];
}

function onPath(env: Env): string | null {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, process.platform === "win32" ? "claude.exe" : "claude");
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return null;
}

function home(env: Env): string {
  return env.HOME || env.USERPROFILE || "";
}

/**
 * Every Claude Code installation found, with its version and (for versions
 * before UNKNOWN_EVENTS_SAFE_SINCE) the event names its code knows.
 *
 * @example
 * ```ts
 * import { detectClaudeCodes } from "./claude-versions.ts";
 * detectClaudeCodes(process.env, ["Stop", "PostToolUseFailure"]); // [{ source: "PATH", version: "2.1.332", ... }]
 * ```
 */
export function detectClaudeCodes(env: Env, events: readonly string[]): ClaudeCode[] {
  const out: ClaudeCode[] = [];
  const known = (path: string, version: string | null): readonly string[] | null =>
    version !== null && compareVersions(version, UNKNOWN_EVENTS_SAFE_SINCE) >= 0 ? null : namesIn(path, events);
  const bin = onPath(env);
  if (bin) {
    const r = spawnSync(bin, ["--version"], {
      encoding: "utf8",
      timeout: 10_000,
      env: { ...env, TRACEGATE_INTERNAL: "1" } as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "ignore"],
    });
    const version = VERSION.exec(r.stdout ?? "")?.[1] ?? null;
    let real = bin;
    try {
      real = realpathSync(bin);
    } catch {
      // keep the PATH entry
    }
    out.push({ source: "PATH", path: bin, version, events: known(real, version) });
  }
  const versions = join(env.XDG_DATA_HOME || join(home(env), ".local", "share"), "claude", "versions");
  try {
    for (const name of readdirSync(versions)) {
      const version = VERSION.exec(name)?.[1] ?? null;
      if (version) out.push({ source: "native install", path: join(versions, name), version, events: known(join(versions, name), version) });
    }
  } catch {
    // no native install
  }
  const local = join(claudeConfigDir(env), "local", "node_modules", "@anthropic-ai", "claude-code");
  const pkg = readBoundedOrNull(join(local, "package.json"), 1024 * 1024);
  if (pkg) {
    let version: string | null = null;
    try {
      version = VERSION.exec(String(JSON.parse(pkg.toString("utf8")).version))?.[1] ?? null;
    } catch {
      // unreadable package.json
    }
    out.push({ source: "local install", path: local, version, events: known(join(local, "cli.js"), version) });
  }
  return out;
}

/**
 * The events to register, out of `wanted`, given the Claude Codes found:
 * those every version before 2.1.101 knows (by its code, else FIRST_EVENTS).
 * Pure.
 *
 * @example
 * ```ts
 * import { eventsToRegister } from "./claude-versions.ts";
 * eventsToRegister(["Stop", "PostToolUseFailure"], [{ source: "PATH", path: "/usr/bin/claude", version: "2.0.10", events: ["Stop"] }]);
 * // { events: ["Stop"], left: [{ event: "PostToolUseFailure", because: "..." }] }
 * ```
 */
export function eventsToRegister(wanted: readonly string[], codes: readonly ClaudeCode[]): { events: string[]; left: LeftOut[] } {
  const left: LeftOut[] = [];
  for (const event of wanted) {
    for (const c of codes) {
      if (c.version !== null && compareVersions(c.version, UNKNOWN_EVENTS_SAFE_SINCE) >= 0) continue;
      const knows = c.events ?? FIRST_EVENTS;
      if (knows.includes(event)) continue;
      const who = `Claude Code ${c.version ?? "(unknown version)"} (${c.source}: ${c.path})`;
      const how = c.events ? "does not know it" : "could not be checked for it";
      left.push({ event, because: `${who} ${how}, and before ${UNKNOWN_EVENTS_SAFE_SINCE} one unknown event name makes Claude Code ignore the whole settings file` });
      break;
    }
  }
  const out = new Set(left.map((l) => l.event));
  return { events: wanted.filter((e) => !out.has(e)), left };
}
