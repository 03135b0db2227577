/**
 * `tracegate doctor`: what is installed, where, and what is wrong. Gathers
 * facts (I/O), then `judge` (pure) turns them into problems and a status.
 * Exit 0 healthy, 1 problems found, 2 not installed.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "../runtime/builtins.ts";
import { claudeConfigDir, dataDir } from "../config/paths.ts";
import { escapeControl, fail, out } from "../cli/print.ts";
import { plural } from "../cli/style.ts";
import { ADAPTERS } from "../harness/registry.ts";
import type { HarnessAdapter, TimeoutUnit } from "../harness/types.ts";
import { HOOKS } from "../hook/subcommands.ts";
import { harnessOfCommand, isPortableBin, OBSERVE_FLAG, timeoutMs } from "./entries.ts";
import { readSettingsFile, type Scope, SETTINGS_MAX_BYTES } from "./files.ts";
import { readTextBounded } from "../fs/safe-open.ts";
import { findOwnEntries } from "./own-file.ts";
import { findEntries, type FoundEntry } from "./settings.ts";
import { dialectOf, registrableEvents, runningBinary } from "./register.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** One registered tracegate handler as doctor reports it. */
export interface EntryReport {
  event: string;
  subcommand: string;
  args: string[];
  /** The declared timeout as written, in the harness's units (`unit` on the file). */
  timeout: number | null;
  /** The same in ms, to compare with the cap. */
  timeout_ms: number | null;
  cap_ms: number | null;
  /** The most the harness lets this event's hook run, in ms, when it clamps (Codex: 3 s). */
  clamp_ms: number | null;
  /** The harness the entry's command serves (its --harness argument). */
  harness: string;
  bin: string;
  guarded: boolean;
}

/** One hook config file of one harness. */
export interface SettingsReport {
  harness: string;
  /** Units of the timeouts in this file. */
  unit: TimeoutUnit;
  scope: Scope;
  path: string;
  exists: boolean;
  error: string | null;
  entries: EntryReport[];
  /** "gate", "observe" or null when Stop is not registered here. */
  stop: "gate" | "observe" | null;
}

/** A binary some entry points at. */
export interface BinaryReport {
  path: string;
  executable: boolean;
  version: string | null;
}

export interface OracleReport {
  url: string | null;
  /** not_configured | config_invalid | ok | unreachable | key_mismatch | key_unknown | bad_key */
  status: string;
  detail: string;
}

/** Everything doctor found; `--json` prints it as is. */
export interface DoctorReport {
  status: "healthy" | "problems" | "not_installed";
  running: { path: string | null; version: string };
  settings: SettingsReport[];
  binaries: BinaryReport[];
  plugin: { enabled: string[] };
  data_dir: { path: string; writable: boolean; error: string | null };
  /** `repo_errors`: problems of the repository's `.tracegate.jsonc`; they drop its patterns and never touch the gate. */
  config: { path: string; exists: boolean; errors: string[]; repo_errors: string[] };
  oracle: OracleReport;
  errors_log: { path: string; last: string[] };
  /** Claude Code installations found, and the events install leaves out for them. */
  claude_code: { found: { source: string; path: string; version: string | null }[]; left_out: { event: string; because: string }[] };
  /** Claude Code settings files with tracegate entries that Cursor (registered too) would also run. */
  cursor_runs_claude: string[];
  problems: string[];
  notes: string[];
}

