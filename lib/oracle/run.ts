/**
 * One oracle job on the oracle host: check out the base commit into a fresh
 * temporary directory, apply the diff, run the test command, clean up.
 *
 * This is the one part of tracegate that uses the `git` CLI: the reference
 * oracle runs on a machine the operator controls (a CI box, a grader), not on
 * the agent's machine, and `git apply` is the reference reader of the patches
 * the collector sends. The checkout is a fresh `git init` that fetches BASE
 * from `file://<--repo>` (with `uploadpack.allowAnySHA1InWant`): a full copy
 * of the objects through the git transport, so the job shares nothing
 * writable with `--repo` (no alternates, no hard links, no shared object
 * directory) and any commit it has can be a base, on a branch or not. Then
 * `git checkout --detach BASE`,
 * `git apply --binary`, the protected paths restored from BASE, and the test
 * command run in the sandbox (see sandbox.ts).
 *
 * @example
 * ```ts
 * import { runJob } from "./run.ts";
 * const r = await runJob({ repo: "/srv/task", base: sha, diff, testCmd: "npm test", timeoutMs: 600_000 });
 * r.verdict; // "PASS" | "FAIL"
 * ```
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sandboxed, handOver, type Sandbox } from "./sandbox.ts";
import { sha256Hex } from "./verdict.ts";

export interface ProcResult {
  readonly code: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** Output kept per stream: enough for a server log line, bounded so a chatty suite cannot eat memory. */
const KEEP_BYTES = 64 * 1024;

function keepTail(chunks: Buffer[], total: number): string {
  const buf = Buffer.concat(chunks);
  return buf.subarray(Math.max(0, buf.length - Math.min(total, KEEP_BYTES))).toString("utf8");
}

/**
 * Run a process with no stdin (or the given input), `TRACEGATE_INTERNAL=1`, and
 * a time limit that kills its whole process group, so a test runner's
 * children die with it.
 */
export function runProcess(
  cmd: string,
  args: readonly string[],
  opts: { cwd?: string; input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv; signal?: AbortSignal; uid?: number; gid?: number } = {},
): Promise<ProcResult> {
  return new Promise((resolve) => {
    const posix = process.platform !== "win32";
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: { ...(opts.env ?? process.env), TRACEGATE_INTERNAL: "1" },
      stdio: [opts.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: posix,
      windowsHide: true,
      ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
      ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
    });
    const out: Buffer[] = [];
    const errs: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    const push = (arr: Buffer[], b: Buffer, n: number): number => {
      arr.push(b);
      // Keep a rolling window, not the whole stream.
      while (arr.length > 1 && n - arr[0]!.length > KEEP_BYTES) n -= arr.shift()!.length;
      return n;
    };
    child.stdout?.on("data", (b: Buffer) => (outBytes = push(out, b, outBytes + b.length)));
    child.stderr?.on("data", (b: Buffer) => (errBytes = push(errs, b, errBytes + b.length)));
    let timedOut = false;
    const kill = () => {
      try {
        if (posix && child.pid) process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          kill();
        }, opts.timeoutMs)
      : undefined;
    const onAbort = () => kill();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (opts.input !== undefined) {
      child.stdin?.on("error", () => {});
      child.stdin?.end(opts.input);
    }
    let settled = false;
    const done = (code: number | null, signal: string | null) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      // The group may still hold grandchildren that ignored the parent's exit.
      if (posix && child.pid && (timedOut || opts.signal?.aborted)) kill();
      resolve({ code, signal, timedOut, stdout: keepTail(out, outBytes), stderr: keepTail(errs, errBytes) });
    };
    child.on("error", (e) => {
      errs.push(Buffer.from(String(e.message)));
      done(null, null);
    });
    child.on("close", (code, signal) => done(code, signal));
  });
}

/** The shell for a command string: `sh -c` on POSIX, `cmd /d /s /c` on Windows. */
export function shell(command: string): [string, string[]] {
  return process.platform === "win32" ? ["cmd.exe", ["/d", "/s", "/c", command]] : ["/bin/sh", ["-c", command]];
}

/** A full hex object id (sha1 or sha256): anything else never reaches git's argv. */
export const COMMIT_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * Whether `repo` has `commit` as a commit object.
 *
 * @example
 * ```ts
 * await hasCommit("/srv/task", "0".repeat(40)); // false
 * ```
 */
