/**
 * `tracegate view --from URL` over stores written by the real `tracegate sync`:
 * a file:// store, and an s3:// bucket on Ceph RGW (skipped loudly without
 * it, failing under CI=true; see test/support/rgw.ts).
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { rgw } from "../support/rgw.ts";
import { cleanup, run, tempDir } from "../support/tracegate.ts";
import { demoSession, writeSession } from "./fixtures.ts";
import { startViewerProc, type ViewerProc } from "./support.ts";

setDefaultTimeout(120_000);

const dirs: string[] = [];
const viewers: ViewerProc[] = [];
afterAll(async () => {
  for (const v of viewers) await v.stop();
  cleanup(...dirs);
});
function dir(): string {
  const d = tempDir("tg-view-store-");
  dirs.push(d);
  return d;
}

const server = await rgw();

/** A data dir with two sessions, synced to `url` by the real command. */
async function synced(url: string, env: Record<string, string>): Promise<string> {
  const home = dir();
  writeSession(home, demoSession({ sessionId: "store-a", start: new Date("2026-11-29T10:00:00Z") }));
  writeSession(home, demoSession({ sessionId: "store-b", start: new Date("2026-11-30T10:00:00Z"), end: false }));
  const r = await run(["sync", "--to", url], { env: { TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "config.jsonc"), HOME: home, ...env } });
  expect({ code: r.code, err: r.stderr }).toMatchObject({ code: 0 });
  return home;
}

async function check(url: string, env: Record<string, string>): Promise<void> {
  const viewHome = dir();
  const v = await startViewerProc(viewHome, ["--from", url], { HOME: viewHome, TRACEGATE_CONFIG: join(viewHome, "none.jsonc"), ...env });
  viewers.push(v);
  const api = async (path: string) => (await fetch(`${v.base}${path}${path.includes("?") ? "&" : "?"}token=${v.token}`)).json() as Promise<any>;
  const list = await api("/api/sessions");
  expect(list.live).toBe(false);
  expect(list.rows.map((r: any) => r.session_id)).toEqual(["store-b", "store-a"]);
  expect(list.rows[1]).toMatchObject({ outcome: "unverified", tool_calls: 6, tool_calls_exact: true, ended: true });
  expect(list.rows[0].ended).toBe(false);
  const one = await api(`/api/session?key=${encodeURIComponent(list.rows[1].key)}`);
  expect(one.records.map((r: any) => r.type)).toContain("oracle_verdict");
  expect(one.records).toHaveLength(13);
  expect(existsSync(join(viewHome, "view.json"))).toBe(false);
}

test("--from file:// shows what tracegate sync wrote", async () => {
  const store = dir();
  await synced(pathToFileURL(store).href, {});
  await check(pathToFileURL(store).href, {});
});

test("--from s3:// shows what tracegate sync wrote to a real S3 server (Ceph RGW)", async () => {
  if (!server) return; // rgw() already warned loudly (and threw under CI=true)
  const bucket = await server.bucket();
  await synced(`s3://${bucket}/team`, server.env());
  await check(`s3://${bucket}/team`, server.env());
});