function inspectSettings(adapter: HarnessAdapter, scope: Scope, env: Env, cwd: string): SettingsReport {
  const path = adapter.install.path(scope, env, cwd);
  const unit = adapter.install.timeoutUnit;
  const base = { harness: adapter.name, unit, scope, path, entries: [] as EntryReport[], stop: null as SettingsReport["stop"] };
  let file;
  try {
    file = readSettingsFile(path);
  } catch (e) {
    return { ...base, exists: true, error: `cannot read (${(e as NodeJS.ErrnoException).code ?? "error"})` };
  }
  if (!file.exists) return { ...base, exists: false, error: null };
  try {
    const found = adapter.install.plugin
      ? pluginEntries(adapter, file.text, path)
      : adapter.install.layout === "own-file"
        ? findOwnEntries(file.text, adapter, path).entries
        : findEntries(file.text, dialectOf(adapter));
    const entries = found.map((f): EntryReport => {
      const spec = (HOOKS as Record<string, { capMs: number }>)[f.parsed.subcommand];
      const timeout = typeof f.timeout === "number" ? f.timeout : null;
      const clamp = adapter.install.clampS?.[f.event];
      return {
        event: f.event,
        subcommand: f.parsed.subcommand,
        args: [...f.parsed.args],
        timeout,
        timeout_ms: timeout === null ? null : timeoutMs(adapter, timeout),
        cap_ms: spec ? spec.capMs : null,
        clamp_ms: clamp === undefined ? null : clamp * 1000,
        harness: harnessOfCommand(f.parsed),
        bin: f.parsed.bin,
        guarded: f.parsed.guarded,
      };
    });
    const stop = entries.find((e) => e.subcommand === "stop");
    return {
      ...base,
      exists: true,
      error: null,
      entries,
      stop: stop ? (stop.args.includes(OBSERVE_FLAG) ? "observe" : "gate") : null,
    };
  } catch (e) {
    return { ...base, exists: true, error: (e as Error).message };
  }
}

/**
 * Where an entry's binary is on this machine: absolute as written; a bare
 * name looked up on PATH; a relative path against the project dir, as the
 * portable guard does. Null when not found.
 */
export function locateBin(bin: string, cwd: string, env: Env = process.env): string | null {
  if (!isPortableBin(bin)) return bin;
  const candidates = bin.includes("/") ? [join(env.CLAUDE_PROJECT_DIR ?? cwd, bin)] : (env.PATH ?? "").split(":").map((d) => join(d || ".", bin));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      if (statSync(c).isFile()) return c;
    } catch {
      // next
    }
  }
  return null;
}

/** A plugin file's entries in the shape doctor reports (its guard is the plugin's own existence check). */
function pluginEntries(adapter: HarnessAdapter, text: string, path: string): FoundEntry[] {
  const entries = adapter.install.plugin!.parse(text);
  if (entries === null) throw new Error(`${path} is not tracegate's plugin`);
  return entries.map((e) => ({
    event: e.event,
    matcher: undefined,
    timeout: e.timeout_ms,
    command: [e.bin, ...e.args].join(" "),
    parsed: { bin: e.bin, subcommand: e.args[0] ?? "", args: e.args.slice(1), guarded: true },
    shared: false,
  }));
}

