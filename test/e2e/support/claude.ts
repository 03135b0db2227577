/**
 * Runs the real Claude Code CLI (the pinned devDependency) in `-p` mode against
 * a scripted model server, inside a throwaway world: temp HOME, temp
 * CLAUDE_CONFIG_DIR, temp TRACEGATE_HOME, and a temp git repo with one commit
 * as the working directory. Nothing leaves 127.0.0.1.
 */
import { claude } from "../../../lib/harness/claude.ts";
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { HOOKS } from "../../../lib/hook/subcommands.ts";

/** Repo root, from this file's location. */
export const ROOT = resolve(import.meta.dir, "../../..");
/** The compiled binary the hooks run; `npm test` builds it first. */
export const TRACEGATE = join(ROOT, "dist", "tracegate");
/** The pinned Claude Code CLI. */
export const CLAUDE = join(ROOT, "node_modules", ".bin", "claude");

/** A throwaway world for one Claude Code session. */
export interface World {
  readonly root: string;
  readonly home: string;
  readonly configDir: string;
  readonly dataDir: string;
  readonly repo: string;
  /** TRACEGATE_CONFIG: a path under root; the file exists only if `config` was given. */
  readonly tracegateConfig: string;
  /** HEAD of `repo` after its one commit. */
  readonly baseCommit: string;
  /** Environment for any process that should see this world (claude, tracegate commands). */
  readonly env: Record<string, string>;
  cleanup(): void;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: "e2e",
  GIT_AUTHOR_EMAIL: "e2e@example.invalid",
  GIT_COMMITTER_NAME: "e2e",
  GIT_COMMITTER_EMAIL: "e2e@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
};

function git(cwd: string, env: Record<string, string>, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout.trim();
}

/**
 * The hand-written hook entries: every event in HOOKS runs
 * `<binary> <subcommand>` with the declared timeout.
 *
 * @example
 * ```ts
 * hookSettings("/abs/dist/tracegate").hooks.Stop[0].hooks[0].command; // "/abs/dist/tracegate stop"
 * ```
 */
export function hookSettings(binary: string = TRACEGATE) {
  const hooks: Record<string, unknown[]> = {};
  for (const [event, sub] of Object.entries(claude.events)) {
    const handler = { type: "command", command: `${binary} ${sub}`, timeout: HOOKS[sub].timeoutS };
    hooks[event] = [claude.install.matcherEvents.has(event) ? { matcher: "*", hooks: [handler] } : { hooks: [handler] }];
  }
  return { hooks };
}

export interface WorldOptions {
  /** Files committed in the repo's one commit (default: a README). */
  readonly files?: Readonly<Record<string, string>>;
  /** tracegate config (JSONC text or an object) written to TRACEGATE_CONFIG; absent by default. */
  readonly config?: string | object;
  /**
   * Claude Code settings.json: `"hooks"` (default) writes the hand-written
   * entries for dist/tracegate, an object is written as is, `false` writes
   * nothing (e.g. when `tracegate install` writes it).
   */
  readonly settings?: "hooks" | object | false;
  /** Extra environment for claude and its hooks. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Creates a world: dirs, a git repo with one commit, settings and config.
 *
 * @example
 * ```ts
 * const w = makeWorld({ files: { "a.txt": "1\n" } });
 * try { ... } finally { w.cleanup(); }
 * ```
 */
export function makeWorld(opts: WorldOptions = {}): World {
  const root = mkdtempSync(join(tmpdir(), "tracegate-e2e-"));
  const home = join(root, "home");
  const configDir = join(root, "claude-config");
  const dataDir = join(root, "data");
  const repo = join(root, "repo");
  const tracegateConfig = join(root, "tracegate-config.jsonc");
  for (const d of [home, configDir, repo]) mkdirSync(d, { recursive: true });

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    USER: process.env.USER ?? "root",
    TMPDIR: process.env.TMPDIR ?? "/tmp",
    LANG: "C.UTF-8",
    TERM: "dumb",
    CLAUDE_CONFIG_DIR: configDir,
    TRACEGATE_HOME: dataDir,
    TRACEGATE_CONFIG: tracegateConfig,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    ...GIT_ENV,
    ...opts.env,
  };

