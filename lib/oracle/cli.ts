/**
 * `tracegate oracle keygen --out DIR` and `tracegate oracle serve ...`: the
 * reference oracle's command line.
 *
 * @example
 * ```sh
 * tracegate oracle keygen --out ./keys
 * tracegate oracle serve --repo ./task --test-cmd "npm test" --key ./keys/oracle.key
 * ```
 */
import { nodeCrypto } from "../runtime/builtins.ts";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createExclusive, replaceFile } from "../fs/safe-open.ts";
import { join, resolve } from "node:path";
import type { ParseArgsOptionsConfig } from "node:util";
import { parseArgs } from "../runtime/builtins.ts";
import { err, fail, out } from "../cli/print.ts";
import { runProcess } from "./run.ts";
import type { Sandbox } from "./sandbox.ts";
import { keyIdOf } from "./verdict.ts";

const USAGE = `usage:
  tracegate oracle keygen --out DIR [--force]
  tracegate oracle serve --repo DIR --test-cmd CMD --key FILE --token-file FILE
                         [--protect GLOB]... [--port N] [--host 127.0.0.1]
                         [--tests-list CMD] [--timeout S] [--max-diff-bytes N] [--queue N]
                         [--jobs N] [--wait S] [--verbose] [--max-attempts N] [--keep-jobs N] [--keep-bytes N]
                         [--cpu S] [--memory MB] [--procs N] [--allow-net] [--sandbox-ro DIR]... [--no-sandbox]
`;

/** Dispatch `tracegate oracle <sub>`. */
export async function oracleCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "keygen") return keygen(rest);
  if (sub === "serve") return serve(rest);
  if (sub === "--help" || sub === "-h" || sub === "help") {
    out(USAGE);
    return 0;
  }
  err(USAGE);
  return fail(sub ? `unknown oracle command "${sub}"` : "oracle needs a command", 2);
}

function parse(argv: string[], options: ParseArgsOptionsConfig) {
  return parseArgs({ args: argv, options, allowPositionals: false, strict: true });
}

/**
 * Write an Ed25519 key pair, oracle.key (PKCS8 PEM, mode 0600) and oracle.pub
 * (SPKI PEM), and oracle.token (a random bearer token, mode 0600) for
 * `serve --token-file` and the clients' `oracle.token`.
 */
async function keygen(argv: string[]): Promise<number> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parse(argv, { out: { type: "string" }, force: { type: "boolean" } }));
  } catch (e) {
    return fail(`${(e as Error).message}\n${USAGE}`, 2);
  }
  if (typeof values.out !== "string") return fail(`keygen needs --out DIR\n${USAGE}`, 2);
  const dir = resolve(values.out);
  const keyPath = join(dir, "oracle.key");
  const pubPath = join(dir, "oracle.pub");
  const tokenPath = join(dir, "oracle.token");
  if (!values.force && (existsSync(keyPath) || existsSync(pubPath))) {
    return fail(`${keyPath} or ${pubPath} already exists; pass --force to replace the key pair`, 1);
  }
  try {
    mkdirSync(dir, { recursive: true });
    const { privateKey, publicKey } = nodeCrypto().generateKeyPairSync("ed25519");
    const priv = privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    const pub = publicKey.export({ type: "spki", format: "pem" }) as string;
    // A fresh file, mode fixed before the first byte, renamed into place
    // (--force) or created exclusively: never written through a symlink or
    // into a file that was readable before.
    const write = values.force ? replaceFile : createExclusive;
    write(keyPath, priv, 0o600);
    write(pubPath, pub, 0o644);
    if (values.force || !existsSync(tokenPath)) write(tokenPath, `${nodeCrypto().randomBytes(32).toString("base64url")}\n`, 0o600);
    out(`wrote ${keyPath} (private, 0600), ${pubPath} and ${tokenPath} (0600)\nkey_id ${keyIdOf(publicKey)}\n`);
    return 0;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return fail(`cannot write the key pair into ${dir} (${code ?? (e as Error).message}); pass an --out DIR you can write to`, 1);
  }
}

function positiveInt(v: unknown, name: string, min = 1): number | string {
  if (v === undefined) return NaN;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || (name !== "--timeout" && name !== "--wait" && !Number.isInteger(n))) {
    return `${name} must be a number >= ${min}`;
  }
  return n;
}

