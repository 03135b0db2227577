/**
 * Silence and exit codes, pinned in the source: stdout is spelled in exactly
 * two modules (the hook runtime's decision writer and the user commands'
 * printer), hook code never imports the printer, and nothing on the hook path
 * exits non-zero or sets process.exitCode.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { HOOKS } from "../../lib/hook/subcommands.ts";
import { ROOT } from "../support/tracegate.ts";

function sources(dir: string): string[] {
  return (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
    .filter((f) => /\.(ts|js)$/.test(f) && !f.startsWith("generated"))
    .map((f) => join(ROOT, dir, f));
}

const ALL = [join(ROOT, "main.ts"), ...sources("lib")];
const STDOUT_SPELLINGS = [
  /process\.stdout/,
  /\bconsole\s*\.\s*\w+/,
  /writeSync\(\s*1\b/,
  /Bun\.stdout/,
  /\/dev\/stdout/,
  /\bprocess\.stdout\b/,
  /fd:\s*1\b/,
  /Bun\.write\(\s*1\b/,
  /print\(/,
];
const STDOUT_OWNERS = new Set(["lib/hook/stdout.ts", "lib/cli/print.ts"]);

/** Modules a hook subcommand runs: the runtime, adapters, trace, redaction, git, gate, oracle client, config. */
const HOOK_PATH = ["lib/hook/", "lib/harness/", "lib/trace/", "lib/redact/index", "lib/redact/engine", "lib/redact/rules", "lib/git/", "lib/gate/", "lib/handlers/", "lib/config/", "lib/oracle/client", "lib/oracle/verdict", "lib/oracle/jcs"];
const onHookPath = (rel: string) => HOOK_PATH.some((p) => rel.startsWith(p)) && !rel.endsWith("/cli.ts");

test("stdout is spelled only in its two owner modules", () => {
  const offenders: string[] = [];
  for (const file of ALL) {
    const rel = relative(ROOT, file);
    if (STDOUT_OWNERS.has(rel)) continue;
    const text = readFileSync(file, "utf8").replace(/^\s*(\*|\/\/).*$/gm, "");
    for (const re of STDOUT_SPELLINGS) if (re.test(text)) offenders.push(`${rel}: ${re}`);
  }
  expect(offenders).toEqual([]);
});

test("hook-path modules never import the user-command printer", () => {
  const offenders = ALL.map((f) => relative(ROOT, f))
    .filter(onHookPath)
    .filter((rel) => /from\s+["'][^"']*cli\/print(\.ts)?["']/.test(readFileSync(join(ROOT, rel), "utf8")));
  expect(offenders).toEqual([]);
});

test("only the runtime emits a decision", () => {
  const callers = ALL.map((f) => relative(ROOT, f)).filter((rel) => readFileSync(join(ROOT, rel), "utf8").includes("emitDecision("));
  expect(callers.sort()).toEqual(["lib/hook/run.ts", "lib/hook/stdout.ts"]);
});

test("no non-zero exit or exitCode on the hook path", () => {
  const offenders: string[] = [];
  for (const file of ALL) {
    const rel = relative(ROOT, file);
    if (!onHookPath(rel)) continue;
    const text = readFileSync(file, "utf8");
    if (/process\.exitCode/.test(text)) offenders.push(`${rel}: process.exitCode`);
    for (const m of text.matchAll(/process\.exit\(([^)]*)\)/g)) if (m[1]!.trim() !== "0") offenders.push(`${rel}: ${m[0]}`);
  }
  expect(offenders).toEqual([]);
});

test("every declared timeout is strictly above its cap, with room for process start", () => {
  for (const [name, spec] of Object.entries(HOOKS)) {
    expect({ name, ok: spec.timeoutS * 1000 >= spec.capMs + 1000 }).toEqual({ name, ok: true });
  }
  // SessionEnd must fit Claude Code's shared 1.5 s budget even where the timeout cannot raise it.
  expect(HOOKS["session-end"].capMs).toBeLessThan(1500);
});
