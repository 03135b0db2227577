/**
 * `tracegate view` as a user command (the compiled binary): the token, Host and
 * Origin checks, listing and reading sessions, `--from file://`, and its
 * errors. Requests are made with node:http so the Host header is ours to set.
 */
import { setDefaultTimeout, afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { cleanup, run, tempDir } from "../support/tracegate.ts";
import { demoSession, manySessions, writeSession } from "./fixtures.ts";
import { startViewerProc, type ViewerProc } from "./support.ts";

// Each test spawns the compiled binary several times; a loaded 2-core machine needs room.
setDefaultTimeout(60_000);

const dirs: string[] = [];
const viewers: ViewerProc[] = [];
afterEach(async () => {
  for (const v of viewers.splice(0)) await v.stop();
  cleanup(...dirs.splice(0));
});
function home(): string {
  const d = tempDir("tg-view-srv-");
  dirs.push(d);
  return d;
}
async function viewer(h: string, args: string[] = []): Promise<ViewerProc> {
  const v = await startViewerProc(h, args);
  viewers.push(v);
  return v;
}

/** GET with exact headers (fetch would set Host itself). */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET", headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("listens on 127.0.0.1 only, on a free port, and prints the URL with a random token", async () => {
  const h = home();
  const a = await viewer(h);
  const b = await viewer(home());
  expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
  expect(a.port).not.toBe(b.port);
  expect(a.token).not.toBe(b.token);
  const ok = await get(a.port, `/?token=${a.token}`);
  expect(ok.status).toBe(200);
  expect(ok.headers["content-security-policy"]).toContain("script-src 'self'");
  // Not on any other address of this machine.
  const other = await fetch(`http://127.0.0.2:${a.port}/?token=${a.token}`).then(
    (r) => r.status,
    () => "refused",
  );
  expect(other).toBe("refused");
});

test("every page route needs the token: without it, or with a wrong one, 403", async () => {
  const v = await viewer(home());
  for (const path of ["/", "/app.js", "/app.css", "/api/sessions", "/api/session?key=x", "/api/events"]) {
    expect({ path, status: (await get(v.port, path)).status }).toEqual({ path, status: 403 });
    const sep = path.includes("?") ? "&" : "?";
    expect({ path, status: (await get(v.port, `${path}${sep}token=${"0".repeat(48)}`)).status }).toEqual({ path, status: 403 });
  }
  expect((await get(v.port, "/api/sessions", { "x-tracegate-token": v.token })).status).toBe(200);
});

test("DNS rebinding and cross-origin requests get 403 even with the token", async () => {
  const v = await viewer(home());
  const q = `/api/sessions?token=${v.token}`;
  expect((await get(v.port, q, { host: `evil.example:${v.port}` })).status).toBe(403);
  expect((await get(v.port, q, { host: `127.0.0.1:${v.port + 1}` })).status).toBe(403);
  expect((await get(v.port, q, { origin: "http://evil.example" })).status).toBe(403);
  expect((await get(v.port, q, { origin: `http://127.0.0.1:${v.port + 1}` })).status).toBe(403);
  expect((await get(v.port, q, { "sec-fetch-site": "cross-site" })).status).toBe(403);
  expect((await get(v.port, q, { host: `localhost:${v.port}`, origin: `http://localhost:${v.port}` })).status).toBe(200);
});

test("lists sessions newest first with filters, search and paging, and reads one session whole", async () => {
  const h = home();
  manySessions(h, 120);
  const v = await viewer(h);
  const api = async (qs: string) => JSON.parse((await get(v.port, `/api/sessions?token=${v.token}&${qs}`)).body);
  const p1 = await api("limit=50");
  expect(p1.total).toBe(120);
  expect(p1.rows.length).toBe(50);
  const starts = p1.rows.map((r: any) => Date.parse(r.start));
  expect([...starts].sort((a, b) => b - a)).toEqual(starts);
  expect(p1.rows[0]).toMatchObject({ session_id: expect.stringMatching(/^sess-00000-/), harness: "claude", repo: "/home/dev/src/acme/billing", duration_ms: 80_000, tool_calls: 6, tool_calls_exact: true, outcome: "unverified", ended: true }); // no oracle key configured: a claimed flip is not one
  expect(p1.rows[0].first_prompt).toContain("pagination");
  expect((await api("")).rows.length).toBe(50); // the default page
  const p3 = await api("limit=50&offset=100");
  expect(p3.rows.length).toBe(20);
  expect((await api("harness=codex")).rows.every((r: any) => r.harness === "codex")).toBe(true);
  expect((await api("outcome=no_oracle")).total).toBe(30);
  const search = await api("q=UNICODE%20names");
  expect(search.total).toBe(20);
  const one = JSON.parse((await get(v.port, `/api/session?token=${v.token}&key=${encodeURIComponent(p1.rows[0].key)}`)).body);
  expect(one.records.length).toBe(13);
  expect(one.records.map((r: any) => r.type)).toContain("oracle_verdict");
});

