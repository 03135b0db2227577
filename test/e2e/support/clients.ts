/**
 * Drivers for the real agent clients other than Claude Code (pinned
 * devDependencies): Codex CLI, Gemini CLI, Copilot CLI and OpenCode, each run
 * non-interactively against the scripted model server inside a throwaway
 * world (see `makeWorld` in claude.ts: temp HOME, temp TRACEGATE_HOME, a temp
 * git repo with one commit as the working directory). Nothing leaves
 * 127.0.0.1: every client's update check, telemetry, login and plugin sync is
 * switched off or pointed at nothing, as harness-clients.md records for the
 * pinned versions.
 *
 * `prepare(world, name, modelUrl)` writes the client's own config (auth stub,
 * provider pointing at the model server, update checks off) into the world
 * before hooks are registered, so that `tracegate install --harness NAME`
 * merges its entries into that config as it would into a user's.
 * `runClient(world, name, opts)` then runs one session with a hard timeout: a
 * hung client is killed with its whole process group and reported, never left
 * to hang the suite.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, type World } from "./claude.ts";

/** The clients these drivers run. */
export type ClientName = "codex" | "gemini" | "copilot" | "opencode";

/** The pinned client binaries (node_modules/.bin). */
export const CLIENT_BIN: Record<ClientName, string> = {
  codex: join(ROOT, "node_modules", ".bin", "codex"),
  gemini: join(ROOT, "node_modules", ".bin", "gemini"),
  copilot: join(ROOT, "node_modules", ".bin", "copilot"),
  // The platform package itself: the registry here serves only the linux-x64 builds of
  // opencode-ai's per-platform optional dependencies, and a lock without the others fails `npm ci`.
  opencode: join(ROOT, "node_modules", "opencode-linux-x64", "bin", "opencode"),
};

/** The npm package each client comes from, for the "missing" message. */
export const CLIENT_PACKAGE: Record<ClientName, string> = {
  codex: "@openai/codex",
  gemini: "@google/gemini-cli",
  copilot: "@github/copilot",
  opencode: "opencode-linux-x64 (the opencode-ai 1.18.33 binary, an optionalDependency)",
};

/**
 * Copilot's launcher extracts its ~235 MB package into `$XDG_CACHE_HOME/copilot`
 * on first run. One cache for every world, outside them, so that happens once.
 */
export const COPILOT_CACHE = join(ROOT, "node_modules", ".cache", "tracegate-e2e", "xdg-cache");

/** Where each client keeps its user-level config inside a world. */
export function clientHome(world: World, name: ClientName): string {
  switch (name) {
    case "codex":
      return join(world.root, "codex-home");
    case "gemini":
      return join(world.home, ".gemini");
    case "copilot":
      return join(world.home, ".copilot");
    case "opencode":
      return join(world.home, ".config", "opencode");
  }
}

/** Environment the client needs in this world (and that `tracegate install --harness` needs to find its config). */
export function clientEnv(world: World, name: ClientName, modelUrl: string): Record<string, string> {
  switch (name) {
    case "codex":
      return { CODEX_HOME: clientHome(world, "codex"), MOCK_API_KEY: "sk-mock-e2e", RUST_LOG: "error", NO_COLOR: "1" };
    case "gemini":
      return {
        GEMINI_API_KEY: "gemini-e2e-dummy-key",
        // No /v1beta: the SDK adds it.
        GOOGLE_GEMINI_BASE_URL: modelUrl,
        // Project hooks are skipped silently with --skip-trust; this env trusts the folder instead.
        GEMINI_CLI_TRUST_WORKSPACE: "true",
        // Without it the CLI re-executes itself in a child node (for a larger heap): about half of each session's wall time here.
        GEMINI_CLI_NO_RELAUNCH: "true",
        NO_COLOR: "1",
        CI: "1",
      };
    case "copilot":
      return {
        COPILOT_HOME: clientHome(world, "copilot"),
        XDG_CACHE_HOME: COPILOT_CACHE,
        // No GitHub auth, telemetry, web tools, GitHub MCP or auto-update.
        COPILOT_OFFLINE: "true",
        COPILOT_AUTO_UPDATE: "false",
        // BYOK: Chat Completions at the model server, no login.
        COPILOT_PROVIDER_BASE_URL: `${modelUrl}/v1`,
        COPILOT_PROVIDER_TYPE: "openai",
        COPILOT_PROVIDER_WIRE_API: "completions",
        COPILOT_PROVIDER_API_KEY: "sk-mock-e2e",
        COPILOT_MODEL: "mock-model",
        NO_COLOR: "1",
      };
    case "opencode":
      return {
        XDG_CONFIG_HOME: join(world.home, ".config"),
        XDG_DATA_HOME: join(world.home, ".local", "share"),
        XDG_CACHE_HOME: join(world.home, ".cache"),
        XDG_STATE_HOME: join(world.home, ".local", "state"),
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_SHARE: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_CLAUDE_CODE: "1",
        OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
        NO_COLOR: "1",
      };
  }
}

