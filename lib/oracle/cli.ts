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
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { err, fail, out } from "../cli/print.ts";
import { runProcess } from "./run.ts";
import type { Sandbox } from "./sandbox.ts";
import { keyIdOf } from "./verdict.ts";

const USAGE = `usage:
  tracegate oracle keygen --out DIR [--force]
  tracegate oracle serve --repo DIR --test-cmd CMD --key FILE --token-file FILE
                         [--protect GLOB]... [--port N] [--host 127.0.0.1]
                         [--tests-list CMD] [--timeout S] [--max-diff-bytes N] [--queue N]
                         [--jobs N] [--wait S] [--max-attempts N] [--keep-jobs N] [--keep-bytes N]
                         [--cpu S] [--memory MB] [--allow-net] [--sandbox-ro DIR]... [--no-sandbox]
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
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const priv = privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    const pub = publicKey.export({ type: "spki", format: "pem" }) as string;
    // Created 0600 so the private key is never readable by others, not even for a moment.
    writeFileSync(keyPath, priv, { mode: 0o600, flag: values.force ? "w" : "wx" });
    chmodSync(keyPath, 0o600);
    writeFileSync(pubPath, pub, { mode: 0o644 });
    if (values.force || !existsSync(tokenPath)) {
      writeFileSync(tokenPath, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
      chmodSync(tokenPath, 0o600);
    }
    out(`wrote ${keyPath} (private, 0600), ${pubPath} and ${tokenPath} (0600)\nkey_id ${keyIdOf(publicKey)}\n`);
    return 0;
  } catch (e) {
    return fail(`keygen: ${(e as Error).message}`, 1);
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
      "token-file": { type: "string" },
      protect: { type: "string", multiple: true },
      "no-sandbox": { type: "boolean" },
      "allow-net": { type: "boolean" },
      "sandbox-ro": { type: "string", multiple: true },
      cpu: { type: "string" },
      memory: { type: "string" },
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
  for (const [name, min] of [["port", 0], ["timeout", 0.001], ["max-diff-bytes", 1], ["queue", 0], ["jobs", 1], ["wait", 0], ["cpu", 1], ["memory", 16], ["max-attempts", 1], ["keep-jobs", 1], ["keep-bytes", 1024]] as const) {
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
    if (process.platform !== "win32" && (statSync(keyFile).mode & 0o077) !== 0) {
      err(`tracegate: warning: ${keyFile} is readable by others; chmod 600 it\n`);
    }
  } catch (e) {
    return fail(`cannot read --key ${keyFile}: ${(e as Error).message}`, 1);
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

  const { DEFAULT_CPU_SECONDS, DEFAULT_MEMORY_BYTES, probeSandbox } = await import("./sandbox.ts");
  const sandbox: Sandbox = values["no-sandbox"]
    ? { kind: "none" }
    : {
        kind: "bwrap",
        bwrap: process.env.TRACEGATE_BWRAP || "bwrap",
        cpuSeconds: Number.isNaN(nums.cpu!) ? DEFAULT_CPU_SECONDS : nums.cpu!,
        memoryBytes: Number.isNaN(nums.memory!) ? DEFAULT_MEMORY_BYTES : nums.memory! * 1024 * 1024,
        network: values["allow-net"] === true,
        readOnly: ((values["sandbox-ro"] as string[] | undefined) ?? []).map((d) => resolve(d)),
      };
  const unusable = await probeSandbox(sandbox);
  if (unusable) {
    return fail(`oracle serve: the test sandbox is not available: ${unusable}.\nInstall bubblewrap (Debian: apt-get install bubblewrap), or pass --no-sandbox to run the agent's code unsandboxed with the oracle's own privileges.`, 1);
  }
  if (sandbox.kind === "none") err("tracegate: WARNING: --no-sandbox: test commands run with the oracle's own privileges; they can read the key and change --repo\n");

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
    });
  } catch (e) {
    return fail(`oracle serve: ${(e as Error).message}`, 1);
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
