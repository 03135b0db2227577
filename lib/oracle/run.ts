/**
 * One oracle job on the oracle host: check out the base commit into a fresh
 * temporary directory, apply the diff, run the test command, clean up.
 *
 * This is the one part of tracegate that uses the `git` CLI: the reference
 * oracle runs on a machine the operator controls (a CI box, a grader), not on
 * the agent's machine, and `git apply` is the reference reader of the patches
 * the collector sends. The checkout is `git clone --shared --no-checkout` of
 * `--repo` (objects borrowed through alternates, so no copy and no change to
 * the source repository, and any object it has is reachable, pushed or not),
 * then `git checkout --detach BASE` and `git apply --binary`.
 *
 * @example
 * ```ts
 * import { runJob } from "./run.ts";
 * const r = await runJob({ repo: "/srv/task", base: sha, diff, testCmd: "npm test", timeoutMs: 600_000 });
 * r.verdict; // "PASS" | "FAIL"
 * ```
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  opts: { cwd?: string; input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {},
): Promise<ProcResult> {
  return new Promise((resolve) => {
    const posix = process.platform !== "win32";
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: { ...(opts.env ?? process.env), TRACEGATE_INTERNAL: "1" },
      stdio: [opts.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: posix,
      windowsHide: true,
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
}

export interface JobResult {
  readonly verdict: "PASS" | "FAIL";
  readonly tests_hash: string;
  /** Why the verdict is what it is, for the operator's log; never sent to the agent. */
  readonly detail: string;
  readonly exit_code: number | null;
  readonly timed_out: boolean;
  readonly applied: boolean;
  readonly ms: number;
  /** The tail of the test command's stdout and stderr, for `oracle serve --verbose` (operator only). */
  readonly output?: string;
}

/** Thrown when the oracle itself cannot do the job (not the agent's fault): the server answers 500. */
export class OracleJobError extends Error {
  override name = "OracleJobError";
}

/**
 * Run one job to a verdict. A diff that does not apply is a FAIL: the agent's
 * change, as sent, does not make the tests pass. A test command past its time
 * limit is a FAIL too. Oracle-side failures (clone, checkout, test listing)
 * throw `OracleJobError`.
 */
export async function runJob(input: JobInput): Promise<JobResult> {
  const started = performance.now();
  const root = await mkdtemp(join(input.tmpRoot ?? tmpdir(), "tracegate-oracle-"));
  const wt = join(root, "wt");
  const ms = () => Math.round(performance.now() - started);
  try {
    if (!COMMIT_RE.test(input.base)) throw new OracleJobError("base commit is not a full hex object id");
    const clone = await runProcess("git", ["clone", "--quiet", "--shared", "--no-checkout", input.repo, wt], {
      timeoutMs: 300_000,
      signal: input.signal,
    });
    if (clone.code !== 0) throw new OracleJobError(`git clone failed: ${clone.stderr.trim()}`);
    const co = await runProcess("git", ["-C", wt, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", input.base], {
      timeoutMs: 300_000,
      signal: input.signal,
    });
    if (co.code !== 0) throw new OracleJobError(`git checkout failed: ${co.stderr.trim()}`);

    let tests_hash = testsHashOfCommand(input.testCmd);
    if (input.testsListCmd) {
      // Listed at the base commit, before the diff: the agent's change cannot choose which tests count.
      const [c, a] = shell(input.testsListCmd);
      const list = await runProcess(c, a, { cwd: wt, timeoutMs: input.timeoutMs, signal: input.signal });
      if (list.code !== 0) throw new OracleJobError(`--tests-list exited ${list.code ?? list.signal}: ${list.stderr.trim().slice(-500)}`);
      tests_hash = testsHashOfList(list.stdout);
    }

    if (input.diff.trim().length > 0) {
      const apply = await runProcess("git", ["-C", wt, "apply", "--binary", "--whitespace=nowarn", "-"], {
        input: input.diff,
        timeoutMs: 300_000,
        signal: input.signal,
      });
      if (apply.code !== 0) {
        return { verdict: "FAIL", tests_hash, detail: `diff does not apply: ${apply.stderr.trim().slice(-500)}`, exit_code: null, timed_out: false, applied: false, ms: ms() };
      }
    }

    const [c, a] = shell(input.testCmd);
    const t = await runProcess(c, a, { cwd: wt, timeoutMs: input.timeoutMs, signal: input.signal });
    if (input.signal?.aborted) throw new OracleJobError("job cancelled");
    const pass = t.code === 0 && !t.timedOut;
    const detail = t.timedOut
      ? `test command timed out after ${input.timeoutMs} ms`
      : `test command exited ${t.code ?? t.signal}`;
    const output = `${t.stdout}${t.stdout && t.stderr ? "\n" : ""}${t.stderr}`;
    return { verdict: pass ? "PASS" : "FAIL", tests_hash, detail, exit_code: t.code, timed_out: t.timedOut, applied: true, ms: ms(), output };
  } finally {
    await rm(root, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
  }
}
