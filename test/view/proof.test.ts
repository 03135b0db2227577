/**
 * The listener proof, end to end with the compiled binary: a hook forwards
 * its (already stored) records only to a viewer that answers the challenge
 * with sha256(token:nonce). Impostors, nonce-echoers, dead viewers, planted
 * symlinks and loose permissions get nothing, cost the hook nothing visible
 * (exit 0, empty stdout, the record still in the store), and stale records
 * are cleaned.
 */
import { setDefaultTimeout, afterEach, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, postToolUse, recordsIn, run, tempDir } from "../support/tracegate.ts";
import { discoveryPath, proofFor } from "../../lib/view/discovery.ts";
import { impostor, liveStream, startViewerProc, type LiveStream, type ViewerProc } from "./support.ts";

// Each test spawns the compiled binary several times; a loaded 2-core machine needs room.
setDefaultTimeout(60_000);

const dirs: string[] = [];
const stops: (() => unknown)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
  cleanup(...dirs.splice(0));
});
function home(): string {
  const d = tempDir("tg-view-proof-");
  dirs.push(d);
  return d;
}
async function viewer(h: string): Promise<ViewerProc> {
  const v = await startViewerProc(h);
  stops.push(() => v.stop());
  return v;
}
const TOKEN = "ab".repeat(32);
function plant(h: string, port: number, pid = process.pid, token = TOKEN): string {
  const text = `${JSON.stringify({ v: 1, port, pid, token, started_at: new Date().toISOString() })}\n`;
  writeFileSync(discoveryPath(h), text, { mode: 0o600 });
  return text;
}
async function hook(h: string, sid: string, extra: Record<string, unknown> = {}) {
  const r = await run(["post-tool-use"], { stdin: postToolUse(sid, extra), env: { TRACEGATE_HOME: h } });
  expect(r.code).toBe(0);
  expect(r.stdout.length).toBe(0);
  // The store comes first, whatever the listener did.
  expect(recordsIn(h).some((x) => x.session_id === sid && x.type === "tool_call")).toBe(true);
  return r;
}

/**
 * Run the hook until the viewer shows its event. Forwarding is display only: on a loaded machine a
 * genuine viewer can miss the challenge deadline (the record is in the store either way, and the
 * viewer writes back a record a timed-out hook removed), so a test gives it three hooks.
 */
async function delivered(h: string, live: LiveStream, sid: string, extra: Record<string, unknown> = {}): Promise<any> {
  for (let i = 0; i < 3; i++) {
    await hook(h, sid, extra);
    try {
      return await live.waitFor((e) => e.kind === "records" && e.records.some((r: any) => r.session_id === sid), 5000);
    } catch {
      for (let j = 0; j < 50 && !existsSync(discoveryPath(h)); j++) await Bun.sleep(100);
    }
  }
  throw new Error(`no event for ${sid} after three hooks`);
}

test("a running viewer writes a 0600 discovery record, receives the hook's event live, and removes the record on exit", async () => {
  const h = home();
  const v = await viewer(h);
  const st = statSync(discoveryPath(h));
  expect(st.mode & 0o777).toBe(0o600);
  const rec = JSON.parse(readFileSync(discoveryPath(h), "utf8"));
  expect(rec).toMatchObject({ v: 1, port: v.port, pid: v.proc.pid });
  expect(rec.token).toMatch(/^[0-9a-f]{64}$/);
  expect(rec.token).not.toBe(v.token); // the page token is not the proof token
  const live = await liveStream(v);
  stops.push(() => live.close());
  const ev = await delivered(h, live, "live-1", { tool_name: "Grep", tool_use_id: "toolu_live" });
  expect(ev.hook).toBe("post-tool-use");
  expect(ev.records[0]).toMatchObject({ type: "tool_call", session_id: "live-1", tool_name: "Grep", tool_use_id: "toolu_live" });
  // What arrives is what the store holds (redacted, capped), not the raw payload.
  expect(recordsIn(h).some((x) => x.id === ev.records[0].id)).toBe(true);
  await v.stop("SIGTERM");
  expect(existsSync(discoveryPath(h))).toBe(false);
});

test("a symlink planted at the record path is replaced, never followed, when a viewer starts", async () => {
  const h = home();
  const target = join(h, "precious.txt");
  writeFileSync(target, "keep me\n");
  symlinkSync(target, discoveryPath(h));
  await viewer(h);
  expect(readFileSync(target, "utf8")).toBe("keep me\n");
  expect(lstatSync(discoveryPath(h)).isFile()).toBe(true);
  expect(lstatSync(discoveryPath(h)).mode & 0o777).toBe(0o600);
});

