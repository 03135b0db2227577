/**
 * `tracegate install` and `tracegate uninstall`: merge tracegate's matcher
 * groups into one Claude Code settings file, or take exactly them out again.
 * The edit itself is settings.ts (text in, text out); this module reads,
 * backs up, writes atomically and keeps the record of what it created.
 */
import { accessSync, constants, existsSync, readdirSync, rmdirSync, rmSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { dataDir } from "../config/paths.ts";
import { err, fail, out } from "../cli/print.ts";
import { HOOKS } from "../hook/caps.ts";
import { type ClaudeCode, detectClaudeCodes, eventsToRegister, type LeftOut } from "./claude-versions.ts";
import { dryRunReport, unifiedDiff } from "./diff.ts";
import { desiredEntries, isPortableBin } from "./entries.ts";
import {
  backupOriginal,
  readSettingsFile,
  removeBackup,
  readState,
  removeFile,
  SCOPES,
  type Scope,
  settingsPath,
  stateKey,
  writeAtomic,
  writeState,
} from "./files.ts";
import { findEntries, parseSettings, planInstall, planUninstall, SettingsError } from "./settings.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** Where the running program is, when it is the compiled binary. */
export function runningBinary(): string | null {
  // A compiled Bun executable runs its bundled entry from the virtual /$bunfs.
  const main = typeof Bun !== "undefined" ? Bun.main : "";
  return main.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/.test(main) ? process.execPath : null;
}

/** The name a project-scope entry runs by default: looked up on each teammate's PATH. */
export const PORTABLE_NAME = "tracegate";

/**
 * The binary a project-scope entry names: `tracegate` from PATH by default,
 * or `--bin` as given when it is relative (a path inside the project). Never
 * this user's absolute path, which a teammate's machine does not have.
 */
export function projectBinary(flag: string | undefined, cwd: string): { bin: string; warning: string | null } {
  const bin = flag && !isAbsolute(flag) ? flag.replace(/^\.\//, "") : flag ?? PORTABLE_NAME;
  if (!isPortableBin(bin)) return { bin, warning: null };
  if (bin.includes("/")) {
    try {
      accessSync(resolve(cwd, bin), constants.X_OK);
      return { bin, warning: null };
    } catch {
      return { bin, warning: `${resolve(cwd, bin)} is not an executable file yet; the hooks stay silent until it is` };
    }
  }
  const onPath = (process.env.PATH ?? "").split(":").some((d) => {
    try {
      accessSync(join(d || ".", bin), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  return {
    bin,
    warning: onPath ? null : `"${bin}" is not on PATH here; the hooks stay silent on any machine where it is not (put it on PATH, or pass --bin RELATIVE/PATH inside the project)`,
  };
}

function resolveBinary(flag: string | undefined, cwd: string): string {
  const bin = flag ? (isAbsolute(flag) ? flag : resolve(cwd, flag)) : runningBinary();
  if (!bin) {
    throw new SettingsError("not running as the compiled binary: run dist/tracegate install, or pass --bin PATH");
  }
  try {
    accessSync(bin, constants.X_OK);
    if (!statSync(bin).isFile()) throw new Error();
  } catch {
    throw new SettingsError(`${bin} is not an executable file; pass --bin PATH to the tracegate binary`);
  }
  return bin;
}

function parseScope(v: string | undefined): Scope {
  const s = v ?? "user";
  if (!(SCOPES as readonly string[]).includes(s)) throw new SettingsError(`--scope must be one of ${SCOPES.join(", ")}`);
  return s as Scope;
}

/** Options both commands take, parsed from argv. */
interface Options {
  scope: Scope;
  gate: boolean;
  dryRun: boolean;
  bin?: string;
  all: boolean;
  purge: boolean;
}

function options(argv: string[], install: boolean): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      scope: { type: "string" },
      gate: { type: "boolean", default: false },
      "dry-run": { type: "boolean", default: false },
      ...(install ? { bin: { type: "string" } } : { all: { type: "boolean", default: false }, purge: { type: "boolean", default: false } }),
    },
    strict: true,
    allowPositionals: false,
  });
  if (!install && values.gate) throw new SettingsError("--gate is an install option");
  return {
    scope: parseScope(values.scope as string | undefined),
    gate: values.gate as boolean,
    dryRun: values["dry-run"] as boolean,
    bin: (values as { bin?: string }).bin,
    all: (values as { all?: boolean }).all ?? false,
    purge: (values as { purge?: boolean }).purge ?? false,
  };
}

/** Result of one install or uninstall on one file, for the caller to print or test. */
export interface Outcome {
  readonly path: string;
  readonly changed: boolean;
  readonly diff: string;
  readonly backup: string | null;
}

/**
 * Register tracegate in one settings file. A second call with the same
 * arguments changes nothing.
 *
 * @example
 * ```ts
 * install({ scope: "user", gate: false, dryRun: true, bin: "/usr/local/bin/tracegate" }, process.env, process.cwd());
 * ```
 */
export function install(
  opts: { scope: Scope; gate: boolean; dryRun: boolean; bin: string; events?: readonly string[] },
  env: Env,
  cwd: string,
): Outcome {
  const path = settingsPath(opts.scope, env, cwd);
  const file = readSettingsFile(path);
  const { hadOurs, text, created } = inFile(path, () => {
    const hadOurs = file.exists && findEntries(file.text).length > 0;
    // Only events every Claude Code found knows (see claude-versions.ts).
    const wanted = desiredEntries(opts.bin, { gate: opts.gate }).filter((e) => !opts.events || opts.events.includes(e.event));
    return { hadOurs, ...planInstall(file.text, wanted) };
  });
  const diff = unifiedDiff(file.text, text, path);
  if (text === file.text || opts.dryRun) return { path, changed: false, diff, backup: null };
  const dirCreated = existsSync(dirname(path)) ? null : dirname(path);
  const backup = backupOriginal(file, hadOurs);
  writeAtomic(path, text, file.mode);
  // Record what this install created; a reinstall keeps the first record,
  // which is the one that describes the user's original file.
  const home = dataDir(env);
  const state = readState(home);
  const key = stateKey(path);
  const prev = state[key];
  if (!hadOurs || !prev) {
    state[key] = { ...created, file: !file.exists, dir: dirCreated, backup };
  } else {
    prev.events = [...new Set([...prev.events, ...created.events])];
    prev.hooks ||= created.hooks;
  }
  try {
    writeState(home, state);
  } catch {
    // Without the record, uninstall still removes containers left empty.
  }
  return { path, changed: true, diff, backup };
}

/**
 * Take tracegate's handlers out of one settings file, and the containers
 * install created that are now empty; the file is then deep-equal to what it
 * was before install.
 *
 * @example
 * ```ts
 * uninstall({ scope: "project", dryRun: false }, process.env, "/repo");
 * ```
 */
export function uninstall(opts: { scope: Scope; dryRun: boolean }, env: Env, cwd: string): Outcome {
  const path = settingsPath(opts.scope, env, cwd);
  const file = readSettingsFile(path);
  if (!file.exists || inFile(path, () => findEntries(file.text)).length === 0) return { path, changed: false, diff: "", backup: null };
  const home = dataDir(env);
  const state = readState(home);
  const key = stateKey(path);
  const rec = state[key];
  const text = inFile(path, () => planUninstall(file.text, rec));
  const emptied = rec?.file === true && (parseSettings(text).children ?? []).length === 0;
  const diff = unifiedDiff(file.text, emptied ? "" : text, path);
  if (opts.dryRun) return { path, changed: false, diff, backup: null };
  // The file is back to the user's own; the backup install made is no longer needed.
  const backup = null;
  if (emptied) {
    removeFile(path);
    if (rec?.dir) {
      try {
        if (readdirSync(rec.dir).length === 0) rmdirSync(rec.dir);
      } catch {
        // a directory someone else now uses stays
      }
    }
  } else {
    writeAtomic(path, text, file.mode);
  }
  removeBackup(rec?.backup);
  delete state[key];
  try {
    writeState(home, state);
  } catch {
    // nothing else depends on it
  }
  return { path, changed: true, diff, backup };
}

/**
 * The events install registers on this machine, and those it leaves out
 * because a Claude Code found here does not know them. For install and doctor.
 */
export function registrableEvents(env: Env): { events: string[]; left: LeftOut[]; found: ClaudeCode[] } {
  const all = Object.values(HOOKS).map((h) => h.event);
  const found = detectClaudeCodes(env, all);
  return { ...eventsToRegister(all, found), found };
}

/** Settings errors name the file and say what to do. */
function inFile<T>(path: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof SettingsError) {
      throw new SettingsError(`${path}: ${e.message}; fix the file (Claude Code cannot load it either) and run the command again`);
    }
    throw e;
  }
}

