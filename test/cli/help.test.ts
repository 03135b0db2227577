/**
 * Help and argument checking of the compiled binary, driven by the command
 * table itself: every command and subcommand answers --help and -h, the
 * top-level help lists every option, the gate refuses what the table does
 * not name, and each command's own parser accepts what the table names.
 */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { COMMANDS, type CommandSpec } from "../../lib/cli/commands.ts";
import { HOOKS } from "../../lib/hook/caps.ts";
import { cleanup, run, tempDir } from "../support/tracegate.ts";
import { script } from "./pty.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const home = tempDir();
const env = { TRACEGATE_HOME: join(home, "data"), TRACEGATE_CONFIG: join(home, "c.jsonc"), CLAUDE_CONFIG_DIR: join(home, "claude") };
afterAll(() => cleanup(home));

/** Every command path in the table, with its spec. */
function paths(): [string[], CommandSpec][] {
  const all: [string[], CommandSpec][] = [];
  for (const [name, spec] of Object.entries(COMMANDS)) {
    all.push([[name], spec]);
    for (const [sub, s] of Object.entries(spec.subcommands ?? {})) all.push([[name, sub], s]);
  }
  return all;
}

for (const [path, spec] of paths()) {
  test(`${path.join(" ")} --help and -h print its usage and every option, exit 0`, async () => {
    for (const flag of ["--help", "-h"]) {
      const r = await run([...path, flag], { env, cwd: home });
      expect(r.code).toBe(0);
      const out = text(r.stdout);
      expect(out.startsWith(`usage: tracegate ${path.join(" ")}`)).toBe(true);
      for (const name of Object.keys(spec.options)) expect(out).toContain(`--${name}`);
      expect(out).toContain("--help");
      expect(r.stderr).toBe("");
    }
  });
}

test("the top-level help lists every command and every option, exit 0 (--help, -h, help, no args)", async () => {
  for (const args of [["--help"], ["-h"], ["help"], []]) {
    const r = await run(args, { env });
    expect(r.code).toBe(0);
    const out = text(r.stdout);
    for (const [path, spec] of paths()) {
      expect(out).toContain(`tracegate ${path.join(" ")}`);
      for (const name of Object.keys(spec.options)) expect(out).toMatch(new RegExp(`tracegate ${path.join(" ")} .*--${name}\\b`));
    }
    // The ones the issue named.
    expect(out).toMatch(/uninstall .*--all/);
    expect(out).toMatch(/verify .*--json/);
    for (const o of ["--tests-list", "--max-diff-bytes", "--queue", "--jobs", "--wait", "--host", "--verbose"]) expect(out).toMatch(new RegExp(`oracle serve .*${o}`));
  }
});

test("help COMMAND and help for a hook subcommand", async () => {
  const r = await run(["help", "prune"], { env });
  expect(r.code).toBe(0);
  expect(text(r.stdout)).toStartWith("usage: tracegate prune --older-than AGE [--dry-run]");
  const h = await run(["help", "stop"], { env });
  expect(h.code).toBe(0);
  expect(text(h.stdout)).toContain("usage: tracegate stop [--harness claude] [--observe]");
});

test("a hook with --help and piped stdin stays a silent hook; at a terminal it prints its help", async () => {
  const piped = await run(["stop", "--help"], { env, stdin: "{}" });
  expect(piped.code).toBe(0);
  expect(piped.stdout.length).toBe(0);
  const tty = script([join(import.meta.dir, "../../dist/tracegate"), "session-start", "--help"], env);
  if (tty === null) return;
  expect(tty.code).toBe(0);
  expect(tty.out).toContain("usage: tracegate session-start");
});

test("an option the table does not name is refused by every command, with the nearest one", async () => {
  for (const [path, spec] of paths()) {
    const r = await run([...path, "--bogus-option"], { env, cwd: home });
    expect(r.code).toBe(2);
    if (spec.subcommands && Object.keys(spec.options).length === 0) continue; // `oracle`: needs a command first
    expect(r.stderr).toContain(`\`tracegate ${path.join(" ")}\` has no option --bogus-option`);
    expect(r.stdout.length).toBe(0);
  }
  const near = await run(["sessions", "--limt", "3"], { env });
  expect(near.stderr).toContain("did you mean --limit?");
  const val = await run(["sessions", "--limit"], { env });
  expect(val.code).toBe(2);
  expect(val.stderr).toContain("--limit needs a value: --limit N");
});

test("unknown commands name the nearest one; unknown subcommands too; missing required options are named", async () => {
  const r = await run(["sesions"], { env });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("did you mean `tracegate sessions`?");
  const s = await run(["oracle", "serv"], { env });
  expect(s.code).toBe(2);
  expect(s.stderr).toContain("did you mean `tracegate oracle serve`?");
  const m = await run(["prune"], { env });
  expect(m.code).toBe(2);
  expect(m.stderr).toContain("needs --older-than AGE");
  const k = await run(["oracle", "keygen"], { env });
  expect(k.code).toBe(2);
  expect(k.stderr).toContain("needs --out DIR");
  const extra = await run(["show", "a", "b"], { env });
  expect(extra.code).toBe(2);
  expect(extra.stderr).toContain('unexpected argument "b"');
});