test("forwarded events are redacted: what reaches the page is what reached the disk", async () => {
  const h = home();
  const v = await viewer(h);
  const live = await liveStream(v);
  stops.push(() => live.close());
  const secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
  const ev = await delivered(h, live, "redact-1", { tool_response: { stdout: `token=${secret}` } });
  expect(JSON.stringify(ev)).not.toContain(secret);
  expect(JSON.stringify(ev)).toContain("[REDACTED:");
});

test("an event over the size limit arrives cut, keeping event, session, tool and call id", async () => {
  const h = home();
  const v = await viewer(h);
  const live = await liveStream(v);
  stops.push(() => live.close());
  const ev = await delivered(h, live, "big-1", { tool_name: "Read", tool_use_id: "toolu_big", tool_response: { content: "x".repeat(200_000) } });
  const r = ev.records[0];
  expect(r).toMatchObject({ type: "tool_call", event: "PostToolUse", session_id: "big-1", tool_name: "Read", tool_use_id: "toolu_big" });
  expect(r.view_cut.bytes).toBeGreaterThan(200_000);
  expect(r.view_cut.sha256).toMatch(/^[0-9a-f]{64}$/);
  expect(r.output).toBeUndefined();
  expect(JSON.stringify(ev).length).toBeLessThan(64 * 1024);
});

test("an impostor on the recorded port (answers anything) gets the challenge but never an event; its record is cleaned", async () => {
  const h = home();
  const imp = impostor(() => "ok");
  stops.push(imp.stop);
  plant(h, imp.port);
  await hook(h, "imp-1", { tool_input: { command: "echo impostor-canary" } });
  expect(imp.seen.length).toBe(1);
  expect(imp.seen[0]!.path).toBe("/_hook/challenge");
  expect(imp.seen.some((s) => s.body.includes("impostor-canary"))).toBe(false);
  expect(existsSync(discoveryPath(h))).toBe(false);
  await hook(h, "imp-2");
  expect(imp.seen.length).toBe(1); // record gone: the next hook does not even knock
});

test("a listener that knows the nonce but not the token fails the proof", async () => {
  const h = home();
  const echo = impostor((_req, url) => url.searchParams.get("nonce") ?? "");
  const hashNonce = impostor((_req, url) => new Bun.CryptoHasher("sha256").update(url.searchParams.get("nonce") ?? "").digest("hex"));
  const wrongToken = impostor((_req, url) => proofFor("cd".repeat(32), url.searchParams.get("nonce") ?? ""));
  stops.push(echo.stop, hashNonce.stop, wrongToken.stop);
  for (const l of [echo, hashNonce, wrongToken]) {
    plant(h, l.port);
    await hook(h, `nonce-${l.port}`);
    expect(l.seen.map((s) => s.path)).toEqual(["/_hook/challenge"]);
    expect(existsSync(discoveryPath(h))).toBe(false);
  }
});

test("a listener that holds the token passes: the proof is what decides, not the process", async () => {
  // Control for the test above: the same plain server, answering correctly, does get the event.
  const h = home();
  const honest = impostor((_req, url) => (url.pathname === "/_hook/challenge" ? proofFor(TOKEN, url.searchParams.get("nonce") ?? "") : "ok"));
  stops.push(honest.stop);
  plant(h, honest.port);
  await hook(h, "honest-1", { tool_input: { command: "echo honest-canary" } });
  expect(honest.seen.map((s) => s.path)).toEqual(["/_hook/challenge", "/_hook/event"]);
  expect(honest.seen[1]!.body).toContain("honest-canary");
  expect(existsSync(discoveryPath(h))).toBe(true);
});

test("a viewer killed with SIGKILL leaves a record that the next hook ignores and cleans", async () => {
  const h = home();
  const v = await startViewerProc(h);
  await v.stop("SIGKILL");
  expect(existsSync(discoveryPath(h))).toBe(true);
  await hook(h, "killed-1");
  expect(existsSync(discoveryPath(h))).toBe(false);
});

test("a record for a live pid whose port is closed is cleaned", async () => {
  const h = home();
  const imp = impostor();
  const port = imp.port;
  imp.stop();
  plant(h, port);
  await hook(h, "closed-1");
  expect(existsSync(discoveryPath(h))).toBe(false);
});

test("a listener that never answers costs one hook its small deadline, not its cap, and its record is cleaned", async () => {
  const h = home();
  const hang = impostor(() => new Promise<string>(() => {}));
  stops.push(hang.stop);
  plant(h, hang.port);
  const r = await hook(h, "hang-1");
  // Not a timing assert on load: the cap is 2.5 s; the forwarder gives up after 250 ms.
  expect(r.ms).toBeLessThan(2500);
  expect(existsSync(discoveryPath(h))).toBe(false);
  await hook(h, "hang-2");
  expect(hang.seen.length).toBe(1);
});

