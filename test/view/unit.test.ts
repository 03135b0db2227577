/**
 * The viewer's pure parts and its source: bounded summaries (no whole-file
 * reads for the list), paging and search, the display cut, the discovery
 * record's parser and proof, and the page script's text-only rendering.
 */
import { afterEach, expect, test } from "bun:test";
import { appendFileSync, closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { cleanup, ROOT, tempDir } from "../support/tracegate.ts";
import { constantTimeEqual, eventMac, newDiscovery, parseDiscovery, proofFor, readDiscovery, writeDiscovery } from "../../lib/view/discovery.ts";
import { cutForDisplay, EVENT_LIMIT_BYTES } from "../../lib/view/forward-run.ts";
import { localSource } from "../../lib/view/source.ts";
import { listPage, summarize, SummaryCache, type SessionRow } from "../../lib/view/summary.ts";
import { demoSession, writeSession } from "./fixtures.ts";
import type { TraceRecord } from "../../lib/trace/record.ts";

const dirs: string[] = [];
afterEach(() => cleanup(...dirs.splice(0)));
function home(): string {
  const d = tempDir("tg-view-unit-");
  dirs.push(d);
  return d;
}

test("a large session is summarised from its head and tail only, with the tool count marked as a lower bound", async () => {
  const h = home();
  const recs = demoSession({ sessionId: "big", start: new Date("2026-12-01T10:00:00Z") });
  const path = join(h, "sessions", writeSession(h, recs.slice(0, 1)));
  // An 8 GiB sparse file: head records, a hole, tail records. A whole-file read could not finish.
  const fd = openSync(path, "w");
  writeSync(fd, recs.slice(0, 3).map((r) => `${JSON.stringify(r)}\n`).join(""));
  writeSync(fd, `\n${recs.slice(3).map((r) => `${JSON.stringify(r)}\n`).join("")}`, 8 * 1024 ** 3);
  closeSync(fd);
  const entry = (await localSource(h).list())[0]!;
  expect(entry.segments[0]!.bytes).toBeGreaterThan(8 * 1024 ** 3);
  const row = summarize(entry);
  expect(row).toMatchObject({ session_id: "big", harness: "claude", cwd: "/home/dev/src/acme/billing", start: "2026-12-01T10:00:00.000Z", duration_ms: 80_000, outcome: "flip", ended: true, tool_calls: 6, tool_calls_exact: false });
  expect(row.first_prompt).toContain("invoice total");
  // Opening the session in full makes the count exact (here: the records the file holds).
  const cache = new SummaryCache();
  expect(cache.putExact(entry, recs)).toMatchObject({ tool_calls: 6, tool_calls_exact: true });
  expect((await cache.get(entry)).tool_calls_exact).toBe(true);
});

test("a session ending in a large record still shows its last record's time", async () => {
  const h = home();
  const recs = demoSession({ sessionId: "tailbig", start: new Date("2026-12-01T10:00:00Z"), end: false });
  const name = writeSession(h, recs);
  const last = { ...recs[2], id: "big-last", ts: "2026-12-01T10:30:00.000Z", output: "q".repeat(1 << 20) };
  appendFileSync(join(h, "sessions", name), `${JSON.stringify(last)}\n`);
  const row = summarize((await localSource(h).list())[0]!);
  expect(row.last).toBe("2026-12-01T10:30:00.000Z");
  expect(row.duration_ms).toBe(30 * 60_000);
  expect(row.ended).toBe(false);
});

test("the cache answers an unchanged session without reading it, and rereads one that grew", async () => {
  const h = home();
  const name = writeSession(h, demoSession({ sessionId: "c1", start: new Date(), end: false }));
  const cache = new SummaryCache();
  const a = await cache.get((await localSource(h).list())[0]!);
  expect(a.ended).toBe(false);
  expect(await cache.get((await localSource(h).list())[0]!)).toBe(a);
  appendFileSync(join(h, "sessions", name), `${JSON.stringify({ id: "e", type: "session_end", session_id: "c1", harness: "claude", ts: new Date().toISOString(), reason: "exit", outcome: "flip" })}\n`);
  const b = await cache.get((await localSource(h).list())[0]!);
  expect(b).not.toBe(a);
  expect(b.ended).toBe(true);
});

test("listPage: newest first, filters, case-insensitive search, bounded paging", () => {
  const row = (i: number, extra: Partial<SessionRow> = {}): SessionRow => ({ key: `k${i}`, session_id: `s${i}`, harness: "claude", repo: "r", cwd: "r", start: new Date(1_700_000_000_000 + i * 1000).toISOString(), last: null, duration_ms: 0, tool_calls: 0, tool_calls_exact: true, outcome: "flip", outcome_check: null, ended: true, first_prompt: `prompt ${i}`, bytes: 1, mtime_ms: 0, ...extra });
  const rows = Array.from({ length: 30 }, (_, i) => row(i, i % 3 === 0 ? { harness: "codex", outcome: "no_flip", first_prompt: "Fix The FLAKY test" } : {}));
  const p = listPage(rows, { limit: 10 });
  expect(p.total).toBe(30);
  expect(p.rows.map((r) => r.key)).toEqual(["k29", "k28", "k27", "k26", "k25", "k24", "k23", "k22", "k21", "k20"]);
  expect(listPage(rows, { harness: "codex" }).total).toBe(10);
  expect(listPage(rows, { outcome: "no_flip", q: "flaky" }).total).toBe(10);
  expect(listPage(rows, { q: "nothing" }).total).toBe(0);
  expect(listPage(rows, { limit: 100000 }).limit).toBe(500);
  expect(listPage(rows, { offset: 25, limit: 10 }).rows.length).toBe(5);
  expect(p.harnesses).toEqual(["claude", "codex"]);
});

test("cutForDisplay keeps small records whole and cuts big ones to their identifying fields", () => {
  const small = { id: "1", type: "tool_call", session_id: "s", harness: "claude", ts: "t", tool_name: "Bash", tool_use_id: "u", input: {}, output: "ok", duration_ms: 1, status: "ok" } as unknown as TraceRecord;
  expect(cutForDisplay(small)).toBe(small as any);
  const big = { ...small, event: "PostToolUse", output: "z".repeat(EVENT_LIMIT_BYTES), tool_name: { cut: true, head: "Very".repeat(100), sha256: "0", bytes: 9 } } as unknown as TraceRecord;
  const c = cutForDisplay(big);
  expect(Object.keys(c).sort()).toEqual(["duration_ms", "event", "harness", "id", "session_id", "status", "tool_name", "tool_use_id", "ts", "type", "view_cut"]);
  expect((c.tool_name as string).length).toBe(256);
  expect((c.view_cut as any).bytes).toBe(Buffer.byteLength(JSON.stringify(big)));
});

test("discovery records: strict parse, 0600 write through a temp file, proof and MAC", () => {
  const h = home();
  const rec = newDiscovery(4321);
  writeDiscovery(h, rec);
  expect(readDiscovery(h).record).toEqual(rec);
  writeDiscovery(h, { ...rec, port: 4322 }); // replaces in place
  expect(readDiscovery(h).record?.port).toBe(4322);
  for (const bad of ["", "[]", "{}", JSON.stringify({ ...rec, v: 2 }), JSON.stringify({ ...rec, port: 0 }), JSON.stringify({ ...rec, port: 70000 }), JSON.stringify({ ...rec, pid: -1 }), JSON.stringify({ ...rec, token: "AB".repeat(32) }), JSON.stringify({ ...rec, host: "10.0.0.1" }).replace('"port":4321', '"port":"4321"')]) {
    expect({ bad, r: parseDiscovery(bad) }).toEqual({ bad, r: null });
  }
  const nonce = "a".repeat(32);
  expect(proofFor("t", nonce)).toBe(new Bun.CryptoHasher("sha256").update(`t:${nonce}`).digest("hex"));
  expect(eventMac("t", nonce, "b")).not.toBe(eventMac("u", nonce, "b"));
  expect(constantTimeEqual("abc", "abc")).toBe(true);
  expect(constantTimeEqual("abc", "abd")).toBe(false);
  expect(constantTimeEqual("abc", "abcd")).toBe(false);
  expect(constantTimeEqual("", "a")).toBe(false);
});

test("the page script builds the DOM from text nodes only: no HTML parsing of anything", () => {
  const src = readFileSync(join(ROOT, "lib", "view", "assets", "app.js"), "utf8");
  for (const sink of ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser", "createContextualFragment", "srcdoc", "eval(", "new Function", "setAttribute(\"on", "javascript:"]) {
    expect({ sink, found: src.includes(sink) }).toEqual({ sink, found: false });
  }
  // setAttribute is reached only through the allow-list in h(): no href/src from record content.
  expect(src.match(/setAttribute\(/g)?.length).toBe(1);
});

test("the hook path imports only the small forwarding module, and it loads the client lazily", () => {
  const run = readFileSync(join(ROOT, "lib", "hook", "run.ts"), "utf8");
  expect(run.match(/from "\.\.\/view\/[^"]+"/g)).toEqual(['from "../view/forward.ts"']);
  expect(run.match(/forwardToViewer\(/g)?.length).toBe(1);
  const fwd = readFileSync(join(ROOT, "lib", "view", "forward.ts"), "utf8");
  expect(fwd.match(/^import .* from "(.*)";$/gm)).toEqual(['import { lstatSync } from "node:fs";', 'import { join } from "node:path";', 'import type { TraceRecord } from "../trace/record.ts";']);
  expect(fwd).toContain('await import("./forward-run.ts")');
  // Nothing the hook may load touches node:crypto (20-35 ms of start-up) or prints.
  for (const f of ["forward.ts", "forward-run.ts", "discovery.ts"]) {
    const text = readFileSync(join(ROOT, "lib", "view", f), "utf8");
    expect({ f, crypto: /from "(node:)?crypto"/.test(text), print: /cli\/print/.test(text), exit: /process\.exit/.test(text) }).toEqual({ f, crypto: false, print: false, exit: false });
  }
});
