/**
 * The end-to-end suite every command-hook harness runs on its real client
 * (issue 13, "For every harness"): hooks registered by
 * `tracegate install --harness NAME`, never by hand, then
 *
 * (a) a session with a shell tool call whose output holds a planted secret
 *     gives a complete trace (session start with the base commit, the
 *     prompt, the tool call with its output, the final text, the session
 *     end, `harness` set on every record), `verify` passes, and the secret
 *     is nowhere on disk under the data dir;
 * (b) a gated session goes FAIL, block, fix, PASS: outcome flip, against a
 *     real `tracegate oracle serve`;
 * (c) an agent that keeps saying done ends by itself within the gate's
 *     `max_attempts` (Codex and Gemini have no cap of their own and would
 *     loop forever otherwise);
 * (d) with the oracle down the session still ends by itself: one ERROR
 *     verdict, allowed (`on_error: allow`), outcome no_flip;
 * (e) `--scope project`: the client loads the repo's hook file;
 * (f) `uninstall` restores the client's file byte for byte (or removes the
 *     one install created) and the client runs on it untraced.
 * (g) a shell call that prints a password with no shape (`cat db_password`)
 *     is redacted by its command (redact/printed.ts) in that client's record.
 * (h) a shell call that shows a `.env` as bytes (`od -c .env`, coreutils on
 *     every machine): the password, cut across lines and cells, is nowhere
 *     on disk (redact/rules/dump.ts).
 *
 * Each client's test file calls `harnessSuite(name)`: one file per client, so
 * each one's wall time shows in the runner's output.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { BLOCK_REASON } from "../../../lib/gate/decide.ts";
import { claimedOutcome } from "../../support/claimed-outcome.ts";
import { serve, TEST_TOKEN, type Served } from "../../oracle/support.ts";
import { makeWorld, TRACEGATE, type World } from "./claude.ts";
import { clientAvailable, clientEnv, expectCleanExit, prepare, runClient, type ClientName, type ClientRun } from "./clients.ts";
import { startModelServer, type ModelServer, type Scenario, type ServerOptions } from "./model-server.ts";
import { plantedSecret, secretBody } from "./secret.ts";

/** Per-client run time limit: a hung client fails its test instead of hanging CI. */
const RUN_TIMEOUT_MS = 150_000;
const TEST_TIMEOUT_MS = 200_000;
/** For (c): a looping client is killed here (a pass takes seconds). */
const LOOP_TIMEOUT_MS = 90_000;
/** What only the oracle's test run prints: the model must never see it. */
const ORACLE_ONLY = "ORACLE-ONLY-check-output";
const CHECK = `test "$(cat answer.txt 2>/dev/null)" = 42 || { echo ${ORACLE_ONLY} >&2; exit 1; }\n`;

export type Rec = Record<string, any>;

/** A world with the client's config written and tracegate installed for it. */
export interface Setup {
  readonly world: World;
  readonly model: ModelServer;
  /** world.env plus the client's own environment (what `tracegate` commands and the client see). */
  readonly env: Record<string, string>;
  /** The hook file install wrote (as doctor reports it), and its bytes before install (null: it did not exist). */
  readonly hookFile: string;
  readonly hookFileBefore: Buffer | null;
}