test("a session key is looked up among listed sessions, never joined into a path", async () => {
  const h = home();
  writeSession(h, demoSession({ sessionId: "ok-1", start: new Date() }));
  writeFileSync(join(h, "secret.jsonl"), `{"type":"message","text":"outside the sessions dir"}\n`);
  const v = await viewer(h);
  for (const key of ["../secret.jsonl", "..%2Fsecret.jsonl", "/etc/passwd", "ok-1.jsonl/../../secret.jsonl"]) {
    const r = await get(v.port, `/api/session?token=${v.token}&key=${encodeURIComponent(key)}`);
    expect({ key, status: r.status }).toEqual({ key, status: 404 });
    expect(r.body).not.toContain("outside the sessions dir");
  }
  expect((await get(v.port, `/api/session?token=${v.token}&key=ok-1.jsonl`)).status).toBe(200);
});

test("--from file:// reads a synced store (sync's layout, through lib/source), read-only, with no discovery record", async () => {
  const h = home();
  const tree = home();
  // The layout sync writes (lib/sync/layout.ts): segments named by their byte offset in the session.
  const dir = join(tree, "acme", "billing", "2026", "11", "30", "sess-synced");
  mkdirSync(dir, { recursive: true });
  const recs = demoSession({ sessionId: "sess-synced", start: new Date("2026-11-30T10:00:00Z") });
  const first = recs.slice(0, 5).map((r) => `${JSON.stringify(r)}\n`).join("");
  writeFileSync(join(dir, "000000000000.jsonl"), first);
  writeFileSync(join(dir, `${String(Buffer.byteLength(first)).padStart(12, "0")}.jsonl`), recs.slice(5).map((r) => `${JSON.stringify(r)}\n`).join(""));
  const before = readFileSync(join(dir, "000000000000.jsonl"), "utf8");
  const v = await viewer(h, ["--from", pathToFileURL(tree).href]);
  const list = JSON.parse((await get(v.port, `/api/sessions?token=${v.token}`)).body);
  expect(list.live).toBe(false);
  expect(list.rows).toHaveLength(1);
  expect(list.rows[0]).toMatchObject({ key: "sess-synced.jsonl", repo: "acme/billing", session_id: "sess-synced", outcome: "unverified", tool_calls: 6 }); // no oracle key: unverified
  const one = JSON.parse((await get(v.port, `/api/session?token=${v.token}&key=${encodeURIComponent(list.rows[0].key)}`)).body);
  expect(one.records).toHaveLength(recs.length);
  expect(readFileSync(join(dir, "000000000000.jsonl"), "utf8")).toBe(before);
  expect((await get(v.port, `/_hook/challenge?nonce=${"1".repeat(32)}`)).status).toBe(404);
  expect(existsSync(join(h, "view.json"))).toBe(false);
});

