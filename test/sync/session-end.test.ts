/**
 * `sync.on_session_end: true`: the SessionEnd hook starts a detached
 * background sync of its own session and still returns silently, exit 0; the
 * store then holds the session through its session_end record. Off by default.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileStore } from "../../lib/sync/objects.ts";
import { cleanup, run, tempDir } from "../support/tracegate.ts";
import { expectExactlyOnce, storeObjects } from "./support.ts";

const dirs: string[] = [];
afterAll(() => cleanup(...dirs));

async function session(onEnd: boolean | undefined) {
  const home = tempDir("tg-se-");
  dirs.push(home);
  const root = join(home, "store");
  mkdirSync(root);
  const sync: Record<string, unknown> = { url: `file://${root}` };
  if (onEnd !== undefined) sync.on_session_end = onEnd;
  writeFileSync(join(home, "config.jsonc"), JSON.stringify({ sync }));
  const env = { TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "config.jsonc") };
  await run(["session-start"], { stdin: JSON.stringify({ session_id: "s-end", cwd: home, source: "startup" }), env });
  await run(["user-prompt-submit"], { stdin: JSON.stringify({ session_id: "s-end", prompt: "go" }), env });
  const end = await run(["session-end"], { stdin: JSON.stringify({ session_id: "s-end", reason: "exit", cwd: home }), env });
  return { home, store: new FileStore(root), end };
}

test("on: the hook returns silent and exit 0; a background sync puts the whole session in the store", async () => {
  const { home, store, end } = await session(true);
  expect(end.code).toBe(0);
  expect(end.stdout.length).toBe(0);
  const log = join(home, "errors.log");
  if (existsSync(log)) expect(readFileSync(log, "utf8")).not.toContain("deadline");
  let objects = await storeObjects(store);
  for (let i = 0; i < 200 && !Buffer.concat([...objects.values()]).toString().includes('"type":"session_end"'); i++) {
    await Bun.sleep(100);
    objects = await storeObjects(store);
  }
  const body = Buffer.concat([...objects.values()]).toString();
  expect(body).toContain('"type":"session_end"');
  expect(body).toContain('"type":"session_start"');
  expectExactlyOnce(home, objects, ["s-end"]);
}, 30_000);

test("off by default: SessionEnd starts nothing", async () => {
  for (const onEnd of [undefined, false]) {
    const { store, end } = await session(onEnd);
    expect(end.code).toBe(0);
    await Bun.sleep(1500);
    expect((await storeObjects(store)).size).toBe(0);
  }
});

/** Pids whose argv contains `needle` and whose env has TRACEGATE_HOME=home. */
function childrenFor(home: string, needle: string): { pid: number; argv: string[]; env: string[] }[] {
  const out: { pid: number; argv: string[]; env: string[] }[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const argv = readFileSync(`/proc/${d}/cmdline`, "utf8").replace(/\0$/, "").split("\0");
      if (!argv.includes(needle)) continue;
      const env = readFileSync(`/proc/${d}/environ`, "utf8").split("\0");
      if (env.includes(`TRACEGATE_HOME=${home}`)) out.push({ pid: Number(d), argv, env });
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

test.skipIf(process.platform !== "linux")("the background child: detached (outlives the hook), TRACEGATE_INTERNAL=1, no payload in argv or env", async () => {
  // A store that accepts connections and never answers keeps the child alive long enough to look at.
  const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const home = tempDir("tg-se-");
  dirs.push(home);
  writeFileSync(join(home, "config.jsonc"), JSON.stringify({ sync: { url: "s3://traces/p", on_session_end: true } }));
  const env = { TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "config.jsonc"), AWS_ENDPOINT_URL: `http://127.0.0.1:${silent.port}`, AWS_ACCESS_KEY_ID: "AKIDBG", AWS_SECRET_ACCESS_KEY: "s" };
  const secret = "prompt-text-that-must-not-leak";
  await run(["user-prompt-submit"], { stdin: JSON.stringify({ session_id: "s-bg", prompt: secret }), env });
  const end = await run(["session-end"], { stdin: JSON.stringify({ session_id: "s-bg", reason: `exit ${secret}` }), env });
  try {
    expect(end.code).toBe(0);
    expect(end.stdout.length).toBe(0);
    let kids = childrenFor(home, "--after-session-end");
    for (let i = 0; i < 50 && kids.length === 0; i++) {
      await Bun.sleep(100);
      kids = childrenFor(home, "--after-session-end");
    }
    expect(kids).toHaveLength(1);
    const kid = kids[0]!;
    expect(kid.env).toContain("TRACEGATE_INTERNAL=1");
    expect(kid.argv.slice(1)).toEqual(["sync", "--session-file", "s-bg.jsonl", "--after-session-end"]);
    expect(kid.argv.join(" ") + kid.env.join(" ")).not.toContain(secret);
  } finally {
    for (const k of childrenFor(home, "--after-session-end")) process.kill(k.pid, "SIGKILL");
    silent.stop(true);
  }
});
