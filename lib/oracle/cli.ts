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
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { createExclusive, replaceFile } from "../fs/safe-open.ts";
import { join, resolve } from "node:path";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { err, fail, out } from "../cli/print.ts";
import { runProcess } from "./run.ts";
import { keyIdOf } from "./verdict.ts";

const USAGE = `usage:
  tracegate oracle keygen --out DIR [--force]
  tracegate oracle serve --repo DIR --test-cmd CMD --key FILE [--port N] [--host 127.0.0.1]
                         [--tests-list CMD] [--timeout S] [--max-diff-bytes N] [--queue N]
                         [--jobs N] [--wait S]
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

/** Write an Ed25519 key pair: oracle.key (PKCS8 PEM, mode 0600) and oracle.pub (SPKI PEM). */
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
  if (!values.force && (existsSync(keyPath) || existsSync(pubPath))) {
    return fail(`${keyPath} or ${pubPath} already exists; pass --force to replace the key pair`, 1);
  }
  try {
    mkdirSync(dir, { recursive: true });
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const priv = privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    const pub = publicKey.export({ type: "spki", format: "pem" }) as string;
    // A fresh file, mode 0600 fixed before the first byte, renamed into place
    // (--force) or created exclusively: never written through a symlink or
    // into a file that was readable before.
    if (values.force) {
      replaceFile(keyPath, priv, 0o600);
      replaceFile(pubPath, pub, 0o644);
    } else {
      createExclusive(keyPath, priv, 0o600);
      createExclusive(pubPath, pub, 0o644);
    }
    out(`wrote ${keyPath} (private, 0600) and ${pubPath}\nkey_id ${keyIdOf(publicKey)}\n`);
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
    }));
  } catch (e) {
    return fail(`${(e as Error).message}\n${USAGE}`, 2);
  }
  for (const req of ["repo", "test-cmd", "key"]) {
    if (typeof values[req] !== "string" || values[req] === "") return fail(`serve needs --${req}\n${USAGE}`, 2);
  }
  const nums: Record<string, number> = {};
  for (const [name, min] of [["port", 0], ["timeout", 0.001], ["max-diff-bytes", 1], ["queue", 0], ["jobs", 1], ["wait", 0]] as const) {
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
