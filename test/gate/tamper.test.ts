/**
 * Nothing the agent can write decides a verdict (issue 10, parts 1 and 4):
 * real sessions recorded by the compiled binary's hooks, judged by a real
 * `dist/tracegate oracle serve`, then edited the way a hostile agent (same
 * user, same files) would. `verify` must report each edit with file and line
 * and exit 1; `sessions`, `show` and SessionEnd must never say `flip` for it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chainedLine, lineHash } from "../../lib/trace/chain.ts";
import { BINARY, cleanup, run, tempDir } from "../support/tracegate.ts";
import { git, keygen, makeTaskRepo, serve, type Served } from "../oracle/support.ts";

let dir: string;
let keys: ReturnType<typeof keygen>;
let oracle: Served;
let pristine: string;
let work: string;
let config: string;
let noKeyConfig: string;
const FAIL_ID = "sess-fail";
const PASS_ID = "sess-pass";
const text = (b: Uint8Array) => new TextDecoder().decode(b);

function envFor(home: string, cfg = config) {
  return { TRACEGATE_HOME: home, TRACEGATE_CONFIG: cfg, TRACEGATE_TASK_ID: "task-42" };
}

async function hook(home: string, name: string, payload: Record<string, unknown>) {
  const r = await run([name], { stdin: JSON.stringify(payload), env: envFor(home) });
  expect(r.code).toBe(0);
  return r;
}

/** One gated session in `home`: start, prompt, a tool call, then a Stop for each answer. */
async function session(home: string, id: string, answers: string[]) {
  await hook(home, "session-start", { session_id: id, cwd: work, hook_event_name: "SessionStart", source: "startup" });
  await hook(home, "user-prompt-submit", { session_id: id, cwd: work, hook_event_name: "UserPromptSubmit", prompt: "write 42 into answer.txt" });
  const outs: string[] = [];
  for (const [i, a] of answers.entries()) {
    writeFileSync(join(work, "answer.txt"), a);
    await hook(home, "post-tool-use", { session_id: id, cwd: work, hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: `echo ${a}` }, tool_response: { stdout: "" }, tool_use_id: `t${i}` });
    const r = await hook(home, "stop", { session_id: id, cwd: work, hook_event_name: "Stop", stop_hook_active: i > 0, last_assistant_message: "done" });
    outs.push(text(r.stdout));
  }
  git(work, "checkout", "-q", "--", ".");
  git(work, "clean", "-qfdx");
  return outs;
}

beforeAll(async () => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`npm run build\``);
  dir = tempDir("tg-tamper-");
  const { repo } = makeTaskRepo(dir);
  keys = keygen(dir);
  oracle = await serve(["--repo", repo, "--test-cmd", "sh check.sh", "--key", keys.keyFile, "--token-file", keys.tokenFile], {}, [BINARY]);
  work = join(dir, "work");
  git(dir, "clone", "-q", repo, work);
  config = join(dir, "config.jsonc");
  writeFileSync(config, JSON.stringify({ oracle: { url: oracle.url, public_key: keys.pubFile, token: keys.token, timeout_s: 20 }, gate: { max_attempts: 3 } }));
  noKeyConfig = join(dir, "nokey.jsonc");
  writeFileSync(noKeyConfig, "{}");
  pristine = join(dir, "pristine");
  const failOut = await session(pristine, FAIL_ID, ["41\n"]);
  expect(failOut[0]).toContain('"decision":"block"');
  const passOut = await session(pristine, PASS_ID, ["41\n", "42\n"]);
  expect(passOut[1]).toBe("");
}, 60_000);

afterAll(async () => {
  await oracle?.stop();
  cleanup(dir);
});

let copies = 0;
/** A fresh copy of the recorded store to tamper with. */
function store() {
  const home = join(dir, `copy-${++copies}`);
  cpSync(pristine, home, { recursive: true });
  const file = (id: string) => join(home, "sessions", `${id}.jsonl`);
  return {
    home,
    file,
    lines: (id: string) => readFileSync(file(id), "utf8").split("\n").filter(Boolean),
    write: (id: string, lines: string[]) => writeFileSync(file(id), lines.map((l) => `${l}\n`).join("")),
    /** Append a record with a correct chain link, as an agent that read chain.ts would. */
    appendChained(id: string, record: object) {
      const lines = readFileSync(file(id), "utf8").split("\n").filter(Boolean);
      writeFileSync(file(id), `${lines.join("\n")}\n${chainedLine(record, lineHash(Buffer.from(lines.at(-1)!)))}\n`);
    },
  };
}

