/**
 * Every `@example` block in a doc comment under lib/ is type-checked against
 * the module it documents, so an example cannot go stale (one called
 * `claudeRecords` with 3 arguments after it took 4).
 *
 * Each block becomes a file that sees its module's exports by name, with
 * its own relative imports pointed at the module's folder, and its body in an
 * async function (examples may await and may reuse an export's name). Names
 * an example uses without defining them (`record`, `oid`, `store`) are
 * declared `any`, but calling a function that nothing defines fails the test:
 * that is what a renamed or removed function looks like.
 */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ROOT } from "../support/tracegate.ts";

interface Example {
  readonly module: string;
  readonly line: number;
  readonly code: string;
}

function sources(): string[] {
  return (readdirSync(join(ROOT, "lib"), { recursive: true }) as string[])
    .filter((f) => f.endsWith(".ts") && !f.startsWith("generated"))
    .map((f) => join("lib", f));
}

function examplesOf(module: string): Example[] {
  const text = readFileSync(join(ROOT, module), "utf8");
  const out: Example[] = [];
  for (const c of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const body = c[0].split("\n").map((l) => l.replace(/^\s*\/?\*+\/?\s?/, ""));
    const at = body.findIndex((l) => l.trim().startsWith("@example"));
    if (at < 0) continue;
    const start = body.findIndex((l, i) => i > at && /^```(ts|typescript)?\s*$/.test(l.trim()));
    const end = body.findIndex((l, i) => i > start && l.trim() === "```");
    if (start < 0 || end < 0) continue;
    const line = text.slice(0, c.index).split("\n").length + start + 1;
    out.push({ module, line, code: body.slice(start + 1, end).join("\n") });
  }
  return out;
}

function exportsOf(module: string): string[] {
  const text = readFileSync(join(ROOT, module), "utf8");
  const names = new Set<string>();
  for (const m of text.matchAll(/^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|enum)\s+([A-Za-z_$][\w$]*)/gm)) names.add(m[1]!);
  return [...names];
}

const EXAMPLES = sources().flatMap(examplesOf);
/** Every name some module in lib/ exports, and the first module that does. */
const EXPORTED = new Map<string, string>();
for (const m of sources()) for (const n of exportsOf(m)) if (!EXPORTED.has(n)) EXPORTED.set(n, m);
const WORK = join(ROOT, "node_modules", ".cache", "tracegate-examples");

function fileFor(ex: Example, declared: readonly string[]): string {
  const dir = dirname(join(ROOT, ex.module));
  const imports: string[] = [];
  const body: string[] = [];
  for (const l of ex.code.split("\n")) {
    // `{ ... }` is how an example says "your code here".
    const fixed = l.replace(/\{ \.\.\. \}/g, "{ /* ... */ }").replace(/(from\s+|import\s*\(\s*)(["'])(\.{1,2}\/[^"']+)\2/g, (_m, pre: string, q: string, p: string) => `${pre}${q}${resolve(dir, p)}${q}`);
    (/^\s*import\s/.test(fixed) ? imports : body).push(fixed);
  }
  const own = new Set(imports.join("\n").match(/[A-Za-z_$][\w$]*/g) ?? []);
  const names = exportsOf(ex.module).filter((n) => !own.has(n));
  return [
    ...imports,
    `import * as __module from ${JSON.stringify(join(ROOT, ex.module))};`,
    names.length ? `const { ${names.join(", ")} } = __module;` : "",
    ...declared.map((n) => {
      const from = EXPORTED.get(n);
      return from && from !== ex.module ? `import { ${n} } from ${JSON.stringify(join(ROOT, from))};` : `declare const ${n}: any;`;
    }),
    `void __module;`,
    `export async function __example(): Promise<void> {`,
    ...body,
    `}`,
    "",
  ].join("\n");
}

function typecheck(files: Map<string, Example>, declared: Map<string, string[]>): string[] {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  for (const [name, ex] of files) writeFileSync(join(WORK, name), fileFor(ex, declared.get(name) ?? []));
  writeFileSync(
    join(WORK, "tsconfig.json"),
    JSON.stringify({ extends: join(ROOT, "tsconfig.json"), compilerOptions: { noUnusedLocals: false }, include: ["./*.ts"] }),
  );
  const r = spawnSync(join(ROOT, "node_modules", ".bin", "tsc"), ["--noEmit", "--pretty", "false", "-p", join(WORK, "tsconfig.json")], { encoding: "utf8" });
  return `${r.stdout}${r.stderr}`.split("\n").filter((l) => /error TS\d+/.test(l));
}

test("every @example in lib/ type-checks against its module", () => {
  expect(EXAMPLES.length).toBeGreaterThan(50);
  const files = new Map<string, Example>(EXAMPLES.map((ex, i) => [`ex${i}.ts`, ex]));
  const problems: string[] = [];
  const declared = new Map<string, string[]>();
  // tsc checks no types while any file has a syntax error: report those first, then leave them out.
  for (;;) {
    const syntax = typecheck(files, declared).map((l) => /(ex\d+\.ts)\((\d+),\d+\): (error TS1\d{3}: .*)$/.exec(l)).filter((m) => m !== null);
    if (syntax.length === 0) break;
    for (const m of syntax) {
      const ex = files.get(m[1]!);
      if (ex) problems.push(`${ex.module}:${ex.line}: ${m[3]}`);
      files.delete(m[1]!);
    }
  }
  // Pass 1: find the names examples use without defining them.
  for (const l of typecheck(files, declared)) {
    const m = /^(?:.*[\\/])?(ex\d+\.ts)\(\d+,\d+\): error TS(?:2304|2552|18004): (?:Cannot find name|No value exists in scope for the shorthand property) '([\w$]+)'/.exec(l);
    if (m) declared.set(m[1]!, [...new Set([...(declared.get(m[1]!) ?? []), m[2]!])]);
  }
  for (const [name, names] of declared) {
    const ex = files.get(name)!;
    for (const n of names) {
      // Exported elsewhere in lib/: imported from there, so its use is type-checked too.
      if (EXPORTED.has(n)) continue;
      if (new RegExp(`(?<![\\w$.])${n.replace(/\$/g, "\\$")}\\s*\\(`).test(ex.code)) {
        problems.push(`${ex.module}:${ex.line}: the example calls ${n}(), which neither its module nor its imports define`);
      }
    }
  }
  // Pass 2: with those declared, nothing else may be wrong.
  for (const l of typecheck(files, declared)) {
    const m = /(ex\d+\.ts)\((\d+),\d+\): (error TS\d+: .*)$/.exec(l);
    const ex = m ? files.get(m[1]!) : undefined;
    problems.push(ex ? `${ex.module}:${ex.line}: ${m![3]}` : l);
  }
  if (!process.env.KEEP_EXAMPLES) rmSync(WORK, { recursive: true, force: true });
  expect(problems).toEqual([]);
}, 180_000);

test("the example scanner finds the examples it should", () => {
  const where = new Set(EXAMPLES.map((e) => relative(ROOT, join(ROOT, e.module))));
  for (const m of ["lib/harness/claude.ts", "lib/trace/sanitize.ts", "lib/fs/safe-open.ts", "lib/hook/subcommands.ts"]) expect({ m, found: where.has(m) }).toEqual({ m, found: true });
});
