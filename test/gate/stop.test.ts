/**
 * The Stop gate handler, driven Stop by Stop the way the runtime drives it
 * (handler -> sanitize -> append), against a real agent repository, a real
 * oracle server on 127.0.0.1 and the real store.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULTS, type Config } from "../../lib/config/load.ts";
import { BLOCK_REASON } from "../../lib/gate/decide.ts";
import { analyzeSession } from "../../lib/gate/outcome.ts";
import { createStopGate, taskIdFor } from "../../lib/gate/stop.ts";
import { observe } from "../../lib/handlers/index.ts";
import type { HookContext, HookResult } from "../../lib/hook/types.ts";
import { startOracleServer, type OracleServer } from "../../lib/oracle/server.ts";
import { verifyVerdict } from "../../lib/oracle/verdict.ts";
import { createRedactor } from "../../lib/redact/index.ts";
import { sanitize } from "../../lib/trace/sanitize.ts";
import { appendRecords, readSession, sessionPath } from "../../lib/trace/store.ts";
import { bwrapWorks, cleanup, git, keygen, makeTaskRepo, tempDir } from "../oracle/support.ts";
import type { Sandbox } from "../../lib/oracle/sandbox.ts";
import { chmodSync, readFileSync } from "node:fs";

let dir: string;
let taskRepo: string;
let base: string;
let keys: ReturnType<typeof keygen>;
let other: ReturnType<typeof keygen>;
let oracle: OracleServer;
let slowOracle: OracleServer;
let deadUrl: string;
const gate = createStopGate(observe("stop"));
const redactor = createRedactor({});

beforeAll(async () => {
  dir = tempDir("tg-stop-");
  chmodSync(dir, 0o711);
  ({ repo: taskRepo, base } = makeTaskRepo(dir));
  keys = keygen(dir);
  const otherDir = join(dir, "other");
  require("node:fs").mkdirSync(otherDir);
  other = keygen(otherDir);
  const sandbox: Sandbox = bwrapWorks() ? { kind: "bwrap", bwrap: "bwrap", cpuSeconds: 60, memoryBytes: 8 * 1024 ** 3, network: false } : { kind: "none" };
  oracle = await startOracleServer({ repo: taskRepo, testCmd: "sh check.sh", privateKeyPem: keys.priv, port: 0, token: keys.token, sandbox });
  // Answers 202 at once; the job takes as long as the `slow` file says.
  slowOracle = await startOracleServer({ repo: taskRepo, testCmd: "sh check.sh", privateKeyPem: keys.priv, port: 0, waitMs: 0, token: keys.token, sandbox });
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  deadUrl = `http://127.0.0.1:${s.port}`;
  await s.stop(true);
});

afterAll(async () => {
  await Promise.all([oracle?.stop(), slowOracle?.stop()]);
  cleanup(dir);
});

interface Session {
  readonly id: string;
  readonly home: string;
  readonly work: string;
  config: Config;
  env: Record<string, string>;
  stop(opts?: { active?: boolean; remainingMs?: number }): Promise<HookResult>;
  records(): any[];
}

let n = 0;
async function session(configure: { url?: string; pub?: string; on_error?: "allow" | "block"; timeout_s?: number; max_attempts?: number; task_id?: string | null } = {}, env: Record<string, string> = {}): Promise<Session> {
  const id = `sess-${++n}`;
  const home = join(dir, `home-${n}`);
  const work = join(dir, `work-${n}`);
  execFileSync("git", ["clone", "-q", taskRepo, work]);
  const config: Config = {
    ...DEFAULTS,
    path: join(dir, "config.jsonc"),
    exists: true,
    errors: [],
    repo_errors: [],
    task_id: configure.task_id === undefined ? "task-42" : configure.task_id,
    gate: { ...DEFAULTS.gate, max_attempts: configure.max_attempts ?? 3 },
    oracle: configure.url === undefined && Object.keys(configure).length === 0 ? null : {
      url: configure.url ?? oracle.url,
      public_key: configure.pub ?? keys.pubFile,
      token: keys.token,
      timeout_s: configure.timeout_s ?? 30,
      on_error: configure.on_error ?? "allow",
    },
  };
  const ctx = (payload: unknown, hook: string, remainingMs: number, s: Session): HookContext => ({
    hook,
    harness: "claude",
    payload,
    home,
    config: s.config,
    env: s.env,
    args: [],
    remainingMs: () => remainingMs,
    now: () => new Date(),
  });
  const write = (r: HookResult) => appendRecords(home, r.records.map((rec) => sanitize(rec, redactor)));
  const s: Session = {
    id,
    home,
    work,
    config,
    env,
    async stop(opts = {}) {
      const payload = { session_id: id, hook_event_name: "Stop", cwd: work, stop_hook_active: opts.active ?? false, last_assistant_message: "done" };
      const r = await gate(ctx(payload, "stop", opts.remainingMs ?? 45_000, s));
      write(r);
      return r;
    },
    records: () => readSession(home, id).records as any[],
  };
  const start = await observe("session-start")(ctx({ session_id: id, hook_event_name: "SessionStart", cwd: work, source: "startup" }, "session-start", 2000, s));
  write(start);
  write(await observe("user-prompt-submit")(ctx({ session_id: id, hook_event_name: "UserPromptSubmit", prompt: "write 42 into answer.txt", cwd: work }, "user-prompt-submit", 2000, s)));
  return s;
}

/** The one outcome function over the stored file, under the oracle's real key. */
const outcomeOf = (s: Session, publicKey = keys.pub) => analyzeSession(readFileSync(sessionPath(s.home, s.id)), { file: sessionPath(s.home, s.id), publicKey, sessionId: s.id }).outcome;
const verdicts = (s: Session) => s.records().filter((r) => r.type === "oracle_verdict");
const answer = (s: Session, text: string) => writeFileSync(join(s.work, "answer.txt"), text);

