/**
 * Every command install writes, run the way Claude Code runs a command hook
 * (`spawn(command, { shell: true })`: `/bin/sh -c COMMAND`, payload on stdin):
 * with the binary gone it must exit 0 and print nothing; with a stand-in
 * binary, stdin, argv and the exit code must pass through untouched; with the
 * real binary, the event must be recorded.
 */
import { claude } from "../../lib/harness/claude.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOOKS, type HookName } from "../../lib/hook/subcommands.ts";
import { desiredEntries } from "../../lib/install/entries.ts";
import { planInstall, findEntries } from "../../lib/install/settings.ts";

const DIST = join(import.meta.dir, "..", "..", "dist", "tracegate");
const SHELLS = ["/bin/sh", "/bin/bash", "/bin/dash"].filter((s) => existsSync(s));
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "tg-guard-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function commandsFor(bin: string, gate = true) {
  const text = planInstall("{}", desiredEntries(bin, { gate })).text;
  return findEntries(text).map((f) => ({ event: f.event, sub: f.parsed.subcommand as HookName, command: f.command }));
}

function runHook(shell: string, command: string, stdin: string | Buffer, env: Record<string, string>) {
  return spawnSync(shell, ["-c", command], { input: Buffer.from(stdin), env, timeout: 20_000 });
}

describe("installed commands", () => {
  test("with the binary gone: exit 0, no stdout, no stderr, stdin drained", () => {
    const bin = join(root, "gone dir", "it's gone", "tracegate");
    const big = Buffer.alloc(4 * 1024 * 1024, "x"); // larger than any pipe buffer
    for (const shell of SHELLS) {
      for (const c of commandsFor(bin)) {
        const r = runHook(shell, c.command, big, { PATH: process.env.PATH ?? "/usr/bin:/bin" });
        expect({ shell, event: c.event, code: r.status, out: r.stdout.length, err: r.stderr.toString() }).toEqual({
          shell,
          event: c.event,
          code: 0,
          out: 0,
          err: "",
        });
      }
    }
  });

  test("with the binary gone, a big payload is read to the end (the harness sees no broken pipe)", async () => {
    const bin = join(root, "gone", "tracegate");
    for (const c of commandsFor(bin)) {
      const p = Bun.spawn(["/bin/sh", "-c", c.command], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
      let error = "none";
      try {
        p.stdin.write(Buffer.alloc(4 * 1024 * 1024, "x"));
        await p.stdin.end();
      } catch (e) {
        error = String(e);
      }
      expect({ event: c.event, code: await p.exited, error }).toEqual({ event: c.event, code: 0, error: "none" });
    }
  });

  test("a present binary gets stdin, its argv and passes its exit code through", () => {
    const dir = join(root, "stand in $(x) `y`");
    mkdirSync(dir, { recursive: true });
    const bin = join(dir, "tracegate");
    writeFileSync(bin, `#!/bin/sh\ncat > "$OUT_DIR/stdin"\nprintf '%s\\n' "$@" > "$OUT_DIR/argv"\nexit 7\n`);
    chmodSync(bin, 0o755);
    for (const shell of SHELLS) {
      for (const c of commandsFor(bin, false)) {
        const out = mkdtempSync(join(root, "o-"));
        const payload = JSON.stringify({ hook_event_name: c.event, text: "quotes ' \" and $HOME" });
        const r = runHook(shell, c.command, payload, { PATH: process.env.PATH ?? "/usr/bin:/bin", OUT_DIR: out });
        expect(r.status).toBe(7);
        expect(readFileSync(join(out, "stdin"), "utf8")).toBe(payload);
        const argv = readFileSync(join(out, "argv"), "utf8").trim().split("\n");
        expect(argv).toEqual(c.sub === "stop" ? ["stop", "--observe"] : [c.sub]);
        rmSync(out, { recursive: true });
      }
    }
    expect(existsSync(join(process.cwd(), "x"))).toBe(false);
  });

  test("with the real binary every event is recorded and nothing reaches stdout", () => {
    const dir = join(root, "real bin");
    mkdirSync(dir, { recursive: true });
    const bin = join(dir, "tracegate");
    copyFileSync(DIST, bin);
    chmodSync(bin, 0o755);
    const home = join(root, "data");
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(root, "none.jsonc") };
    const session = "guard-session-1";
    const cmds = commandsFor(bin, false);
    for (const c of cmds) {
      const payload = JSON.stringify({
        session_id: session,
        hook_event_name: c.event,
        cwd: root,
        transcript_path: join(root, "t.jsonl"),
        source: "startup",
        prompt: "hello",
        tool_name: "Bash",
        tool_use_id: `tu-${c.sub}`,
        tool_input: { command: "ls" },
        tool_response: { stdout: "", stderr: "" },
        error: "Exit code 1",
        stop_hook_active: false,
        last_assistant_message: "done",
        reason: "other",
        trigger: "manual",
        message: "note",
        notification_type: "idle_prompt",
        agent_id: "a1",
        agent_type: "general",
      });
      const r = runHook("/bin/sh", c.command, payload, env);
      expect({ event: c.event, code: r.status, out: r.stdout.toString() }).toEqual({ event: c.event, code: 0, out: "" });
    }
    const shown = spawnSync(bin, ["show", session, "--json"], { env, encoding: "utf8" });
    expect(shown.status).toBe(0);
    const events = new Set(shown.stdout.trim().split("\n").map((l) => JSON.parse(l).event));
    for (const c of cmds) expect(events).toContain(c.event);
    expect(cmds).toHaveLength(Object.keys(claude.events).length);
  });
});
