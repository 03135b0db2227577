/**
 * The Stop gate end to end: a real Claude Code (pinned devDependency) driven
 * by the scripted model server, dist/tracegate registered for every hook, and
 * a real `tracegate oracle serve` judging the agent's diff on 127.0.0.1.
 *
 * The task: answer.txt must hold 42 (`sh check.sh` on the oracle host).
 * Needs `npm run build` first (`npm test` does it).
 *
 * TRACEGATE_E2E_STOP_BIN=/path runs that binary for Stop instead of
 * `dist/tracegate stop` (e.g. a build of bench/gate/entry.ts).
 */
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BLOCK_REASON } from "../../lib/gate/decide.ts";
import { HOOKS } from "../../lib/hook/caps.ts";
import { CLAUDE, hookSettings, makeWorld, runClaude, sessionRecords, TRACEGATE, tracegate, type World } from "../e2e/support/claude.ts";
import { contentText, startModelServer, type ModelServer, type Scenario } from "../e2e/support/model-server.ts";
import { serve, type Served } from "../oracle/support.ts";

const E2E_TIMEOUT = 180_000;
const CHECK = 'if [ -f slow ]; then sleep "$(cat slow)"; fi\ntest "$(cat answer.txt 2>/dev/null)" = 42\n';

beforeAll(() => {
  if (!existsSync(TRACEGATE)) throw new Error(`${TRACEGATE} is missing: run \`npm run build\``);
  if (!existsSync(CLAUDE)) throw new Error(`${CLAUDE} is missing: the @anthropic-ai/claude-code devDependency is not installed`);
});

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function settings() {
  const s = hookSettings() as { hooks: Record<string, any[]> };
  const stopBin = process.env.TRACEGATE_E2E_STOP_BIN;
  if (stopBin) s.hooks.Stop = [{ hooks: [{ type: "command", command: stopBin, timeout: HOOKS.stop.timeoutS }] }];
  return s;
}

interface Setup {
  world: World;
  oracle: Served | null;
  model: ModelServer;
}

/**
 * A world whose repo holds the task, an oracle over a clone of it (the oracle
 * host has the task, not the agent's working tree), and the model server.
 */
async function setup(
  scenario: Scenario,
  opts: { oracle?: "up" | "down"; testCmd?: string; timeout_s?: number; max_attempts?: number; env?: Record<string, string> } = {},
): Promise<Setup> {
  const keysWorld = makeWorld({ files: { "check.sh": CHECK }, settings: false });
  cleanups.push(() => keysWorld.cleanup());
  const keyDir = join(keysWorld.root, "keys");
  execFileSync(TRACEGATE, ["oracle", "keygen", "--out", keyDir], { env: keysWorld.env });
  let url: string;
  let oracle: Served | null = null;
  if (opts.oracle === "down") {
    const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    url = `http://127.0.0.1:${s.port}`;
    await s.stop(true);
  } else {
    const task = join(keysWorld.root, "oracle-task");
    execFileSync("git", ["clone", "-q", keysWorld.repo, task]);
    oracle = await serve(["--repo", task, "--test-cmd", opts.testCmd ?? "sh check.sh", "--key", join(keyDir, "oracle.key"), "--token-file", join(keyDir, "oracle.token")], {}, [TRACEGATE]);
    cleanups.push(() => oracle!.stop());
    url = oracle.url;
  }
  // The agent's world starts from the same commit as the oracle's task repo.
  const world = makeWorld({
    files: { "check.sh": CHECK },
    settings: settings(),
    env: opts.env,
    config: {
      oracle: { url, public_key: join(keyDir, "oracle.pub"), token: readFileSync(join(keyDir, "oracle.token"), "utf8").trim(), timeout_s: opts.timeout_s ?? 30, on_error: "allow" },
      gate: { max_attempts: opts.max_attempts ?? 5 },
      task_id: "e2e-answer",
    },
  });
  cleanups.push(() => world.cleanup());
  // The oracle host must have the agent's base commit: fetch it into the task clone.
  if (oracle) execFileSync("git", ["-C", join(keysWorld.root, "oracle-task"), "fetch", "-q", world.repo, "HEAD"]);
  const model = await startModelServer(scenario);
  cleanups.push(() => model.stop());
  return { world, oracle, model };
}

const bash = (id: string, command: string) => [{ type: "tool_use" as const, id, name: "Bash", input: { command, description: "edit" } }];
const done = [{ type: "text" as const, text: "Done." }];

/** The session's outcome as `tracegate sessions --json` computes it: the one outcome function, under the configured key. */
function outcomeOf(world: World, sessionId: string): string {
  const r = tracegate(world, "sessions", "--json");
  const row = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((x) => x.session_id === sessionId);
  return row?.outcome;
}

function verdicts(records: Record<string, unknown>[]) {
  return records.filter((r) => r.type === "oracle_verdict") as Record<string, any>[];
}

