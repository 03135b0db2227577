/**
 * Run the compiled binary as a child process, the way a harness does: real
 * stdin, captured stdout bytes, exit code and elapsed time.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "..", "..");
export const BINARY = join(ROOT, "dist", "tracegate");

export interface RunResult {
  readonly code: number | null;
  readonly stdout: Uint8Array;
  readonly stderr: string;
  readonly ms: number;
}

export interface RunOptions {
  readonly stdin?: string | Uint8Array;
  readonly env?: Record<string, string | undefined>;
  /** Replace the environment instead of extending a minimal one. */
  readonly cleanEnv?: boolean;
  readonly cwd?: string;
}

/** A minimal environment: PATH only, so nothing from the developer's shell leaks in. */
export function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export async function run(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const started = performance.now();
  const proc = Bun.spawn([BINARY, ...args], {
    stdin: opts.stdin === undefined ? "ignore" : "pipe",
    stdout: "pipe",
    stderr: "pipe",
    cwd: opts.cwd,
    env: opts.cleanEnv ? (opts.env as Record<string, string>) : baseEnv(opts.env),
  });
  if (opts.stdin !== undefined && proc.stdin) {
    try {
      proc.stdin.write(opts.stdin);
      await proc.stdin.end();
    } catch {
      // the child may legitimately exit before reading everything (TRACEGATE_INTERNAL)
    }
  }
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).arrayBuffer(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout: new Uint8Array(stdout), stderr, ms: performance.now() - started };
}

export function tempDir(prefix = "tg-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function cleanup(...dirs: string[]): void {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/**
 * The tool call a record is of: its `tool_use_id`, or for a `payload_cut`
 * (a hook on a machine loaded past its budget keeps the payload's head, and
 * no record is lost) the id in that head.
 */
export function toolUseIdOf(r: { type?: string; tool_use_id?: string; head?: string }): string | undefined {
  return r.type === "payload_cut" ? /"tool_use_id":"([^"]+)"/.exec(r.head ?? "")?.[1] : r.tool_use_id;
}

/** All records of a session file in a data dir, parsed. */
export function recordsIn(home: string, file?: string): any[] {
  const dir = join(home, "sessions");
  if (!existsSync(dir)) return [];
  const names = file ? [file] : readdirSync(dir);
  return names.flatMap((n) =>
    readFileSync(join(dir, n), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
  );
}

/**
 * What a payload_cut keeps of the whole payload: HMAC-SHA256 under the data
 * dir's redaction key of the payload's sha256 hex (never the plain digest).
 */
export function keyedPayloadDigest(home: string, payload: string | Uint8Array): string {
  const plain = new Bun.CryptoHasher("sha256").update(payload).digest("hex");
  return new Bun.CryptoHasher("sha256", readFileSync(join(home, "redact.key"))).update(plain).digest("hex");
}

/** Every file under a dir, relative paths, for "wrote nothing outside" checks. */
export function listTree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

export function postToolUse(sessionId: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: sessionId,
    transcript_path: "/nonexistent/transcript.jsonl",
    cwd: "/tmp",
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: "echo hi" },
    tool_response: { stdout: "hi\n", stderr: "", interrupted: false, isImage: false },
    tool_use_id: "toolu_01",
    duration_ms: 5,
    ...extra,
  });
}
