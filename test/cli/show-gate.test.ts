/**
 * `show` on the records a real Stop gate wrote: a real `oracle serve` (the
 * compiled binary) on 127.0.0.1 judges the session's diff, the compiled
 * `stop` hook blocks on FAIL and allows on PASS, and `show` says so.
 */
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, keygen, makeTaskRepo, serve, type Served, tempDir } from "../oracle/support.ts";
import { BINARY, run } from "../support/tracegate.ts";

const dirs: string[] = [];
const servers: Served[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  cleanup(...dirs);
});

test("show reads a real gate run: FAIL blocked, then PASS allowed; sessions says flip", async () => {
  const dir = tempDir("tg-showgate-");
  dirs.push(dir);
  const { repo } = makeTaskRepo(dir);
  const keys = keygen(dir);
  const oracle = await serve(["--repo", repo, "--test-cmd", "sh check.sh", "--key", keys.keyFile], {}, [BINARY]);
  servers.push(oracle);
  const config = join(dir, "config.jsonc");
  writeFileSync(config, JSON.stringify({ oracle: { url: oracle.url, public_key: keys.pubFile }, task_id: "answer" }));
  const env = { TRACEGATE_HOME: join(dir, "data"), TRACEGATE_CONFIG: config, HOME: dir };
  const hook = (name: string, payload: object) => run([name], { stdin: JSON.stringify({ session_id: "gate-run", cwd: repo, hook_event_name: name, ...payload }), env });
  await hook("session-start", { source: "startup" });
  await hook("user-prompt-submit", { prompt: "write 42 into answer.txt" });
  const blocked = await hook("stop", { stop_hook_active: false, last_assistant_message: "done?" });
  expect(JSON.parse(new TextDecoder().decode(blocked.stdout)).decision).toBe("block");
  writeFileSync(join(repo, "answer.txt"), "42\n");
  const allowed = await hook("stop", { stop_hook_active: true, last_assistant_message: "done." });
  expect(allowed.stdout.length).toBe(0);
  const show = await run(["show", "gate"], { env });
  expect(show.code).toBe(0);
  const verdicts = new TextDecoder().decode(show.stdout).split("\n").filter((l) => / verdict /.test(l)).map((l) => l.replace(/^\S+\s+verdict\s+/, ""));
  expect(verdicts).toEqual(["FAIL  attempt 1  stop blocked", "PASS  attempt 2  stop allowed: oracle PASS"]);
  const sessions = await run(["sessions", "--outcome", "flip", "--json"], { env });
  expect(JSON.parse(new TextDecoder().decode(sessions.stdout)).session_id).toBe("gate-run");
}, 120_000);