/** The pinned @opencode-ai/plugin version OpenCode would install into each config dir. */
const OPENCODE_PLUGIN_VERSION = "1.18.33";

/**
 * OpenCode installs `@opencode-ai/plugin` from the registry into every
 * writable config dir that lacks it, and waits for that before loading
 * plugins (about 70 s of retries offline). A `node_modules/` plus a
 * package.json and lock that already name it make it skip the install.
 *
 * @example
 * ```ts
 * stubOpencodeDeps(join(world.repo, ".opencode"));
 * ```
 */
export function stubOpencodeDeps(dir: string): void {
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  const deps = { "@opencode-ai/plugin": OPENCODE_PLUGIN_VERSION };
  if (!existsSync(join(dir, "package.json"))) writeFileSync(join(dir, "package.json"), JSON.stringify({ dependencies: deps }));
  writeFileSync(join(dir, "package-lock.json"), JSON.stringify({ lockfileVersion: 3, packages: { "": { dependencies: deps } } }));
}

/**
 * Writes the client's own config into the world: provider at the model
 * server, auth stub, update checks and telemetry off. Hooks are not written
 * here (`tracegate install --harness NAME`, or a test's own entries, do that).
 *
 * @example
 * ```ts
 * prepare(world, "codex", model.url);
 * ```
 */
export function prepare(world: World, name: ClientName, modelUrl: string): void {
  const home = clientHome(world, name);
  mkdirSync(home, { recursive: true });
  switch (name) {
    case "codex":
      writeFileSync(
        join(home, "config.toml"),
        [
          `model = "mock-model"`,
          `model_provider = "mock"`,
          `approval_policy = "never"`,
          `sandbox_mode = "danger-full-access"`,
          `check_for_update_on_startup = false`,
          ``,
          `[model_providers.mock]`,
          `name = "Mock"`,
          `base_url = "${modelUrl}/v1"`,
          `wire_api = "responses"`,
          `env_key = "MOCK_API_KEY"`,
          `request_max_retries = 0`,
          `stream_max_retries = 0`,
          `stream_idle_timeout_ms = 30000`,
          ``,
          `[analytics]`,
          `enabled = false`,
          ``,
          // Project hooks (<repo>/.codex/hooks.json) need project trust as well as hook trust.
          `[projects.${JSON.stringify(world.repo)}]`,
          `trust_level = "trusted"`,
          ``,
        ].join("\n"),
      );
      return;
    case "gemini":
      writeFileSync(
        join(home, "settings.json"),
        JSON.stringify(
          {
            // Without it the env-derived auth type is "gateway", and headless mode exits 41.
            security: { auth: { selectedType: "gemini-api-key" } },
            general: { disableAutoUpdate: true, disableUpdateNag: true },
            privacy: { usageStatisticsEnabled: false },
            telemetry: { enabled: false },
          },
          null,
          2,
        ),
      );
      return;
    case "copilot":
      mkdirSync(COPILOT_CACHE, { recursive: true });
      return;
    case "opencode": {
      writeFileSync(
        join(home, "opencode.json"),
        JSON.stringify(
          {
            $schema: "https://opencode.ai/config.json",
            model: "mock/mock-model",
            small_model: "mock/mock-model",
            enabled_providers: ["mock"],
            autoupdate: false,
            share: "disabled",
            lsp: false,
            formatter: false,
            permission: { bash: "allow", edit: "allow", external_directory: "allow" },
            provider: {
              mock: {
                npm: "@ai-sdk/openai-compatible",
                name: "Mock",
                options: { baseURL: `${modelUrl}/v1`, apiKey: "sk-mock-e2e" },
                models: { "mock-model": { name: "Mock Model", tool_call: true, limit: { context: 128000, output: 4096 } } },
              },
            },
          },
          null,
          2,
        ),
      );
      stubOpencodeDeps(home);
      return;
    }
  }
}

export interface ClientRunOptions {
  readonly prompt: string;
  /** The scripted model server's base URL. */
  readonly modelUrl: string;
  /** Kill the client (and its process group) after this many ms (default 120 s). */
  readonly timeoutMs?: number;
  /** Extra CLI arguments, after the defaults. */
  readonly args?: readonly string[];
  /** Extra environment on top of the world's and the client's. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Polled every 100 ms while the client runs; the first time it returns
   * true, SIGINT goes to the client's process group (a Ctrl-C).
   */
  readonly interruptWhen?: () => boolean;
  /**
   * The signal `interruptWhen` sends to the client's process group: SIGINT (default), as a Ctrl-C,
   * or SIGTERM, as a supervisor ending a job. (Gemini 0.61.0 ignores a SIGTERM to its own pid while a
   * tool runs and finishes the session.)
   */
  readonly interruptSignal?: "SIGINT" | "SIGTERM";
}

