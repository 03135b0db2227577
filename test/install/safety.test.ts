/**
 * Install that cannot break Claude Code or write outside what it owns, and
 * keygen that never writes through a symlink, through the compiled binary.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unifiedDiff } from "../../lib/install/unified-diff.ts";
import { planInstall } from "../../lib/install/settings.ts";
import { desiredEntries } from "../../lib/install/entries.ts";

const DIST = join(import.meta.dir, "..", "..", "dist", "tracegate");
let root: string;
let n = 0;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "tg-install-safety-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function fresh() {
  const dir = join(root, `c${n++}`);
  const env: Record<string, string> = {
    PATH: "/usr/bin:/bin",
    HOME: join(dir, "home"),
    CLAUDE_CONFIG_DIR: join(dir, "claude"),
    TRACEGATE_HOME: join(dir, "data"),
    TRACEGATE_CONFIG: join(dir, "config.jsonc"),
  };
  const project = join(dir, "project");
  mkdirSync(join(project, ".claude"), { recursive: true });
  mkdirSync(env.HOME!, { recursive: true });
  mkdirSync(env.CLAUDE_CONFIG_DIR!, { recursive: true });
  const run = (...args: string[]) => {
    const r = spawnSync(DIST, args, { env, cwd: project, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  return { dir, env, project, run, user: join(env.CLAUDE_CONFIG_DIR!, "settings.json") };
}

describe("never writes outside", () => {
  test("install --scope project does not write through a committed settings.json.tracegate.bak symlink", () => {
    const t = fresh();
    const victim = join(t.dir, "victim");
    writeFileSync(victim, "precious\n");
    chmodSync(victim, 0o600);
    writeFileSync(join(t.project, ".claude", "settings.json"), '{\n  "permissions": {}\n}\n');
    symlinkSync(victim, join(t.project, ".claude", "settings.json.tracegate.bak"));
    const r = t.run("install", "--scope", "project", "--bin", DIST);
    expect(r.code).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(statSync(victim).mode & 0o777).toBe(0o600);
    const bak = join(t.project, ".claude", "settings.json.tracegate.bak");
    expect(lstatSync(bak).isSymbolicLink()).toBe(false);
    expect(readFileSync(bak, "utf8")).toBe('{\n  "permissions": {}\n}\n');
  });

  test("oracle keygen --force does not write through an oracle.key symlink, and the key is 0600", () => {
    const t = fresh();
    const out = join(t.dir, "keys");
    mkdirSync(out);
    const victim = join(t.dir, "victim");
    writeFileSync(victim, "precious\n");
    chmodSync(victim, 0o644);
    symlinkSync(victim, join(out, "oracle.key"));
    const r = t.run("oracle", "keygen", "--out", out, "--force");
    expect(r.code).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    const key = join(out, "oracle.key");
    expect(lstatSync(key).isSymbolicLink()).toBe(false);
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(readFileSync(key, "utf8")).toContain("BEGIN PRIVATE KEY");
  });

  test("oracle keygen without --force refuses an existing oracle.key symlink", () => {
    const t = fresh();
    const out = join(t.dir, "keys");
    mkdirSync(out);
    symlinkSync(join(t.dir, "nowhere"), join(out, "oracle.key"));
    const r = t.run("oracle", "keygen", "--out", out);
    expect(r.code).not.toBe(0);
    expect(lstatSync(join(out, "oracle.key")).isSymbolicLink()).toBe(true);
  });
});

describe("duplicate keys", () => {
  const dupHooks = '{\n  "hooks": {},\n  "model": "x",\n  "hooks": {"Stop": []}\n}\n';

  test("install refuses a settings file with two \"hooks\" keys, saying why and what to do", () => {
    const t = fresh();
    writeFileSync(t.user, dupHooks);
    const r = t.run("install", "--bin", DIST);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('"hooks" appears twice');
    expect(r.err).toContain("merge them");
    expect(readFileSync(t.user, "utf8")).toBe(dupHooks);
  });

  test("a duplicate event key under hooks is refused too", () => {
    const t = fresh();
    const text = '{"hooks": {"Stop": [], "Stop": []}}\n';
    writeFileSync(t.user, text);
    const r = t.run("install", "--bin", DIST);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('"hooks"."Stop" appears twice');
    expect(readFileSync(t.user, "utf8")).toBe(text);
  });

  test("doctor reports the duplicate", () => {
    const t = fresh();
    writeFileSync(t.user, dupHooks);
    const r = t.run("doctor", "--json");
    const report = JSON.parse(r.out);
    expect(report.problems.join("\n")).toContain('"hooks" appears twice');
  });
});

describe("the dry-run diff", () => {
  test("a 25,000-line settings file: the diff is correct, in order, with context, and says nothing was written", () => {
    const t = fresh();
    const lines = Array.from({ length: 25_000 }, (_, i) => `    "k${i}": ${i}`);
    const text = `{\n  "env": {\n${lines.join(",\n")}\n  }\n}\n`;
    writeFileSync(t.user, text);
    const r = t.run("install", "--dry-run", "--bin", DIST);
    expect(r.code).toBe(0);
    expect(readFileSync(t.user, "utf8")).toBe(text);
    const out = r.out.split("\n");
    expect(out[0]).toMatch(/^# tracegate install --dry-run: nothing was written/);
    expect(out[1]).toBe(`--- ${t.user}`);
    expect(out[2]).toBe(`+++ ${t.user}`);
    expect(out[3]).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@/);
    // Context lines before the change, then additions.
    expect(out.some((l) => l.startsWith(' ') && l.includes('"k24999"'))).toBe(true);
    expect(out.filter((l) => l.startsWith("+")).some((l) => l.includes('"hooks"'))).toBe(true);
    // The diff applies and gives what install would write.
    const { text: after } = planInstall(text, desiredEntries(DIST, { gate: false }));
    const patched = applyPatch(text, out.slice(1).join("\n"));
    expect(patched).toBe(after);
  }, 60_000);

  test("a wholesale rewrite is one hunk, and long lines and long output are cut for display", () => {
    const before = `${"x".repeat(100_000)}\n`;
    const after = `${Array.from({ length: 30_000 }, (_, i) => `line ${i}`).join("\n")}\n`;
    const d = unifiedDiff(before, after, "s.json");
    const ls = d.split("\n");
    expect(ls.filter((l) => l.startsWith("@@")).length).toBe(1);
    expect(ls.length).toBeLessThan(5_100);
    expect(d).toContain("more characters not shown");
    expect(d).toContain("more lines not shown");
    expect(d).toContain("does not apply as a patch");
  });

  test("control characters in a settings file are escaped in the diff", () => {
    const d = unifiedDiff('{"a": "\x1b]0;pwned\x07"}\n', '{"b": 1}\n', "s.json");
    expect(d).not.toContain("\x1b");
    expect(d).toContain("\\x1b]0;pwned\\x07");
  });
});

/** A minimal unified-diff applier (one file, hunks in order), so the test needs no patch(1). */
function applyPatch(text: string, diff: string): string {
  const src = text.split("\n");
  if (src[src.length - 1] === "") src.pop();
  const out: string[] = [];
  let pos = 0;
  const lines = diff.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(lines[i]!);
    if (!m) continue;
    const start = Number(m[2] === "0" ? m[1] : Number(m[1]) - 1);
    while (pos < start) out.push(src[pos++]!);
    for (i++; i < lines.length && !lines[i]!.startsWith("@@"); i++) {
      const l = lines[i]!;
      if (l.startsWith(" ")) {
        expect(src[pos]).toBe(l.slice(1));
        out.push(src[pos++]!);
      } else if (l.startsWith("-")) {
        expect(src[pos]).toBe(l.slice(1));
        pos++;
      } else if (l.startsWith("+")) out.push(l.slice(1));
    }
    i--;
  }
  while (pos < src.length) out.push(src[pos++]!);
  return `${out.join("\n")}\n`;
}

