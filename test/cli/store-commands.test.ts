/** sessions / show / verify / --version against the compiled binary. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { appendFileSync, chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, postToolUse, run, tempDir } from "../support/tracegate.ts";

let home: string;
const env = () => ({ TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "none.jsonc") });
const text = (b: Uint8Array) => new TextDecoder().decode(b);

beforeAll(async () => {
  home = tempDir();
  await run(["session-start"], { stdin: JSON.stringify({ session_id: "s-one", cwd: home, source: "startup" }), env: env() });
  await run(["post-tool-use"], { stdin: postToolUse("s-one"), env: env() });
  await run(["user-prompt-submit"], { stdin: JSON.stringify({ session_id: "s-two", prompt: "hello" }), env: env() });
});
afterAll(() => cleanup(home));

test("--version prints the version and commit, with an empty environment", async () => {
  const r = await run(["--version"], { cleanEnv: true, env: {} });
  expect(r.code).toBe(0);
  expect(text(r.stdout)).toMatch(/^tracegate \d+\.\d+\.\d+ \([0-9a-f]{7,}|unknown\)\n$/);
});

test("sessions lists both sessions; --json gives one object a line", async () => {
  const r = await run(["sessions"], { env: env() });
  expect(r.code).toBe(0);
  expect(text(r.stdout)).toContain("s-one");
  expect(text(r.stdout)).toContain("s-two");
  const j = await run(["sessions", "--json"], { env: env() });
  const rows = text(j.stdout).trim().split("\n").map((l) => JSON.parse(l));
  expect(rows.find((x) => x.session_id === "s-one")).toMatchObject({ records: 2, tool_calls: 1 });
});

test("show prints records; --json prints one record a line", async () => {
  const r = await run(["show", "s-one"], { env: env() });
  expect(r.code).toBe(0);
  expect(text(r.stdout)).toMatch(/tool +Bash  echo hi  ok 5ms/);
  const j = await run(["show", "s-one", "--json"], { env: env() });
  expect(text(j.stdout).trim().split("\n").map((l) => JSON.parse(l).type)).toEqual(["session_start", "tool_call"]);
});

test("show of an unknown session: clear error, non-zero exit", async () => {
  const r = await run(["show", "nope"], { env: env() });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('no session "nope"');
  expect(r.stdout.length).toBe(0);
});

test("verify passes on a healthy store", async () => {
  const r = await run(["verify"], { env: env() });
  expect(text(r.stdout)).toContain("all valid");
  expect(r.code).toBe(0);
});

test("a corrupt line is reported with file and line; the rest is still shown; verify fails", async () => {
  const path = join(home, "sessions", "s-two.jsonl");
  appendFileSync(path, "{torn line\n");
  appendFileSync(path, `${JSON.stringify({ id: "x", type: "message", session_id: "s-two", harness: "claude", ts: "yesterday", role: "user", text: "t" })}\n`);
  const show = await run(["show", "s-two"], { env: env() });
  expect(show.code).toBe(1);
  expect(show.stderr).toContain("s-two.jsonl:2: corrupt line");
  expect(text(show.stdout)).toContain("hello");
  const v = await run(["verify", "s-two"], { env: env() });
  expect(v.code).toBe(1);
  expect(text(v.stdout)).toContain("s-two.jsonl:2: corrupt line");
  expect(text(v.stdout)).toContain("s-two.jsonl:3: /ts");
});

test("an unreadable store: clear error and non-zero exit", async () => {
  const bad = tempDir();
  writeFileSync(join(bad, "sessions"), "not a dir");
  const r = await run(["sessions"], { env: { TRACEGATE_HOME: bad } });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("cannot read the store");
  cleanup(bad);
});

test("unknown commands and bad flags: usage on stderr, exit 2", async () => {
  const r = await run(["frobnicate"], { env: env() });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('unknown command "frobnicate"');
  const f = await run(["sessions", "--bogus"], { env: env() });
  expect(f.code).toBe(2);
});
