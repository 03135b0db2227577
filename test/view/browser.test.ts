/**
 * The page in a real browser: Debian's Chromium driven by playwright-core (no
 * browser download), against the compiled `tracegate view`, with the compiled
 * hook posting live events. Set TRACEGATE_SCREENSHOTS=1 to rewrite
 * docs/view-sessions.png and docs/view-session.png from this run.
 */
import { setDefaultTimeout, afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { cleanup, postToolUse, ROOT, run, tempDir } from "../support/tracegate.ts";
import { demoSession, HOSTILE, manySessions, writeSession } from "./fixtures.ts";
import { startViewerProc, type ViewerProc } from "./support.ts";

// Each test spawns the compiled binary several times; a loaded 2-core machine needs room.
setDefaultTimeout(60_000);

const CHROMIUM = "/usr/bin/chromium";
const have = existsSync(CHROMIUM);
if (!have) {
  const msg = `browser tests need Debian's Chromium at ${CHROMIUM}: run .ci/setup.d/50-chromium.sh (apt-get install chromium)`;
  if (process.env.CI === "true") throw new Error(msg);
  console.warn(`SKIP test/view/browser.test.ts: ${msg}`);
}
const shots = process.env.TRACEGATE_SCREENSHOTS === "1";

let home = "";
let profile = "";
let viewer: ViewerProc;
let ctx: BrowserContext;
let page: Page;
const DEMO = "demo-7f3c2a9e";
/** Records a hostile agent could write into its own session file: odd shapes, HTML in every field. */
const WEIRD = [
  { id: "w1", session_id: "weird-1", harness: "<b>h</b>", ts: "2026-01-01T00:00:00Z", type: "session_start", cwd: { cut: true, head: "<script>window.__pwned=1</script>", sha256: "<i>", bytes: "<u>" } },
  { id: "w2", session_id: "weird-1", harness: "claude", ts: "not a time", type: "tool_call", tool_name: { x: "<img src=x onerror=window.__pwned=2>" }, status: { a: 1 }, duration_ms: "<b>", input: { file_path: "<svg onload=window.__pwned=3>", old_string: ["x"], new_string: 5 }, output: { structuredPatch: [{ lines: "not an array" }, null, { oldStart: "<b>", lines: ["+<script>window.__pwned=4</script>"] }] } },
  { id: "w3", session_id: "weird-1", harness: "claude", ts: "2026-01-01T00:00:01Z", type: "oracle_verdict", verdict: { v: "<b>PASS</b>" }, attempt: { n: 1 }, verified: "yes", decision: "<allow>", diff: "+<iframe src=javascript:window.__pwned=5>" },
  { id: "w4", session_id: "weird-1", harness: "claude", ts: "2026-01-01T00:00:02Z", type: { nested: "<script>" }, payload: "<script>window.__pwned=6</script>" },
  { id: "w5", session_id: "weird-1", harness: "claude", ts: "2026-01-01T00:00:03Z", type: "message", role: "user", text: { cut: true, head: "<a href=javascript:window.__pwned=7>click</a>", sha256: "x", bytes: 9 } },
];

beforeAll(async () => {
  if (!have) return;
  home = tempDir("tg-view-browser-");
  profile = mkdtempSync(join(tmpdir(), "tg-chromium-"));
  // A real oracle key, configured for the viewer: the demo's verdicts are signed with it, and a
  // copy of the demo with its FAIL edited into a PASS must show as not verifying.
  const keys = join(home, "keys");
  expect((await run(["oracle", "keygen", "--out", keys], { env: { TRACEGATE_HOME: home } })).code).toBe(0);
  const oracleKey = readFileSync(join(keys, "oracle.key"), "utf8");
  manySessions(home, 60, undefined, oracleKey);
  const cfg = join(keys, "config.jsonc");
  writeFileSync(cfg, JSON.stringify({ oracle: { url: "http://127.0.0.1:9", public_key: join(keys, "oracle.pub") } }));
  writeSession(home, demoSession({ sessionId: DEMO, start: new Date("2026-12-01T09:12:00Z"), verdictDiff: true, oracleKey }));
  const forged = demoSession({ sessionId: "forged-1", start: new Date("2026-11-01T09:00:00Z"), oracleKey, end: false });
  const fail = forged.find((r) => r.verdict === "FAIL")!;
  Object.assign(fail, { verdict: "PASS", decision: "allow", signed: { ...(fail.signed as object), verdict: "PASS" } });
  writeSession(home, forged.slice(0, forged.indexOf(fail) + 1));
  writeSession(home, WEIRD);
  viewer = await startViewerProc(home, [], { TRACEGATE_CONFIG: cfg });
  const { chromium } = await import("playwright-core");
  ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  page = ctx.pages()[0] ?? (await ctx.newPage());
}, 60_000);

afterAll(async () => {
  await ctx?.close();
  await viewer?.stop();
  if (home) cleanup(home, profile);
});

const btest = have ? test : test.skip;

/**
 * Run a hook until the page shows what it sent. Forwarding is display only: on a loaded machine a
 * genuine viewer can miss the hook's challenge deadline (the record is in the store either way, and
 * the viewer writes back its discovery record within 2 s), so the test gives it three hooks.
 */
async function untilShown(hookRun: () => Promise<void>, shown: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await hookRun();
    try {
      await shown();
      return;
    } catch {
      for (let j = 0; j < 50 && !existsSync(join(home, "view.json")); j++) await Bun.sleep(100);
    }
  }
  throw new Error("the page never showed the hook's event");
}