/** Run the reference oracle until SIGINT/SIGTERM. */
async function serve(argv: string[]): Promise<number> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parse(argv, {
      repo: { type: "string" },
      "test-cmd": { type: "string" },
      key: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      "tests-list": { type: "string" },
      timeout: { type: "string" },
      "max-diff-bytes": { type: "string" },
      queue: { type: "string" },
      jobs: { type: "string" },
      wait: { type: "string" },
      verbose: { type: "boolean" },
      "token-file": { type: "string" },
      protect: { type: "string", multiple: true },
      "no-sandbox": { type: "boolean" },
      "allow-net": { type: "boolean" },
      "sandbox-ro": { type: "string", multiple: true },
      cpu: { type: "string" },
      memory: { type: "string" },
      procs: { type: "string" },
      "max-attempts": { type: "string" },
      "keep-jobs": { type: "string" },
      "keep-bytes": { type: "string" },
    }));
  } catch (e) {
    return fail(`${(e as Error).message}\n${USAGE}`, 2);
  }
  for (const req of ["repo", "test-cmd", "key"]) {
    if (typeof values[req] !== "string" || values[req] === "") return fail(`serve needs --${req}\n${USAGE}`, 2);
  }
  const nums: Record<string, number> = {};
  for (const [name, min] of [["port", 0], ["timeout", 0.001], ["max-diff-bytes", 1], ["queue", 0], ["jobs", 1], ["wait", 0], ["cpu", 1], ["memory", 16], ["procs", 8], ["max-attempts", 1], ["keep-jobs", 1], ["keep-bytes", 1024]] as const) {
    const n = positiveInt(values[name], `--${name}`, min);
    if (typeof n === "string") return fail(n, 2);
    nums[name] = n;
  }
  if (!Number.isNaN(nums.port!) && nums.port! > 65535) return fail("--port must be <= 65535", 2);

  const repo = resolve(values.repo as string);
  const check = await runProcess("git", ["-C", repo, "rev-parse", "--git-dir"], { timeoutMs: 30_000 });
  if (check.code !== 0) {
    return fail(`--repo ${repo} is not a git repository (the oracle host needs the git CLI): ${check.stderr.trim()}`, 1);
  }

  const keyFile = resolve(values.key as string);
  let privateKeyPem: string;
  try {
    privateKeyPem = readFileSync(keyFile, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return fail(`cannot read --key ${keyFile} (${code === "ENOENT" ? "no such file" : (code ?? (e as Error).message)}); pass the oracle.key written by \`tracegate oracle keygen --out DIR\``, 1);
  }
  const keyProblem = privateKeyProblem(privateKeyPem, keyFile);
  if (keyProblem) return fail(keyProblem, 1);
  if (process.platform !== "win32" && (statSync(keyFile).mode & 0o077) !== 0) {
    err(`tracegate: warning: ${keyFile} is readable by others; run \`chmod 600 ${keyFile}\`\n`);
  }
  for (const [flag, cmd] of [["--test-cmd", values["test-cmd"]], ["--tests-list", values["tests-list"]]] as const) {
    if (typeof cmd !== "string") continue;
    const problem = await commandProblem(cmd, repo);
    if (problem) return fail(`${flag} ${JSON.stringify(cmd)}: ${problem}; every verdict would be a FAIL. Fix ${flag} and start again`, 1);
  }

  const tokenFile = values["token-file"] as string | undefined;
  let token = process.env.TRACEGATE_ORACLE_TOKEN?.trim() ?? "";
  if (tokenFile) {
    try {
      token = readFileSync(resolve(tokenFile), "utf8").trim();
    } catch (e) {
      return fail(`cannot read --token-file ${tokenFile}: ${(e as Error).message}`, 1);
    }
  }
  if (!token) {
    return fail("serve needs a bearer token: --token-file FILE (`tracegate oracle keygen` writes oracle.token) or TRACEGATE_ORACLE_TOKEN; clients send it as oracle.token", 2);
  }

  const { DEFAULT_CPU_SECONDS, DEFAULT_MEMORY_BYTES, DEFAULT_PROCESSES, chooseSandbox } = await import("./sandbox.ts");
  const wanted: Sandbox = values["no-sandbox"]
    ? { kind: "none" }
    : {
        kind: "bwrap",
        bwrap: process.env.TRACEGATE_BWRAP || "bwrap",
        cpuSeconds: Number.isNaN(nums.cpu!) ? DEFAULT_CPU_SECONDS : nums.cpu!,
        memoryBytes: Number.isNaN(nums.memory!) ? DEFAULT_MEMORY_BYTES : nums.memory! * 1024 * 1024,
        processes: Number.isNaN(nums.procs!) ? DEFAULT_PROCESSES : nums.procs!,
        network: values["allow-net"] === true,
        readOnly: ((values["sandbox-ro"] as string[] | undefined) ?? []).map((d) => resolve(d)),
      };
  const chosen = await chooseSandbox(wanted);
  if ("problem" in chosen) {
    return fail(`oracle serve: the test sandbox is not available: ${chosen.problem}.\nInstall bubblewrap (Debian: apt-get install bubblewrap), or pass --no-sandbox to run the agent's code unsandboxed with the oracle's own privileges.`, 1);
  }
  const sandbox = chosen.box;
  if (sandbox.kind === "none") err("tracegate: WARNING: --no-sandbox: test commands run with the oracle's own privileges; they can read the key and change --repo\n");
  else err(`tracegate: test commands run under ${sandbox.bwrap} (${sandbox.mode === "setpriv" ? "as root with setpriv to uid 65534: this host forbids unprivileged user namespaces" : "in a user namespace"}${sandbox.network ? ", host network shared" : ", no network"})\n`);

  const { startOracleServer } = await import("./server.ts");
  let server;
  try {
    server = await startOracleServer({
      repo,
      testCmd: values["test-cmd"] as string,
      testsListCmd: values["tests-list"] as string | undefined,
      privateKeyPem,
      host: (values.host as string | undefined) ?? "127.0.0.1",
      port: Number.isNaN(nums.port!) ? 8700 : nums.port,
      timeoutMs: Number.isNaN(nums.timeout!) ? undefined : nums.timeout! * 1000,
      maxDiffBytes: Number.isNaN(nums["max-diff-bytes"]!) ? undefined : nums["max-diff-bytes"],
      queue: Number.isNaN(nums.queue!) ? undefined : nums.queue,
      jobs: Number.isNaN(nums.jobs!) ? undefined : nums.jobs,
      waitMs: Number.isNaN(nums.wait!) ? undefined : nums.wait! * 1000,
      token,
      sandbox,
      protect: (values.protect as string[] | undefined) ?? [],
      maxAttempts: Number.isNaN(nums["max-attempts"]!) ? undefined : nums["max-attempts"],
      keepJobs: Number.isNaN(nums["keep-jobs"]!) ? undefined : nums["keep-jobs"],
      keepBytes: Number.isNaN(nums["keep-bytes"]!) ? undefined : nums["keep-bytes"],
      log: (line) => err(`${new Date().toISOString()} ${line}\n`),
      verbose: values.verbose === true,
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const host = (values.host as string | undefined) ?? "127.0.0.1";
    if (code === "EADDRINUSE" || /in use|EADDRINUSE/i.test((e as Error).message)) {
      return fail(`port ${values.port ?? 8700} on ${host} is already in use; stop what listens there or pass another --port (0 picks a free one)`, 1);
    }
    if (code === "EADDRNOTAVAIL" || code === "EACCES") {
      return fail(`cannot listen on ${host}:${values.port ?? 8700} (${code}); pass a --host this machine has, or a --port above 1023`, 1);
    }
    return fail(`oracle serve could not start: ${(e as Error).message}`, 1);
  }
  // One stdout line, so scripts (and tests) can read the bound port.
  out(`tracegate oracle listening on ${server.url} key_id ${server.keyId}\n`);
  await new Promise<void>((done) => {
    const stop = () => done();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await server.stop();
  return 0;
}

/**
 * Why a `--key` file cannot sign: not a PEM key, or a public key passed where
 * the private one belongs. Null when it is a usable private key.
 */
export function privateKeyProblem(pem: string, file: string): string | null {
  try {
    nodeCrypto().createPrivateKey(pem);
    return null;
  } catch {
    try {
      nodeCrypto().createPublicKey(pem);
      return `--key ${file} is a public key; serve needs the private key: pass oracle.key from the same \`tracegate oracle keygen\` (oracle.pub is for the collectors' oracle.public_key)`;
    } catch {
      return `--key ${file} is not a PEM private key; pass oracle.key written by \`tracegate oracle keygen --out DIR\``;
    }
  }
}

/**
 * Check a test command before serving: its shell syntax, and that the first
 * word of each simple command (words with quotes or expansions are skipped)
 * resolves where jobs run it, so a typo fails at start instead of signing
 * FAIL for every job. Returns the problem, or null.
 */
export async function commandProblem(cmd: string, repo: string): Promise<string | null> {
  if (process.platform === "win32") return null;
  const syntax = await runProcess("/bin/sh", ["-n", "-c", cmd], { timeoutMs: 10_000 });
  if (syntax.code !== 0) return `not valid shell syntax (${syntax.stderr.trim().replace(/^.*?:\s*/, "")})`;
  for (const segment of cmd.split(/&&|\|\||[;|&\n()]/)) {
    const words = segment.trim().split(/\s+/).filter((w) => w && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    const first = words[0];
    if (!first || /["'`$\\*?{}<>!]/.test(first) || ["then", "do", "else", "fi", "done", "if", "for", "while", "case", "esac", "in"].includes(first)) continue;
    if (first.includes("/") && !first.startsWith("/")) {
      // A script in the task repository: look in its HEAD, which is what jobs check out from.
      const rel = first.replace(/^\.\//, "");
      const inRepo = await runProcess("git", ["-C", repo, "cat-file", "-e", `HEAD:${rel}`], { timeoutMs: 10_000 });
      if (inRepo.code !== 0) return `${first} is not in ${repo} at HEAD`;
      continue;
    }
    const found = await runProcess("/bin/sh", ["-c", 'command -v "$1" >/dev/null 2>&1', "sh", first], { cwd: repo, timeoutMs: 10_000 });
    if (found.code !== 0) return `${first}: command not found on this host's PATH`;
  }
  return null;
}
