import { claude } from "../../lib/harness/claude.ts";
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOOKS } from "../../lib/hook/subcommands.ts";
import { unifiedDiff } from "../../lib/install/unified-diff.ts";
import { desiredEntries, hookCommand, OBSERVE_FLAG, parseHookCommand, shQuote } from "../../lib/install/entries.ts";
import { findEntries, planInstall, planUninstall, SettingsError } from "../../lib/install/settings.ts";

const BIN = "/home/me/.local/bin/tracegate";
const want = (gate = false, bin = BIN) => desiredEntries(bin, { gate, os: "linux" });

/** Settings files people really have: every formatting style must survive a round trip. */
const FIXTURES: Record<string, string> = {
  missing: "",
  empty: "{}\n",
  emptyNoNewline: "{}",
  prettyFour: `{
    "model": "opus",
    "permissions": {
        "allow": ["Bash(npm test)"],
        "deny": []
    },
    "hooks": {
        "PostToolUse": [
            { "matcher": "Bash", "hooks": [ { "type": "command", "command": "echo hi", "timeout": 3 } ] }
        ],
        "Stop": [
            {
                "hooks": [
                    { "type": "command", "command": "notify-send done" }
                ]
            }
        ]
    },
    "env": {"A": "1"},
    "someFutureKey": {"nested": [1, 2, {"x": null}]}
}
`,
  tabs: '{\n\t"hooks": {\n\t\t"SessionStart": [\n\t\t\t{\n\t\t\t\t"hooks": [\n\t\t\t\t\t{\n\t\t\t\t\t\t"type": "command",\n\t\t\t\t\t\t"command": "date"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}\n',
  crlf: '{\r\n  "theme": "dark",\r\n  "hooks": {}\r\n}\r\n',
  minified: '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]},"b":[]}',
  userEmptyStop: '{\n  "hooks": {\n    "Stop": []\n  }\n}\n',
};

function strictParse(text: string): unknown {
  // Claude Code reads settings as strict JSON: JSON.parse is the judge.
  return JSON.parse(text);
}

function withoutOurs(v: any): any {
  const c = structuredClone(v);
  for (const ev of Object.keys(c.hooks ?? {})) {
    c.hooks[ev] = c.hooks[ev]
      .map((g: any) => ({ ...g, hooks: g.hooks.filter((h: any) => !parseHookCommand(h.command)) }))
      .filter((g: any) => g.hooks.length > 0);
  }
  return c;
}