function report(e: unknown): number {
  if (e instanceof SettingsError) return fail(e.message);
  if (e instanceof Error && "code" in e && typeof (e as NodeJS.ErrnoException).code === "string") {
    return fail(e.message);
  }
  if (e instanceof TypeError && /parseArgs|option|argument/i.test(e.message)) return fail(e.message, 2);
  throw e;
}

/** `tracegate install [--scope user|project|local] [--gate] [--dry-run] [--bin PATH]` */
export async function installCommand(argv: string[]): Promise<number> {
  try {
    const o = options(argv, true);
    const cwd = process.cwd();
    let bin: string;
    if (o.scope === "project") {
      const p = projectBinary(o.bin, cwd);
      bin = p.bin;
      if (p.warning) err(`tracegate: warning: ${p.warning}\n`);
    } else {
      bin = resolveBinary(o.bin, cwd);
    }
    const { events, left } = registrableEvents(process.env);
    for (const l of left) err(`tracegate: not registering ${l.event}: ${l.because}\n`);
    const r = install({ scope: o.scope, gate: o.gate, dryRun: o.dryRun, bin, events }, process.env, cwd);
    if (o.dryRun) {
      out(dryRunReport("install", r.path, r.diff));
      if (!r.diff) err(`tracegate: ${r.path} already has this registration; nothing to change\n`);
      return 0;
    }
    if (!r.changed) {
      out(`tracegate is already registered in ${r.path}; nothing changed\n`);
      return 0;
    }
    out(
      `registered ${bin} in ${r.path} (${o.scope} scope), Stop ${o.gate ? "as the gate" : "observed only"}\n` +
        (r.backup ? `backup of the previous file: ${r.backup}\n` : "") +
        "check it with: tracegate doctor\n",
    );
    return 0;
  } catch (e) {
    return report(e);
  }
}