/** Open a session by URL and wait until its own timeline (not the one before it) is on the page. */
async function openSession(key: string, sessionId: string): Promise<void> {
  await page.goto(`${viewer.url}#/s/${encodeURIComponent(key)}`);
  await page.locator("section.summary h1", { hasText: sessionId }).waitFor();
  await page.waitForSelector("#timeline li");
}

btest("without the token the page is 403", async () => {
  const res = await page.goto(`${viewer.base}/`);
  expect(res?.status()).toBe(403);
  expect(await page.textContent("body")).toContain("token");
});

btest("the sessions table: newest first, paged, with search", async () => {
  await page.goto(viewer.url);
  await page.waitForSelector("table.sessions tbody tr.row");
  expect(await page.locator("tr.row").count()).toBe(50);
  expect(await page.textContent(".count")).toContain("of 63");
  // The demo session is the newest.
  expect(await page.locator("tr.row").first().getAttribute("data-key")).toBe(`${DEMO}.jsonl`);
  expect(await page.locator("tr.row").first().textContent()).toContain("invoice total");
  await page.fill("input.search", "nightly job");
  await page.locator(".count", { hasText: "of 10 " }).waitFor();
  expect(await page.locator("tr.row").count()).toBe(10);
  await page.fill("input.search", "");
  await page.locator(".count", { hasText: "of 63 " }).waitFor();
  if (shots) {
    mkdirSync(join(ROOT, "docs"), { recursive: true });
    await page.screenshot({ path: join(ROOT, "docs", "view-sessions.png") });
  }
});

btest("one session: timeline, a tool call expanded with its diff, verdicts, redaction marks, hostile text as text", async () => {
  await page.goto(viewer.url);
  await page.click(`tr.row[data-key="${DEMO}.jsonl"]`);
  await page.waitForSelector("#timeline li");
  const types = await page.$$eval("#timeline li", (els) => els.map((e) => e.getAttribute("data-type")));
  expect(types).toEqual(["session_start", "message", "tool_call", "tool_call", "tool_call", "tool_call", "tool_call", "message", "oracle_verdict", "tool_call", "message", "oracle_verdict", "session_end"]);
  const edit = page.locator('#timeline li[data-type="tool_call"]', { hasText: "round(subtotal" }).first();
  await edit.locator("summary").first().click();
  const added = edit.locator("pre.diff .d-add");
  await added.first().waitFor({ state: "visible" });
  expect(await added.first().textContent()).toContain("return round(subtotal * 1.2, 2)");
  expect(await edit.locator("pre.diff .d-del").first().textContent()).toContain("return subtotal * 1.2");
  // Output is collapsed, with its size.
  const out = edit.locator("details.output");
  expect(await out.getAttribute("open")).toBeNull();
  expect(await out.locator("summary").textContent()).toMatch(/^Output \(\d+ B\)$/);
  // Verdicts: FAIL blocked, attempt 1, with the stored diff; PASS allowed, attempt 2, with the digest only.
  const verdicts = page.locator('#timeline li[data-type="oracle_verdict"]');
  expect(await verdicts.nth(0).textContent()).toMatch(/verdict FAIL.*verified.*blocked.*attempt 1/);
  expect(await verdicts.nth(0).locator("pre.diff .d-add").textContent()).toContain("round(subtotal");
  expect(await verdicts.nth(1).textContent()).toMatch(/verdict PASS.*verified.*allowed.*attempt 2/);
  expect(await verdicts.locator(".sig").allTextContents()).toEqual(["signature ✓", "signature ✓"]);
  expect(await verdicts.nth(1).textContent()).toContain("not the patch itself");
  expect(await page.textContent('#timeline li[data-type="session_end"]')).toContain("flip");
  // The hostile output is shown as text and never ran.
  const hostile = page.locator('#timeline li[data-type="tool_call"]', { hasText: "ci.example" });
  await hostile.locator("summary").first().click();
  await hostile.locator("details.output summary").click();
  await hostile.locator("details.output pre").first().waitFor();
  expect(await hostile.locator("details.output pre").first().textContent()).toContain(HOSTILE);
  // Redaction marks are marks.
  expect(await hostile.locator(".redacted").first().textContent()).toBe("[REDACTED:github-pat:3f9a]");
  expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
  expect(await page.locator("#timeline img, #timeline script, #timeline b").count()).toBe(0);
  if (shots) await page.screenshot({ path: join(ROOT, "docs", "view-session.png"), fullPage: true });
});

