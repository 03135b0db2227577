/**
 * install / uninstall / doctor through the compiled binary, the way a user
 * runs them, against settings files in a temp CLAUDE_CONFIG_DIR and project.
 */
import { claude } from "../../lib/harness/claude.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOOKS } from "../../lib/hook/subcommands.ts";
import { parseHookCommand } from "../../lib/install/entries.ts";
import { keyIdOf } from "../../lib/oracle/verdict.ts";

const DIST = join(import.meta.dir, "..", "..", "dist", "tracegate");
let root: string;
let bin: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "tg-install-"));
  // A copy in a path with a space and a quote, so quoting is exercised for real.
  const binDir = join(root, "my bin's dir");
  mkdirSync(binDir);
  bin = join(binDir, "tracegate");
  copyFileSync(DIST, bin);
  chmodSync(bin, 0o755);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function fresh(name: string) {
  const dir = join(root, name);
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(dir, "home"),
    CLAUDE_CONFIG_DIR: join(dir, "claude"),
    TRACEGATE_HOME: join(dir, "data"),
    TRACEGATE_CONFIG: join(dir, "config.jsonc"),
  };
  const project = join(dir, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(env.HOME, { recursive: true });
  const run = (...args: string[]) => {
    const r = spawnSync(bin, args, { env, cwd: project, encoding: "utf8" });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  return { dir, env, project, run, user: join(env.CLAUDE_CONFIG_DIR, "settings.json") };
}

const USER_SETTINGS = `{
  "permissions": { "allow": ["Bash(ls)"] },
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "~/bin/guard.sh" } ] }
    ]
  },
  "futureKey": [1, 2, 3]
}
`;

describe("install / uninstall", () => {
  test("merges into an existing user file, keeps its mode, backs it up, and uninstall restores it exactly", () => {
    const t = fresh("merge");
    mkdirSync(t.env.CLAUDE_CONFIG_DIR, { recursive: true });
    writeFileSync(t.user, USER_SETTINGS, { mode: 0o600 });
    chmodSync(t.user, 0o600);

    const r = t.run("install");
    expect(r.code).toBe(0);
    expect(r.out).toContain("registered");
    const installed = readFileSync(t.user, "utf8");
    const v = JSON.parse(installed);
    expect(v.permissions).toEqual({ allow: ["Bash(ls)"] });
    expect(v.futureKey).toEqual([1, 2, 3]);
    expect(v.hooks.PreToolUse[0]).toEqual({ matcher: "Bash", hooks: [{ type: "command", command: "~/bin/guard.sh" }] });
    const cmds = Object.values(v.hooks).flatMap((gs: any) => gs.flatMap((g: any) => g.hooks.map((h: any) => h.command)));
    const ours = cmds.map(parseHookCommand).filter(Boolean);
    expect(ours).toHaveLength(Object.keys(claude.events).length);
    for (const p of ours) expect(p!.bin).toBe(bin);
    expect(statSync(t.user).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${t.user}.tracegate.bak`, "utf8")).toBe(USER_SETTINGS);

    // second install: a no-op, not even a rewrite
    const before = statSync(t.user).mtimeMs;
    const again = t.run("install");
    expect(again.code).toBe(0);
    expect(again.out).toContain("nothing changed");
    expect(readFileSync(t.user, "utf8")).toBe(installed);
    expect(statSync(t.user).mtimeMs).toBe(before);

    const u = t.run("uninstall");
    expect(u.code).toBe(0);
    expect(readFileSync(t.user, "utf8")).toBe(USER_SETTINGS);
    expect(statSync(t.user).mode & 0o777).toBe(0o600);
    expect(t.run("uninstall").out).toContain("no tracegate entries");
  });

  test("a file and directory install created are gone after uninstall", () => {
    const t = fresh("create");
    expect(t.run("install", "--scope", "user").code).toBe(0);
    expect(existsSync(t.user)).toBe(true);
    expect(t.run("uninstall", "--scope", "user").code).toBe(0);
    expect(existsSync(t.user)).toBe(false);
    expect(existsSync(t.env.CLAUDE_CONFIG_DIR)).toBe(false);
  });

  test("project and local scopes write .claude/settings.json and .claude/settings.local.json", () => {
    const t = fresh("scopes");
    mkdirSync(join(t.project, ".claude"));
    writeFileSync(join(t.project, ".claude", "settings.json"), '{\n  "model": "sonnet"\n}\n');
    expect(t.run("install", "--scope", "project", "--gate").code).toBe(0);
    expect(t.run("install", "--scope", "local").code).toBe(0);
    const proj = JSON.parse(readFileSync(join(t.project, ".claude", "settings.json"), "utf8"));
    const local = JSON.parse(readFileSync(join(t.project, ".claude", "settings.local.json"), "utf8"));
    expect(proj.model).toBe("sonnet");
    expect(proj.hooks.Stop[0].hooks[0].command).toContain(`exec "$b" stop' 'tracegate'`);
    expect(local.hooks.Stop[0].hooks[0].command).toContain(`exec "$0" stop --observe'`);
    expect(existsSync(t.user)).toBe(false);
    expect(t.run("uninstall", "--all").code).toBe(0);
    expect(readFileSync(join(t.project, ".claude", "settings.json"), "utf8")).toBe('{\n  "model": "sonnet"\n}\n');
    expect(existsSync(join(t.project, ".claude", "settings.local.json"))).toBe(false);
    expect(existsSync(join(t.project, ".claude"))).toBe(true);
  });

  test("--dry-run prints a diff and writes nothing", () => {
    const t = fresh("dry");
    mkdirSync(t.env.CLAUDE_CONFIG_DIR, { recursive: true });
    writeFileSync(t.user, USER_SETTINGS);
    const r = t.run("install", "--dry-run", "--gate");
    expect(r.code).toBe(0);
    expect(r.out).toStartWith(`# tracegate install --dry-run: nothing was written; this is the change to ${t.user}\n--- ${t.user}\n+++ ${t.user}\n@@ `);
    expect(r.out).toContain(`+            "command": "/bin/sh -c`);
    expect(readFileSync(t.user, "utf8")).toBe(USER_SETTINGS);
    expect(existsSync(`${t.user}.tracegate.bak`)).toBe(false);
    expect(existsSync(join(t.env.TRACEGATE_HOME, "install-state.json"))).toBe(false);

    t.run("install");
    const installed = readFileSync(t.user, "utf8");
    const u = t.run("uninstall", "--dry-run");
    expect(u.out).toContain(`-            "command": "/bin/sh -c`);
    expect(readFileSync(t.user, "utf8")).toBe(installed);
  });

  test("a symlinked settings file stays a symlink; its target is updated", () => {
    const t = fresh("symlink");
    mkdirSync(t.env.CLAUDE_CONFIG_DIR, { recursive: true });
    const real = join(t.dir, "dotfiles-settings.json");
    writeFileSync(real, "{}\n");
    symlinkSync(real, t.user);
    expect(t.run("install").code).toBe(0);
    expect(lstatSync(t.user).isSymbolicLink()).toBe(true);
    expect(readlinkSync(t.user)).toBe(real);
    expect(JSON.parse(readFileSync(real, "utf8")).hooks.Stop).toHaveLength(1);
    expect(t.run("uninstall").code).toBe(0);
    expect(readFileSync(real, "utf8")).toBe("{}\n");
  });

  test("a settings file with comments is refused and left untouched", () => {
    const t = fresh("bad");
    mkdirSync(t.env.CLAUDE_CONFIG_DIR, { recursive: true });
    const bad = '{\n  // not allowed\n  "model": "x"\n}\n';
    writeFileSync(t.user, bad);
    const r = t.run("install");
    expect(r.code).toBe(1);
    expect(r.err).toContain("not valid JSON");
    expect(readFileSync(t.user, "utf8")).toBe(bad);
  });

  test("bad arguments fail with a message", () => {
    const t = fresh("args");
    expect(t.run("install", "--scope", "global").code).not.toBe(0);
    expect(t.run("install", "--bogus").code).not.toBe(0);
  });
});

describe("doctor", () => {
  test("a repository's broken .tracegate.jsonc is a note, not a problem (the gate does not read it)", () => {
    const t = fresh("doctor-repo-config");
    spawnSync("git", ["init", "-q"], { cwd: t.project });
    writeFileSync(join(t.project, ".tracegate.jsonc"), '{ "redact": { "extra": [ { "kind": "x", "pattern": 42 } ] }, "oracle": {} }');
    t.run("install");
    const r = t.run("doctor", "--json");
    const rep = JSON.parse(r.out);
    expect(rep.config.repo_errors.length).toBeGreaterThan(0);
    expect(rep.notes.some((n: string) => n.startsWith("repository config: ") && n.includes(".tracegate.jsonc"))).toBe(true);
    expect(rep.problems).toEqual([]);
  });

  test("exit 2 when not installed, 0 when healthy, 1 when the binary is gone or a timeout is too low", () => {
    const t = fresh("doctor");
    const none = t.run("doctor", "--json");
    expect(none.code).toBe(2);
    expect(JSON.parse(none.out).status).toBe("not_installed");

    t.run("install");
    const ok = t.run("doctor", "--json");
    const rep = JSON.parse(ok.out);
    expect(rep.problems).toEqual([]);
    expect(ok.code).toBe(0);
    expect(rep.settings[0].entries).toHaveLength(Object.keys(claude.events).length);
    expect(rep.binaries[0].path).toBe(bin);
    expect(rep.binaries[0].version).toMatch(/^\d+\.\d+\.\d+/);
    expect(rep.data_dir.writable).toBe(true);
    expect(t.run("doctor").out).toContain("status: healthy");

    // a timeout at or under the cap is a problem
    const text = readFileSync(t.user, "utf8");
    writeFileSync(t.user, text.replace('"timeout": 60', '"timeout": 50'));
    const low = t.run("doctor");
    expect(low.code).toBe(1);
    expect(low.out).toContain("Stop timeout 50s is not above its cap 50s");
    writeFileSync(t.user, text);

    // the binary the settings name has gone: another copy runs doctor
    const other = join(t.dir, "tracegate-other");
    copyFileSync(bin, other);
    chmodSync(other, 0o755);
    const moved = join(t.dir, "moved");
    copyFileSync(bin, moved);
    unlinkSync(bin);
    try {
      const r = spawnSync(other, ["doctor", "--json"], { env: t.env, cwd: t.project, encoding: "utf8" });
      expect(r.status).toBe(1);
      expect(JSON.parse(r.stdout).problems.join("\n")).toContain("missing or not executable");
    } finally {
      copyFileSync(moved, bin);
      chmodSync(bin, 0o755);
    }
  });

  test("reports an invalid config and the last error-log lines", () => {
    const t = fresh("doctor-config");
    t.run("install");
    writeFileSync(t.env.TRACEGATE_CONFIG, '{ "gate": { "max_attempts": "three" } }');
    mkdirSync(t.env.TRACEGATE_HOME, { recursive: true });
    writeFileSync(join(t.env.TRACEGATE_HOME, "errors.log"), "2026-01-01T00:00:00Z pid=1 event=stop stage=oracle TracegateError: boom\n");
    const r = t.run("doctor", "--json");
    expect(r.code).toBe(1);
    const rep = JSON.parse(r.out);
    expect(rep.config.errors.length).toBeGreaterThan(0);
    expect(rep.errors_log.last[0]).toContain("TracegateError: boom");
  });

  test("checks the oracle answers with the configured key", async () => {
    const t = fresh("doctor-oracle");
    t.run("install", "--gate");
    const mine = generateKeyPairSync("ed25519");
    const theirs = generateKeyPairSync("ed25519");
    const pub = join(t.dir, "oracle.pub");
    writeFileSync(pub, mine.publicKey.export({ type: "spki", format: "pem" }));
    let served = keyIdOf(mine.publicKey);
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => (new URL(req.url).pathname === "/v1/key" ? Response.json({ key_id: served }) : new Response("no", { status: 404 })),
    });
    try {
      writeFileSync(t.env.TRACEGATE_CONFIG, JSON.stringify({ oracle: { url: `http://127.0.0.1:${server.port}`, public_key: pub } }));
      const run = () => {
        const p = Bun.spawn([bin, "doctor", "--json"], { env: t.env, cwd: t.project, stdout: "pipe" });
        return Promise.all([new Response(p.stdout).text(), p.exited]);
      };
      let [o, code] = await run();
      expect(JSON.parse(o).oracle.status).toBe("ok");
      expect(code).toBe(0);
      served = keyIdOf(theirs.publicKey);
      [o, code] = await run();
      expect(JSON.parse(o).oracle.status).toBe("key_mismatch");
      expect(code).toBe(1);
    } finally {
      server.stop(true);
    }
    writeFileSync(t.env.TRACEGATE_CONFIG, JSON.stringify({ oracle: { url: "http://127.0.0.1:9", public_key: pub } }));
    const r = t.run("doctor", "--json");
    expect(JSON.parse(r.out).oracle.status).toBe("unreachable");
    expect(r.code).toBe(1);
  });
});