describe("planInstall / planUninstall", () => {
  for (const [name, original] of Object.entries(FIXTURES)) {
    test(`${name}: install merges, reinstall is a no-op, uninstall restores`, () => {
      const { text, created } = planInstall(original, want());
      const after = strictParse(text) as any;
      // every wanted event has exactly one tracegate group, shaped as documented
      for (const d of want()) {
        const ours = after.hooks[d.event].filter((g: any) => g.hooks.some((h: any) => parseHookCommand(h.command)));
        expect(ours).toEqual([d.group]);
      }
      // nothing of the user's changed meaning (other hooks, unknown keys, order)
      if (original.trim()) {
        const before = strictParse(original) as any;
        const rest = withoutOurs(after);
        for (const ev of Object.keys(rest.hooks)) if (rest.hooks[ev].length === 0 && !before.hooks?.[ev]) delete rest.hooks[ev];
        if (!before.hooks && Object.keys(rest.hooks).length === 0) delete rest.hooks;
        expect(rest).toEqual(before);
        expect(Object.keys(after).slice(0, Object.keys(before).length)).toEqual(Object.keys(before));
      }
      // second install: byte-identical
      expect(planInstall(text, want()).text).toBe(text);
      // uninstall: deep-equal to the original
      const back = planUninstall(text, created);
      expect(strictParse(back.trim() ? back : "{}")).toEqual(strictParse(original.trim() ? original : "{}"));
      if (original.trim() && name !== "minified") expect(back).toBe(original);
    });
  }

  test("lines the user wrote keep their bytes (no reformatting of neighbours)", () => {
    const { text } = planInstall(FIXTURES.prettyFour!, want());
    const out = new Set(text.split("\n"));
    // each original line is still there, at most followed by the comma that joins a new sibling
    for (const line of FIXTURES.prettyFour!.split("\n")) expect(out.has(line) || out.has(`${line},`)).toBe(true);
    expect(text).toContain('{ "matcher": "Bash", "hooks": [ { "type": "command", "command": "echo hi", "timeout": 3 } ] },');
  });

  test("new entries follow the file's indentation and line endings", () => {
    const tabs = planInstall(FIXTURES.tabs!, want()).text;
    expect(tabs).toContain('\n\t\t"PostToolUse": [\n\t\t\t{\n\t\t\t\t"matcher": "",');
    expect(tabs).not.toMatch(/^ +"/m);
    const crlf = planInstall(FIXTURES.crlf!, want()).text;
    expect(crlf.replaceAll("\r\n", "")).not.toContain("\n");
  });

  test("a user's own empty event array survives install + uninstall", () => {
    const { text, created } = planInstall(FIXTURES.userEmptyStop!, want());
    expect(created.events).not.toContain("Stop");
    expect(planUninstall(text, created)).toBe(FIXTURES.userEmptyStop!);
  });

  test("without a record of what install created, uninstall still leaves no empty containers", () => {
    const { text } = planInstall("{\n  \"model\": \"x\"\n}\n", want());
    expect(strictParse(planUninstall(text))).toEqual({ model: "x" });
  });

  test("a group shared with another tool's handler loses only tracegate's handler", () => {
    const ours = hookCommand(BIN, "post-tool-use", [], "linux");
    const shared = JSON.stringify({
      hooks: { PostToolUse: [{ matcher: "", hooks: [{ type: "command", command: "mine" }, { type: "command", command: ours, timeout: 5 }] }] },
    }, null, 2);
    const back = strictParse(planUninstall(shared)) as any;
    expect(back).toEqual({ hooks: { PostToolUse: [{ matcher: "", hooks: [{ type: "command", command: "mine" }] }] } });
  });

  test("reinstall from another path or with --gate replaces tracegate's entries, never duplicates", () => {
    const first = planInstall("{}", want(false)).text;
    const moved = planInstall(first, want(false, "/opt/tg/tracegate")).text;
    const found = findEntries(moved);
    expect(found).toHaveLength(Object.keys(claude.events).length);
    expect(new Set(found.map((f) => f.parsed.bin))).toEqual(new Set(["/opt/tg/tracegate"]));
    const gated = findEntries(planInstall(moved, want(true, "/opt/tg/tracegate")).text);
    expect(gated.find((f) => f.event === "Stop")!.parsed.args).toEqual([]);
    expect(found.find((f) => f.event === "Stop")!.parsed.args).toEqual([OBSERVE_FLAG]);
  });

  test("files Claude Code would reject are refused, not rewritten", () => {
    expect(() => planInstall('{ "a": 1, // comment\n}', want())).toThrow(SettingsError);
    expect(() => planInstall('{ "a": 1, }', want())).toThrow(SettingsError);
    expect(() => planInstall("[]", want())).toThrow(SettingsError);
    expect(() => planInstall('{"hooks": []}', want())).toThrow(SettingsError);
    expect(() => planInstall('{"hooks": {"Stop": {}}}', want())).toThrow(SettingsError);
  });
});

describe("entries", () => {
  test("every entry install writes declares a timeout (s) strictly above its subcommand's cap (ms)", () => {
    for (const gate of [false, true]) {
      const text = planInstall("{}", want(gate)).text;
      const found = findEntries(text);
      expect(found.map((f) => f.parsed.subcommand).sort()).toEqual(Object.values(claude.events).sort());
      for (const f of found) {
        const spec = HOOKS[f.parsed.subcommand as keyof typeof HOOKS];
        expect(claude.events[f.event]).toBe(f.parsed.subcommand as never);
        expect(typeof f.timeout).toBe("number");
        expect(Number.isInteger(f.timeout)).toBe(true);
        expect((f.timeout as number) * 1000).toBeGreaterThan(spec.capMs);
        // seconds, not milliseconds: a 5000 here would be an 83-minute timeout
        expect(f.timeout as number).toBeLessThan(600);
      }
    }
  });

  test("groups have exactly the documented shape; matcher only where the event takes one", () => {
    for (const d of want(true) as { event: string; group: any }[]) {
      const matcher = claude.install.matcherEvents.has(d.event);
      expect(Object.keys(d.group).sort()).toEqual(matcher ? ["hooks", "matcher"] : ["hooks"]);
      if (matcher) expect(d.group.matcher).toBe("");
      expect(d.group.hooks).toHaveLength(1);
      expect(Object.keys(d.group.hooks[0]!).sort()).toEqual(["command", "timeout", "type"]);
      expect(d.group.hooks[0]!.type).toBe("command");
    }
  });

  test("Stop is a gate only with --gate", () => {
    const stop = (gate: boolean) => (want(gate).find((d) => d.event === "Stop")!.group as any).hooks[0]!.command;
    expect(stop(false)).toContain(`exec "$0" stop --observe'`);
    expect(stop(true)).toContain(`exec "$0" stop'`);
  });

  test("odd binary paths round-trip and are quoted once, never spliced into the script", () => {
    for (const p of ["/a b/tracegate", "/it's/tracegate", "/x/$(touch pwned)/`id`/tracegate", '/q"uote/tracegate', "/new\nline/tracegate"]) {
      const cmd = hookCommand(p, "stop", ["--observe"], "linux");
      expect(parseHookCommand(cmd)).toEqual({ bin: p, subcommand: "stop", args: ["--observe"], guarded: true });
      // the script part is fixed text; the path only appears after it, in one quoted word
      expect(cmd.startsWith(`/bin/sh -c '[ -x "$0" ] || { cat >/dev/null 2>&1; exit 0; }; exec "$0" stop --observe' `)).toBe(true);
      expect(cmd.endsWith(shQuote(p))).toBe(true);
    }
    expect(() => hookCommand(BIN, "stop; rm -rf /")).toThrow();
  });

  test("other tools' commands are never taken for tracegate's", () => {
    for (const c of ["echo hi", "/usr/bin/tracegate-other post-tool-use", "/bin/sh -c 'exec \"$0\" stop' /x", 42, null, '"/x/notours" stop']) {
      expect(parseHookCommand(c)).toBeNull();
    }
  });
});

describe("unifiedDiff", () => {
  test("the dry-run diff applies with patch(1) and reproduces the installed file", () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-diff-"));
    try {
      for (const original of [FIXTURES.prettyFour!, FIXTURES.tabs!, FIXTURES.userEmptyStop!]) {
        const { text, created } = planInstall(original, want());
        const f = join(dir, "settings.json");
        writeFileSync(f, original);
        writeFileSync(join(dir, "p.diff"), unifiedDiff(original, text, "settings.json"));
        execFileSync("patch", ["-s", f, join(dir, "p.diff")]);
        expect(readFileSync(f, "utf8")).toBe(text);
        // and the reverse, for uninstall
        writeFileSync(join(dir, "r.diff"), unifiedDiff(text, planUninstall(text, created), "settings.json"));
        execFileSync("patch", ["-s", f, join(dir, "r.diff")]);
        expect(JSON.parse(readFileSync(f, "utf8"))).toEqual(JSON.parse(original));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("equal texts give an empty diff", () => {
    expect(unifiedDiff("a\n", "a\n", "x")).toBe("");
  });
});