/** Runs a tracegate user command with the client's environment. */
function tg(setup: Pick<Setup, "world" | "env">, ...args: string[]) {
  const r = spawnSync(TRACEGATE, args, { cwd: setup.world.repo, env: setup.env, encoding: "utf8", timeout: 30_000 });
  return { code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

/** The store's sessions (`tracegate sessions --json`). */
function sessions(setup: Setup): Rec[] {
  const r = tg(setup, "sessions", "--json");
  if (r.code !== 0) throw new Error(`tracegate sessions failed (${r.code}): ${r.stderr}`);
  return r.stdout.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** The one session the run made, as records (`tracegate show ID --json`). */
function onlySessionRecords(setup: Setup, run: ClientRun): Rec[] {
  const list = sessions(setup);
  if (list.length !== 1) {
    throw new Error(`expected exactly one recorded session, found ${list.length}: ${JSON.stringify(list)}\nclient stderr: ${run.stderr.slice(-3000)}`);
  }
  return sessionRecords(setup, list[0]!.session_id);
}

function sessionRecords(setup: Setup, sessionId: string): Rec[] {
  const r = tg(setup, "show", sessionId, "--json");
  if (r.code !== 0) throw new Error(`tracegate show failed (${r.code}): ${r.stderr}`);
  return r.stdout.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** Every file under dir, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

const verdicts = (records: Rec[]) => records.filter((r) => r.type === "oracle_verdict");

/** How many times the model was told the gate's fixed reason (in the last main request's history). */
function blocksSeen(model: ModelServer): number {
  const last = model.mainHistories().at(-1) ?? [];
  return last.filter((m) => m.role === "user" && m.text.includes(BLOCK_REASON)).length;
}

/** What a client's test file may use for its own extra tests (cleanup is the suite's). */
export interface HarnessHelpers {
  /** World, model server, client config, then `tracegate install --harness NAME [--gate]`. */
  setup(scenario: Scenario, opts?: { files?: Record<string, string>; config?: object; gate?: boolean; server?: ServerOptions; scope?: "user" | "project" }): Promise<Setup>;
  /** A gated world: answer.txt must hold 42, a real `oracle serve`, `max_attempts` as given. */
  gated(scenario: Scenario, maxAttempts: number, server?: ServerOptions, oracleDown?: boolean): Promise<Setup>;
  /** Runs one prompt; `interruptWhen` sends a Ctrl-C the first time it holds (polled). */
  run(s: Setup, prompt: string, timeoutMs?: number, interruptWhen?: () => boolean, interruptSignal?: "SIGINT" | "SIGTERM"): Promise<ClientRun>;
  /** The store's sessions (`tracegate sessions --json`). */
  sessions(s: Setup): Rec[];
  /** A session's records (`tracegate show ID --json`). */
  records(s: Setup, sessionId: string): Rec[];
  /** Runs a tracegate user command with the client's environment. */
  tg(s: Setup, ...args: string[]): { code: number | null; stdout: string; stderr: string };
}

/**
 * Defines the three real-client tests for one harness.
 *
 * @example
 * ```ts
 * // test/e2e/codex.test.ts
 * harnessSuite("codex");
 * ```
 */
export function harnessSuite(name: ClientName): HarnessHelpers {
  const available = clientAvailable(name);
  const cleanups: (() => Promise<void> | void)[] = [];

  beforeAll(() => {
    if (!existsSync(TRACEGATE)) throw new Error(`${TRACEGATE} is missing: run \`npm run build\` (npm test builds it first)`);
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** World, model server, client config, then `tracegate install --harness NAME`. */
  async function setup(
    scenario: Scenario,
    opts: { files?: Record<string, string>; config?: object; gate?: boolean; server?: ServerOptions; scope?: "user" | "project"; oracleDown?: boolean } = {},
  ): Promise<Setup> {
    const model = await startModelServer(scenario, opts.server);
    cleanups.push(() => model.stop());
    const world = makeWorld({ settings: false, files: opts.files, config: opts.config });
    cleanups.push(() => world.cleanup());
    prepare(world, name, model.url);
    const scope = opts.scope ?? "user";
    // A project-scope entry names `tracegate` from PATH (it is committed for teammates): put the build there.
    const base = { ...world.env, ...clientEnv(world, name, model.url) };
    const env = scope === "project" ? { ...base, PATH: `${dirname(TRACEGATE)}:${base.PATH ?? process.env.PATH ?? "/usr/bin:/bin"}` } : base;
    const before = JSON.parse(tg({ world, env }, "doctor", "--json").stdout) as { settings: Rec[] };
    const hookFile = String(before.settings.find((x) => x.harness === name && x.scope === scope)?.path);
    const s = { world, model, env, hookFile, hookFileBefore: existsSync(hookFile) ? readFileSync(hookFile) : null };
    const args = ["install", "--harness", name, "--scope", scope, ...(opts.gate ? ["--gate"] : [])];
    const inst = tg(s, ...args);
    if (inst.code !== 0) throw new Error(`tracegate ${args.join(" ")} exited ${inst.code}\nstdout: ${inst.stdout}\nstderr: ${inst.stderr}`);
    // doctor sees what install wrote, in the file this client reads, with no problem.
    const doc = tg(s, "doctor", "--json");
    const report = JSON.parse(doc.stdout) as { problems: unknown[]; settings: Rec[] };
    // (A dead oracle is doctor's problem to report, and (d) kills it on purpose.)
    expect(report.problems.filter((p) => !(opts.oracleDown && String(p).startsWith("oracle:")))).toEqual([]);
    if (!opts.oracleDown) expect(doc.code).toBe(0);
    const mine = report.settings.find((x) => x.harness === name && x.scope === scope);
    expect(mine?.path).toBe(hookFile);
    expect(mine?.exists).toBe(true);
    expect(mine!.entries.length).toBeGreaterThan(0);
    return s;
  }

  async function run(s: Setup, prompt: string, timeoutMs = RUN_TIMEOUT_MS, interruptWhen?: () => boolean, interruptSignal?: "SIGINT" | "SIGTERM"): Promise<ClientRun> {
    return runClient(s.world, name, { prompt, modelUrl: s.model.url, timeoutMs, env: s.env, interruptWhen, interruptSignal });
  }

  /** A gated world: the task (answer.txt must hold 42), an oracle over a clone of its repo, and the config. */
  async function gated(scenario: Scenario, maxAttempts: number, server?: ServerOptions, oracleDown = false): Promise<Setup> {
    const keys = makeWorld({ files: { "check.sh": CHECK }, settings: false });
    cleanups.push(() => keys.cleanup());
    const keyDir = join(keys.root, "keys");
    execFileSync(TRACEGATE, ["oracle", "keygen", "--out", keyDir], { env: keys.env });
    const task = join(keys.root, "oracle-task");
    let url: string;
    if (oracleDown) {
      // A port that was just listening and is closed now: connection refused.
      const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
      url = `http://127.0.0.1:${dead.port}`;
      await dead.stop(true);
    } else {
      execFileSync("git", ["clone", "-q", keys.repo, task]);
      const oracle: Served = await serve(["--repo", task, "--test-cmd", "sh check.sh", "--key", join(keyDir, "oracle.key")], {}, [TRACEGATE]);
      cleanups.push(() => oracle.stop());
      url = oracle.url;
    }
    const s = await setup(scenario, {
      files: { "check.sh": CHECK },
      gate: true,
      server,
      oracleDown,
      config: {
        oracle: { url, public_key: join(keyDir, "oracle.pub"), token: TEST_TOKEN, timeout_s: 30, on_error: "allow" },
        gate: { max_attempts: maxAttempts },
        task_id: "e2e-answer",
      },
    });
    // The oracle host must have the agent's base commit.
    if (!oracleDown) execFileSync("git", ["-C", task, "fetch", "-q", s.world.repo, "HEAD"]);
    return s;
  }

  describe.skipIf(!available)(`real ${name} client with hooks from \`tracegate install --harness ${name}\``, () => {
    test(
      "(a) a shell call whose output holds a secret: complete trace, harness set, verify passes, no secret on disk",
      async () => {
        const prompt = "Print the greeting and the deploy token with the shell, then tell me what it said.";
        const final = "The command printed hello-from-e2e and a token.";
        const s = await setup([[{ type: "shell", command: `echo hello-from-e2e; echo ${plantedSecret()}` }], [{ type: "text", text: final }]]);
        const r = await run(s, prompt);
        expectCleanExit(r);

        // The loop went through the client: the model was shown the tool's output.
        const histories = s.model.mainHistories();
        expect(histories.length).toBeGreaterThanOrEqual(2);
        expect(histories[1]!.some((m) => m.role === "user" && m.text.includes("hello-from-e2e"))).toBe(true);

        const records = onlySessionRecords(s, r);
        const types = records.map((x) => x.type);
        for (const x of records) {
          expect(x.harness).toBe(name);
          expect(typeof x.session_id).toBe("string");
        }
        expect(new Set(records.map((x) => x.session_id)).size).toBe(1);

        const start = records.find((x) => x.type === "session_start");
        expect(start).toBeDefined();
        // First, or second: Copilot runs its sessionStart and userPromptSubmitted hooks concurrently.
        expect(types.filter((t) => t === "session_start")).toHaveLength(1);
        expect(types.indexOf("session_start")).toBeLessThan(2);
        expect(types.indexOf("session_start")).toBeLessThan(types.indexOf("tool_call"));
        expect(start!.base_commit).toBe(s.world.baseCommit);
        expect(start!.cwd).toBe(s.world.repo);

        const messages = records.filter((x) => x.type === "message");
        expect(messages.some((m) => m.role === "user" && String(m.text).includes(prompt))).toBe(true);
        expect(messages.some((m) => m.role === "assistant" && String(m.text).includes(final))).toBe(true);

        const calls = records.filter((x) => x.type === "tool_call");
        expect(calls).toHaveLength(1);
        const call = JSON.stringify(calls[0]);
        expect(call).toContain("hello-from-e2e");
        expect(call).toContain("[REDACTED:github-pat");

        expect(types).toContain("session_end");
        expect(types.indexOf("session_end")).toBeGreaterThan(types.lastIndexOf("tool_call"));

        const v = tg(s, "verify");
        expect(v.stderr).toBe("");
        expect(v.code).toBe(0);

        // Nothing unredacted on disk: not in the store, the error log, or anything else tracegate wrote.
        const files = filesUnder(s.world.dataDir);
        expect(files.length).toBeGreaterThan(0);
        for (const f of files) expect({ file: f, leaked: readFileSync(f, "latin1").includes(secretBody()) }).toEqual({ file: f, leaked: false });
      },
      TEST_TIMEOUT_MS,
    );

    test(
      "(g) a shell call that prints a password with no shape (`cat db_password`): redacted by its command, nothing of it on disk",
      async () => {
        // Words, no digits: no prefix, label or entropy marks it; only the command says what it is.
        const password = "correct-horse-battery-staple";
        const s = await setup([[{ type: "shell", command: "cat db_password" }], [{ type: "text", text: "I read the password file." }]], {
          files: { "README.md": "e2e fixture\n", db_password: `${password}\n` },
        });
        const r = await run(s, "Show me what the database password file holds.");
        expectCleanExit(r);
        // The client ran it: the model was shown the password.
        expect(s.model.mainHistories()[1]!.some((m) => m.role === "user" && m.text.includes(password))).toBe(true);
        const calls = onlySessionRecords(s, r).filter((x) => x.type === "tool_call");
        expect(calls).toHaveLength(1);
        expect(JSON.stringify(calls[0])).toContain("[REDACTED:password:");
        expect(JSON.stringify(calls[0]!.input)).toContain("cat db_password");
        const files = filesUnder(s.world.dataDir);
        expect(files.length).toBeGreaterThan(0);
        for (const f of files) expect({ file: f, leaked: readFileSync(f, "latin1").includes(password) }).toEqual({ file: f, leaked: false });
      },
      TEST_TIMEOUT_MS,
    );

    test(
      "(h) a shell call that shows a .env as bytes (`od -c .env`): the password, cut across its lines and cells, is nowhere on disk",
      async () => {
        const password = "Zq7xKw9#mP2vLq8T";
        // The value starts 12 bytes into od's third line (offset 040), so it spans two of them.
        const env = `NODE_ENV=production\nDB_USER=app\nDB_PASSWORD=${password}\n`;
        const s = await setup([[{ type: "shell", command: "od -c .env" }], [{ type: "text", text: "The file ends in a newline; no stray bytes." }]], {
          files: { "README.md": "e2e fixture\n", ".env": env },
        });
        const r = await run(s, "Check .env for stray bytes.");
        expectCleanExit(r);
        // The client ran it: the model was shown the dump (od's cells: `Z   q   7   x`).
        expect(s.model.mainHistories()[1]!.some((m) => m.role === "user" && m.text.includes("Z   q   7   x"))).toBe(true);
        const calls = onlySessionRecords(s, r).filter((x) => x.type === "tool_call");
        expect(calls).toHaveLength(1);
        expect(JSON.stringify(calls[0])).toContain("[REDACTED:password:");
        const files = filesUnder(s.world.dataDir);
        expect(files.length).toBeGreaterThan(0);
        // Any four characters of it in a row, as od lays them out (spaces dropped): `Zq7x`, `#mP2`, `Lq8T`…
        const windows = Array.from({ length: password.length - 3 }, (_, i) => password.slice(i, i + 4));
        for (const f of files) {
          const text = readFileSync(f, "latin1").replaceAll(" ", "");
          expect({ file: f, leaked: windows.filter((w) => text.includes(w)) }).toEqual({ file: f, leaked: [] });
        }
      },
      TEST_TIMEOUT_MS,
    );

    test(
      "(b) gated: wrong answer, FAIL, blocked, fixed, PASS: both verdicts verified, outcome flip",
      async () => {
        const s = await gated(
          [
            [{ type: "shell", command: "echo 41 > answer.txt" }],
            [{ type: "text", text: "Done: wrote the answer." }],
            [{ type: "shell", command: "echo 42 > answer.txt" }],
            [{ type: "text", text: "Fixed the answer; done." }],
          ],
          5,
        );
        const r = await run(s, "Write the answer into answer.txt.");
        expectCleanExit(r);
        expect(readFileSync(join(s.world.repo, "answer.txt"), "utf8")).toBe("42\n");
        const records = onlySessionRecords(s, r);
        expect(verdicts(records).map((x) => [x.attempt, x.verdict, x.verified, x.decision])).toEqual([
          [1, "FAIL", true, "block"],
          [2, "PASS", true, "allow"],
        ]);
        expect(claimedOutcome(records)).toBe("flip");
        expect(records.every((x) => x.harness === name)).toBe(true);
        // The model was told the fixed reason once, and nothing of the test run.
        expect(blocksSeen(s.model)).toBe(1);
        const shown = s.model.mainHistories().flat().map((m) => m.text).join("\n");
        expect(shown).not.toContain(ORACLE_ONLY);
        expect(tg(s, "verify").code).toBe(0);
      },
      TEST_TIMEOUT_MS,
    );

    test(
      "(c) an agent that keeps saying done ends by itself within the gate's max_attempts: outcome no_flip",
      async () => {
        const maxAttempts = 3;
        // Varied text: Gemini's repetition detector steps in on identical turns.
        const s = await gated([[{ type: "shell", command: "echo 41 > answer.txt" }]], maxAttempts, {
          rest: (ctx) => [{ type: "text", text: `Done, really (turn ${ctx.index}).` }],
        });
        // A few seconds of work; a client the gate fails to end loops until this kill.
        const r = await run(s, "Write the answer into answer.txt.", LOOP_TIMEOUT_MS);
        expect(r.timedOut).toBe(false);
        expectCleanExit(r);
        const records = onlySessionRecords(s, r);
        const v = verdicts(records);
        expect(v.map((x) => [x.attempt, x.verdict, x.verified])).toEqual(Array.from({ length: maxAttempts }, (_, i) => [i + 1, "FAIL", true]));
        expect(v.slice(0, -1).every((x) => x.decision === "block")).toBe(true);
        expect(v.at(-1)!.decision).toBe("allow");
        expect(claimedOutcome(records)).toBe("no_flip");
        expect(blocksSeen(s.model)).toBe(maxAttempts - 1);
        // The gate's limit ended it: exactly one more model turn per block.
        expect(s.model.mainHistories().length).toBe(1 + maxAttempts);
      },
      TEST_TIMEOUT_MS,
    );

    test(
      "(e) --scope project: the client loads the repo's hook file (with the trust the driver grants) and the session is recorded",
      async () => {
        const s = await setup([[{ type: "shell", command: "echo project-scope-ok" }], [{ type: "text", text: "It printed project-scope-ok." }]], { scope: "project" });
        const r = await run(s, "Print the marker.");
        expectCleanExit(r);
        const records = onlySessionRecords(s, r);
        const types = records.map((x) => x.type);
        for (const t of ["session_start", "tool_call", "session_end"]) expect(types).toContain(t);
        expect(records.every((x) => x.harness === name)).toBe(true);
        expect(JSON.stringify(records.find((x) => x.type === "tool_call"))).toContain("project-scope-ok");
        expect(tg(s, "verify").code).toBe(0);
      },
      TEST_TIMEOUT_MS,
    );

    test(
      "(f) uninstall leaves the client's file as it was (byte for byte, or gone), and the client then runs untraced",
      async () => {
        const s = await setup([[{ type: "shell", command: "echo after-uninstall" }], [{ type: "text", text: "Printed it." }]], { gate: true });
        const un = tg(s, "uninstall", "--harness", name, "--scope", "user");
        expect(un.code).toBe(0);
        if (s.hookFileBefore === null) expect(existsSync(s.hookFile)).toBe(false);
        else expect(readFileSync(s.hookFile).equals(s.hookFileBefore)).toBe(true);
        const r = await run(s, "Print the marker.");
        expectCleanExit(r);
        // The client still works on the restored config, and nothing of tracegate ran.
        expect(s.model.mainHistories().length).toBe(2);
        expect(sessions(s)).toEqual([]);
      },
      TEST_TIMEOUT_MS,
    );

    test(
      "(d) the oracle is down: the session ends normally in bounded time, ERROR recorded, no_flip",
      async () => {
        const s = await gated([[{ type: "shell", command: "echo 42 > answer.txt" }], [{ type: "text", text: "Done." }]], 3, undefined, true);
        const r = await run(s, "Write the answer into answer.txt.", LOOP_TIMEOUT_MS);
        expect(r.timedOut).toBe(false);
        expectCleanExit(r);
        const records = onlySessionRecords(s, r);
        expect(verdicts(records).map((x) => [x.verdict, x.verified, x.decision])).toEqual([["ERROR", false, "allow"]]);
        expect(claimedOutcome(records)).toBe("no_flip");
        expect(blocksSeen(s.model)).toBe(0);
      },
      TEST_TIMEOUT_MS,
    );
  });

  return { setup, gated, run, sessions, records: sessionRecords, tg };
}
