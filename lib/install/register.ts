/**
 * `tracegate install` and `tracegate uninstall`: merge tracegate's entries
 * into one harness's hook config, or take exactly them out again. Which file
 * and which shape come from the harness adapter (`--harness`, default Claude
 * Code). The edit itself is settings.ts (merged files) or own-file.ts (a file
 * that is tracegate's alone), text in and text out; this module reads,
 * backs up, writes atomically and keeps the record of what it created.
 */
import { accessSync, constants, existsSync, lstatSync, readdirSync, rmdirSync, statSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { parseArgs } from "node:util";
import { dataDir } from "../config/paths.ts";
import { err, fail, out } from "../cli/print.ts";
import { ADAPTERS, adapterFor, DEFAULT_HARNESS, isKnownHarness } from "../harness/registry.ts";
import type { HarnessAdapter } from "../harness/types.ts";
import { unifiedDiff } from "./unified-diff.ts";
import { desiredEntries } from "./entries.ts";
import { findOwnEntries, planOwnFile } from "./own-file.ts";
import {
  backupSettings,
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

function resolveBinary(flag: string | undefined, cwd: string): string {
  const bin = flag ? (isAbsolute(flag) ? flag : resolve(cwd, flag)) : runningBinary();
  if (!bin) {
    throw new SettingsError("not running as the compiled binary: run dist/tracegate install, or pass --bin PATH");
  }
  try {
    accessSync(bin, constants.X_OK);
    if (!statSync(bin).isFile()) throw new Error();
  } catch {
    throw new SettingsError(`${bin} is not an executable file`);
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
      ...(install ? { bin: { type: "string" } } : { all: { type: "boolean", default: false } }),
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
  opts: { scope: Scope; gate: boolean; dryRun: boolean; bin: string; adapter?: HarnessAdapter },
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
  const hadOurs = file.exists && (own ? findOwnEntries(file.text, adapter, path).entries : findEntries(file.text, dialect)).length > 0;
  const { text, created } = own
    ? { text: planOwnFile(file.text, desired, adapter, path), created: { hooks: false, events: [] as string[] } }
    : planInstall(startText(adapter, file.text), desired, dialect);
  const diff = unifiedDiff(file.text, text, path);
  if (text === file.text || opts.dryRun) return { path, changed: false, diff, backup: null };
  const dirCreated = topmostMissing(dirname(path));
  const backup = backupSettings(file);
  writeAtomic(path, text, file.mode);
  // Record what this install created; a reinstall keeps the first record,
  // which is the one that describes the user's original file.
  const home = dataDir(env);
  const state = readState(home);
  const key = stateKey(path);
  const prev = state[key];
  if (!hadOurs || !prev) {
    state[key] = { ...created, file: !file.exists, dir: dirCreated };
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
  const found = file.exists ? (own ? findOwnEntries(file.text, adapter, path) : { entries: findEntries(file.text, dialect), foreign: false }) : null;
  if (!found || found.entries.length === 0) return { path, changed: false, diff: "", backup: null };
  if (own && found.foreign) {
    throw new SettingsError(`${path} holds hooks that are not tracegate's as well; remove tracegate's entries from it by hand`);
  }
  const home = dataDir(env);
  const state = readState(home);
  const key = stateKey(path);
  const rec = state[key];
  // An own-file is tracegate's alone: uninstall takes the whole file away.
  const text = own ? "" : planUninstall(file.text, rec, dialect);
  const emptied = own || (rec?.file === true && ((parseSettings(text, dialect).children ?? []).length === 0 || onlyHeader(adapter, text)));
  const diff = unifiedDiff(file.text, emptied ? "" : text, path);
  if (opts.dryRun) return { path, changed: false, diff, backup: null };
  // A file install created holds nothing but tracegate's entries: no backup needed.
  const backup = emptied ? null : backupSettings(file);
  if (emptied) {
    removeFile(path);
    if (rec?.dir) removeEmptyDirs(dirname(path), rec.dir);
  } else {
    writeAtomic(path, text, file.mode);
  }
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
    const bin = resolveBinary(o.bin, cwd);
    const r = install({ scope: o.scope, gate: o.gate, dryRun: o.dryRun, bin, adapter: o.adapter }, process.env, cwd);
    if (o.dryRun) {
      out(r.diff);
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
    const scopes = o.all ? (o.adapter.install.scopes as Scope[]) : [o.scope];
    const cwd = process.cwd();
    for (const scope of scopes) {
      const r = uninstall({ scope, dryRun: o.dryRun, adapter: o.adapter }, process.env, cwd);
      if (o.dryRun) out(r.diff);
      else if (r.changed) out(`removed tracegate from ${r.path}${r.backup ? ` (backup: ${r.backup})` : ""}\n`);
      else out(`no tracegate entries in ${r.path}\n`);
    }
    return 0;
  } catch (e) {
    return report(e);
  }
}
