/**
 * `install|uninstall --harness NAME` and `doctor` through the compiled binary,
 * against each harness's real config locations in a temp HOME: merged files
 * (Codex hooks.json, Gemini settings.json) keep every byte of the user's, an
 * own file (Copilot) comes and goes whole, uninstall leaves everything
 * byte-identical, and doctor lists every harness it finds.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, symlinkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADAPTERS } from "../../lib/harness/registry.ts";

const DIST = join(import.meta.dir, "..", "..", "dist", "tracegate");
const root = mkdtempSync(join(tmpdir(), "tg-install-harness-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function fresh() {
  const dir = join(root, `w${n++}`);
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(dir, "home"),
    TRACEGATE_HOME: join(dir, "data"),
    TRACEGATE_CONFIG: join(dir, "config.jsonc"),
  };
  const project = join(dir, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(env.HOME, { recursive: true });
  const run = (...args: string[]) => {
    const r = spawnSync(DIST, args, { env, cwd: project, encoding: "utf8" });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  /** Every file under the world with its bytes, except tracegate's own data dir. */
  const snapshot = () => {
    const out: Record<string, string> = {};
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (p === env.TRACEGATE_HOME) continue;
        if (e.isDirectory()) {
          out[`${p}/`] = "";
          walk(p);
        } else out[p] = readFileSync(p, "latin1");
      }
    };
    walk(dir);
    return out;
  };
  return { dir, env, project, run, snapshot };
}

