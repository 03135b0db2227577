/**
 * Where the reference oracle runs the agent's code: under bubblewrap, with
 * user, PID, mount, network, IPC, UTS and cgroup namespaces of its own, as an
 * unprivileged user, with the system directories read-only, only the job
 * checkout writable, a private /tmp, no network (unless the operator allows
 * it), CPU-time and address-space limits, and the wall-clock limit of the job.
 * The test process sees neither the oracle process (its own PID namespace and
 * /proc), nor the key file, nor `--repo` (neither is mounted), nor the
 * oracle's port (its own network namespace).
 *
 * An oracle running as root hands the checkout to uid/gid 65534 and starts
 * bubblewrap as that user, so even a sandbox escape is not root; run as
 * another user, bubblewrap maps that user to 65534 inside.
 *
 * `--no-sandbox` (kind "none") runs the commands directly, as the oracle's own
 * user, and the server says so on every job.
 *
 * @example
 * ```ts
 * const box = { kind: "bwrap" as const, bwrap: "bwrap", cpuSeconds: 600, memoryBytes: 8 * 2 ** 30, network: false };
 * const { cmd, args } = sandboxed(box, "/tmp/job/wt", "npm test");
 * ```
 */
import { existsSync, lchownSync, lstatSync, readdirSync, readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** How the oracle runs test commands: bubblewrap with these limits, or (`--no-sandbox`) directly. */
export type Sandbox =
  | {
      readonly kind: "bwrap";
      /** The bubblewrap binary. */
      readonly bwrap: string;
      /** RLIMIT_CPU of the test command, seconds. */
      readonly cpuSeconds: number;
      /** RLIMIT_AS of the test command, bytes. */
      readonly memoryBytes: number;
      /**
       * RLIMIT_NPROC inside the sandbox (default DEFAULT_PROCESSES): a fork
       * bomb in the agent's tests stops at this many processes instead of
       * taking the oracle host down. Counted per user namespace (Linux 5.14+).
       */
      readonly processes?: number;
      /** Share the host's network (default: none but a private loopback). */
      readonly network: boolean;
      /** Extra host directories mounted read-only at the same path (a toolchain outside /usr). */
      readonly readOnly?: readonly string[];
      /**
       * How the unprivileged user is had. `userns` (default): bubblewrap runs
       * as that user in its own user namespace. `setpriv`: for a root oracle
       * on a host that forbids unprivileged user namespaces, bubblewrap runs
       * as root with every namespace but the user one, keeps only
       * CAP_SETUID/CAP_SETGID, and `setpriv` drops to uid/gid 65534 with no
       * capabilities and no_new_privs before the command runs. Chosen by
       * `chooseSandbox`.
       */
      readonly mode?: "userns" | "setpriv";
    }
  | { readonly kind: "none" };

/** The unprivileged user the test command runs as. */
export const SANDBOX_UID = 65534;
export const SANDBOX_GID = 65534;
/** `--cpu` default: CPU seconds per test command. */
export const DEFAULT_CPU_SECONDS = 600;
/** `--memory` default: address space per process. Generous because JIT runtimes reserve far more than they use. */
export const DEFAULT_MEMORY_BYTES = 8 * 1024 ** 3;
/** `--procs` default: processes (and threads) the sandbox user may have at once; test runners with worker pools stay far below it. */
export const DEFAULT_PROCESSES = 1024;

const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"];
const PATH = "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin";

const asRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

/** How to run one command string in the job checkout `wt`. */
export interface SandboxedCommand {
  readonly cmd: string;
  readonly args: string[];
  readonly env: NodeJS.ProcessEnv;
  readonly uid?: number;
  readonly gid?: number;
}

function systemMounts(extra: readonly string[]): string[] {
  const out: string[] = [];
  for (const d of [...SYSTEM_DIRS, ...extra]) {
    let st;
    try {
      st = lstatSync(d);
    } catch {
      continue;
    }
    // Merged-/usr systems have /bin -> usr/bin: recreate the link, do not bind through it.
    if (st.isSymbolicLink()) out.push("--symlink", readlinkSync(d), d);
    else if (st.isDirectory()) out.push("--ro-bind", d, d);
  }
  return out;
}

/**
 * The command line for `command` in `wt`. Inside, a small shell sets the
 * limits and then runs the command with `sh -c`, so the command string is
 * never parsed by the outer shell.
 */
export function sandboxed(box: Sandbox, wt: string, command: string): SandboxedCommand {
  if (box.kind === "none") {
    const [cmd, args] = process.platform === "win32" ? ["cmd.exe", ["/d", "/s", "/c", command]] : ["/bin/sh", ["-c", command]];
    return { cmd: cmd as string, args: args as string[], env: process.env };
  }
  // Fail closed: a limit this /bin/sh cannot set stops the job (exit 125) rather than running it
  // unlimited. RLIMIT_NPROC is `ulimit -u` in bash and `ulimit -p` in dash and busybox.
  const procs = Math.max(8, Math.floor(box.processes ?? DEFAULT_PROCESSES));
  const limits = `{ ulimit -c 0 && ulimit -t ${Math.max(1, Math.ceil(box.cpuSeconds))} && ulimit -v ${Math.max(1024, Math.floor(box.memoryBytes / 1024))} && { ulimit -u ${procs} 2>/dev/null || ulimit -p ${procs}; }; } || { echo "tracegate sandbox: cannot set the test command's limits" >&2; exit 125; }; exec /bin/sh -c "$1"`;
  const setpriv = box.mode === "setpriv";
  const namespaces = setpriv
    ? ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", ...(box.network ? [] : ["--unshare-net"]), "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    : ["--unshare-all", ...(box.network ? ["--share-net"] : []), "--uid", String(SANDBOX_UID), "--gid", String(SANDBOX_GID)];
  const drop = setpriv ? ["setpriv", `--reuid=${SANDBOX_UID}`, `--regid=${SANDBOX_GID}`, "--clear-groups", "--inh-caps=-all", "--nnp", "--"] : [];
  const args = [
    ...namespaces,
    "--die-with-parent",
    "--new-session",
    ...systemMounts(box.readOnly ?? []),
    "--proc", "/proc",
    "--dev", "/dev",
    "--tmpfs", "/tmp",
    "--tmpfs", "/run",
    "--bind", wt, wt,
    "--chdir", wt,
    "--clearenv",
    "--setenv", "PATH", PATH,
    "--setenv", "HOME", "/tmp",
    "--setenv", "TMPDIR", "/tmp",
    "--setenv", "LANG", "C.UTF-8",
    "--setenv", "TRACEGATE_INTERNAL", "1",
    "--",
    ...drop,
    "/bin/sh", "-c", limits, "sh", command,
  ];
  return {
    cmd: box.bwrap,
    args,
    env: { PATH },
    ...(asRoot() && !setpriv ? { uid: SANDBOX_UID, gid: SANDBOX_GID } : {}),
  };
}

function chownTree(path: string): void {
  lchownSync(path, SANDBOX_UID, SANDBOX_GID);
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (!st.isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name));
}