/** How many times the model was told the fixed reason (a Stop hook feedback turn). */
function blocksSeen(model: ModelServer): number {
  const last = model.mainRequests().at(-1);
  return (last?.messages ?? []).filter((m) => m.role === "user" && contentText(m.content).includes(BLOCK_REASON)).length;
}

describe("the Stop gate with a real Claude Code", () => {
  test(
    "(a) wrong answer, blocked, fixed, passes: FAIL then PASS, both verified, outcome flip",
    async () => {
      const { world, model } = await setup([bash("t1", "echo 41 > answer.txt"), done, bash("t2", "echo 42 > answer.txt"), done]);
      const run = await runClaude(world, { prompt: "Write the answer into answer.txt.", baseUrl: model.url, debug: true });
      expect(run.code).toBe(0);
      expect(readFileSync(join(world.repo, "answer.txt"), "utf8")).toBe("42\n");
      const records = sessionRecords(world, run.sessionId);
      const v = verdicts(records);
      expect(v.map((r) => [r.attempt, r.verdict, r.verified, r.decision])).toEqual([
        [1, "FAIL", true, "block"],
        [2, "PASS", true, "allow"],
      ]);
      expect(outcomeOf(world, run.sessionId)).toBe("flip");
      // SessionEnd fired (it does in -p mode) and recorded the same outcome.
      expect(records.find((r) => r.type === "session_end")?.outcome).toBe("flip");
      // The model saw the fixed reason once and nothing of the test run.
      expect(blocksSeen(model)).toBe(1);
      const shown = model.mainRequests().flatMap((b) => (b.messages ?? []).map((m) => contentText(m.content))).join("\n");
      expect(shown).not.toContain("check.sh");
      expect(tracegate(world, "verify", run.sessionId).code).toBe(0);
    },
    E2E_TIMEOUT,
  );

  test(
    "(b) the tests never pass: Claude Code's cap ends the turn, outcome cap, not flip",
    async () => {
      const { world, model } = await setup([bash("t1", "echo 41 > answer.txt")], { max_attempts: 20 });
      const run = await runClaude(world, { prompt: "Write the answer into answer.txt.", baseUrl: model.url });
      expect(run.code).toBe(0);
      const records = sessionRecords(world, run.sessionId);
      const v = verdicts(records);
      // One Stop with stop_hook_active false, then 8 with it set; the 9th block is overridden.
      expect(v).toHaveLength(9);
      expect(v.every((r) => r.verdict === "FAIL" && r.verified === true && r.decision === "block")).toBe(true);
      expect(v.at(-1)!.outcome).toBe("cap");
      expect(v.map((r) => r.blocks_in_row)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(outcomeOf(world, run.sessionId)).toBe("cap");
      expect(records.find((r) => r.type === "session_end")?.outcome).toBe("cap");
      expect(blocksSeen(model)).toBe(8);
    },
    E2E_TIMEOUT,
  );

  test(
    "(c) the oracle is down: the session ends normally in bounded time, ERROR recorded, no_flip",
    async () => {
      const { world, model } = await setup([bash("t1", "echo 42 > answer.txt"), done], { oracle: "down" });
      const run = await runClaude(world, { prompt: "Write the answer into answer.txt.", baseUrl: model.url, timeoutMs: 120_000 });
      expect(run.code).toBe(0);
      expect(run.timedOut).toBe(false);
      const records = sessionRecords(world, run.sessionId);
      expect(verdicts(records).map((r) => [r.verdict, r.verified, r.decision])).toEqual([["ERROR", false, "allow"]]);
      expect(outcomeOf(world, run.sessionId)).toBe("no_flip");
      expect(blocksSeen(model)).toBe(0);
    },
    E2E_TIMEOUT,
  );

  test(
    "(d) a slow oracle: provisional block, the verdict picked up on the next Stop",
    async () => {
      const { world, model } = await setup([bash("t1", "echo 42 > answer.txt"), done, done], { testCmd: "sleep 4; sh check.sh", timeout_s: 2 });
      const run = await runClaude(world, { prompt: "Write the answer into answer.txt.", baseUrl: model.url });
      expect(run.code).toBe(0);
      const records = sessionRecords(world, run.sessionId);
      const v = verdicts(records);
      expect(v[0]).toMatchObject({ verdict: "PENDING", attempt: 1, decision: "block" });
      expect(v.at(-1)).toMatchObject({ verdict: "PASS", attempt: 1, verified: true, decision: "allow", job_id: v[0]!.job_id });
      expect(v.every((r) => r.attempt === 1)).toBe(true);
      expect(outcomeOf(world, run.sessionId)).toBe("flip");
      expect(blocksSeen(model)).toBe(v.length - 1);
    },
    E2E_TIMEOUT,
  );
});
