/**
 * Stored text never reaches the terminal as control sequences: `show`,
 * `sessions` and `doctor` print ESC, BEL, C1 and bidi controls as visible
 * escapes, in text and in --json, against the compiled binary.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, postToolUse, run, tempDir } from "../support/tracegate.ts";

const EVIL = "title\x1b]0;pwned\x07 clear\x1b[2J csi\u009b31m bidi\u202e";
const RAW = /[\x1b\x07\u009b\u202e]/;

let home: string;
let env: Record<string, string>;
beforeAll(async () => {
  home = tempDir();
  env = { TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "none.jsonc"), HOME: home, CLAUDE_CONFIG_DIR: join(home, "claude") };
  const r = await run(["post-tool-use"], { stdin: postToolUse("esc", { cwd: `/tmp/${EVIL}`, tool_response: { stdout: EVIL } }), env });
  expect(r.code).toBe(0);
  await run(["session-start"], { stdin: JSON.stringify({ session_id: "esc", cwd: `/tmp/${EVIL}`, hook_event_name: "SessionStart", source: "startup" }), env });
});
afterAll(() => cleanup(home));

for (const args of [["show", "esc"], ["show", "esc", "--json"], ["sessions"], ["sessions", "--json"]]) {
  test(`${args.join(" ")} escapes control characters`, async () => {
    const r = await run(args, { env });
    expect(r.code).toBe(0);
    const text = new TextDecoder().decode(r.stdout);
    expect(text.length).toBeGreaterThan(0);
    expect(RAW.test(text)).toBe(false);
    if (args.includes("--json")) {
      // Still valid JSON, and the value reads back exactly.
      const values = text.trim().split("\n").map((l) => JSON.parse(l));
      expect(JSON.stringify(values)).toContain("pwned");
      if (args[0] === "show") expect(values.some((v) => v.output?.stdout === EVIL)).toBe(true);
    } else if (args[0] === "show") {
      expect(text).toContain("\\x1b]0;pwned\\x07");
    }
  });
}

test("doctor escapes control characters from settings files and the error log", async () => {
  mkdirSync(join(home, "claude"), { recursive: true });
  writeFileSync(join(home, "claude", "settings.json"), `{"hooks": 1, "x": "${EVIL.replace(/[\x00-\x1f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}"}`);
  writeFileSync(join(home, "errors.log"), `2026-01-01T00:00:00Z pid=1 event=x stage=y ${EVIL}\n`);
  for (const args of [["doctor"], ["doctor", "--json"]]) {
    const r = await run(args, { env });
    const text = new TextDecoder().decode(r.stdout);
    expect(text).toContain("pwned");
    expect(RAW.test(text)).toBe(false);
    if (args.includes("--json")) expect(JSON.parse(text).errors_log.last[0]).toContain(EVIL);
  }
});

test("a FIFO or symlink in the store: sessions and show refuse it rather than hang", async () => {
  const h = tempDir();
  mkdirSync(join(h, "sessions"), { recursive: true });
  expect(Bun.spawnSync(["mkfifo", join(h, "sessions", "fifo.jsonl")]).exitCode).toBe(0);
  const { symlinkSync } = await import("node:fs");
  symlinkSync("/dev/zero", join(h, "sessions", "zero.jsonl"));
  const e = { TRACEGATE_HOME: h, TRACEGATE_CONFIG: join(h, "none.jsonc") };
  const s = await run(["sessions"], { env: e });
  // Reported (ENOTREG or ELOOP), never opened for a blocking read.
  expect(s.code).not.toBe(0);
  expect(s.stderr).toMatch(/ENOTREG|ELOOP/);
  for (const id of ["fifo", "zero"]) {
    const r = await run(["show", id], { env: e });
    expect(r.code).not.toBe(0);
    // Refused as unreadable, or not listed as a session at all: either way, not opened.
    expect(r.stderr).toMatch(/cannot read|no session/);
  }
  cleanup(h);
});