/** Arguments that make each command stop right after parsing, without side effects. */
const PROBE: Record<string, { args: string[]; value: (opt: string) => string }> = {
  sessions: { args: [], value: (o) => ({ limit: "1", outcome: "flip", since: "1d" })[o] ?? "x" },
  show: { args: ["no-such-session"], value: () => "x" },
  tail: { args: ["no-such-session"], value: () => "x" },
  verify: { args: ["no-such-session"], value: () => "x" },
  redact: { args: ["/nonexistent/file"], value: () => "x" },
  diff: { args: [], value: (o) => (o === "cwd" ? "/nonexistent" : o === "session" ? "no-such-session" : "HEAD") },
  install: { args: ["--bin", "/nonexistent/tracegate"], value: (o) => (o === "scope" ? "user" : "/nonexistent/tracegate") },
  uninstall: { args: ["--dry-run"], value: () => "user" },
  doctor: { args: [], value: () => "x" },
  prune: { args: ["--dry-run", "--older-than", "3650d"], value: () => "3650d" },
  config: { args: [], value: () => "x" },
  "oracle keygen": { args: ["--out", "/nonexistent/dir/x"], value: () => "/nonexistent/dir/x" },
  "oracle serve": { args: ["--repo", "/nonexistent", "--test-cmd", "true", "--key", "/nonexistent"], value: (o) => (["port", "timeout", "max-diff-bytes", "queue", "jobs", "wait"].includes(o) ? "1" : "/nonexistent") },
};

test("each command's own parser accepts every option the table names", async () => {
  for (const [path, spec] of paths()) {
    const probe = PROBE[path.join(" ")];
    if (!probe) continue;
    for (const [name, o] of Object.entries(spec.options)) {
      if (name === "dry-run" && path[0] === "install") continue; // install --dry-run needs a real binary: covered in test/install
      const args = [...path, ...probe.args.filter((a, i, all) => a !== `--${name}` && all[i - 1] !== `--${name}`), `--${name}`, ...(o.type === "string" ? [probe.value(name)] : [])];
      const r = await run(args, { env, cwd: home });
      expect({ args, err: r.stderr }).not.toMatchObject({ err: expect.stringMatching(/unknown option|has no option|Unknown option/i) });
    }
  }
  expect(Object.keys(PROBE).length).toBeGreaterThan(10);
});

test("every hook subcommand is known to the hook table, not the user table (no name in both)", () => {
  for (const h of Object.keys(HOOKS)) expect(COMMANDS[h]).toBeUndefined();
});

/** Modules that parse their own options (not through parseOptions), and the commands they serve. */
const OWN_PARSERS: Record<string, string[]> = {
  "lib/install/register.ts": ["install", "uninstall"],
  "lib/install/doctor.ts": ["doctor"],
  "lib/oracle/cli.ts": ["oracle keygen", "oracle serve"],
  "lib/redact/cli.ts": ["redact"],
  "lib/git/cli.ts": ["diff"],
  "lib/cli/verify.ts": ["verify"],
};

test("every option a command's own parser accepts is in the table, so help shows it", () => {
  const { readFileSync, readdirSync } = require("node:fs") as typeof import("node:fs");
  const root = join(import.meta.dir, "..", "..");
  const specOf = (path: string) => {
    const [a, b] = path.split(" ");
    return b ? COMMANDS[a!]!.subcommands![b]! : COMMANDS[a!]!;
  };
  for (const [file, cmds] of Object.entries(OWN_PARSERS)) {
    const src = readFileSync(join(root, file), "utf8");
    // Option declarations as parseArgs takes them: `name: { type: "string" | "boolean" ... }`.
    const declared = [...src.matchAll(/["']?([a-z][a-z-]*)["']?\s*:\s*\{\s*type:\s*["'](?:string|boolean)["']/g)].map((m) => m[1]!);
    expect({ file, some: declared.length > 0 }).toEqual({ file, some: true });
    const known = new Set(["help", ...cmds.flatMap((c) => Object.keys(specOf(c).options))]);
    for (const o of declared) expect({ file, option: o, inTable: known.has(o) }).toEqual({ file, option: o, inTable: true });
  }
  // The commands in lib/cli parse with the table itself.
  for (const f of readdirSync(join(root, "lib", "cli"))) {
    const src = readFileSync(join(root, "lib", "cli", f), "utf8");
    if (!src.includes("parseArgs(") || f === "args.ts" || f in { "verify.ts": 1 }) continue;
    expect({ f, viaTable: /parseArgs\(\{[^}]*options: parseOptions\(COMMANDS/.test(src) }).toEqual({ f, viaTable: true });
  }
});