describe("install that cannot break an older Claude Code", () => {
  /** A fake `claude` on PATH: answers --version and names the events its "code" knows. */
  function fakeClaude(t: ReturnType<typeof fresh>, version: string, events: string[]): string {
    const dir = join(t.dir, "fakebin");
    mkdirSync(dir, { recursive: true });
    const bin = join(dir, "claude");
    writeFileSync(bin, `#!/bin/sh\n# known events: ${events.map((e) => `"${e}"`).join(" ")}\necho "${version} (Claude Code)"\n`);
    chmodSync(bin, 0o755);
    t.env.PATH = `${dir}:/usr/bin:/bin`;
    return bin;
  }
  const OLD_KNOWS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop", "PreCompact", "Notification", "SessionEnd"];

  test("a Claude Code before 2.1.101 that does not know PostToolUseFailure: install leaves it out and says why; doctor explains", () => {
    const t = fresh();
    const bin = fakeClaude(t, "2.0.10", OLD_KNOWS);
    const r = t.run("install", "--bin", DIST);
    expect(r.code).toBe(0);
    expect(r.err).toContain("not registering PostToolUseFailure");
    expect(r.err).toContain("2.0.10");
    const settings = JSON.parse(readFileSync(t.user, "utf8"));
    expect(Object.keys(settings.hooks).sort()).toEqual([...OLD_KNOWS].sort());
    const d = JSON.parse(t.run("doctor", "--json").out);
    expect(d.claude_code.found).toEqual([{ source: "PATH", path: bin, version: "2.0.10" }]);
    expect(d.claude_code.left_out.map((l: { event: string }) => l.event)).toEqual(["PostToolUseFailure"]);
    expect(d.problems.join("\n")).not.toContain("events not registered");
    expect(d.notes.join("\n")).toContain("PostToolUseFailure left out on purpose");
    expect(d.notes.join("\n")).toContain("ignore the whole settings file");
  });

  test("Claude Code 2.1.101 or later: every event is registered", () => {
    const t = fresh();
    fakeClaude(t, "2.1.101", ["Stop"]);
    const r = t.run("install", "--bin", DIST);
    expect(r.code).toBe(0);
    expect(r.err).not.toContain("not registering");
    expect(Object.keys(JSON.parse(readFileSync(t.user, "utf8")).hooks)).toContain("PostToolUseFailure");
  });
});
