/**
 * `tracegate install` and `tracegate uninstall`: merge tracegate's entries
 * into one harness's hook config, or take exactly them out again. Which file
 * and which shape come from the harness adapter (`--harness`, default Claude
 * Code). The edit itself is settings.ts (merged files) or own-file.ts (a file
 * that is tracegate's alone), text in and text out; this module reads,
 * backs up, writes atomically and keeps the record of what it created.
 */
import { accessSync, constants, existsSync, lstatSync, readdirSync, rmdirSync, rmSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "../runtime/builtins.ts";
import { dataDir } from "../config/paths.ts";
import { err, fail, out } from "../cli/print.ts";
import { ADAPTERS, adapterFor, DEFAULT_HARNESS, isKnownHarness } from "../harness/registry.ts";
import type { HarnessAdapter } from "../harness/types.ts";
import { dryRunReport, unifiedDiff } from "./unified-diff.ts";
import { claude } from "../harness/claude.ts";
import { type ClaudeCode, detectClaudeCodes, eventsToRegister, type LeftOut } from "./claude-versions.ts";
import { desiredEntries, isPortableBin } from "./entries.ts";
import { findOwnEntries, planOwnFile } from "./own-file.ts";
import {
  backupOriginal,
  removeBackup,
  readSettingsFile,
  readState,
  removeFile,
  SCOPES,
  type Scope,
  stateKey,
  writeAtomic,
  writeState,
} from "./files.ts";
import {
  findEntries,
  parseSettings,
  planInstall,
  planUninstall,
  type SettingsDialect,
  SettingsError,
  STRICT_JSON,
} from "./settings.ts";

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

function parseScope(v: string | undefined, adapter: HarnessAdapter): Scope {
  const s = v ?? "user";
  const scopes = adapter.install.scopes;
  if (!scopes.includes(s)) throw new SettingsError(`--scope for ${adapter.title} must be one of ${scopes.join(", ")}`);
  return s as Scope;
}

/**
 * The adapter for `--harness NAME`; install refuses a name it has no hook
 * config for (the hook itself still records such a harness, neutrally).
 */
export function installAdapter(name: string | undefined): HarnessAdapter {
  const n = name ?? DEFAULT_HARNESS;
  if (!isKnownHarness(n)) {
    throw new SettingsError(`unknown harness "${n.slice(0, 40)}": --harness must be one of ${Object.keys(ADAPTERS).join(", ")}`);
  }
  return adapterFor(n);
}

/** Options both commands take, parsed from argv. */
interface Options {
  scope: Scope;
  gate: boolean;
  dryRun: boolean;
  bin?: string;
  all: boolean;
  purge: boolean;
  adapter: HarnessAdapter;
}

function options(argv: string[], install: boolean): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      scope: { type: "string" },
      gate: { type: "boolean", default: false },
      "dry-run": { type: "boolean", default: false },
      harness: { type: "string" },
      ...(install ? { bin: { type: "string" } } : { all: { type: "boolean", default: false }, purge: { type: "boolean", default: false } }),
    },
    strict: true,
    allowPositionals: false,
  });
  if (!install && values.gate) throw new SettingsError("--gate is an install option");
  const adapter = installAdapter(values.harness as string | undefined);
  return {
    adapter,
    scope: parseScope(values.scope as string | undefined, adapter),
    gate: values.gate as boolean,
    dryRun: values["dry-run"] as boolean,
    bin: (values as { bin?: string }).bin,
    all: (values as { all?: boolean }).all ?? false,
    purge: (values as { purge?: boolean }).purge ?? false,
  };
}

