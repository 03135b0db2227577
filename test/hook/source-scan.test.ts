/**
 * Silence and exit codes, pinned in the source: stdout is spelled in exactly
 * two modules (the hook runtime's decision writer and the user commands'
 * printer), hook code never imports the printer, and nothing on the hook path
 * exits non-zero or sets process.exitCode.
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
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

/**
 * Modules a hook subcommand can run: everything reachable by static and
 * dynamic imports from the hook entry (main.ts's hook branch loads
 * lib/hook/run.ts and lib/handlers/index.ts). Derived, not listed, so a new
 * module on the hook path is scanned the day it is imported.
 */
const HOOK_ENTRIES = ["lib/hook/run.ts", "lib/handlers/index.ts", "lib/hook/subcommands.ts"];
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g;

function importGraph(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length) {
    const rel = queue.pop()!;
    if (seen.has(rel)) continue;
    seen.add(rel);
    const text = readFileSync(join(ROOT, rel), "utf8").replace(/^\s*(\*|\/\/).*$/gm, "");
    for (const m of text.matchAll(IMPORT)) {
      const target = relative(ROOT, resolve(dirname(join(ROOT, rel)), m[1]!));
      if (/\.(ts|js)$/.test(target) && existsSync(join(ROOT, target))) queue.push(target);
    }
  }
  return seen;
}

const HOOK_PATH = importGraph(HOOK_ENTRIES);
const onHookPath = (rel: string) => HOOK_PATH.has(rel);

test("the hook path is derived from the import graph and covers what every hook runs", () => {
  // main.ts's hook branch imports exactly the entries above.
  const main = readFileSync(join(ROOT, "main.ts"), "utf8");
  for (const e of ["lib/hook/run.ts", "lib/handlers/index.ts", "lib/hook/subcommands.ts"]) expect(main).toContain(`./${e}`);
  for (const must of [
    "lib/hook/stdin.ts",
    "lib/hook/errorlog.ts",
    "lib/trace/sanitize.ts",
    "lib/trace/store.ts",
    "lib/redact/index.ts",
    "lib/redact/fingerprint.ts",
    "lib/config/load.ts",
    "lib/fs/safe-open.ts",
    "lib/git/head.ts",
    "lib/git/pack.ts",
    "lib/gate/stop.ts",
    "lib/oracle/keys.ts",
    "lib/harness/claude.ts",
  ]) {
    expect({ must, found: HOOK_PATH.has(must) }).toEqual({ must, found: true });
  }
  // User commands stay off it.
  for (const not of ["lib/cli/print.ts", "lib/install/register.ts", "lib/oracle/server.ts"]) {
    expect({ not, found: HOOK_PATH.has(not) }).toEqual({ not, found: false });
  }
});

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

/**
 * The hook muzzles the stdout stream only right before a library loads
 * through lib/runtime/third-party.ts (building the stream costs a compiled
 * hook ~7 ms). That is sound only while every other library the hook path
 * imports never reaches for a process stream: checked here in their sources,
 * so a dependency bump that adds one fails this test instead of printing.
 */
test("libraries the hook path imports outside the third-party door never touch process streams", () => {
  const BARE = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']((?:@[\w.-]+\/)?\w[^"']*)["']/g;
  const specs = new Set<string>();
  for (const rel of HOOK_PATH) {
    const text = readFileSync(join(ROOT, rel), "utf8").replace(/^\s*(\*|\/\/).*$/gm, "");
    for (const m of text.matchAll(BARE)) if (!/^(?:node|bun)(?::|$)/.test(m[1]!)) specs.add(m[1]!);
  }
  specs.delete("isomorphic-git"); // loaded only through the door (lib/runtime/third-party.ts)
  const pkg = (spec: string): string => spec.split("/").slice(0, spec.startsWith("@") ? 2 : 1).join("/");
  for (const lib of ["diff-sequences", "ignore", "jsonc-parser", "re2js"]) expect([...specs].map(pkg)).toContain(lib);
  // A whole package is scanned; a subpath import (`ajv/dist/runtime/…`, from the generated validators) just that file.
  const files = (spec: string): string[] => {
    if (spec !== pkg(spec)) return [require.resolve(spec, { paths: [ROOT] })];
    const dir = join(ROOT, "node_modules", spec);
    return (readdirSync(dir, { recursive: true }) as string[]).map((f) => join(dir, f)).filter((f) => /\.(?:c|m)?js$/.test(f) && statSync(f).isFile());
  };
  const offenders: string[] = [];
  for (const spec of specs) {
    for (const f of files(spec)) if (/process\.(?:stdout|stderr)|\bconsole\s*\./.test(readFileSync(f, "utf8"))) offenders.push(relative(ROOT, f));
  }
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
