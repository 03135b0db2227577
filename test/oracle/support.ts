/**
 * Test support for the oracle: a real task repository in a temp dir, a key
 * pair, and a real `tracegate oracle serve` child process on 127.0.0.1.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "..", "..");
const MAIN = join(ROOT, "main.ts");

/** The CLI from source, run by the same Bun that runs the tests. */
export function cliArgv(): string[] {
  return [process.execPath, MAIN];
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
  }).trim();
}

/**
 * A task repository whose test (`sh check.sh`) passes iff answer.txt holds 42.
 * answer.txt does not exist at the base commit, so a passing diff adds a new file.
 * A file named `slow` makes the check sleep for its content's seconds first.
 */
export function makeTaskRepo(dir: string): { repo: string; base: string } {
  const repo = join(dir, "repo");
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  writeFileSync(
    join(repo, "check.sh"),
    'if [ -f slow ]; then sleep "$(cat slow)"; fi\ntest "$(cat answer.txt 2>/dev/null)" = 42\n',
  );
  writeFileSync(join(repo, "README.md"), "the task: write 42 into answer.txt\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "base");
  return { repo, base: git(repo, "rev-parse", "HEAD") };
}

/** The unified diff that a change to the task repo makes against its base, as `git diff` writes it. */
export function diffOf(repo: string, files: Record<string, string>): string {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, name)), { recursive: true });
    writeFileSync(join(repo, name), content);
  }
  git(repo, "add", "-A");
  const diff = execFileSync("git", ["diff", "--cached", "--binary"], { cwd: repo, encoding: "utf8" });
  git(repo, "reset", "-q", "--hard", "HEAD");
  git(repo, "clean", "-qfdx");
  return diff;
}

export function keygen(dir: string): { keyFile: string; pubFile: string; pub: string; priv: string; tokenFile: string; token: string } {
  const out = join(dir, "keys");
  execFileSync(cliArgv()[0]!, [cliArgv()[1]!, "oracle", "keygen", "--out", out], { encoding: "utf8" });
  const keyFile = join(out, "oracle.key");
  const pubFile = join(out, "oracle.pub");
  const tokenFile = join(out, "oracle.token");
  return { keyFile, pubFile, tokenFile, token: readFileSync(tokenFile, "utf8").trim(), pub: readFileSync(pubFile, "utf8"), priv: readFileSync(keyFile, "utf8") };
}

/** The bearer token `serve` and `postJson` use unless told otherwise. */
export const TEST_TOKEN = "test-token-" + Math.random().toString(36).slice(2);

/** Headers that carry TEST_TOKEN, for GETs. */
export const AUTH = { authorization: `Bearer ${TEST_TOKEN}` };

let sandboxChecked: boolean | undefined;

/**
 * Whether bubblewrap can sandbox here. Without it the oracle tests run with
 * `--no-sandbox` after a loud warning, and fail under CI=true.
 */
export function bwrapWorks(): boolean {
  if (sandboxChecked !== undefined) return sandboxChecked;
  const r = Bun.spawnSync(["sh", "-c", "bwrap --unshare-all --ro-bind / / true"]);
  sandboxChecked = r.exitCode === 0;
  if (!sandboxChecked) {
    const msg = "bubblewrap (bwrap) is missing or cannot create namespaces: oracle tests run with --no-sandbox and the sandbox tests cannot run. Install it with .ci/setup.d/20-bubblewrap.sh (Debian: apt-get install bubblewrap).";
    if (process.env.CI === "true") throw new Error(msg);
    console.warn(`SKIPPING SANDBOX: ${msg}`);
  }
  return sandboxChecked;
}

/** `--no-sandbox` when bubblewrap cannot run here (see `bwrapWorks`), else nothing. */
export function sandboxArgs(): string[] {
  return bwrapWorks() ? [] : ["--no-sandbox"];
}

export interface Served {
  readonly url: string;
  readonly proc: ReturnType<typeof Bun.spawn>;
  stderr(): Promise<string>;
  stop(): Promise<void>;
}

/** Start `tracegate oracle serve ARGS --port 0` and wait for its "listening on URL" line. */
export async function serve(args: string[], env: Record<string, string> = {}, cli: string[] = cliArgv()): Promise<Served> {
  const withToken = args.includes("--token-file") || env.TRACEGATE_ORACLE_TOKEN ? {} : { TRACEGATE_ORACLE_TOKEN: TEST_TOKEN };
  const proc = Bun.spawn([...cli, "oracle", "serve", "--port", "0", ...sandboxArgs(), ...args], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...withToken, ...env },
  });
  const reader = proc.stdout.getReader();
  let text = "";
  const deadline = Date.now() + 20_000;
  while (!text.includes("\n") && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
  if (!m) {
    proc.kill();
    throw new Error(`oracle serve did not start: ${text} ${await new Response(proc.stderr).text()}`);
  }
  let errText: Promise<string> | undefined;
  return {
    url: m[1]!,
    proc,
    stderr: () => (errText ??= new Response(proc.stderr).text()),
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

export function tempDir(prefix = "tg-oracle-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function cleanup(...dirs: string[]): void {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TEST_TOKEN}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: res.status, body: parsed };
}