async function outcomeOf(home: string, id: string, cfg = config): Promise<string> {
  const r = await run(["sessions", "--json"], { env: envFor(home, cfg) });
  return text(r.stdout).split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((x) => x.file.endsWith(`/${id}.jsonl`))?.outcome;
}

async function verify(home: string, id?: string, cfg = config, extra: string[] = []) {
  const r = await run(["verify", ...(id ? [id] : []), ...extra], { env: envFor(home, cfg) });
  return { code: r.code, out: text(r.stdout) };
}

const lineOf = (lines: string[], pred: (r: any) => boolean) => lines.findIndex((l) => pred(JSON.parse(l))) + 1;

describe("genuine sessions", () => {
  test("verify: all valid; the records after the last verdict are not covered by it; outcomes flip and no_flip", async () => {
    const s = store();
    const v = await verify(s.home);
    expect(v.out).toContain("all valid");
    expect(v.code).toBe(0);
    expect(await outcomeOf(s.home, PASS_ID)).toBe("flip");
    expect(await outcomeOf(s.home, FAIL_ID)).toBe("no_flip");
  });

  test("the oracle signed the chain head the Stop sent: the hash of the line before the Stop's own records", () => {
    const s = store();
    const lines = s.lines(FAIL_ID);
    const at = lineOf(lines, (r) => r.type === "oracle_verdict");
    const v = JSON.parse(lines[at - 1]!);
    // The Stop appended [assistant message, verdict]; the head is the line before the message.
    expect(v.signed.chain_head).toBe(lineHash(Buffer.from(lines[at - 3]!)));
    expect(v.chain_head).toBe(v.signed.chain_head);
  });

  test("without a public key the outcome is unverified, never flip; --public-key checks against the operator's key", async () => {
    const s = store();
    expect(await outcomeOf(s.home, PASS_ID, noKeyConfig)).toBe("unverified");
    const v = await verify(s.home, PASS_ID, noKeyConfig);
    expect(v.code).toBe(1);
    expect(v.out).toContain("no oracle public key");
    expect((await verify(s.home, PASS_ID, noKeyConfig, ["--public-key", keys.pubFile])).code).toBe(0);
  });

  test("SessionEnd records the outcome from the one function", async () => {
    const s = store();
    await run(["session-end"], { stdin: JSON.stringify({ session_id: PASS_ID, cwd: work, hook_event_name: "SessionEnd", reason: "exit" }), env: envFor(s.home) });
    expect(JSON.parse(s.lines(PASS_ID).at(-1)!)).toMatchObject({ type: "session_end", outcome: "flip" });
  });
});