/** What one install or uninstall did to one file, for the caller to print or test. */
export interface SettingsChange {
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
  opts: { scope: Scope; gate: boolean; dryRun: boolean; bin: string; adapter?: HarnessAdapter; events?: readonly string[] },
  env: Env,
  cwd: string,
): SettingsChange {
  const adapter = opts.adapter ?? adapterFor(null);
  const path = adapter.install.path(opts.scope, env, cwd);
  if (adapter.install.plugin) return installPlugin(adapter, path, opts, env);
  const own = adapter.install.layout === "own-file";
  if (own) refuseLink(path);
  const file = readSettingsFile(path);
  const desired = desiredEntries(opts.bin, { gate: opts.gate, adapter });
  const dialect = dialectOf(adapter);
  const { hadOurs, text, created } = inFile(path, () => {
    const hadOurs = file.exists && (own ? findOwnEntries(file.text, adapter, path).entries : findEntries(file.text, dialect)).length > 0;
    // Only events every Claude Code found knows (see claude-versions.ts), when install was told which.
    const wanted = desired.filter((e) => !opts.events || opts.events.includes(e.event));
    const plan = own
      ? { text: planOwnFile(file.text, wanted, adapter, path), created: { hooks: false, events: [] as string[] } }
      : planInstall(startText(adapter, file.text), wanted, dialect);
    return { hadOurs, ...plan };
  });
  const diff = unifiedDiff(file.text, text, path);
  if (text === file.text || opts.dryRun) return { path, changed: false, diff, backup: null };
  const dirCreated = topmostMissing(dirname(path));
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
export function uninstall(
  opts: { scope: Scope; dryRun: boolean; adapter?: HarnessAdapter },
  env: Env,
  cwd: string,
): SettingsChange {
  const adapter = opts.adapter ?? adapterFor(null);
  const path = adapter.install.path(opts.scope, env, cwd);
  if (adapter.install.plugin) return uninstallPlugin(adapter, path, opts, env);
  const own = adapter.install.layout === "own-file";
  if (own) refuseLink(path);
  const file = readSettingsFile(path);
  const dialect = dialectOf(adapter);
  const found = file.exists
    ? inFile(path, () => (own ? findOwnEntries(file.text, adapter, path) : { entries: findEntries(file.text, dialect), foreign: false }))
    : null;
  if (!found || found.entries.length === 0) return { path, changed: false, diff: "", backup: null };
  if (own && found.foreign) {
    throw new SettingsError(`${path} holds hooks that are not tracegate's as well; remove tracegate's entries from it by hand`);
  }
  const home = dataDir(env);
  const state = readState(home);
  const key = stateKey(path);
  const rec = state[key];
  // An own-file is tracegate's alone: uninstall takes the whole file away.
  const text = own ? "" : inFile(path, () => planUninstall(file.text, rec, dialect));
  const emptied = own || (rec?.file === true && ((parseSettings(text, dialect).children ?? []).length === 0 || onlyHeader(adapter, text)));
  const diff = unifiedDiff(file.text, emptied ? "" : text, path);
  if (opts.dryRun) return { path, changed: false, diff, backup: null };
  // The file is back to the user's own; the backup install made is no longer needed.
  const backup = null;
  if (emptied) {
    removeFile(path);
    if (rec?.dir) removeEmptyDirs(dirname(path), rec.dir);
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
 * The plugin layout (OpenCode): the whole file is tracegate's, rendered for
 * this binary; a file of that name that is not tracegate's is never replaced.
 */
function installPlugin(
  adapter: HarnessAdapter,
  path: string,
  opts: { gate: boolean; dryRun: boolean; bin: string },
  env: Env,
): SettingsChange {
  const plugin = adapter.install.plugin!;
  refuseLink(path);
  const file = readSettingsFile(path);
  if (file.exists && plugin.parse(file.text) === null) {
    throw new SettingsError(`${path} exists and is not tracegate's plugin; move it away and install again`);
  }
  const text = plugin.render(opts.bin, opts.gate);
  const diff = unifiedDiff(file.text, text, path);
  if (text === file.text || opts.dryRun) return { path, changed: false, diff, backup: null };
  const dirCreated = topmostMissing(dirname(path));
  writeAtomic(path, text, file.exists ? file.mode : 0o644);
  const home = dataDir(env);
  const state = readState(home);
  const key = stateKey(path);
  if (!state[key]) state[key] = { hooks: false, events: [], file: true, dir: dirCreated };
  try {
    writeState(home, state);
  } catch {
    // without the record, uninstall still removes the file
  }
  return { path, changed: true, diff, backup: null };
}

/** Remove tracegate's plugin file, and only it: the directories install created go only when empty. */
function uninstallPlugin(adapter: HarnessAdapter, path: string, opts: { dryRun: boolean }, env: Env): SettingsChange {
  refuseLink(path);
  const file = readSettingsFile(path);
  if (!file.exists) return { path, changed: false, diff: "", backup: null };
  if (adapter.install.plugin!.parse(file.text) === null) {
    throw new SettingsError(`${path} is not tracegate's plugin; it was left alone`);
  }
  const diff = unifiedDiff(file.text, "", path);
  if (opts.dryRun) return { path, changed: false, diff, backup: null };
  const home = dataDir(env);
  const state = readState(home);
  const key = stateKey(path);
  removeFile(path);
  const dir = state[key]?.dir;
  if (dir) removeEmptyDirs(dirname(path), dir);
  delete state[key];
  try {
    writeState(home, state);
  } catch {
    // nothing else depends on it
  }
  return { path, changed: true, diff, backup: null };
}

/**
 * A file that is tracegate's own is never a symlink: one committed to a
 * repository (`.github/hooks/tracegate.json` -> a file of the user's) would
 * otherwise have install write, or uninstall delete, whatever it points at.
 */
function refuseLink(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return; // missing: install creates it
  }
  if (st.isSymbolicLink() || !st.isFile()) {
    throw new SettingsError(`${path} is ${st.isSymbolicLink() ? "a symlink" : "not a regular file"}; tracegate writes only a file of its own there. Remove it and run this again`);
  }
}

/** What the harness's settings reader accepts (comments for Gemini; strict JSON otherwise). */
export function dialectOf(adapter: HarnessAdapter): SettingsDialect {
  const base = adapter.install.comments ? { comments: true } : STRICT_JSON;
  return adapter.install.flat ? { ...base, flat: true } : base;
}

/** A merged file's text to start from: the harness's header fields (Cursor's `version`) in a new or empty file. */
function startText(adapter: HarnessAdapter, text: string): string {
  const header = adapter.install.fileHeader;
  if (!header || adapter.install.layout !== "settings" || text.trim() !== "") return text;
  return `${JSON.stringify(header, null, 2)}\n`;
}

/** Whether a merged file holds nothing but the header install started it with. */
function onlyHeader(adapter: HarnessAdapter, text: string): boolean {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    const header = adapter.install.fileHeader ?? {};
    return Object.entries(v).every(([k, x]) => Object.hasOwn(header, k) && JSON.stringify(header[k]) === JSON.stringify(x));
  } catch {
    return false;
  }
}

/** The outermost directory on the way to `dir` that does not exist yet (null: it exists). */
function topmostMissing(dir: string): string | null {
  let missing: string | null = null;
  for (let d = dir; !existsSync(d); d = dirname(d)) {
    missing = d;
    if (dirname(d) === d) break;
  }
  return missing;
}

/** Remove `from` and its parents up to `top` while they are empty (install created them). */
function removeEmptyDirs(from: string, top: string): void {
  for (let d = from; ; d = dirname(d)) {
    try {
      if (readdirSync(d).length !== 0) return;
      rmdirSync(d);
    } catch {
      return; // a directory someone else now uses stays
    }
    if (d === top || dirname(d) === d || !d.startsWith(top)) return;
  }
}

/**
 * The events install registers on this machine, and those it leaves out
 * because a Claude Code found here does not know them. For install and doctor.
 */
export function registrableEvents(env: Env): { events: string[]; left: LeftOut[]; found: ClaudeCode[] } {
  const all = Object.keys(claude.events);
  const found = detectClaudeCodes(env, all);
  return { ...eventsToRegister(all, found), found };
}

/** Settings errors name the file and say what to do. */
function inFile<T>(path: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof SettingsError && !e.message.startsWith(path)) {
      throw new SettingsError(`${path}: ${e.message}; fix the file (the harness cannot load it either) and run the command again`);
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

/** `tracegate install [--harness NAME] [--scope user|project|local] [--gate] [--dry-run] [--bin PATH]` */
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
    // Claude Code before 2.1.101 ignores a whole settings file naming an event it does not know.
    const { events, left } = o.adapter.name === claude.name ? registrableEvents(process.env) : { events: undefined, left: [] };
    for (const l of left) err(`tracegate: not registering ${l.event}: ${l.because}\n`);
    const r = install({ scope: o.scope, gate: o.gate, dryRun: o.dryRun, bin, adapter: o.adapter, events }, process.env, cwd);
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
      `registered ${bin} for ${o.adapter.title} in ${r.path} (${o.scope} scope), Stop ${o.gate ? "as the gate" : "observed only"}\n` +
        (r.backup ? `backup of the previous file: ${r.backup}\n` : "") +
        (o.adapter.install.notes ?? []).map((n) => `note: ${n}\n`).join("") +
        "check it with: tracegate doctor\n",
    );
    return 0;
  } catch (e) {
    return report(e);
  }
}

/** `tracegate uninstall [--harness NAME] [--scope user|project|local | --all] [--dry-run]` */
export async function uninstallCommand(argv: string[]): Promise<number> {
  try {
    const o = options(argv, false);
    // Purging the data dir while another scope still runs the hooks would only see it recreated.
    const scopes = o.all || o.purge ? (o.adapter.install.scopes as Scope[]) : [o.scope];
    const cwd = process.cwd();
    for (const scope of scopes) {
      const r = uninstall({ scope, dryRun: o.dryRun, adapter: o.adapter }, process.env, cwd);
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