export interface ClientRun {
  readonly client: ClientName;
  /** Exit code, or null when killed (see `timedOut`). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
  readonly timedOut: boolean;
  /** With `interruptWhen`: ms from the SIGINT to the exit, or null when it was never sent. */
  readonly interruptedMs: number | null;
}

/** The non-interactive command line for one prompt. */
function commandLine(name: ClientName, prompt: string): { args: string[]; stdin: string | null } {
  switch (name) {
    case "codex":
      // Without --dangerously-bypass-hook-trust, `codex exec` skips user hooks silently.
      return { args: ["exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "--dangerously-bypass-approvals-and-sandbox", prompt], stdin: null };
    case "gemini":
      return { args: ["-p", prompt, "--yolo"], stdin: null };
    case "copilot":
      // --trust-folder: repo hooks (.github/hooks) are skipped silently in an untrusted folder.
      return { args: ["-p", prompt, "--allow-all-tools", "--no-auto-update", "--trust-folder"], stdin: null };
    case "opencode":
      // `opencode run` quotes any argv word that has a space; the prompt goes on stdin.
      return { args: ["run"], stdin: `${prompt}\n` };
  }
}

/**
 * Runs one session of a client in the world's repo and waits for it to exit
 * or be killed at the timeout.
 *
 * @example
 * ```ts
 * const run = await runClient(world, "codex", { prompt: "run ls", modelUrl: model.url });
 * run.code; // 0
 * ```
 */
export async function runClient(world: World, name: ClientName, opts: ClientRunOptions): Promise<ClientRun> {
  // A project config dir (written by a project-scope install) needs the same stub as the global one.
  if (name === "opencode" && existsSync(join(world.repo, ".opencode"))) stubOpencodeDeps(join(world.repo, ".opencode"));
  const { args, stdin } = commandLine(name, opts.prompt);
  args.push(...(opts.args ?? []));
  const env = { ...world.env, ...clientEnv(world, name, opts.modelUrl), ...opts.env };
  const started = performance.now();
  const child = spawn(CLIENT_BIN[name], args, { cwd: world.repo, env, stdio: [stdin === null ? "ignore" : "pipe", "pipe", "pipe"], detached: true });
  if (stdin !== null) child.stdin!.end(stdin);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    // Its own process group: takes the hooks and tools it started down with it.
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  }, opts.timeoutMs ?? 120_000);
  let interruptedAt: number | null = null;
  const poll = opts.interruptWhen
    ? setInterval(() => {
        if (interruptedAt !== null || !opts.interruptWhen!()) return;
        interruptedAt = performance.now();
        const signal = opts.interruptSignal ?? "SIGINT";
        try {
          process.kill(-child.pid!, signal);
        } catch {
          child.kill(signal);
        }
      }, 100)
    : null;
  const code = await new Promise<number | null>((res) => {
    child.on("error", (e) => {
      stderr += String(e);
      res(null);
    });
    child.on("close", (c) => res(c));
  });
  clearTimeout(timer);
  if (poll) clearInterval(poll);
  const ended = performance.now();
  return {
    client: name,
    code,
    stdout,
    stderr,
    durationMs: ended - started,
    timedOut,
    interruptedMs: interruptedAt === null ? null : ended - interruptedAt,
  };
}

/**
 * Throws with the client's output when it did not exit 0 (a failed run's
 * stderr is the first thing to read).
 */
export function expectCleanExit(run: ClientRun): void {
  if (run.code !== 0) {
    throw new Error(`${run.client} exited ${run.code} (timed out: ${run.timedOut}) after ${Math.round(run.durationMs)} ms\nstdout: ${run.stdout.slice(-4000)}\nstderr: ${run.stderr.slice(-6000)}`);
  }
}

/**
 * Whether the client is installed; when not, warns loudly, and in CI throws
 * (a missing real part must fail there, not skip).
 */
export function clientAvailable(name: ClientName): boolean {
  if (existsSync(CLIENT_BIN[name])) return true;
  const msg = `${CLIENT_BIN[name]} is missing: the ${CLIENT_PACKAGE[name]} devDependency is not installed (run \`npm ci\`)`;
  if (process.env.CI === "true") throw new Error(msg);
  console.warn(`SKIP ${name} e2e: ${msg}`);
  return false;
}
