/**
 * The hook entries tracegate writes into Claude Code settings, and how to
 * recognise them again. Pure: no file system, no process state.
 *
 * An entry's `command` is run by Claude Code through a shell. On POSIX it is a
 * fixed `/bin/sh -c` script that exits 0 silently when the binary is gone and
 * otherwise `exec`s it, so stdin reaches the binary untouched and its exit code
 * is the entry's exit code. The binary path is passed as the script's `$0`,
 * single-quoted once by the outer shell and never spliced into shell code.
 */
import { HOOKS, type HookName } from "../hook/caps.ts";

/** Argument the Stop subcommand receives when it must record only, never gate. */
export const OBSERVE_FLAG = "--observe";

/** One handler as Claude Code's settings document it. */
export interface CommandHandler {
  readonly type: "command";
  readonly command: string;
  readonly timeout: number;
}

/** One matcher group: `matcher` only for events that take a tool-name matcher. */
export interface MatcherGroup {
  readonly matcher?: string;
  readonly hooks: readonly CommandHandler[];
}

/** What install wants under one event. */
export interface DesiredEntry {
  readonly event: string;
  readonly subcommand: HookName;
  readonly args: readonly string[];
  readonly group: MatcherGroup;
}

/** A parsed tracegate command: which binary, which subcommand, which extra args. */
export interface ParsedCommand {
  readonly bin: string;
  readonly subcommand: string;
  readonly args: readonly string[];
  readonly guarded: boolean;
}

/**
 * Quote a string for a POSIX shell: one pair of single quotes, embedded
 * single quotes as `'\''`.
 *
 * @example
 * ```ts
 * shQuote("/opt/it's/tracegate"); // "'/opt/it'\\''s/tracegate'"
 * ```
 */
export function shQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

function shUnquote(q: string): string | null {
  // Accept exactly what shQuote produces: quoted runs joined by \'.
  const m = /^'((?:[^']|'\\'')*)'$/.exec(q);
  return m ? m[1]!.replaceAll(`'\\''`, "'") : null;
}

const SUBCOMMAND = /^[a-z][a-z-]*$/;
/**
 * The fixed start of the guard script. A missing binary drains stdin (so
 * Claude Code never sees a broken pipe on a big payload) and exits 0 with no
 * output; a present one replaces the shell, inheriting stdin and passing its
 * exit code through.
 */
const GUARD_HEAD = `[ -x "$0" ] || { cat >/dev/null 2>&1; exit 0; }; exec "$0" `;
const ARG = /^--[a-z][a-z-]*$/;

/**
 * The guard for a portable entry (project scope, committed for teammates):
 * `$0` is a name looked up on PATH, or a path relative to the project
 * (`$CLAUDE_PROJECT_DIR`, which Claude Code sets for hooks), or absolute.
 * Missing anywhere, the hook drains stdin and exits 0 like the fixed guard.
 */
const PORTABLE_HEAD =
  `b="$0"; case "$b" in /*) ;; */*) b="\${CLAUDE_PROJECT_DIR:-.}/$b" ;; *) b=$(command -v "$b") || b= ;; esac; ` +
  `[ -n "$b" ] && [ -x "$b" ] || { cat >/dev/null 2>&1; exit 0; }; exec "$b" `;

/**
 * Whether a binary reference is portable (a bare name or a relative path)
 * rather than one machine's absolute path.
 *
 * @example
 * ```ts
 * isPortableBin("tracegate");       // true
 * isPortableBin("tools/tracegate"); // true
 * isPortableBin("/usr/bin/tracegate"); // false
 * ```
 */
export function isPortableBin(bin: string): boolean {
  return !bin.startsWith("/") && !/^[A-Za-z]:[\\/]/.test(bin);
}

/**
 * The `command` string for one hook subcommand.
 *
 * @example
 * ```ts
 * hookCommand("/home/me/.local/bin/tracegate", "post-tool-use");
 * // `/bin/sh -c '[ -x "$0" ] || { cat >/dev/null 2>&1; exit 0; }; exec "$0" post-tool-use' '/home/me/.local/bin/tracegate'`
 * ```
 */