/** `tracegate uninstall [--scope user|project|local | --all] [--dry-run]` */
export async function uninstallCommand(argv: string[]): Promise<number> {
  try {
    const o = options(argv, false);
    // Purging the data dir while another scope still runs the hooks would only see it recreated.
    const scopes: Scope[] = o.all || o.purge ? [...SCOPES] : [o.scope];
    const cwd = process.cwd();
    for (const scope of scopes) {
      const r = uninstall({ scope, dryRun: o.dryRun }, process.env, cwd);
      if (o.dryRun) out(dryRunReport("uninstall", r.path, r.diff));
      else if (r.changed) out(`removed tracegate from ${r.path}${r.backup ? ` (backup: ${r.backup})` : ""}\n`);
      else out(`no tracegate entries in ${r.path}\n`);
    }
    if (o.purge) return purgeDataDir(dataDir(process.env), o.dryRun, process.cwd());
    return 0;
  } catch (e) {
    return report(e);
  }
}

/** Files tracegate keeps in its data dir; one of them marks a dir as tracegate's. */
const DATA_MARKERS = ["sessions", "install-state.json", "redact.key", "errors.log"];

/**
 * `uninstall --purge`: delete the data dir (every recorded session). Refused
 * for a dir that does not look like tracegate's (TRACEGATE_HOME pointed at a
 * home or project dir must never be wiped).
 */
export function purgeDataDir(dir: string, dryRun: boolean, cwd: string): number {
  const abs = resolve(dir);
  if (!existsSync(abs)) {
    out(`no data dir at ${abs}; nothing to purge\n`);
    return 0;
  }
  const names = readdirSync(abs);
  const ours = names.some((n) => DATA_MARKERS.includes(n)) || names.length === 0;
  const precious = [resolve("/"), resolve(process.env.HOME ?? "/"), resolve(cwd)].includes(abs);
  if (!ours || precious) {
    return fail(`${abs} does not look like tracegate's data dir (no sessions/, install-state.json or redact.key, or it is your home or current dir); delete what you mean to by hand`);
  }
  if (dryRun) {
    out(`would delete the data dir ${abs} (${names.length} entries)\n`);
    return 0;
  }
  rmSync(abs, { recursive: true, force: true });
  out(`deleted the data dir ${abs}\n`);
  return 0;
}
