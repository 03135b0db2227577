/**
 * The user commands as a person meets them, against the compiled binary:
 * session ids by prefix and `last`, readable `show`, `sessions` filters and
 * columns, colour and local times on a real pseudo-terminal and none when
 * piped or with NO_COLOR, `redact FILE...`, `diff --session`, `tail`,
 * `prune`, `config`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandbox, type Sandbox } from "../git/helpers.ts";
import { BINARY, cleanup, postToolUse, run, tempDir } from "../support/tracegate.ts";
import { script } from "./pty.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);
let home: string;
let box: Sandbox;
let repo: string;
const env = () => ({ TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "config.jsonc"), HOME: box.dir });
const hook = (name: string, payload: object) => run([name], { stdin: JSON.stringify(payload), env: env() });
const git = (...args: string[]) => {
  const r = spawnSync("git", args, { cwd: repo, env: box.env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
};
const verdict = (session: string, extra: object) =>
  appendFileSync(
    join(home, "sessions", `${session}.jsonl`),
    `${JSON.stringify({ id: `v${Math.random()}`, type: "oracle_verdict", session_id: session, harness: "claude", ts: new Date().toISOString(), attempt: 1, verdict: "FAIL", tests_hash: null, signed: null, verified: true, ...extra })}\n`,
  );

beforeAll(async () => {
  home = tempDir();
  box = sandbox();
  repo = join(box.dir, "repo");
  mkdirSync(repo);
  git("init", "-q");
  writeFileSync(join(repo, "a.txt"), "one\n");
  git("add", "-A");
  git("commit", "-qm", "base");
  await hook("session-start", { session_id: "abc123-first", cwd: repo, source: "startup", hook_event_name: "SessionStart" });
  await hook("user-prompt-submit", { session_id: "abc123-first", prompt: "fix the failing test please", hook_event_name: "UserPromptSubmit" });
  await hook("pre-tool-use", { session_id: "abc123-first", hook_event_name: "PreToolUse", tool_name: "Read", tool_input: { file_path: "/src/x.ts" } });
  await run(["post-tool-use"], { stdin: postToolUse("abc123-first"), env: env() });
  await hook("post-tool-use-failure", { session_id: "abc123-first", hook_event_name: "PostToolUseFailure", tool_name: "Bash", tool_input: { command: "npm test" }, tool_use_id: "t2", error: "Exit code 2\nboom" });
  await hook("notification", { session_id: "abc123-first", hook_event_name: "Notification", message: "Claude needs your permission" });
  verdict("abc123-first", { decision: "block", blocks_in_row: 1 });
  verdict("abc123-first", { verdict: "ERROR", verified: false, decision: "allow", allow_reason: "oracle error, on_error allow", problem: "oracle unreachable: connection refused", attempt: 2 });
  verdict("abc123-first", { verdict: "FAIL", decision: "allow", allow_reason: "max attempts reached", outcome: "no_flip", attempt: 3 });
  await hook("session-end", { session_id: "abc123-first", hook_event_name: "SessionEnd", reason: "exit" });
  await hook("user-prompt-submit", { session_id: "abc456-second", prompt: "second \x1b[31mred\x1b[0m", hook_event_name: "UserPromptSubmit" });
  await hook("user-prompt-submit", { session_id: "zz-newest", prompt: "the newest", hook_event_name: "UserPromptSubmit" });
});
afterAll(() => {
  cleanup(home);
  box.cleanup();
});

test("show: one readable line per record, tool + short input, failure, verdict and why, event names", async () => {
  const r = await run(["show", "abc123-first"], { env: env() });
  expect(r.code).toBe(0);
  const lines = text(r.stdout).trim().split("\n");
  expect(lines).toHaveLength(10);
  for (const l of lines) expect(l).toMatch(/^\d{4}-\d\d-\d\dT/); // piped: the stored ISO time
  const body = lines.map((l) => l.replace(/^\S+\s+/, ""));
  expect(body[0]).toMatch(new RegExp(`^start +${repo}  base [0-9a-f]{12}  \\(startup\\)$`));
  expect(body[1]).toBe("prompt      fix the failing test please");
  expect(body[2]).toBe("event       PreToolUse  Read  /src/x.ts");
  expect(body[3]).toBe("tool        Bash  echo hi  ok 5ms");
  expect(body[4]).toBe("tool        Bash  npm test  FAILED exit 2: boom");
  expect(body[5]).toBe("event       Notification  Claude needs your permission");
  // The verdicts above are hand-written and unsigned: the outcome function does not count them.
  expect(body[6]).toBe("verdict     FAIL UNVERIFIED  attempt 1  stop blocked");
  expect(body[7]).toBe("verdict     ERROR  attempt 2  stop allowed: oracle unreachable (on_error allow)  (oracle unreachable: connection refused)");
  expect(body[8]).toBe("verdict     FAIL UNVERIFIED  attempt 3  stop allowed: attempts used up");
  expect(body[9]).toMatch(/^end +exit  outcome unverified$/);
  expect(r.stdout.includes(0x1b)).toBe(false);
  const j = await run(["show", "abc123", "--json"], { env: env() });
  const recs = text(j.stdout).trim().split("\n").map((l) => JSON.parse(l));
  expect(recs.map((x) => x.type)).toEqual(["session_start", "message", "pre_tool_use", "tool_call", "tool_call", "notification", "oracle_verdict", "oracle_verdict", "oracle_verdict", "session_end"]);
  expect(recs[3].output).toEqual({ stdout: "hi\n", stderr: "", interrupted: false, isImage: false });
});

test("session ids: a unique prefix, `last`, an ambiguous prefix lists the candidates", async () => {
  const p = await run(["show", "abc4"], { env: env() });
  expect(p.code).toBe(0);
  expect(text(p.stdout)).toContain("second");
  const last = await run(["show", "last"], { env: env() });
  expect(last.code).toBe(0);
  expect(text(last.stdout)).toContain("the newest");
  const amb = await run(["show", "abc"], { env: env() });
  expect(amb.code).toBe(1);
  expect(amb.stderr).toContain('"abc" matches 2 sessions; type more of the id:');
  expect(amb.stderr).toContain("  abc123-first");
  expect(amb.stderr).toContain("  abc456-second");
  expect(amb.stdout.length).toBe(0);
  const v = await run(["verify", "abc4"], { env: env() });
  expect(text(v.stdout)).toContain("1 record in 1 session: all valid");
  const none = await run(["show", "nope"], { env: env() });
  expect(none.code).toBe(1);
  expect(none.stderr).toContain('no session "nope"');
  expect(none.stderr).toContain("tracegate sessions");
});

test("show escapes terminal control characters from records", async () => {
  const r = await run(["show", "abc456"], { env: env() });
  expect(r.stdout.includes(0x1b)).toBe(false);
  expect(text(r.stdout)).toContain("second \\x1b[31mred\\x1b[0m");
});

test("sessions: first prompt column, filters, --limit, plurals", async () => {
  const r = await run(["sessions"], { env: env() });
  expect(r.code).toBe(0);
  const out = text(r.stdout);
  expect(out.split("\n")[0]).toMatch(/^SESSION +STARTED +HARNESS +RECORDS +TOOLS +OUTCOME +PROMPT$/);
  expect(out).toMatch(/abc123-first .* claude +10 +2 +unverified +fix the failing test please/);
  expect(out).not.toContain("\x1b");
  const lim = await run(["sessions", "--limit", "1"], { env: env() });
  expect(text(lim.stdout).trim().split("\n")).toHaveLength(3);
  expect(text(lim.stdout)).toContain("2 more sessions not shown");
  const one = await run(["sessions", "--outcome", "unverified", "--json"], { env: env() });
  const rows = text(one.stdout).trim().split("\n").map((l) => JSON.parse(l));
  expect(rows.map((x) => x.session_id)).toEqual(["abc123-first"]);
  expect(rows[0].first_prompt).toBe("fix the failing test please");
  const h = await run(["sessions", "--harness", "codex"], { env: env() });
  expect(text(h.stdout)).toBe(`no sessions match (3 sessions in ${home})\n`);
  const since = await run(["sessions", "--since", "1h", "--json"], { env: env() });
  expect(text(since.stdout).trim().split("\n")).toHaveLength(3);
  const future = await run(["sessions", "--since", "2999-01-01", "--json"], { env: env() });
  expect(text(future.stdout)).toBe("");
  const bad = await run(["sessions", "--since", "soonish"], { env: env() });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--since takes an age (30m, 2h, 7d) or a date");
  const badOutcome = await run(["sessions", "--outcome", "won"], { env: env() });
  expect(badOutcome.stderr).toContain("--outcome must be one of flip, no_flip, cap, no_oracle, unverified");
});

test("on a terminal: colour and relative/local times; NO_COLOR turns colour off", async () => {
  const tty = script([BINARY, "sessions"], env());
  if (tty === null) return;
  expect(tty.code).toBe(0);
  expect(tty.out).toContain("\x1b[1mSESSION");
  expect(tty.out).toMatch(/ACTIVE/);
  expect(tty.out).toMatch(/just now|min ago/);
  const show = script([BINARY, "show", "abc123"], env());
  expect(show!.out).toContain("\x1b[31mFAIL\x1b[39m");
  expect(show!.out).toMatch(/^\x1b\[2m\d\d:\d\d:\d\d\x1b\[22m/m); // local wall clock
  const plain = script([BINARY, "sessions"], { ...env(), NO_COLOR: "1" });
  expect(plain!.out).not.toContain("\x1b[");
  expect(plain!.out).toMatch(/just now|min ago/);
  const piped = await run(["sessions"], { env: { ...env(), TERM: "xterm-256color" } });
  expect(piped.stdout.includes(0x1b)).toBe(false);
});

test("redact FILE... as well as stdin; a missing file is named", async () => {
  const dir = tempDir();
  const a = join(dir, "a.env");
  const b = join(dir, "b.env");
  writeFileSync(a, "GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345\n");
  writeFileSync(b, "plain line\n");
  const r = await run(["redact", a, b], { env: env() });
  expect(r.code).toBe(0);
  expect(text(r.stdout)).toMatch(/^GITHUB_TOKEN=\S*REDACTED\S*\nplain line\n$/);
  const missing = await run(["redact", join(dir, "nope.txt")], { env: env() });
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain(`cannot read ${join(dir, "nope.txt")} (no such file)`);
  const stdin = await run(["redact"], { env: env(), stdin: "plain\n" });
  expect(text(stdin.stdout)).toBe("plain\n");
  cleanup(dir);
});

test("diff --session diffs against that session's base commit, even after HEAD moved", async () => {
  writeFileSync(join(repo, "a.txt"), "two\n");
  git("commit", "-qam", "later");
  writeFileSync(join(repo, "b.txt"), "new\n");
  const r = await run(["diff", "--session", "abc1"], { env: env(), cwd: box.dir });
  expect(r.code).toBe(0);
  expect(text(r.stdout)).toContain("-one\n+two\n");
  expect(text(r.stdout)).toContain("+++ b/b.txt");
  const noBase = await run(["diff", "--session", "abc4"], { env: env() });
  expect(noBase.code).toBe(1);
  expect(noBase.stderr).toContain("has no session_start record");
});

test("tail follows appends to existing sessions and new sessions", async () => {
  const child = spawn(BINARY, ["tail"], { env: { PATH: process.env.PATH!, ...env() }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (b) => (out += b));
  const until = async (want: string) => {
    for (let i = 0; i < 300 && !out.includes(want); i++) await Bun.sleep(50);
  };
  let errText = "";
  child.stderr.on("data", (b) => (errText += b));
  for (let i = 0; i < 200 && !errText.includes("following"); i++) await Bun.sleep(50);
  await hook("user-prompt-submit", { session_id: "abc123-first", prompt: "appended later" });
  await hook("user-prompt-submit", { session_id: "brand-new", prompt: "a new session" });
  await until("a new session");
  child.kill("SIGTERM");
  await new Promise((r) => child.on("close", r));
  expect(out).toMatch(/abc123-first  \S+  prompt +appended later/);
  expect(out).toMatch(/brand-new  \S+  prompt +a new session/);
  expect(out).not.toContain("fix the failing test"); // starts at the end of what existed
});

test("tail SESSION prints that session's last records, then follows only it", async () => {
  const child = spawn(BINARY, ["tail", "abc4"], { env: { PATH: process.env.PATH!, ...env() }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (b) => (out += b));
  for (let i = 0; i < 200 && !out.includes("second"); i++) await Bun.sleep(50);
  await hook("user-prompt-submit", { session_id: "zz-newest", prompt: "not this one" });
  await hook("user-prompt-submit", { session_id: "abc456-second", prompt: "this one" });
  for (let i = 0; i < 200 && !out.includes("this one"); i++) await Bun.sleep(50);
  child.kill("SIGINT");
  const code = await new Promise((r) => child.on("close", r));
  expect(code).toBe(0);
  expect(out).toMatch(/^\S+  prompt +second \\x1b\[31mred/m);
  expect(out).toMatch(/prompt +this one/);
  expect(out).not.toContain("not this one");
});

test("tail checks each verdict itself: a PASS the agent wrote with verified: true shows UNVERIFIED", async () => {
  await hook("user-prompt-submit", { session_id: "zz-forged", prompt: "start" });
  const child = spawn(BINARY, ["tail", "zz-forged"], { env: { PATH: process.env.PATH!, ...env() }, stdio: ["ignore", "pipe", "pipe"] });
  const closed = new Promise((r) => child.on("close", r));
  let out = "";
  child.stdout.on("data", (b) => (out += b));
  for (let i = 0; i < 200 && !out.includes("start"); i++) await Bun.sleep(50);
  verdict("zz-forged", { verdict: "PASS", verified: true, decision: "allow", outcome: "flip", signed: { verdict: "PASS", session_id: "zz-forged" } });
  for (let i = 0; i < 200 && !out.includes("PASS"); i++) await Bun.sleep(50);
  child.kill("SIGTERM");
  await closed;
  expect(out).toMatch(/verdict +PASS UNVERIFIED/);
});

test("prune --older-than: dry run lists, real run deletes; sync configured keeps everything", async () => {
  const dir = tempDir();
  const e = { TRACEGATE_HOME: dir, TRACEGATE_CONFIG: join(dir, "config.jsonc") };
  for (const s of ["old-one", "old-two", "fresh"]) await run(["user-prompt-submit"], { stdin: JSON.stringify({ session_id: s, prompt: "p" }), env: e });
  const old = Date.now() / 1000 - 40 * 86400;
  for (const s of ["old-one", "old-two"]) utimesSync(join(dir, "sessions", `${s}.jsonl`), old, old);
  const dry = await run(["prune", "--older-than", "30d", "--dry-run"], { env: e });
  expect(dry.code).toBe(0);
  expect(text(dry.stdout)).toContain("would delete old-one\n");
  expect(text(dry.stdout)).toContain("would delete 2 sessions older than 30d");
  expect(text(dry.stdout)).toContain("nothing was deleted (dry run)");
  expect(readdirSync(join(dir, "sessions")).sort()).toEqual(["fresh.jsonl", "old-one.jsonl", "old-two.jsonl"]);

  writeFileSync(e.TRACEGATE_CONFIG, '{ "sync": { "url": "file:///tmp/nowhere" } }');
  const synced = await run(["prune", "--older-than", "30d"], { env: e });
  expect(synced.code).toBe(0);
  expect(text(synced.stdout)).toContain("deleted 0 sessions");
  expect(text(synced.stdout)).toContain("kept 2 old sessions not yet known to be synced");
  expect(readdirSync(join(dir, "sessions"))).toHaveLength(3);

  writeFileSync(e.TRACEGATE_CONFIG, '{ "sync": { "url": ');
  const broken = await run(["prune", "--older-than", "30d"], { env: e });
  expect(broken.code).toBe(1);
  expect(broken.stderr).toContain(`${e.TRACEGATE_CONFIG} does not parse`);
  expect(readdirSync(join(dir, "sessions"))).toHaveLength(3);

  writeFileSync(e.TRACEGATE_CONFIG, "{}");
  const real = await run(["prune", "--older-than", "30d"], { env: e });
  expect(text(real.stdout)).toContain("deleted 2 sessions older than 30d");
  expect(readdirSync(join(dir, "sessions"))).toEqual(["fresh.jsonl"]);
  const bad = await run(["prune", "--older-than", "a while"], { env: e });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--older-than takes an age such as 30d");
  cleanup(dir);
});

test("prune with sync configured deletes a session only once the store holds every byte of it", async () => {
  const dir = tempDir();
  const store = join(dir, "store");
  mkdirSync(store);
  const e = { TRACEGATE_HOME: join(dir, "home"), TRACEGATE_CONFIG: join(dir, "config.jsonc") };
  writeFileSync(e.TRACEGATE_CONFIG, JSON.stringify({ sync: { url: `file://${store}` } }));
  const say = (s: string) => run(["user-prompt-submit"], { stdin: JSON.stringify({ session_id: s, prompt: "p" }), env: e });
  for (const s of ["old-synced", "old-grown", "old-never"]) await say(s);
  const up = await run(["sync", "--session", "old-synced"], { env: e });
  expect(up.code).toBe(0);
  expect((await run(["sync", "--session", "old-grown"], { env: e })).code).toBe(0);
  await say("old-grown"); // appended after its sync: the store no longer holds all of it
  // A forged journal entry cannot vouch for a session: the store's listing decides.
  const jdir = join(e.TRACEGATE_HOME, "sync");
  const jfile = join(jdir, readdirSync(jdir).find((n) => n.startsWith("journal-"))!);
  const journal = JSON.parse(readFileSync(jfile, "utf8"));
  const neverBytes = readFileSync(join(e.TRACEGATE_HOME, "sessions", "old-never.jsonl")).length;
  journal.sessions["old-never"] = { prefix: journal.sessions["old-synced"].prefix.replace("old-synced", "old-never"), end: neverBytes };
  writeFileSync(jfile, JSON.stringify(journal));
  const old = Date.now() / 1000 - 40 * 86400;
  for (const s of ["old-synced", "old-grown", "old-never"]) utimesSync(join(e.TRACEGATE_HOME, "sessions", `${s}.jsonl`), old, old);
  const r = await run(["prune", "--older-than", "30d"], { env: e });
  expect(r.code).toBe(0);
  expect(text(r.stdout)).toContain("deleted old-synced\n");
  expect(text(r.stdout)).toContain("kept 2 old sessions not yet known to be synced");
  expect(readdirSync(join(e.TRACEGATE_HOME, "sessions")).sort()).toEqual(["old-grown.jsonl", "old-never.jsonl"]);
  cleanup(dir);
});

test("config: effective values with their sources; config path; an invalid key names the nearest", async () => {
  const dir = tempDir();
  const cfg = join(dir, "config.jsonc");
  const e = { TRACEGATE_HOME: dir, TRACEGATE_CONFIG: cfg, TRACEGATE_TASK_ID: "from-env" };
  const p = await run(["config", "path"], { env: e });
  expect(text(p.stdout)).toBe(`${cfg}\n`);
  writeFileSync(cfg, '{ "gate": { "max_attempts": 5 } }');
  const r = await run(["config"], { env: e, cwd: dir });
  expect(r.code).toBe(0);
  expect(text(r.stdout)).toMatch(new RegExp(`gate\\.max_attempts +5 +${cfg}`));
  expect(text(r.stdout)).toMatch(/oracle\.timeout_s +40 +default/);
  expect(text(r.stdout)).toMatch(/task_id +"from-env" +env TRACEGATE_TASK_ID/);
  const j = JSON.parse(text((await run(["config", "--json"], { env: e, cwd: dir })).stdout));
  expect(j.values.find((v: any) => v.key === "gate.max_attempts")).toEqual({ key: "gate.max_attempts", value: 5, source: cfg });
  writeFileSync(cfg, '{ "timeout": 30 }');
  const bad = await run(["config"], { env: e, cwd: dir });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain(`${cfg}: unknown key "timeout"; did you mean "oracle.timeout_s"?`);
  writeFileSync(cfg, '{ "oracle": { "url": "http://127.0.0.1:1", "public_key": "k", "timout_s": 3 } }');
  const nested = await run(["config"], { env: e, cwd: dir });
  expect(nested.stderr).toContain('unknown key "oracle.timout_s"; did you mean "oracle.timeout_s"?');
  writeFileSync(cfg, '{ "task_id": "x" ');
  const syntax = await run(["config"], { env: e, cwd: dir });
  expect(syntax.stderr).toMatch(new RegExp(`${cfg}:1:\\d+: `));
  cleanup(dir);
});

test("the store is untouched by reading commands", () => {
  expect(existsSync(join(home, "sessions", "abc123-first.jsonl"))).toBe(true);
});

test("config never prints a secret's value", async () => {
  const { shownValue, configRows } = await import("../../lib/cli/config.ts");
  expect(shownValue("oracle.token", "s3cr3t-value")).toBe("(set, hidden)");
  expect(shownValue("sync.secret_key", "x")).toBe("(set, hidden)");
  expect(shownValue("oracle.public_key", "PEM")).toBe("PEM");
  expect(shownValue("gate.max_attempts", 3)).toBe(3);
  expect(JSON.stringify(configRows({ oracle: { url: "http://x", public_key: "k", token: "s3cr3t-value" } }, "f", {}, null))).not.toContain("s3cr3t-value");
});

test("lineType reads a record's own type, not one nested in its values", async () => {
  const { lineType } = await import("../../lib/cli/sessions.ts");
  expect(lineType('{"id":"1","type":"tool_call","input":{"type":"message"}}')).toBe("tool_call");
  expect(lineType('{"id":"1","input":{"type":"tool_call"},"type":"message"}')).toBe("message");
  expect(lineType('{"id":"[x","type":"tool_call"}')).toBe("tool_call");
  expect(lineType('{"id":"x","note":"say \\"type\\":\\"tool_call\\"","type":"message"}')).toBe("message");
  expect(lineType("{torn")).toBeNull();
  expect(lineType("[1,2]")).toBeNull();
});