export function hookCommand(
  bin: string,
  subcommand: string,
  args: readonly string[] = [],
  os: string = process.platform,
): string {
  for (const a of [subcommand, ...args]) {
    // Only fixed words go inside the script; anything else would be shell code.
    if (!(a === subcommand ? SUBCOMMAND : ARG).test(a)) throw new Error(`not a hook argument: ${a}`);
  }
  const words = [subcommand, ...args].join(" ");
  if (isPortableBin(bin)) return `/bin/sh -c '${PORTABLE_HEAD}${words}' ${shQuote(bin)}`;
  // Claude Code on Windows runs commands through Git Bash, whose /bin/sh
  // runs the same guard; the path is given with forward slashes.
  const path = os === "win32" ? bin.replaceAll("\\", "/") : bin;
  return `/bin/sh -c '${GUARD_HEAD}${words}' ${shQuote(path)}`;
}

const GUARD = /^\/bin\/sh -c '\[ -x "\$0" \] \|\| \{ cat >\/dev\/null 2>&1; exit 0; \}; exec "\$0" ([a-z][a-z-]*)((?: --[a-z][a-z-]*)*)' ('.*')$/s;
const PORTABLE = new RegExp(
  `^/bin/sh -c '${PORTABLE_HEAD.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([a-z][a-z-]*)((?: --[a-z][a-z-]*)*)' ('.*')$`,
  "s",
);
const PLAIN = /^"([^"]+)" ([a-z][a-z-]*)((?: --[a-z][a-z-]*)*)$/;

/**
 * Recognise a command tracegate wrote, whatever binary path it names.
 * Returns null for anything else, so other tools' hooks are never touched.
 *
 * @example
 * ```ts
 * parseHookCommand(hookCommand("/x/tracegate", "stop", ["--observe"]));
 * // { bin: "/x/tracegate", subcommand: "stop", args: ["--observe"], guarded: true }
 * ```
 */
export function parseHookCommand(command: unknown): ParsedCommand | null {
  if (typeof command !== "string") return null;
  const g = GUARD.exec(command);
  if (g) {
    const bin = shUnquote(g[3]!);
    if (bin === null || !(g[1]! in HOOKS)) return null;
    return { bin, subcommand: g[1]!, args: splitArgs(g[2]!), guarded: true };
  }
  const q = PORTABLE.exec(command);
  if (q) {
    const bin = shUnquote(q[3]!);
    if (bin === null || !(q[1]! in HOOKS)) return null;
    return { bin, subcommand: q[1]!, args: splitArgs(q[2]!), guarded: true };
  }
  const p = PLAIN.exec(command);
  if (p && p[2]! in HOOKS && /tracegate(\.exe)?$/i.test(p[1]!)) {
    return { bin: p[1]!, subcommand: p[2]!, args: splitArgs(p[3]!), guarded: false };
  }
  return null;
}

function splitArgs(s: string): string[] {
  return s.split(" ").filter(Boolean);
}

/**
 * The matcher groups install writes: one per event in HOOKS, with the
 * declared timeout from caps.ts. Without `gate`, Stop is registered as an
 * observer (`stop --observe`).
 *
 * @example
 * ```ts
 * desiredEntries("/x/tracegate", { gate: false }).find((e) => e.event === "Stop")!.args; // ["--observe"]
 * ```
 */
export function desiredEntries(
  bin: string,
  opts: { gate: boolean; os?: string },
): DesiredEntry[] {
  return (Object.keys(HOOKS) as HookName[]).map((subcommand) => {
    const spec = HOOKS[subcommand];
    const args = subcommand === "stop" && !opts.gate ? [OBSERVE_FLAG] : [];
    const handler: CommandHandler = {
      type: "command",
      command: hookCommand(bin, subcommand, args, opts.os),
      timeout: spec.timeoutS,
    };
    const group: MatcherGroup = spec.matcher ? { matcher: "", hooks: [handler] } : { hooks: [handler] };
    return { event: spec.event, subcommand, args, group };
  });
}
