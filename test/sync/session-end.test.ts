/**
 * `sync.on_session_end: true`: the SessionEnd hook starts a detached
 * background sync of its own session and still returns silently, exit 0; the
 * store then holds the session through its session_end record. Off by default.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