const CODEX_USER = `{
    "hooks": {
        "Stop": [ { "hooks": [ { "type": "command", "command": "notify-send done", "timeout": 10 } ] } ]
    }
}
`;
const GEMINI_USER = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": { "disableAutoUpdate": true },
  "hooks": {
    "BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "lint.sh", "timeout": 30000, "name": "lint"}]}]
  },
  "ui": {"theme": "GitHub"}
}`;

describe.each([
  ["codex", (w: ReturnType<typeof fresh>) => join(w.env.HOME, ".codex", "hooks.json"), CODEX_USER],
  ["gemini", (w: ReturnType<typeof fresh>) => join(w.env.HOME, ".gemini", "settings.json"), GEMINI_USER],
] as const)("%s: a file merged into", (harness, userFile, existing) => {
  test("install keeps every byte of the user's file around the new entries; uninstall restores it byte for byte", () => {
    const w = fresh();
    const path = userFile(w);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, existing, { mode: 0o640 });
    const before = w.snapshot();
    const r = w.run("install", "--harness", harness, "--gate");
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: "" });
    const text = readFileSync(path, "utf8");
    const parsed = JSON.parse(text);
    expect(Object.keys(parsed.hooks).sort()).toEqual([...new Set([...Object.keys(ADAPTERS[harness]!.events), ...Object.keys(JSON.parse(existing).hooks)])].sort());
    // The user's own handler is still first under its event, unchanged.
    const [event] = Object.keys(JSON.parse(existing).hooks);
    expect(parsed.hooks[event!][0]).toEqual(JSON.parse(existing).hooks[event!][0]);
    expect(text).toContain(`--harness=${harness}`);
    expect(statSync(path).mode & 0o777).toBe(0o640);
    // idempotent
    expect(w.run("install", "--harness", harness, "--gate").out).toContain("already registered");
    const u = w.run("uninstall", "--harness", harness);
    expect(u.code).toBe(0);
    rmSync(`${path}.tracegate.bak`, { force: true });
    expect(w.snapshot()).toEqual(before);
  }, 60_000);

  test("with no file before, uninstall removes the file and the directory install made", () => {
    const w = fresh();
    const before = w.snapshot();
    expect(w.run("install", "--harness", harness).code).toBe(0);
    expect(existsSync(userFile(w))).toBe(true);
    expect(w.run("uninstall", "--harness", harness).code).toBe(0);
    expect(w.snapshot()).toEqual(before);
  }, 60_000);

  test("--scope project writes the project file; --dry-run writes nothing and prints the diff", () => {
    const w = fresh();
    const before = w.snapshot();
    const dry = w.run("install", "--harness", harness, "--scope", "project", "--dry-run");
    expect(dry.code).toBe(0);
    expect(dry.out).toContain(`--harness=${harness}`);
    expect(w.snapshot()).toEqual(before);
    expect(w.run("install", "--harness", harness, "--scope", "project").code).toBe(0);
    const dir = harness === "codex" ? ".codex" : ".gemini";
    expect(existsSync(join(w.project, dir, harness === "codex" ? "hooks.json" : "settings.json"))).toBe(true);
    expect(w.run("uninstall", "--harness", harness, "--scope", "project").code).toBe(0);
    expect(w.snapshot()).toEqual(before);
  }, 60_000);
});

describe("copilot: tracegate's own hooks file", () => {
  test("install writes $COPILOT_HOME/hooks/tracegate.json beside the user's own hook files; uninstall takes only it away", () => {
    const w = fresh();
    const hooksDir = join(w.env.HOME, ".copilot", "hooks");
    mkdirSync(hooksDir, { recursive: true });
    writeFileSync(join(hooksDir, "mine.json"), '{"version":1,"hooks":{"sessionStart":[{"type":"command","bash":"echo hi","timeoutSec":3}]}}');
    const before = w.snapshot();
    const r = w.run("install", "--harness", "copilot", "--gate");
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: "" });
    expect(r.out).toContain("--trust-folder");
    const file = JSON.parse(readFileSync(join(hooksDir, "tracegate.json"), "utf8"));
    expect(file.version).toBe(1);
    expect(Object.keys(file.hooks).sort()).toEqual(Object.keys(ADAPTERS.copilot!.events).sort());
    expect(file.hooks.agentStop[0]).toMatchObject({ type: "command", timeoutSec: 60 });
    expect(file.hooks.agentStop[0].bash).toContain(`exec "$0" stop --harness=copilot'`);
    expect(w.run("uninstall", "--harness", "copilot").code).toBe(0);
    expect(w.snapshot()).toEqual(before);
  }, 60_000);

  test("COPILOT_HOME is honoured; the project scope is .github/hooks/ and both directories go again", () => {
    const w = fresh();
    const before = w.snapshot();
    expect(w.run("install", "--harness", "copilot", "--scope", "project").code).toBe(0);
    expect(existsSync(join(w.project, ".github", "hooks", "tracegate.json"))).toBe(true);
    expect(w.run("uninstall", "--harness", "copilot", "--scope", "project").code).toBe(0);
    expect(w.snapshot()).toEqual(before);
    const home = join(w.dir, "copilot-home");
    const r = spawnSync(DIST, ["install", "--harness", "copilot"], { env: { ...w.env, COPILOT_HOME: home }, cwd: w.project, encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(existsSync(join(home, "hooks", "tracegate.json"))).toBe(true);
  }, 60_000);

  test("a tracegate.json that is a symlink (a repository's, pointing at a file of the user's) is refused by install and uninstall", () => {
    const w = fresh();
    const dir = join(w.project, ".github", "hooks");
    mkdirSync(dir, { recursive: true });
    const victim = join(w.env.HOME, "victim.json");
    writeFileSync(victim, "{}");
    symlinkSync(victim, join(dir, "tracegate.json"));
    const r = w.run("install", "--harness", "copilot", "--scope", "project");
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("is a symlink");
    expect(readFileSync(victim, "utf8")).toBe("{}");
    expect(w.run("uninstall", "--harness", "copilot", "--scope", "project").code).not.toBe(0);
    expect(existsSync(victim)).toBe(true);
  }, 60_000);

  test("a tracegate.json that holds someone else's hooks is never overwritten", () => {
    const w = fresh();
    const hooksDir = join(w.env.HOME, ".copilot", "hooks");
    mkdirSync(hooksDir, { recursive: true });
    const foreign = '{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"my-gate","timeoutSec":9}]}}';
    writeFileSync(join(hooksDir, "tracegate.json"), foreign);
    const r = w.run("install", "--harness", "copilot");
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("not tracegate's");
    expect(readFileSync(join(hooksDir, "tracegate.json"), "utf8")).toBe(foreign);
  }, 60_000);
});

describe("the missing-binary guard, for every harness", () => {
  test.each(["codex", "gemini", "copilot"])("%s: with the binary gone the installed command drains stdin and exits 0 silently", (harness) => {
    const w = fresh();
    const bin = join(w.dir, "bin", "tracegate");
    mkdirSync(join(w.dir, "bin"));
    writeFileSync(bin, readFileSync(DIST));
    chmodSync(bin, 0o755);
    expect(w.run("install", "--harness", harness, "--gate", "--bin", bin).code).toBe(0);
    const file = harness === "codex" ? ".codex/hooks.json" : harness === "gemini" ? ".gemini/settings.json" : ".copilot/hooks/tracegate.json";
    const text = readFileSync(join(w.env.HOME, file), "utf8");
    const stop = harness === "copilot" ? JSON.parse(text).hooks.agentStop[0].bash : JSON.parse(text).hooks[harness === "gemini" ? "AfterAgent" : "Stop"][0].hooks[0].command;
    rmSync(bin);
    const r = spawnSync("/bin/sh", ["-c", stop], { input: "x".repeat(1 << 20), env: w.env, encoding: "utf8" });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, "", ""]);
  }, 60_000);
});

