/**
 * The Stop gate prints its decision before any optional work (issue 10,
 * part 3), and a repository's `.tracegate.jsonc` can neither switch the gate
 * off nor delay the decision: the compiled binary's Stop hook against a real
 * `dist/tracegate oracle serve`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BLOCK_REASON } from "../../lib/gate/decide.ts";
import { BINARY, baseEnv, cleanup, run, tempDir } from "../support/tracegate.ts";
import { git, keygen, makeTaskRepo, serve, type Served } from "../oracle/support.ts";

let dir: string;
let oracle: Served;
let work: string;
let env: Record<string, string>;
let n = 0;

beforeAll(async () => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`npm run build\``);
  dir = tempDir("tg-order-");
  const { repo } = makeTaskRepo(dir);
  const keys = keygen(dir);
  oracle = await serve(["--repo", repo, "--test-cmd", "sh check.sh", "--key", keys.keyFile, "--token-file", keys.tokenFile], {}, [BINARY]);
  work = join(dir, "work");
  git(dir, "clone", "-q", repo, work);
  const config = join(dir, "config.jsonc");
  writeFileSync(config, JSON.stringify({ oracle: { url: oracle.url, public_key: keys.pubFile, token: keys.token, timeout_s: 20 }, task_id: "task-42" }));
  env = { TRACEGATE_HOME: join(dir, "home"), TRACEGATE_CONFIG: config };
}, 60_000);

afterAll(async () => {
  await oracle?.stop();
  cleanup(dir);
});

/** A session started before the repository config exists, with a wrong answer in place. */
async function startSession(): Promise<string> {
  const id = `order-${++n}`;
  for (const [hook, extra] of [["session-start", { source: "startup" }], ["user-prompt-submit", { prompt: "write 42" }]] as const) {
    const r = await run([hook], { stdin: JSON.stringify({ session_id: id, cwd: work, ...extra }), env });
    expect(r.code).toBe(0);
  }
  writeFileSync(join(work, "answer.txt"), "41\n");
  return id;
}

/**
 * Run the Stop hook and read its stdout until the first line (or `waitMs`),
 * then kill it: what matters is whether the decision is out, not how long the
 * optional work after it takes.
 */
async function stopDecision(id: string, waitMs = 30_000): Promise<string> {
  const proc = Bun.spawn([BINARY, "stop"], { stdin: "pipe", stdout: "pipe", stderr: "ignore", env: baseEnv(env), cwd: work });
  proc.stdin.write(JSON.stringify({ session_id: id, cwd: work, hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "I am done with the task now, ".repeat(4) }));
  await proc.stdin.end();
  const reader = proc.stdout.getReader();
  let out = "";
  const timer = setTimeout(() => proc.kill("SIGKILL"), waitMs);
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  clearTimeout(timer);
  proc.kill("SIGKILL");
  await proc.exited;
  return out;
}

test("a repository config that tries to set the oracle, the gate or the caps is ignored, and the gate still blocks a FAIL", async () => {
  const id = await startSession();
  writeFileSync(join(work, ".tracegate.jsonc"), JSON.stringify({ oracle: { url: "http://127.0.0.1:1", public_key: "x" }, gate: { enabled: false, max_attempts: 1 }, caps: { diff_bytes: 1 } }));
  try {
    const out = await stopDecision(id);
    expect(JSON.parse(out)).toEqual({ decision: "block", reason: BLOCK_REASON });
  } finally {
    git(work, "clean", "-qfdx");
  }
});

test("a pattern that backtracks for ever, `(.|.)*\\u0000`: the block is printed anyway, before the records are redacted", async () => {
  const id = await startSession();
  writeFileSync(join(work, ".tracegate.jsonc"), JSON.stringify({ redact: { extra: [{ kind: "evil", pattern: "(.|.)*\\u0000" }] } }));
  try {
    const out = await stopDecision(id);
    expect(JSON.parse(out)).toEqual({ decision: "block", reason: BLOCK_REASON });
  } finally {
    git(work, "clean", "-qfdx");
  }
}, 60_000);