/**
 * Give the job directory to the sandbox user (only when the oracle runs as
 * root: otherwise the caller's own uid is mapped inside and owns it already).
 */
export async function handOver(box: Sandbox, root: string): Promise<void> {
  if (box.kind === "bwrap" && asRoot()) chownTree(root);
}

/**
 * The sandbox to use: `box` as given when it runs here; for a root oracle
 * whose host forbids unprivileged user namespaces, the `setpriv` mode; else
 * the reason neither runs. `TRACEGATE_SANDBOX_MODE=setpriv` forces that mode
 * (tests of it on a host that allows both).
 *
 * @example
 * ```ts
 * const r = await chooseSandbox({ kind: "bwrap", bwrap: "bwrap", cpuSeconds: 600, memoryBytes: 2 ** 33, network: false });
 * if ("problem" in r) console.error(r.problem); else console.log(r.box.kind);
 * ```
 */
export async function chooseSandbox(box: Sandbox, env: Readonly<Record<string, string | undefined>> = process.env): Promise<{ box: Sandbox } | { problem: string }> {
  if (box.kind === "none") return { box };
  const forced = env.TRACEGATE_SANDBOX_MODE === "setpriv";
  const first = forced ? "forced" : await probeSandbox({ ...box, mode: "userns" });
  if (first === null) return { box: { ...box, mode: "userns" } };
  if (!asRoot()) return { problem: first };
  const second = await probeSandbox({ ...box, mode: "setpriv" });
  if (second === null) return { box: { ...box, mode: "setpriv" } };
  return { problem: forced ? second : `${first}; as root with setpriv: ${second}` };
}

/**
 * Whether the sandbox can run here: bubblewrap is found and can create its
 * namespaces (a container may forbid them). Returns null when it can, else
 * what went wrong.
 */
export async function probeSandbox(box: Sandbox): Promise<string | null> {
  if (box.kind === "none") return null;
  const { runProcess } = await import("./run.ts");
  const dir = await mkdtemp(join(tmpdir(), "tracegate-probe-"));
  try {
    const wt = join(dir, "wt");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(wt);
    await handOver(box, dir);
    const run = sandboxed(box, wt, "test \"$(id -u)\" != 0 && touch ok");
    const r = await runProcess(run.cmd, run.args, { cwd: wt, timeoutMs: 30_000, env: run.env, uid: run.uid, gid: run.gid });
    if (r.code === 0 && existsSync(join(wt, "ok"))) return null;
    const said = `${r.stderr}`.trim().slice(-300);
    return r.code === null && !said ? `cannot run ${box.bwrap} (is bubblewrap installed? Debian: apt-get install bubblewrap)` : `${box.bwrap} cannot create its sandbox here: ${said || `exit ${r.code}`}`;
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}
