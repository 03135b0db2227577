/**
 * docs/hook-payloads.md stays true: each sample payload, fed to its hook
 * subcommand of the compiled binary, exits 0, prints nothing and is recorded.
 */
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HOOKS } from "../../lib/hook/caps.ts";
import { cleanup, recordsIn, ROOT, run, tempDir } from "../support/tracegate.ts";

const doc = readFileSync(join(ROOT, "docs", "hook-payloads.md"), "utf8");
const samples = [...doc.matchAll(/^## (\w+): `tracegate ([a-z-]+)`\n\n```json\n([\s\S]*?)\n```/gm)].map((m) => ({ event: m[1]!, sub: m[2]!, json: m[3]! }));
const home = tempDir();
afterAll(() => cleanup(home));

test("the doc has one sample for every hook event tracegate registers", () => {
  expect(samples.map((s) => s.sub).sort()).toEqual(Object.keys(HOOKS).sort());
  for (const s of samples) expect((HOOKS as Record<string, { event: string }>)[s.sub]!.event).toBe(s.event);
});

test("each sample, fed by hand as the doc says, exits 0 silently and is recorded", async () => {
  const env = { TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "none.jsonc") };
  for (const s of samples) {
    const r = await run(s.sub === "stop" ? [s.sub, "--observe"] : [s.sub], { stdin: s.json, env });
    expect({ sub: s.sub, code: r.code, out: r.stdout.length }).toEqual({ sub: s.sub, code: 0, out: 0 });
  }
  const events = recordsIn(home).map((r) => r.event);
  for (const s of samples) expect(events).toContain(s.event);
  const show = await run(["show", "last"], { env });
  expect(show.code).toBe(0);
});
