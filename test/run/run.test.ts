/**
 * `tracegate run` around real clients (Claude Code and Codex, pinned
 * devDependencies) against the scripted model server and a real `tracegate
 * oracle serve`: the hooks from `tracegate install --harness NAME` (Stop
 * observed only: run is the gate) record the session; run asks the oracle
 * when the client exits and resumes the same session on FAIL.
 *
 * Needs `npm run build` first (`npm test` does it).
 */
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BLOCK_REASON } from "../../lib/gate/decide.ts";
import { claimedOutcome } from "../support/claimed-outcome.ts";
import { resumeCommand } from "../../lib/run/resume.ts";
import { CLAUDE, makeWorld, TRACEGATE, type World } from "../e2e/support/claude.ts";
import { CLIENT_BIN, clientAvailable, clientEnv, prepare } from "../e2e/support/clients.ts";
import { startModelServer, type ModelServer, type Scenario, type ServerOptions } from "../e2e/support/model-server.ts";
import { serve, TEST_TOKEN } from "../oracle/support.ts";

const CHECK = 'test "$(cat answer.txt 2>/dev/null)" = 42\n';
const PROMPT = "Write the answer into answer.txt.";
const TIMEOUT = 240_000;

beforeAll(() => {
  if (!existsSync(TRACEGATE)) throw new Error(`${TRACEGATE} is missing: run \`npm run build\``);
});

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Client = "claude" | "codex" | "opencode";

interface Setup {
  world: World;
  model: ModelServer;
  env: Record<string, string>;
}