  const files = opts.files ?? { "README.md": "e2e fixture\n" };
  for (const [name, text] of Object.entries(files)) {
    const p = join(repo, name);
    mkdirSync(resolve(p, ".."), { recursive: true });
    writeFileSync(p, text);
  }
  git(repo, env, "init", "-q", "-b", "main");
  git(repo, env, "add", "-A");
  git(repo, env, "commit", "-q", "-m", "base");
  const baseCommit = git(repo, env, "rev-parse", "HEAD");

  const settings = opts.settings ?? "hooks";
  if (settings !== false) {
    const value = settings === "hooks" ? hookSettings() : settings;
    writeFileSync(join(configDir, "settings.json"), JSON.stringify(value, null, 2));
  }
  if (opts.config !== undefined) {
    writeFileSync(tracegateConfig, typeof opts.config === "string" ? opts.config : JSON.stringify(opts.config, null, 2));
  }

  return {
    root,
    home,
    configDir,
    dataDir,
    repo,
    tracegateConfig,
    baseCommit,
    env,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface ClaudeRunOptions {
  readonly prompt: string;
  /** ANTHROPIC_BASE_URL: the scripted model server. */
  readonly baseUrl: string;
  readonly sessionId?: string;
  /** Kill claude after this many ms (default 90 s). */
  readonly timeoutMs?: number;
  /** Pass `--debug-file <root>/claude-debug.log` (hook stdout shows up there). */
  readonly debug?: boolean;
  /** Extra CLI arguments. */
  readonly args?: readonly string[];
  /** Extra environment on top of the world's. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface ClaudeRun {
  readonly sessionId: string;
  /** Exit code, or null when killed (see `timedOut`). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
  readonly timedOut: boolean;
  /** Path of the debug log when `debug` was set. */
  readonly debugFile?: string;
  /** The debug log's text ("" when absent). */
  debugLog(): string;
}

/**
 * Runs `claude -p PROMPT --dangerously-skip-permissions --session-id UUID` in
 * the world's repo.
 *
 * @example
 * ```ts
 * const run = await runClaude(world, { prompt: "run ls", baseUrl: model.url, debug: true });
 * run.code; // 0
 * ```
 */
export async function runClaude(world: World, opts: ClaudeRunOptions): Promise<ClaudeRun> {
  const sessionId = opts.sessionId ?? randomUUID();
  const debugFile = opts.debug ? join(world.root, `claude-debug-${sessionId}.log`) : undefined;
  const args = ["-p", opts.prompt, "--dangerously-skip-permissions", "--session-id", sessionId];
  if (debugFile) args.push("--debug-file", debugFile);
  args.push(...(opts.args ?? []));
  const env = {
    ...world.env,
    IS_SANDBOX: "1",
    ANTHROPIC_BASE_URL: opts.baseUrl,
    ANTHROPIC_API_KEY: "sk-ant-e2e-dummy",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    ...opts.env,
  };
  const started = performance.now();
  const child = spawn(CLAUDE, args, { cwd: world.repo, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    // Its own process group: takes the hooks it started down with it.
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  }, opts.timeoutMs ?? 90_000);
  const code = await new Promise<number | null>((res) => {
    child.on("error", (e) => {
      stderr += String(e);
      res(null);
    });
    child.on("close", (c) => res(c));
  });
  clearTimeout(timer);
  return {
    sessionId,
    code,
    stdout,
    stderr,
    durationMs: performance.now() - started,
    timedOut,
    debugFile,
    debugLog: () => (debugFile && existsSync(debugFile) ? readFileSync(debugFile, "utf8") : ""),
  };
}

/**
 * Runs a tracegate user command in the world (e.g. `verify`, `show --json`).
 *
 * @example
 * ```ts
 * tracegate(world, "verify").code; // 0
 * ```
 */
export function tracegate(world: World, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(TRACEGATE, args, { cwd: world.repo, env: world.env, encoding: "utf8", timeout: 30_000 });
  return { code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

/** The session's records as parsed JSON, read through `tracegate show --json`. */
export function sessionRecords(world: World, sessionId: string): Record<string, unknown>[] {
  const r = tracegate(world, "show", sessionId, "--json");
  if (r.code !== 0) throw new Error(`tracegate show failed (${r.code}): ${r.stderr}`);
  return r.stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