describe("the CLI", () => {
  test("an unknown --harness and a scope the harness lacks are clear errors", () => {
    const w = fresh();
    const r = w.run("install", "--harness", "windsurf");
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('unknown harness "windsurf"');
    expect(r.err).toContain("claude, codex, gemini, copilot");
    const s = w.run("install", "--harness", "codex", "--scope", "local");
    expect(s.code).not.toBe(0);
    expect(s.err).toContain("--scope for Codex CLI must be one of user, project");
  }, 60_000);

  test("a Gemini settings.json with comments (Gemini strips them) is merged into and restored byte for byte; Codex's is refused", () => {
    const w = fresh();
    const path = join(w.env.HOME, ".gemini", "settings.json");
    mkdirSync(join(path, ".."), { recursive: true });
    const text = '{\n  // my theme\n  "ui": {"theme": "GitHub"} /* dark later */\n}\n';
    writeFileSync(path, text);
    const before = w.snapshot();
    const r = w.run("install", "--harness", "gemini", "--gate");
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: "" });
    const after = readFileSync(path, "utf8");
    expect(after).toContain("// my theme");
    expect(after).toContain("/* dark later */");
    expect(after).toContain("--harness=gemini");
    const rep = JSON.parse(w.run("doctor", "--json").out);
    expect(rep.settings.find((s: any) => s.harness === "gemini" && s.scope === "user").entries.length).toBe(Object.keys(ADAPTERS.gemini!.events).length);
    expect(w.run("uninstall", "--harness", "gemini").code).toBe(0);
    rmSync(`${path}.tracegate.bak`, { force: true });
    expect(w.snapshot()).toEqual(before);
    // Codex reads hooks.json as strict JSON: a comment there is refused with where it is.
    const codex = join(w.env.HOME, ".codex", "hooks.json");
    mkdirSync(join(codex, ".."), { recursive: true });
    writeFileSync(codex, '{\n  // no\n  "hooks": {}\n}\n');
    const c = w.run("install", "--harness", "codex");
    expect(c.code).not.toBe(0);
    expect(c.err).toContain("line 2");
  }, 60_000);

  test("install without --harness is still Claude Code", () => {
    const w = fresh();
    const r = spawnSync(DIST, ["install"], { env: { ...w.env, CLAUDE_CONFIG_DIR: join(w.dir, "claude") }, cwd: w.project, encoding: "utf8" });
    expect(r.status).toBe(0);
    const text = readFileSync(join(w.dir, "claude", "settings.json"), "utf8");
    expect(text).not.toContain("--harness");
    expect(Object.keys(JSON.parse(text).hooks)).toContain("SessionEnd");
  }, 60_000);

  test("doctor lists every harness it finds registered, each timeout checked in that harness's units", () => {
    const w = fresh();
    for (const h of ["codex", "gemini", "copilot"]) expect(w.run("install", "--harness", h, "--gate").code).toBe(0);
    const r = w.run("doctor", "--json");
    const rep = JSON.parse(r.out);
    const found = rep.settings.filter((s: any) => s.entries.length > 0);
    expect(found.map((s: any) => [s.harness, s.scope, s.unit, s.stop])).toEqual([
      ["codex", "user", "s", "gate"],
      ["gemini", "user", "ms", "gate"],
      ["copilot", "user", "s", "gate"],
    ]);
    expect(rep.problems).toEqual([]);
    expect(r.code).toBe(0);
    const gem = found[1].entries.find((e: any) => e.event === "AfterAgent");
    expect(gem).toMatchObject({ timeout: 60000, timeout_ms: 60000, cap_ms: 50000, harness: "gemini", guarded: true });
    const end = found[0].entries.find((e: any) => e.event === "SessionEnd");
    expect(end).toMatchObject({ timeout: 3, timeout_ms: 3000, clamp_ms: 3000 });
    const human = w.run("doctor").out;
    expect(human).toContain("settings (Gemini CLI, user)");
    expect(human).toContain("timeout 60000ms > cap 50000ms  ok");
  }, 60_000);

  test("doctor flags a Gemini timeout written in seconds (a 5 there is 5 ms)", () => {
    const w = fresh();
    expect(w.run("install", "--harness", "gemini").code).toBe(0);
    const path = join(w.env.HOME, ".gemini", "settings.json");
    writeFileSync(path, readFileSync(path, "utf8").replace('"timeout": 60000', '"timeout": 60'));
    const rep = JSON.parse(w.run("doctor", "--json").out);
    expect(rep.problems.join("\n")).toContain("AfterAgent timeout 60ms is not above its cap 50000ms");
  }, 60_000);
});