function tg(s: Setup, ...args: string[]) {
  const r = spawnSync(TRACEGATE, args, { cwd: s.world.repo, env: s.env, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

function records(s: Setup): Record<string, any>[] {
  const list = tg(s, "sessions", "--json").stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  expect(list).toHaveLength(1);
  return tg(s, "show", list[0].session_id, "--json").stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

async function setup(client: Client, scenario: Scenario, maxAttempts: number, server?: ServerOptions): Promise<Setup> {
  const keys = makeWorld({ files: { "check.sh": CHECK }, settings: false });
  cleanups.push(() => keys.cleanup());
  const keyDir = join(keys.root, "keys");
  execFileSync(TRACEGATE, ["oracle", "keygen", "--out", keyDir], { env: keys.env });
  const task = join(keys.root, "oracle-task");
  execFileSync("git", ["clone", "-q", keys.repo, task]);
  const oracle = await serve(["--repo", task, "--test-cmd", "sh check.sh", "--key", join(keyDir, "oracle.key")], {}, [TRACEGATE]);
  cleanups.push(() => oracle.stop());
  const model = await startModelServer(scenario, server);
  cleanups.push(() => model.stop());
  const world = makeWorld({
    files: { "check.sh": CHECK },
    settings: false,
    config: { oracle: { url: oracle.url, public_key: join(keyDir, "oracle.pub"), token: TEST_TOKEN, timeout_s: 30, on_error: "allow" }, gate: { max_attempts: maxAttempts } },
  });
  cleanups.push(() => world.cleanup());
  execFileSync("git", ["-C", task, "fetch", "-q", world.repo, "HEAD"]);
  let env: Record<string, string>;
  if (client === "claude") {
    env = {
      ...world.env,
      IS_SANDBOX: "1",
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "sk-ant-e2e-dummy",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
    };
  } else {
    prepare(world, client, model.url);
    env = { ...world.env, ...clientEnv(world, client, model.url) };
  }
  const s = { world, model, env };
  const inst = tg(s, "install", "--harness", client);
  if (inst.code !== 0) throw new Error(`install failed: ${inst.stderr}`);
  return s;
}

function command(client: Client): string[] {
  if (client === "claude") return [CLAUDE, "-p", "--dangerously-skip-permissions", PROMPT];
  // OpenCode takes the prompt on stdin (it quotes argv words that contain a space).
  if (client === "opencode") return [CLIENT_BIN.opencode, "run"];
  return [CLIENT_BIN.codex, "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "--dangerously-bypass-approvals-and-sandbox", PROMPT];
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function tgRun(s: Setup, client: Client, opts: { signalWhen?: () => boolean; signal?: NodeJS.Signals } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(TRACEGATE, ["run", "--harness", client, "--task", "run-answer", "--", ...command(client)], {
      cwd: s.world.repo,
      env: s.env,
      stdio: [client === "opencode" ? "pipe" : "ignore", "pipe", "pipe"],
    });
    if (client === "opencode") child.stdin!.end(`${PROMPT}\n`);
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const killer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT - 20_000);
    let sent = false;
    const poll = opts.signalWhen
      ? setInterval(() => {
          if (!sent && opts.signalWhen!()) {
            sent = true;
            child.kill(opts.signal ?? "SIGTERM");
          }
        }, 100)
      : null;
    child.on("close", (code) => {
      clearTimeout(killer);
      if (poll) clearInterval(poll);
      resolve({ code, stdout, stderr });
    });
  });
}

const verdicts = (recs: Record<string, any>[]) => recs.filter((r) => r.type === "oracle_verdict");

for (const client of ["claude", "codex", "opencode"] as const) {
  const available = client === "claude" ? existsSync(CLAUDE) || (() => { if (process.env.CI === "true") throw new Error(`${CLAUDE} missing`); console.warn(`SKIP tracegate run with claude: ${CLAUDE} missing (npm ci)`); return false; })() : clientAvailable(client);
  describe.skipIf(!available)(`tracegate run around the real ${client} client`, () => {
    test(
      "FAIL, resume the same session with the fixed reason, PASS: exit 0, verdicts and outcome flip in that session's trace",
      async () => {
        const s = await setup(
          client,
          [
            [{ type: "shell", command: "echo 41 > answer.txt" }],
            [{ type: "text", text: "Done: wrote the answer." }],
            [{ type: "shell", command: "echo 42 > answer.txt" }],
            [{ type: "text", text: "Fixed the answer; done." }],
          ],
          3,
        );
        const r = await tgRun(s, client);
        expect({ code: r.code, stderr: r.code === 0 ? "" : r.stderr }).toEqual({ code: 0, stderr: "" });
        expect(readFileSync(join(s.world.repo, "answer.txt"), "utf8")).toBe("42\n");
        // The harness's stdout passed through: both final texts.
        expect(r.stdout).toContain("Fixed the answer; done.");
        expect(r.stderr).toContain("outcome flip");
        const recs = records(s);
        expect(verdicts(recs).map((v) => [v.attempt, v.verdict, v.verified, v.decision, v.task_id])).toEqual([
          [1, "FAIL", true, "block", "run-answer"],
          [2, "PASS", true, "allow", "run-answer"],
        ]);
        // The resume prompt was the fixed reason, recorded as a continuation of the same session.
        const reason = recs.filter((x) => x.type === "message" && x.role === "user" && String(x.text).trim() === BLOCK_REASON);
        expect(reason).toHaveLength(1);
        expect(reason[0]!.continuation).toBe(true);
        expect(recs.at(-1)).toMatchObject({ type: "session_end", reason: "tracegate-run", outcome: "flip", attempts: 2 });
        expect(claimedOutcome(recs)).toBe("flip");
        expect(s.model.mainHistories().at(-1)!.some((m) => m.role === "user" && m.text.includes(BLOCK_REASON))).toBe(true);
        expect(tg(s, "verify").code).toBe(0);
      },
      TIMEOUT,
    );

    test(
      "never passing: exit 1 after max_attempts verdicts, outcome no_flip",
      async () => {
        const s = await setup(client, [[{ type: "shell", command: "echo 41 > answer.txt" }]], 2, {
          rest: (ctx) => [{ type: "text", text: `Done, really (turn ${ctx.index}).` }],
        });
        const r = await tgRun(s, client);
        expect(r.code).toBe(1);
        const recs = records(s);
        expect(verdicts(recs).map((v) => [v.attempt, v.verdict, v.decision])).toEqual([
          [1, "FAIL", "block"],
          [2, "FAIL", "allow"],
        ]);
        expect(recs.at(-1)).toMatchObject({ type: "session_end", reason: "tracegate-run", outcome: "no_flip" });
      },
      TIMEOUT,
    );
  });
}

describe.skipIf(!existsSync(CLAUDE))("tracegate run: signals and set-up errors", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) test(
    `${signal} during the harness reaches it; the run ends with the outcome recorded, exit 1`,
    async () => {
      const s = await setup("claude", [[{ type: "shell", command: "touch tool-started; timeout 30 tail -f /dev/null; echo 42 > answer.txt" }], [{ type: "text", text: "Done." }]], 3);
      const started = Date.now();
      const toolStarted = () => existsSync(join(s.world.repo, "tool-started"));
      const r = await tgRun(s, "claude", { signalWhen: toolStarted, signal });
      expect({ code: r.code, stderr: r.code === 1 ? "" : r.stderr }).toEqual({ code: 1, stderr: "" });
      expect(Date.now() - started).toBeLessThan(60_000);
      const recs = records(s);
      expect(verdicts(recs)).toEqual([]);
      expect(recs.at(-1)).toMatchObject({ type: "session_end", reason: "interrupted", signal, outcome: "no_oracle" });
    },
    TIMEOUT,
  );

  test("usage and set-up errors exit 2 with a message", async () => {
    const s = await setup("claude", [], 3);
    const run = (...args: string[]) => tg(s, "run", ...args);
    expect(run("--", "true").code).toBe(2);
    expect(run("--harness", "claude").stderr).toContain("put it after --");
    const unknown = run("--harness", "windsurf", "--", "x");
    expect([unknown.code, unknown.stderr.includes("cannot drive")]).toEqual([2, true]);
    const noPrompt = run("--harness", "codex", "--", "codex", "exec", "--json");
    expect([noPrompt.code, noPrompt.stderr.includes("must end with the prompt")]).toEqual([2, true]);
    // No hooks recorded a session (the command is not the harness): say to install them.
    const none = run("--harness", "claude", "--", "/bin/echo", "-p", "hi");
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("tracegate install --harness claude");
    expect(none.stdout).toBe("-p hi\n");
    const missing = run("--harness", "claude", "--", join(s.world.root, "no-such-claude"), "-p", "hi");
    expect([missing.code, missing.stderr.includes("cannot run")]).toEqual([2, true]);
  });
});

test("the resume forms", () => {
  const R = "REASON";
  expect(resumeCommand("claude", ["claude", "-p", "--x", "task"], "S", R)).toEqual({ argv: ["claude", "--resume", "S", "-p", "--x", R], stdin: null });
  expect(resumeCommand("codex", ["codex", "exec", "--y", "task"], "S", R)).toEqual({ argv: ["codex", "exec", "resume", "--y", "S", R], stdin: null });
  expect(resumeCommand("gemini", ["gemini", "--yolo", "-p", "task"], "S", R)).toEqual({ argv: ["gemini", "--resume", "latest", "--yolo", "-p", R], stdin: null });
  expect(resumeCommand("copilot", ["copilot", "-p", "task", "--allow-all-tools"], "S", R)).toEqual({ argv: ["copilot", "--resume", "S", "-p", R, "--allow-all-tools"], stdin: null });
  expect(resumeCommand("opencode", ["opencode", "run", "-m", "x/y"], "S", R)).toEqual({ argv: ["opencode", "run", "--session", "S", "-m", "x/y"], stdin: `${R}\n` });
  expect(() => resumeCommand("gemini", ["gemini", "task"], "S", R)).toThrow("-p PROMPT");
});