describe("part 1: the outcome comes from signatures, never from stored flags", () => {
  test('editing a stored verdict from "FAIL" to "PASS" (signature left as it was)', async () => {
    const s = store();
    const lines = s.lines(FAIL_ID);
    const at = lineOf(lines, (r) => r.type === "oracle_verdict");
    lines[at - 1] = lines[at - 1]!.replace('"verdict":"FAIL"', '"verdict":"PASS"');
    s.write(FAIL_ID, lines);
    const v = await verify(s.home, FAIL_ID);
    expect(v.code).toBe(1);
    expect(v.out).toContain(`${FAIL_ID}.jsonl:${at}: verdict record's verdict "PASS" is not the signed "FAIL"`);
    expect(await outcomeOf(s.home, FAIL_ID)).toBe("unverified");
    const show = await run(["show", FAIL_ID], { env: envFor(s.home) });
    expect(text(show.stdout)).toContain("outcome unverified");
    expect(text(show.stdout)).toContain("PASS UNVERIFIED");
    await run(["session-end"], { stdin: JSON.stringify({ session_id: FAIL_ID, cwd: work, reason: "exit" }), env: envFor(s.home) });
    expect(JSON.parse(s.lines(FAIL_ID).at(-1)!).outcome).toBe("unverified");
  });

  test('appending a record with "signed":null,"verified":true (even with a correct chain link)', async () => {
    const s = store();
    s.appendChained(FAIL_ID, { id: "forged", type: "oracle_verdict", session_id: FAIL_ID, harness: "claude", ts: new Date().toISOString(), attempt: 2, verdict: "PASS", tests_hash: "h", signed: null, verified: true, decision: "allow", outcome: "flip" });
    const v = await verify(s.home, FAIL_ID);
    expect(v.code).toBe(1);
    expect(v.out).toMatch(new RegExp(`${FAIL_ID}\\.jsonl:${s.lines(FAIL_ID).length}: verdict signature`));
    expect(await outcomeOf(s.home, FAIL_ID)).not.toBe("flip");
  });

  test("copying another session's genuine PASS line into this session's file", async () => {
    const s = store();
    const pass = s.lines(PASS_ID).map((l) => JSON.parse(l)).findLast((r) => r.type === "oracle_verdict" && r.verdict === "PASS");
    // As it was, and with its session id changed to this one: both are caught.
    for (const record of [pass, { ...pass, session_id: FAIL_ID }]) {
      const t = store();
      t.appendChained(FAIL_ID, record);
      const v = await verify(t.home, FAIL_ID);
      expect(v.code).toBe(1);
      expect(v.out).toMatch(new RegExp(`${FAIL_ID}\\.jsonl:${t.lines(FAIL_ID).length}: `));
      expect(await outcomeOf(t.home, FAIL_ID)).toBe("unverified");
    }
    void s;
  });

  test("the same signed verdict in two sessions' files is a replay (verify over the whole store)", async () => {
    const s = store();
    // A whole session file copied under another name.
    cpSync(s.file(PASS_ID), s.file("sess-copy"));
    const later = new Date(Date.now() + 10_000);
    utimesSync(s.file("sess-copy"), later, later);
    const v = await verify(s.home);
    expect(v.code).toBe(1);
    expect(v.out).toContain("sess-copy.jsonl:");
    expect(await outcomeOf(s.home, "sess-copy")).toBe("unverified");
    expect(await outcomeOf(s.home, PASS_ID)).toBe("flip");
  });
});

describe("part 4: the trajectory a verdict labels cannot be edited afterwards", () => {
  const edits: [string, (l: string[]) => string[]][] = [
    ["edited", (l) => l.map((x, i) => (i === 1 ? x.replace("write 42 into answer.txt", "write 41 into answer.txt") : x))],
    ["removed", (l) => l.filter((_, i) => i !== 2)],
    ["reordered", (l) => [l[0]!, l[2]!, l[1]!, ...l.slice(3)]],
    ["inserted", (l) => [l[0]!, l[1]!, l[1]!.replace('"prompt"', '"extra"'), ...l.slice(2)]],
  ];
  for (const [how, edit] of edits) {
    test(`a record ${how} before the signed PASS: verify reports it with file and line, the outcome is unverified`, async () => {
      const s = store();
      s.write(PASS_ID, edit(s.lines(PASS_ID)));
      const v = await verify(s.home, PASS_ID);
      expect(v.code).toBe(1);
      expect(v.out).toMatch(new RegExp(`${PASS_ID}\\.jsonl:[23]: hash chain broken`));
      expect(await outcomeOf(s.home, PASS_ID)).toBe("unverified");
    });
  }

  test("records appended after the last verdict are reported as not covered, and do not change the outcome", async () => {
    const s = store();
    s.appendChained(PASS_ID, { id: "late", type: "message", session_id: PASS_ID, harness: "claude", ts: new Date().toISOString(), role: "assistant", text: "added later" });
    const v = await verify(s.home, PASS_ID);
    expect(v.out).toContain(`${PASS_ID}.jsonl:${s.lines(PASS_ID).length}: note: line ${s.lines(PASS_ID).length} comes after the last signed verdict: not covered by a verdict`);
    expect(v.code).toBe(0);
    expect(await outcomeOf(s.home, PASS_ID)).toBe("flip");
  });
});
