/**
 * Replaying real harness payloads through the compiled binary, the way the
 * harness does it: `tracegate install --harness NAME` writes the hook config
 * into a temp world, and each payload is piped into the exact command string
 * install wrote for its event, run by `/bin/sh -c` as the harness runs it.
 *
 * The payloads are the captured ones in test/fixtures/harness/ (real clients,
 * pinned versions; see its README). Their world path `/tmp/e2e-world` is
 * rewritten to the test's temp world.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adapterFor } from "../../lib/harness/registry.ts";
import { findOwnEntries } from "../../lib/install/own-file.ts";
import { dialectOf } from "../../lib/install/register.ts";
import { findEntries } from "../../lib/install/settings.ts";
import { serve, TEST_TOKEN, type Served } from "../oracle/support.ts";
import { BINARY, ROOT, baseEnv, cleanup, recordsIn, tempDir } from "../support/tracegate.ts";

export const FIXTURES = join(ROOT, "test", "fixtures", "harness");
/** The planted, checksum-valid fake GitHub token in every captured `basic` scenario. */
export const PLANTED = "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";

export interface Step {
  readonly event: string;
  readonly file: string;
  readonly payload: Record<string, any>;
}

/** The captured payloads of one scenario, in firing order. */
export function scenario(harness: string, name: string): Step[] {
  const dir = join(FIXTURES, harness, name);
  return readdirSync(dir)
    .filter((f) => /^\d+-.+\.json$/.test(f))
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10))
    .map((file) => ({ event: file.replace(/^\d+-|\.json$/g, ""), file, payload: JSON.parse(readFileSync(join(dir, file), "utf8")) }));
}

export interface HookRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface World {
  readonly root: string;
  readonly repo: string;
  readonly base: string;
  readonly home: string;
  readonly userHome: string;
  readonly env: Record<string, string>;
  /** `tracegate ARGS` as a user runs it (cwd: the repo). */
  cli(...args: string[]): { code: number | null; out: string; err: string };
  /** Pipe `payload` (world path rewritten) into the installed command for `event`. */
  fire(event: string, payload: Record<string, unknown>): HookRun;
  /** The same, without blocking this process (for a test that acts while the hook runs). */
  fireAsync(event: string, payload: Record<string, unknown>): Promise<HookRun>;
  /** Every record in the store. */
  records(): any[];
  /** Every byte the data dir holds, for "no secret on disk" checks. */
  storeText(): string;
  /** Start a real `tracegate oracle serve` over the repo and point the user config at it. */
  oracle(opts?: { down?: boolean; max_attempts?: number }): Promise<void>;
  cleanup(): Promise<void>;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
  }).trim();
}

/**
 * A world for one harness: a git repo whose task is "answer.txt holds 42", a
 * HOME, a data dir, and tracegate installed for the harness (`--gate` when asked).
 */
export function makeWorld(harness: string, opts: { gate?: boolean; env?: Record<string, string> } = {}): World {
  const root = tempDir(`tg-${harness}-`);
  const repo = join(root, "repo");
  const userHome = join(root, "home");
  const home = join(root, "data");
  mkdirSync(userHome, { recursive: true });
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  writeFileSync(join(repo, "check.sh"), 'test "$(cat answer.txt 2>/dev/null)" = 42\n');
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "base");
  const base = git(repo, "rev-parse", "HEAD");
  const configPath = join(root, "config.jsonc");
  const env = baseEnv({ HOME: userHome, TRACEGATE_HOME: home, TRACEGATE_CONFIG: configPath, ...opts.env });
  const adapter = adapterFor(harness);
  const stops: Served[] = [];

  const cli = (...args: string[]) => {
    const r = spawnSync(BINARY, args, { env, cwd: repo, encoding: "utf8" });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const inst = cli("install", "--harness", harness, ...(opts.gate ? ["--gate"] : []));
  if (inst.code !== 0) throw new Error(`install --harness ${harness} failed: ${inst.err}`);
  const path = adapter.install.path("user", env, repo);
  const text = readFileSync(path, "utf8");
  // A plugin (OpenCode) has no shell commands: its tests drive the plugin module itself.
  const found = adapter.install.plugin ? [] : adapter.install.layout === "own-file" ? findOwnEntries(text, adapter, path).entries : findEntries(text, dialectOf(adapter));
  const commands = new Map(found.map((f) => [f.event, f.command]));

  const rewrite = (p: unknown) => JSON.stringify(p).replaceAll("/tmp/e2e-world/repo", repo).replaceAll("/tmp/e2e-world", root);

  return {
    root,
    repo,
    base,
    home,
    userHome,
    env,
    cli,
    fire(event, payload) {
      const command = commands.get(event);
      if (!command) throw new Error(`no installed ${harness} entry for ${event}`);
      const r = spawnSync("/bin/sh", ["-c", command], { input: rewrite(payload), env, cwd: repo, encoding: "utf8", timeout: 60_000 });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    },
    async fireAsync(event, payload) {
      const command = commands.get(event);
      if (!command) throw new Error(`no installed ${harness} entry for ${event}`);
      const proc = Bun.spawn(["/bin/sh", "-c", command], { stdin: "pipe", stdout: "pipe", stderr: "pipe", env, cwd: repo });
      proc.stdin.write(rewrite(payload));
      await proc.stdin.end();
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { code, stdout, stderr };
    },
    records: () => recordsIn(home),
    storeText() {
      const out: string[] = [];
      const walk = (d: string) => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          const p = join(d, e.name);
          if (e.isDirectory()) walk(p);
          else if (e.isFile()) out.push(readFileSync(p, "utf8"));
        }
      };
      try {
        walk(home);
      } catch {
        // no store yet
      }
      return out.join("\n");
    },
    async oracle(o = {}) {
      const keyDir = join(root, "keys");
      execFileSync(BINARY, ["oracle", "keygen", "--out", keyDir], { env });
      let url: string;
      if (o.down) {
        const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
        url = `http://127.0.0.1:${s.port}`;
        await s.stop(true);
      } else {
        const srv = await serve(["--repo", repo, "--test-cmd", "sh check.sh", "--key", join(keyDir, "oracle.key")], {}, [BINARY]);
        stops.push(srv);
        url = srv.url;
      }
      const config = {
        oracle: { url, public_key: join(keyDir, "oracle.pub"), token: TEST_TOKEN, timeout_s: 30, on_error: "allow" },
        gate: { max_attempts: o.max_attempts ?? 3 },
        task_id: "harness-answer",
      };
      writeFileSync(configPath, JSON.stringify(config, null, 2));
    },
    async cleanup() {
      for (const s of stops) await s.stop();
      cleanup(root);
    },
  };
}

/** Copy a fixture file into the world (e.g. Copilot's transcript) and return its new path. */
export function placeFixture(world: World, from: string, to: string): string {
  const dest = join(world.root, to);
  mkdirSync(join(dest, ".."), { recursive: true });
  copyFileSync(join(FIXTURES, from), dest);
  return dest;
}