test("a stored 'verified' is checked again with the configured oracle key: an edited verdict shows as not verifying", async () => {
  const h = home();
  const keys = home();
  expect((await run(["oracle", "keygen", "--out", keys], { env: { TRACEGATE_HOME: h } })).code).toBe(0);
  const other = home();
  expect((await run(["oracle", "keygen", "--out", other], { env: { TRACEGATE_HOME: h } })).code).toBe(0);
  const cfg = join(keys, "config.jsonc");
  writeFileSync(cfg, JSON.stringify({ oracle: { url: "http://127.0.0.1:9", public_key: join(keys, "oracle.pub") } }));
  const { signVerdict } = await import("../../lib/oracle/verdict.ts");
  const sid = "signed-1";
  const binding = { task_id: "t", session_id: sid, base_commit: "a".repeat(40), diff_sha256: "b".repeat(64), tests_hash: "c".repeat(64), chain_head: "d".repeat(64) };
  const good = signVerdict({ ...binding, attempt: 1, verdict: "FAIL" }, readFileSync(join(keys, "oracle.key"), "utf8"));
  const forged = { ...signVerdict({ ...binding, attempt: 2, verdict: "FAIL" }, readFileSync(join(keys, "oracle.key"), "utf8")), verdict: "PASS" };
  const foreign = signVerdict({ ...binding, attempt: 3, verdict: "PASS" }, readFileSync(join(other, "oracle.key"), "utf8"));
  const base = { session_id: sid, harness: "claude", ts: "2026-12-01T10:00:00Z", type: "oracle_verdict", tests_hash: binding.tests_hash, verified: true, diff_sha256: binding.diff_sha256 };
  writeSession(h, [
    { id: "start", session_id: sid, harness: "claude", ts: "2026-12-01T09:59:00Z", type: "session_start", cwd: "/tmp", base_commit: binding.base_commit },
    { ...base, id: "v-good", attempt: 1, verdict: "FAIL", signed: good, decision: "block" },
    { ...base, id: "v-forged", attempt: 2, verdict: "PASS", signed: forged, decision: "allow" },
    { ...base, id: "v-foreign", attempt: 3, verdict: "PASS", signed: foreign, decision: "allow" },
    { ...base, id: "v-unverified", attempt: 4, verdict: "ERROR", signed: null, verified: false },
  ]);
  const v = await startViewerProc(h, [], { TRACEGATE_CONFIG: cfg });
  viewers.push(v);
  const one = JSON.parse((await get(v.port, `/api/session?token=${v.token}&key=${sid}.jsonl`)).body);
  expect(one.checks["v-good"]).toEqual({ state: "ok" });
  expect(one.checks["v-forged"].state).toBe("fails");
  expect(one.checks["v-foreign"].state).toBe("fails");
  expect(one.checks["v-foreign"].problem).toContain("key_id");
  expect(one.checks["v-unverified"]).toBeUndefined();
  // Without a configured key nothing is claimed either way.
  const bare = await startViewerProc(h, [], { TRACEGATE_CONFIG: join(h, "no-config.jsonc") });
  viewers.push(bare);
  const two = JSON.parse((await get(bare.port, `/api/session?token=${bare.token}&key=${sid}.jsonl`)).body);
  expect(two.checks["v-good"].state).toBe("unchecked");
});

test("--open hands the URL to the desktop opener as one argument, with TRACEGATE_INTERNAL=1", async () => {
  if (process.platform !== "linux") return;
  const h = home();
  const bin = home();
  const log = join(bin, "opened.txt");
  writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s|%s|%s\\n' "$#" "$1" "$TRACEGATE_INTERNAL" > '${log}'\n`, { mode: 0o755 });
  const v = await startViewerProc(h, ["--open"], { PATH: `${bin}:${process.env.PATH}` });
  viewers.push(v);
  for (let i = 0; i < 100 && !existsSync(log); i++) await Bun.sleep(50);
  expect(readFileSync(log, "utf8")).toBe(`1|${v.url}|1\n`);
});

test("user errors: a clear message and a non-zero exit", async () => {
  const h = home();
  const cases: [string[], RegExp][] = [
    [["--port", "abc"], /--port must be a number/],
    [["--port", "70000"], /--port must be a number/],
    [["--from", "s3://bucket/prefix"], /no S3 credentials/],
    [["--from", "not a url"], /unsupported store URL/],
    [["--from", "file://./relative"], /absolute path/],
    [["--from", "https://example.com/traces"], /unsupported store URL/],
    [["--bogus"], /has no option --bogus/],
  ];
  for (const [args, msg] of cases) {
    const r = await run(["view", ...args], { env: { TRACEGATE_HOME: h, HOME: h } });
    expect({ args, code: r.code }).toEqual({ args, code: 2 });
    expect(r.stderr).toMatch(msg);
    expect(r.stdout.length).toBe(0);
  }
  const v = await viewer(h);
  const busy = await run(["view", "--port", String(v.port)], { env: { TRACEGATE_HOME: home() } });
  expect(busy.code).toBe(1);
  expect(busy.stderr).toContain("in use");
});