export async function hasCommit(repo: string, commit: string): Promise<boolean> {
  if (!COMMIT_RE.test(commit)) return false;
  const r = await runProcess("git", ["-C", repo, "cat-file", "-e", `${commit}^{commit}`], { timeoutMs: 30_000 });
  return r.code === 0;
}

/**
 * `tests_hash` from a test-list command's output: the sha256 (hex) of the
 * sorted, de-duplicated, trimmed, non-empty lines, each followed by "\n".
 * Sorted so that a runner listing the same tests in another order gives the
 * same hash: the hash names the set of tests, not the run.
 *
 * @example
 * ```ts
 * testsHashOfList("b\na\n\na\n") === testsHashOfList("a\nb"); // true
 * ```
 */
export function testsHashOfList(output: string): string {
  const lines = [...new Set(output.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0))].sort();
  return sha256Hex(lines.map((l) => l + "\n").join(""));
}

/**
 * `tests_hash` when no test-list command is given: the sha256 (hex) of the
 * test command string itself.
 */
export function testsHashOfCommand(testCmd: string): string {
  return sha256Hex(testCmd);
}

export interface JobInput {
  readonly repo: string;
  readonly base: string;
  readonly diff: string;
  readonly testCmd: string;
  readonly testsListCmd?: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Parent for the temporary checkout (default: the OS temp dir). */
  readonly tmpRoot?: string;
  /** Globs (relative to the repository root) restored from BASE after the diff is applied. */
  readonly protect?: readonly string[];
  /** Where the test commands run: bubblewrap, or (with `--no-sandbox`) directly. */
  readonly sandbox: Sandbox;
}

export interface JobResult {
  readonly verdict: "PASS" | "FAIL";
  readonly tests_hash: string;
  /** Why the verdict is what it is, for the operator's log; never sent to the agent. */
  readonly detail: string;
  readonly exit_code: number | null;
  readonly timed_out: boolean;
  readonly applied: boolean;
  /** Protected paths the diff touched (restored from BASE before the tests ran). */
  readonly protected_touched: readonly string[];
  readonly ms: number;
}

/** Thrown when the oracle itself cannot do the job (not the agent's fault): the server answers 500. */
export class OracleJobError extends Error {
  override name = "OracleJobError";
}

/** Git with no hooks, no ownership check (the checkout may belong to the sandbox user) and literal paths. */
function gitArgs(wt: string, ...args: string[]): string[] {
  return ["-C", wt, "-c", "safe.directory=*", "-c", "core.hooksPath=/dev/null", "--literal-pathspecs", ...args];
}

/**
 * Restore every path matching a `--protect` glob that the applied diff
 * touched: back to its BASE content when BASE has it, removed when the diff
 * added it. Returns the touched paths, or the reason they could not be restored.
 */
async function restoreProtected(wt: string, base: string, globs: readonly string[], signal?: AbortSignal): Promise<{ touched: string[]; error?: string }> {
  const opt = { timeoutMs: 300_000, signal };
  const add = await runProcess("git", gitArgs(wt, "add", "-A"), opt);
  if (add.code !== 0) return { touched: [], error: `git add failed: ${add.stderr.trim().slice(-300)}` };
  const names = await runProcess("git", gitArgs(wt, "diff", "--cached", "--name-only", "--no-renames", "-z", base), opt);
  if (names.code !== 0) return { touched: [], error: `git diff failed: ${names.stderr.trim().slice(-300)}` };
  const matchers = globs.map((g) => new Bun.Glob(g));
  const touched = names.stdout.split("\0").filter((p) => p && matchers.some((m) => m.match(p)));
  if (touched.length === 0) return { touched };
  const inBase = await runProcess("git", gitArgs(wt, "ls-tree", "-r", "-z", "--name-only", base, "--", ...touched), opt);
  const existing = new Set(inBase.stdout.split("\0").filter(Boolean));
  const restore = touched.filter((p) => existing.has(p));
  const remove = touched.filter((p) => !existing.has(p));
  if (remove.length) {
    const rmr = await runProcess("git", gitArgs(wt, "rm", "-q", "-f", "-r", "--", ...remove), opt);
    if (rmr.code !== 0) return { touched, error: `could not remove protected paths the diff added: ${rmr.stderr.trim().slice(-300)}` };
  }
  if (restore.length) {
    const co = await runProcess("git", gitArgs(wt, "checkout", base, "--", ...restore), opt);
    if (co.code !== 0) return { touched, error: `could not restore protected paths: ${co.stderr.trim().slice(-300)}` };
  }
  return { touched };
}