btest("a verdict edited on disk (FAIL made PASS) shows that its signature does not verify", async () => {
  await openSession("forged-1.jsonl", "forged-1");
  const v = page.locator('#timeline li[data-type="oracle_verdict"]');
  await v.first().waitFor();
  expect(await v.first().textContent()).toContain("verdict PASS");
  expect(await v.first().locator(".sig").textContent()).toBe("signature does not verify");
  // In the list, its claimed flip is not a flip; the demo's, signed for real, is.
  await page.goto(viewer.url);
  const forgedRow = page.locator('tr.row[data-key="forged-1.jsonl"]');
  await page.fill("input.search", "forged-1");
  await forgedRow.waitFor();
  expect(await forgedRow.textContent()).toContain("unverified");
  expect(await forgedRow.textContent()).toContain("unverified flip");
  await page.fill("input.search", DEMO);
  await page.locator(`tr.row[data-key="${DEMO}.jsonl"] .sig-ok`).waitFor();
});

btest("a hostile session file (odd shapes, markup in every field) renders every record as text", async () => {
  await openSession("weird-1.jsonl", "weird-1");
  expect(await page.locator("#timeline > li").count()).toBe(WEIRD.length);
  expect(await page.locator("#timeline img, #timeline script, #timeline svg, #timeline iframe, #timeline a, #timeline b").count()).toBe(0);
  await page.locator("#timeline details").evaluateAll((els) => els.forEach((e) => e.setAttribute("open", "")));
  expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
  expect(await page.textContent("#timeline")).toContain("<script>window.__pwned=6</script>");
});

btest("a new event appears live while the compiled hook runs", async () => {
  await openSession(`${DEMO}.jsonl`, DEMO);
  await page.waitForSelector("#live.on");
  const before = await page.locator("#timeline li").count();
  // PreToolUse: the call shows as running...
  const pre = JSON.stringify({ session_id: DEMO, cwd: "/tmp", hook_event_name: "PreToolUse", tool_name: "LiveProbe", tool_input: { command: "echo live" }, tool_use_id: "toolu_live" });
  const hookRun = (name: string, stdin: string) => async () => {
    const r = await run([name], { stdin, env: { TRACEGATE_HOME: home } });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(0);
  };
  await untilShown(hookRun("pre-tool-use", pre), () => page.locator('#timeline li[data-type="pre_tool_use"]', { hasText: "running" }).first().waitFor({ timeout: 5000 }));
  // ...and PostToolUse replaces it with the finished call.
  const t0 = performance.now();
  const post = postToolUse(DEMO, { tool_name: "LiveProbe", tool_use_id: "toolu_live", tool_input: { command: "echo live" } });
  await untilShown(hookRun("post-tool-use", post), () => page.locator('#timeline li.fresh[data-type="tool_call"]', { hasText: "LiveProbe" }).waitFor({ timeout: 5000 }));
  // A figure, not an assert: load on a shared machine must not fail the suite.
  console.warn(`view live latency (hook start to element on the page): ${(performance.now() - t0).toFixed(0)} ms`);
  expect(await page.locator("#timeline li").count()).toBe(before + 1);
  expect(await page.locator('#timeline li[data-type="pre_tool_use"]').count()).toBe(0);
  // Reopened, the session shows the call once (its PreToolUse folded into it).
  await page.reload();
  await page.waitForSelector("#timeline li");
  expect(await page.locator('#timeline li[data-type="tool_call"]', { hasText: "LiveProbe" }).count()).toBeGreaterThanOrEqual(1);
  expect(await page.locator('#timeline li[data-type="pre_tool_use"]').count()).toBe(0);
  // The list updates too: a new session shows up at the top.
  await page.goto(viewer.url);
  await page.waitForSelector("tr.row");
  const ss = JSON.stringify({ session_id: "live-new-session", cwd: "/tmp", hook_event_name: "SessionStart", source: "startup" });
  await untilShown(hookRun("session-start", ss), () => page.waitForSelector('tr.row[data-key="live-new-session.jsonl"]', { timeout: 5000 }));
});