test("a running viewer puts its record back if something removed it", async () => {
  const h = home();
  const v = await viewer(h);
  const before = readFileSync(discoveryPath(h), "utf8");
  cleanup(discoveryPath(h));
  for (let i = 0; i < 100 && !existsSync(discoveryPath(h)); i++) await Bun.sleep(100);
  expect(readFileSync(discoveryPath(h), "utf8")).toBe(before);
  const live = await liveStream(v);
  stops.push(() => live.close());
  await delivered(h, live, "restored-1");
});

test("two viewers on one data dir: the newer one takes the record, and the older takes it back when the newer exits", async () => {
  const h = home();
  const a = await viewer(h);
  const b = await startViewerProc(h);
  expect(JSON.parse(readFileSync(discoveryPath(h), "utf8")).pid).toBe(b.proc.pid);
  await Bun.sleep(2500); // a's watch must not take the record back while b runs
  expect(JSON.parse(readFileSync(discoveryPath(h), "utf8")).pid).toBe(b.proc.pid);
  await b.stop();
  for (let i = 0; i < 100 && !existsSync(discoveryPath(h)); i++) await Bun.sleep(100);
  expect(JSON.parse(readFileSync(discoveryPath(h), "utf8")).pid).toBe(a.proc.pid);
});

test("a symlinked, group-readable, malformed or FIFO record is ignored: nothing is contacted", async () => {
  const h = home();
  const imp = impostor((_req, url) => proofFor(TOKEN, url.searchParams.get("nonce") ?? ""));
  stops.push(imp.stop);
  const elsewhere = join(h, "elsewhere.json");
  writeFileSync(elsewhere, JSON.stringify({ v: 1, port: imp.port, pid: process.pid, token: TOKEN, started_at: "x" }), { mode: 0o600 });
  symlinkSync(elsewhere, discoveryPath(h));
  await hook(h, "link-1");
  expect(imp.seen.length).toBe(0);
  expect(readFileSync(elsewhere, "utf8")).toContain(TOKEN); // the target is never touched
  cleanup(discoveryPath(h));
  plant(h, imp.port);
  chmodSync(discoveryPath(h), 0o640);
  await hook(h, "perm-1");
  expect(imp.seen.length).toBe(0);
  writeFileSync(discoveryPath(h), JSON.stringify({ v: 1, port: imp.port, pid: process.pid, token: "short", started_at: "x" }), { mode: 0o600 });
  await hook(h, "bad-1");
  expect(imp.seen.length).toBe(0);
  // A FIFO at the record path cannot block the hook's read.
  cleanup(discoveryPath(h));
  expect(Bun.spawnSync(["mkfifo", "-m", "600", discoveryPath(h)]).exitCode).toBe(0);
  const r = await hook(h, "fifo-1");
  expect(r.ms).toBeLessThan(2500);
  expect(imp.seen.length).toBe(0);
});

test("the viewer refuses an event post without an answered nonce or with a bad MAC", async () => {
  const h = home();
  const v = await viewer(h);
  const body = JSON.stringify({ hook: "post-tool-use", records: [{ type: "tool_call", session_id: "forged" }] });
  const noNonce = await fetch(`${v.base}/_hook/event`, { method: "POST", body, headers: { "x-tracegate-nonce": "0".repeat(32), "x-tracegate-mac": "0".repeat(64) } });
  expect(noNonce.status).toBe(403);
  const nonce = "1".repeat(32);
  const ch = await fetch(`${v.base}/_hook/challenge?nonce=${nonce}`);
  expect(ch.status).toBe(200);
  const badMac = await fetch(`${v.base}/_hook/event`, { method: "POST", body, headers: { "x-tracegate-nonce": nonce, "x-tracegate-mac": "0".repeat(64) } });
  expect(badMac.status).toBe(403);
  // A body over the limit is refused, chunked or not.
  const ch2 = await fetch(`${v.base}/_hook/challenge?nonce=${"2".repeat(32)}`);
  expect(ch2.status).toBe(200);
  const huge = new ReadableStream({
    start(c) {
      for (let i = 0; i < 40; i++) c.enqueue(new Uint8Array(64 * 1024));
      c.close();
    },
  });
  const tooBig = await fetch(`${v.base}/_hook/event`, { method: "POST", body: huge, headers: { "x-tracegate-nonce": "2".repeat(32), "x-tracegate-mac": "0".repeat(64) } }).then(
    (r) => r.status,
    () => "closed",
  );
  expect([413, "closed"]).toContain(tooBig);
  // A browser (any Origin) cannot use the hook routes at all.
  const fromPage = await fetch(`${v.base}/_hook/challenge?nonce=${nonce}`, { headers: { origin: "http://evil.example" } });
  expect(fromPage.status).toBe(403);
});