/** Run a command string in the job checkout, through the sandbox. */
async function runTest(input: JobInput, root: string, wt: string, command: string) {
  await handOver(input.sandbox, root);
  const run = sandboxed(input.sandbox, wt, command);
  return runProcess(run.cmd, run.args, { cwd: wt, timeoutMs: input.timeoutMs, signal: input.signal, env: run.env, uid: run.uid, gid: run.gid });
}

/**
 * Run one job to a verdict. A diff that does not apply is a FAIL: the agent's
 * change, as sent, does not make the tests pass. So is a diff whose changes to
 * protected paths cannot be undone, and a test command past its time limit.
 * Oracle-side failures (clone, checkout, test listing) throw `OracleJobError`.
 */
export async function runJob(input: JobInput): Promise<JobResult> {
  const started = performance.now();
  const root = await mkdtemp(join(input.tmpRoot ?? tmpdir(), "tracegate-oracle-"));
  const wt = join(root, "wt");
  const ms = () => Math.round(performance.now() - started);
  const base = { exit_code: null, timed_out: false, protected_touched: [] as string[] };
  try {
    if (!COMMIT_RE.test(input.base)) throw new OracleJobError("base commit is not a full hex object id");
    // A fresh repository that fetches exactly the base commit (and its history) through the git
    // transport: a full copy, no alternates or hard links into --repo, and any commit --repo has
    // can be a base, on a branch or not.
    const init = await runProcess("git", ["-c", "init.defaultBranch=job", "init", "--quiet", wt], { timeoutMs: 60_000, signal: input.signal });
    if (init.code !== 0) throw new OracleJobError(`git init failed: ${init.stderr.trim()}`);
    const fetched = await runProcess("git", gitArgs(wt, "-c", "uploadpack.allowAnySHA1InWant=true", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", `file://${resolve(input.repo)}`, input.base), {
      timeoutMs: 300_000,
      signal: input.signal,
    });
    if (fetched.code !== 0) throw new OracleJobError(`git fetch of the base commit failed: ${fetched.stderr.trim()}`);
    // Nothing in the job may point back into --repo.
    if (existsSync(join(wt, ".git", "objects", "info", "alternates"))) throw new OracleJobError("the job checkout borrows objects through alternates");
    const co = await runProcess("git", gitArgs(wt, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", input.base), {
      timeoutMs: 300_000,
      signal: input.signal,
    });
    if (co.code !== 0) throw new OracleJobError(`git checkout failed: ${co.stderr.trim()}`);

    let tests_hash = testsHashOfCommand(input.testCmd);
    if (input.testsListCmd) {
      // Listed at the base commit, before the diff: the agent's change cannot choose which tests count.
      const list = await runTest(input, root, wt, input.testsListCmd);
      if (list.code !== 0) throw new OracleJobError(`--tests-list exited ${list.code ?? list.signal}: ${list.stderr.trim().slice(-500)}`);
      tests_hash = testsHashOfList(list.stdout);
    }

    if (input.diff.trim().length > 0) {
      const apply = await runProcess("git", gitArgs(wt, "apply", "--binary", "--whitespace=nowarn", "-"), {
        input: input.diff,
        timeoutMs: 300_000,
        signal: input.signal,
      });
      if (apply.code !== 0) {
        return { ...base, verdict: "FAIL", tests_hash, detail: `diff does not apply: ${apply.stderr.trim().slice(-500)}`, applied: false, ms: ms() };
      }
    }
    let touched: string[] = [];
    if (input.protect?.length) {
      const r = await restoreProtected(wt, input.base, input.protect, input.signal);
      touched = r.touched;
      if (r.error) return { ...base, protected_touched: touched, verdict: "FAIL", tests_hash, detail: r.error, applied: true, ms: ms() };
    }

    const t = await runTest(input, root, wt, input.testCmd);
    if (input.signal?.aborted) throw new OracleJobError("job cancelled");
    const pass = t.code === 0 && !t.timedOut;
    const detail = t.timedOut
      ? `test command timed out after ${input.timeoutMs} ms`
      : `test command exited ${t.code ?? t.signal}`;
    return { verdict: pass ? "PASS" : "FAIL", tests_hash, detail, exit_code: t.code, timed_out: t.timedOut, applied: true, protected_touched: touched, ms: ms() };
  } finally {
    await rm(root, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
  }
}