describe("without an oracle", () => {
  test("Stop only records the assistant message and decides nothing", async () => {
    const s = await session();
    const r = await s.stop();
    expect(r.decision).toBeUndefined();
    expect(r.records.map((x) => x.type)).toEqual(["message"]);
    expect(outcomeOf(s)).toBe("no_oracle");
  });

  test("a config with errors collects without gating", async () => {
    const s = await session({ url: oracle.url });
    s.config = { ...s.config, errors: ["config.jsonc: bad"] };
    const r = await s.stop();
    expect(r.decision).toBeUndefined();
    expect(verdicts(s)).toEqual([]);
  });
});

describe("with the oracle", () => {
  test("wrong answer: blocked with the fixed reason; fixed: passes; two verified verdicts, outcome flip", async () => {
    const s = await session({ url: oracle.url });
    expect(s.records()[0].base_commit).toBe(base);
    answer(s, "41\n");
    const first = await s.stop();
    expect(first.decision).toEqual({ decision: "block", reason: BLOCK_REASON });
    answer(s, "42\n");
    const second = await s.stop({ active: true });
    expect(second.decision).toBeUndefined();
    const v = verdicts(s);
    expect(v.map((r) => [r.attempt, r.verdict, r.verified, r.decision])).toEqual([
      [1, "FAIL", true, "block"],
      [2, "PASS", true, "allow"],
    ]);
    expect(v[1].outcome).toBe("flip");
    expect(v[0].tests_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(outcomeOf(s)).toBe("flip");
    // What was stored (after redaction) still verifies: `tracegate verify` can re-check it later.
    for (const r of v) {
      expect(verifyVerdict(r.signed, keys.pub, { task_id: "task-42", session_id: s.id, base_commit: base, diff_sha256: r.diff_sha256, chain_head: r.chain_head, attempt: r.attempt })).toEqual({ verified: true });
    }
  });

  test("the last attempt's FAIL lets the agent stop: no_flip", async () => {
    const s = await session({ url: oracle.url, max_attempts: 2 });
    answer(s, "1\n");
    expect((await s.stop()).decision?.decision).toBe("block");
    answer(s, "2\n");
    expect((await s.stop({ active: true })).decision).toBeUndefined();
    expect(verdicts(s).map((r) => [r.verdict, r.decision, r.outcome])).toEqual([
      ["FAIL", "block", undefined],
      ["FAIL", "allow", "no_flip"],
    ]);
    expect(outcomeOf(s)).toBe("no_flip");
  });

  test("the harness cap: the block Claude Code overrides is recorded as cap", async () => {
    const s = await session({ url: oracle.url, max_attempts: 20 }, { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: "2" });
    answer(s, "0\n");
    for (let i = 0; i < 3; i++) expect((await s.stop({ active: i > 0 })).decision?.decision).toBe("block");
    expect(verdicts(s).map((r) => [r.attempt, r.blocks_in_row, r.block_cap, r.outcome])).toEqual([
      [1, 1, 2, undefined],
      [2, 2, 2, undefined],
      [3, 3, 2, "cap"],
    ]);
    expect(outcomeOf(s)).toBe("cap");
  });

  test("TRACEGATE_TASK_ID is the task sent and signed", async () => {
    const s = await session({ url: oracle.url }, { TRACEGATE_TASK_ID: "from-env" });
    answer(s, "42\n");
    await s.stop();
    expect(verdicts(s)[0].signed.task_id).toBe("from-env");
    expect(verdicts(s)[0].verified).toBe(true);
    expect(taskIdFor({}, null)).toBe("default");
    expect(taskIdFor({}, "cfg")).toBe("cfg");
  });
});

describe("when the oracle cannot be trusted or reached", () => {
  test("a verdict signed by another key: verified false, never a flip, allowed by default", async () => {
    const s = await session({ url: oracle.url, pub: other.pubFile });
    answer(s, "42\n");
    const r = await s.stop();
    expect(r.decision).toBeUndefined();
    const [v] = verdicts(s);
    expect([v.verdict, v.verified, v.decision, v.outcome]).toEqual(["PASS", false, "allow", "no_flip"]);
    expect(v.problem).toContain("not the configured key");
    // Under the key the session is configured with, it is unverified; signed by the real oracle key, it is what it says.
    expect(outcomeOf(s, other.pub)).toBe("unverified");
  });

  test("an unreadable public key: unverified", async () => {
    const s = await session({ url: oracle.url, pub: join(dir, "missing.pub") });
    answer(s, "42\n");
    await s.stop();
    expect(verdicts(s)[0]).toMatchObject({ verified: false });
    expect(verdicts(s)[0].problem).toContain("cannot read oracle.public_key");
  });

  test("oracle down: an ERROR verdict, the stop allowed, no_flip", async () => {
    const s = await session({ url: deadUrl });
    answer(s, "42\n");
    const r = await s.stop({ remainingMs: 6_000 });
    expect(r.decision).toBeUndefined();
    expect(verdicts(s).map((v) => [v.verdict, v.verified, v.decision])).toEqual([["ERROR", false, "allow"]]);
    expect(verdicts(s)[0].problem).toContain("unreachable");
    expect(outcomeOf(s)).toBe("no_flip");
  });

  test("oracle down with on_error block: blocks, then gives up at max_attempts", async () => {
    const s = await session({ url: deadUrl, on_error: "block", max_attempts: 2 });
    expect((await s.stop({ remainingMs: 6_000 })).decision?.decision).toBe("block");
    expect((await s.stop({ active: true, remainingMs: 6_000 })).decision).toBeUndefined();
    expect(verdicts(s).map((v) => [v.attempt, v.verdict, v.decision])).toEqual([
      [1, "ERROR", "block"],
      [2, "ERROR", "allow"],
    ]);
  });

  test("no base commit (no session_start record): ERROR, allowed", async () => {
    const s = await session({ url: oracle.url });
    rmSync(join(s.home, "sessions"), { recursive: true });
    const r = await s.stop();
    expect(r.decision).toBeUndefined();
    expect(verdicts(s)[0].problem).toContain("no base commit");
  });
});

describe("a slow oracle", () => {
  test("202: provisional block with the same reason; the next Stop picks the verdict up", async () => {
    const s = await session({ url: slowOracle.url, timeout_s: 0.3 });
    answer(s, "42\n");
    writeFileSync(join(s.work, "slow"), "1");
    const first = await s.stop();
    expect(first.decision).toEqual({ decision: "block", reason: BLOCK_REASON });
    const [p] = verdicts(s);
    expect([p.verdict, p.attempt, p.verified, p.decision]).toEqual(["PENDING", 1, false, "block"]);
    expect(p.job_id).toBeString();
    s.config = { ...s.config, oracle: { ...s.config.oracle!, timeout_s: 20 } };
    const second = await s.stop({ active: true });
    expect(second.decision).toBeUndefined();
    const v = verdicts(s);
    expect(v.map((r) => [r.attempt, r.verdict, r.verified, r.job_id === p.job_id])).toEqual([
      [1, "PENDING", false, true],
      [1, "PASS", true, true],
    ]);
    expect(outcomeOf(s)).toBe("flip");
  });

  test("a pending job for a diff the agent has since changed is not picked up: a new attempt", async () => {
    const s = await session({ url: slowOracle.url, timeout_s: 0.3 });
    answer(s, "41\n");
    writeFileSync(join(s.work, "slow"), "1");
    await s.stop();
    answer(s, "42\n");
    s.config = { ...s.config, oracle: { ...s.config.oracle!, timeout_s: 20 } };
    await s.stop({ active: true });
    expect(verdicts(s).map((r) => [r.attempt, r.verdict])).toEqual([
      [1, "PENDING"],
      [2, "PASS"],
    ]);
  });
});

test("the agent repository is left as it was (no git state written by the gate)", async () => {
  const s = await session({ url: oracle.url });
  answer(s, "42\n");
  const before = git(s.work, "status", "--porcelain");
  await s.stop();
  expect(git(s.work, "status", "--porcelain")).toBe(before);
});