function inspectBinary(bin: string, cwd: string): BinaryReport {
  const path = locateBin(bin, cwd) ?? bin;
  let executable = false;
  try {
    accessSync(path, constants.X_OK);
    executable = statSync(path).isFile();
  } catch {
    // missing or not executable
  }
  if (!executable) return { path, executable, version: null };
  const r = spawnSync(path, ["--version"], {
    encoding: "utf8",
    timeout: 5000,
    env: { ...process.env, TRACEGATE_INTERNAL: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const v = r.status === 0 ? r.stdout.trim().replace(/^tracegate\s+/, "") : null;
  return { path, executable, version: v || null };
}

function inspectDataDir(path: string): DoctorReport["data_dir"] {
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    const probe = join(path, `.doctor-${process.pid}`);
    writeFileSync(probe, "");
    rmSync(probe);
    return { path, writable: true, error: null };
  } catch (e) {
    return { path, writable: false, error: (e as NodeJS.ErrnoException).code ?? (e as Error).message };
  }
}

function lastErrors(home: string, n = 5): DoctorReport["errors_log"] {
  const path = join(home, "errors.log");
  try {
    // Bounded and never a FIFO: the log is in a dir the agent can write.
    const lines = readTextBounded(path, 4 * 1024 * 1024, { noFollow: true }).split("\n").filter(Boolean);
    return { path, last: lines.slice(-n) };
  } catch {
    return { path, last: [] };
  }
}

function enabledPlugins(env: Env): string[] {
  try {
    const text = readTextBounded(join(claudeConfigDir(env), "settings.json"), SETTINGS_MAX_BYTES);
    const v = JSON.parse(text)?.enabledPlugins;
    if (!v || typeof v !== "object") return [];
    return Object.keys(v).filter((k) => /^tracegate@/.test(k) && v[k] === true);
  } catch {
    return [];
  }
}

async function loadConfigReport(env: Env, cwd: string) {
  try {
    const { loadConfig } = await import("../config/load.ts");
    const c = await loadConfig(env, cwd);
    return { config: { path: c.path, exists: c.exists, errors: [...c.errors], repo_errors: [...c.repo_errors] }, oracle: c.oracle };
  } catch (e) {
    return {
      config: { path: "", exists: false, errors: [`config loader failed: ${(e as Error).message}`], repo_errors: [] },
      oracle: null,
    };
  }
}

/** A fetch failure in a few words a person can act on, never the HTTP client's raw text. */
export function whyUnreachable(e: unknown, timeoutMs: number): string {
  const x = e as { name?: string; code?: string; message?: string };
  const code = `${x.code ?? ""} ${x.name ?? ""} ${x.message ?? ""}`;
  if (/Timeout|AbortError|timed out/i.test(code)) return `no answer within ${timeoutMs / 1000} s`;
  if (/ECONNREFUSED|ConnectionRefused|Unable to connect/i.test(code)) return "connection refused: nothing listens there";
  if (/ENOTFOUND|EAI_AGAIN|DNS|getaddrinfo/i.test(code)) return "host name does not resolve";
  if (/CERT|TLS|SSL/i.test(code)) return "TLS certificate problem";
  if (/ECONNRESET|ConnectionClosed|socket/i.test(code)) return "the connection was closed";
  return "cannot connect";
}

/**
 * Ask the oracle which key it signs with: `GET {url}/v1/key` answering
 * `{ key_id }`, compared with the id of the configured public key.
 */
async function checkOracle(
  oracle: { url: string; public_key: string; on_error?: string } | null,
  configPath: string,
  configErrors: readonly string[],
  timeoutMs = 3000,
): Promise<OracleReport> {
  if (configErrors.length) {
    return {
      url: null,
      status: "config_invalid",
      detail: `not checked: ${configPath} has errors (see the config problems), so no oracle is used and Stop only records until they are fixed`,
    };
  }
  if (!oracle) return { url: null, status: "not_configured", detail: `no oracle.url in ${configPath}: Stop only observes` };
  let want: string;
  try {
    const { keyIdOf } = await import("../oracle/verdict.ts");
    const { readPublicKeyPem } = await import("../oracle/keys.ts");
    // The same reading as the hook's: a relative path is relative to the config file.
    want = keyIdOf(readPublicKeyPem(oracle.public_key, configPath));
  } catch (e) {
    return { url: oracle.url, status: "bad_key", detail: `cannot read oracle.public_key (${(e as Error).message}); set it in ${configPath} to the oracle.pub from \`tracegate oracle keygen\`, as a path or the PEM text` };
  }
  const url = `${oracle.url.replace(/\/+$/, "")}/v1/key`;
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    const until = oracle.on_error === "block" ? "Stop is blocked until the last attempt" : "Stop is allowed";
    return {
      url: oracle.url,
      status: "unreachable",
      detail: `${url} does not answer (${whyUnreachable(e, timeoutMs)}): start \`tracegate oracle serve\` there, or fix oracle.url in ${configPath}; until then ${until}`,
    };
  }
  if (!res.ok) {
    return { url: oracle.url, status: "key_unknown", detail: `${url} answered ${res.status}; cannot compare keys` };
  }
  let got: unknown;
  try {
    got = ((await res.json()) as { key_id?: unknown }).key_id;
  } catch {
    got = undefined;
  }
  if (typeof got !== "string") return { url: oracle.url, status: "key_unknown", detail: `${url} did not return a key_id` };
  if (got !== want) {
    return {
      url: oracle.url,
      status: "key_mismatch",
      detail: `oracle signs with key ${got}, the configured public key is ${want}: its verdicts will not verify`,
    };
  }
  return { url: oracle.url, status: "ok", detail: `answers with key ${got}, which matches` };
}

/**
 * Turn the facts into problems and a status. Pure.
 *
 * @example
 * ```ts
 * judge(report).status; // "not_installed" when no settings file or plugin has tracegate
 * ```
 */
export function judge(r: Omit<DoctorReport, "status" | "problems" | "notes">, os = process.platform): Pick<DoctorReport, "status" | "problems" | "notes"> {
  const problems: string[] = [];
  const notes: string[] = [];
  for (const s of r.settings) {
    const adapter = Object.hasOwn(ADAPTERS, s.harness) ? ADAPTERS[s.harness] : undefined;
    const title = adapter?.title ?? s.harness;
    const flag = s.harness === "claude" ? "" : ` --harness ${s.harness}`;
    if (s.error) problems.push(`${s.path}: ${s.error} (${title} cannot load this file)`);
    if (s.entries.length === 0 || !adapter) continue;
    // What the harness needs besides the entries (trust), once per harness.
    for (const n of adapter.install.notes ?? []) if (!notes.includes(n)) notes.push(n);
    const events = new Set(s.entries.map((e) => e.event));
    // Events install left out on purpose (an installed Claude Code too old to know them) are notes, not problems.
    const leftOut = new Map(s.harness === "claude" ? (r.claude_code?.left_out ?? []).map((l) => [l.event, l.because]) : []);
    const missing = Object.keys(adapter.events).filter((ev) => !events.has(ev) && !leftOut.has(ev));
    for (const ev of Object.keys(adapter.events)) if (!events.has(ev) && leftOut.has(ev)) notes.push(`${s.path}: ${ev} left out on purpose: ${leftOut.get(ev)}`);
    if (missing.length) problems.push(`${s.path}: events not registered: ${missing.join(", ")} (run tracegate install${flag} --scope ${s.scope})`);
    for (const e of s.entries) {
      const want = Object.hasOwn(adapter.events, e.event) ? adapter.events[e.event] : undefined;
      if (want && want !== e.subcommand) problems.push(`${s.path}: ${e.event} runs "${e.subcommand}", but ${title} ${e.event} is served by "${want}"`);
      if (e.harness !== s.harness) problems.push(`${s.path}: ${e.event} runs tracegate for harness "${e.harness}" in ${title}'s file: its records would be read the wrong way (reinstall)`);
      if (e.timeout === null) problems.push(`${s.path}: ${e.event} has no timeout (the harness's default applies)`);
      else if (e.cap_ms !== null && e.timeout_ms !== null && e.timeout_ms <= e.cap_ms) {
        problems.push(`${s.path}: ${e.event} timeout ${e.timeout}${s.unit} is not above its cap ${s.unit === "ms" ? `${e.cap_ms}ms` : `${e.cap_ms / 1000}s`}`);
      } else if (e.clamp_ms !== null && e.timeout_ms !== null && e.timeout_ms > e.clamp_ms) {
        notes.push(`${s.path}: ${e.event} timeout ${e.timeout}${s.unit} is above ${title}'s clamp of ${e.clamp_ms / 1000}s; the clamp (still above the cap) applies`);
      }
      if (!e.guarded && os !== "win32") problems.push(`${s.path}: ${e.event} entry has no missing-binary guard (reinstall)`);
    }
    const counts = new Map<string, number>();
    for (const e of s.entries) counts.set(e.event, (counts.get(e.event) ?? 0) + 1);
    for (const [ev, n] of counts) if (n > 1) problems.push(`${s.path}: ${ev} has ${n} tracegate entries (records would be duplicated)`);
  }
  for (const b of r.binaries) {
    if (!b.executable) problems.push(`${b.path}: referenced by settings but missing or not executable (hooks stay silent until it is back)`);
    else if (b.version === null) problems.push(`${b.path}: does not answer --version`);
  }
  // The same event registered through different commands in several files runs twice.
  const byEvent = new Map<string, Set<string>>();
  for (const s of r.settings) {
    for (const e of s.entries) {
      const key = `${e.bin}\0${e.subcommand}\0${e.args.join(" ")}`;
      const ev = s.harness === "claude" ? e.event : `${e.event} (${s.harness})`;
      byEvent.set(ev, (byEvent.get(ev) ?? new Set()).add(key));
    }
  }
  const doubled = [...byEvent].filter(([, v]) => v.size > 1).map(([k]) => k);
  if (doubled.length) problems.push(`tracegate is registered differently in several settings files for ${doubled.join(", ")}: each fires, records are duplicated`);
  if (r.plugin.enabled.length && r.settings.some((s) => s.entries.length)) {
    const files = r.settings.filter((s) => s.entries.length).map((s) => s.path).join(", ");
    problems.push(
      `the plugin (${r.plugin.enabled.join(", ")}) and a settings install (${files}) are both active: every event is recorded twice; ` +
        "run `tracegate uninstall --all` to keep the plugin, or disable the plugin in Claude Code",
    );
  }
  if (r.cursor_runs_claude.length) {
    notes.push(
      `warning: Cursor also runs Claude Code's hooks (${r.cursor_runs_claude.join(", ")}) when its third-party hooks setting is on: every event would be recorded twice, once as claude and once as cursor. Turn that setting off in Cursor, or uninstall one of them (tracegate uninstall [--harness cursor])`,
    );
  }
  if (!r.data_dir.writable) problems.push(`data dir ${r.data_dir.path} is not writable (${r.data_dir.error}): nothing can be recorded`);
  for (const e of r.config.errors) problems.push(`config: ${e}`);
  for (const e of r.config.repo_errors) notes.push(`repository config: ${e} (its redaction patterns are not used; the gate is not affected)`);
  const gating = r.settings.some((s) => s.stop === "gate");
  if (["unreachable", "key_mismatch", "bad_key"].includes(r.oracle.status)) problems.push(`oracle: ${r.oracle.detail}`);
  else if (r.oracle.status === "key_unknown") notes.push(`oracle: ${r.oracle.detail}`);
  const oracleOn = !["not_configured", "config_invalid"].includes(r.oracle.status);
  if (oracleOn && !gating) {
    for (const s of r.settings.filter((x) => x.stop === "observe")) {
      problems.push(
        `an oracle is configured (${r.oracle.url}) but ${s.path} registers Stop without --gate, so the gate is off: run \`tracegate install --gate --scope ${s.scope}\``,
      );
    }
  }
  if (gating && r.oracle.status === "not_configured") notes.push("Stop is registered as the gate but no oracle is configured: it only records");
  if (r.errors_log.last.length) notes.push(`${plural(r.errors_log.last.length, "recent line")} in ${r.errors_log.path}`);
  const installed = r.settings.some((s) => s.entries.length > 0) || r.plugin.enabled.length > 0;
  const status = !installed ? "not_installed" : problems.length ? "problems" : "healthy";
  return { status, problems, notes };
}

function claudeCodeReport(env: Env): DoctorReport["claude_code"] {
  try {
    const { found, left } = registrableEvents(env);
    return { found: found.map(({ source, path, version }) => ({ source, path, version })), left_out: left };
  } catch {
    return { found: [], left_out: [] };
  }
}

/** Gather every fact doctor reports (`harness`: only that harness's hook config). */
export async function diagnose(env: Env, cwd: string, harness?: string): Promise<DoctorReport> {
  // A scope whose file is another scope's (run from the home directory) is listed once.
  const all = Object.values(ADAPTERS).flatMap((a) => {
    const seen = new Set<string>();
    return (a.install.scopes as Scope[]).flatMap((s) => {
      const path = a.install.path(s, env, cwd);
      if (seen.has(path)) return [];
      seen.add(path);
      return [inspectSettings(a, s, env, cwd)];
    });
  });
  const settings = harness ? all.filter((s) => s.harness === harness) : all;
  // Cursor runs Claude Code's user and project hooks too (its "third-party hooks" setting).
  const cursorOn = all.some((s) => s.harness === "cursor" && s.entries.length > 0);
  const cursorRunsClaude = cursorOn && (!harness || harness === "cursor" || harness === "claude")
    ? all.filter((s) => s.harness === "claude" && s.entries.length > 0).map((s) => s.path)
    : [];
  const bins = [...new Set(settings.flatMap((s) => s.entries.map((e) => e.bin)))];
  const running = runningBinary();
  const { versionInfo } = await import("../cli/version.ts");
  const v = versionInfo();
  const home = dataDir(env);
  const { config, oracle } = await loadConfigReport(env, cwd);
  const facts = {
    running: { path: running, version: `${v.version} (${v.commit})` },
    settings,
    binaries: bins.map((b) => inspectBinary(b, cwd)),
    plugin: { enabled: enabledPlugins(env) },
    data_dir: inspectDataDir(home),
    config,
    oracle: await checkOracle(oracle, config.path, config.errors),
    errors_log: lastErrors(home),
    claude_code: claudeCodeReport(env),
    cursor_runs_claude: cursorRunsClaude,
  };
  return { ...facts, ...judge(facts) };
}

function human(r: DoctorReport): string {
  const L: string[] = [];
  L.push(`tracegate ${r.running.version}${r.running.path ? ` at ${r.running.path}` : " (from source)"}`);
  L.push("");
  for (const s of r.settings) {
    // Harnesses other than Claude Code are listed only where tracegate is found registered.
    if (s.harness !== "claude" && s.entries.length === 0 && !s.error) continue;
    const state = !s.exists ? "not present" : s.error ? `ERROR: ${s.error}` : s.entries.length === 0 ? "no tracegate entries" : `${s.entries.length} entries, Stop ${s.stop === "gate" ? "as the gate" : s.stop === "observe" ? "observed" : "not registered"}`;
    const who = s.harness === "claude" ? "" : `${ADAPTERS[s.harness]?.title ?? s.harness}, `;
    L.push(`settings (${who}${s.scope}) ${s.path}: ${state}`);
    for (const e of s.entries) {
      const cap = e.cap_ms === null ? "?" : s.unit === "ms" ? `${e.cap_ms}ms` : `${e.cap_ms / 1000}s`;
      const ok = e.timeout_ms !== null && e.cap_ms !== null && e.timeout_ms > e.cap_ms;
      L.push(`  ${e.event.padEnd(20)} ${[e.subcommand, ...e.args].join(" ").padEnd(22)} timeout ${e.timeout ?? "none"}${s.unit} > cap ${cap}  ${ok ? "ok" : "PROBLEM"}`);
    }
  }
  if (r.plugin.enabled.length) L.push(`plugin: ${r.plugin.enabled.join(", ")} enabled`);
  for (const c of r.claude_code.found) L.push(`Claude Code ${c.version ?? "(version unknown)"} (${c.source}: ${c.path})`);
  for (const l of r.claude_code.left_out) L.push(`  ${l.event} is not registered: ${l.because}`);
  for (const b of r.binaries) {
    L.push(`binary ${b.path}: ${b.executable ? (b.version ?? "no version") : "MISSING"}`);
  }
  L.push(`data dir ${r.data_dir.path}: ${r.data_dir.writable ? "writable" : `NOT writable (${r.data_dir.error})`}`);
  L.push(`config ${r.config.path || "?"}: ${r.config.errors.length ? "INVALID" : r.config.exists ? "valid" : "not present (defaults)"}`);
  L.push(`oracle: ${r.oracle.url ? `${r.oracle.url}: ` : ""}${r.oracle.status === "ok" ? "" : `${r.oracle.status}: `}${r.oracle.detail}`);
  if (r.errors_log.last.length) {
    L.push(`last errors (${r.errors_log.path}):`);
    for (const l of r.errors_log.last) L.push(`  ${l}`);
  } else {
    L.push("errors log: empty");
  }
  L.push("");
  for (const p of r.problems) L.push(`problem: ${p}`);
  for (const n of r.notes) L.push(`note: ${n}`);
  L.push(
    r.status === "healthy"
      ? "status: healthy"
      : r.status === "problems"
        ? `status: ${plural(r.problems.length, "problem")} found`
        : "status: not installed (run: tracegate install)",
  );
  return `${L.join("\n")}\n`;
}

/** `tracegate doctor [--json]` */
export async function doctorCommand(argv: string[]): Promise<number> {
  let json = false;
  let harness: string | undefined;
  try {
    const { values } = parseArgs({ args: argv, options: { json: { type: "boolean", default: false }, harness: { type: "string" } }, strict: true });
    json = values.json === true;
    harness = values.harness;
    if (harness !== undefined && !Object.hasOwn(ADAPTERS, harness)) {
      throw new Error(`unknown harness "${harness.slice(0, 40)}": --harness must be one of ${Object.keys(ADAPTERS).join(", ")}`);
    }
  } catch (e) {
    return fail(`${(e as Error).message}\nusage: tracegate doctor [--harness NAME] [--json]`, 2);
  }
  const r = await diagnose(process.env, process.cwd(), harness);
  // Settings files, config errors and the error log are text anyone could have written.
  out(json ? `${escapeControl(JSON.stringify(r, null, 2), { json: true })}\n` : escapeControl(human(r)));
  return r.status === "healthy" ? 0 : r.status === "problems" ? 1 : 2;
}

