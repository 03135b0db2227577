/**
 * The compile step's marks (build/hot.ts): every function the redactor's
 * modules declare is named to tiering at load, in the binary as built.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { topLevelFunctions, withHotMarks } from "../../build/hot.ts";
import { ONE_SHOT_MIN_CHARS } from "../../lib/redact/tiering.ts";

const root = join(import.meta.dir, "../..");
const bin = join(root, "dist", "tracegate");

describe("topLevelFunctions", () => {
  test("names what a module declares at its top level, and nothing nested or not a function", () => {
    const source = [
      "export function scan(s: string): number {",
      "  function inner() {}",
      "  const local = () => 1;",
      "  return 0;",
      "}",
      "async function load() {}",
      "function* walk() {}",
      "export const isSpace = (c: number): boolean => c === 32;",
      "const keyOf: (s: string) => number = (s) => s.length;",
      "const twice = x => x * 2;",
      "const later = async (x: number) => x;",
      "const LIMIT = 5;",
      "const table = (1 << 4) | 3;",
      "export class Copies {",
      "  add(): void {}",
      "}",
      "export abstract class Base {}",
      "type Fn = () => void;",
      "interface Rule { scan(): void }",
      "// function commented() {}",
    ].join("\n");
    // `table` is a number in parentheses: named, and skipped at run time (hotFunctions takes functions only).
    expect(topLevelFunctions(source)).toEqual(["scan", "load", "walk", "isSpace", "keyOf", "twice", "later", "table", "Copies", "Base"]);
  });

  test("a module with no function is left as it is", () => {
    expect(withHotMarks("export const A = 1;\n", "/t.ts")).toBe("export const A = 1;\n");
  });

  test("the marks name each function once, in a closure, after the module's own code", () => {
    const out = withHotMarks("function a() {}\nclass B { m() {} }\n", "/x/tiering.ts");
    expect(out.startsWith("function a() {}\nclass B { m() {} }\n")).toBe(true);
    expect(out).toContain('from "/x/tiering.ts"');
    expect(out.trimEnd().endsWith("__tgHot(() => [a, B]);")).toBe(true);
  });
});

describe("the redactor's modules, loaded through the marks", () => {
  test("every module loads, and some 400 functions and methods are named", () => {
    // A fresh process: a runtime plugin applies to every later import of the redactor.
    const script = `
      const { hotMarks } = await import(${JSON.stringify(join(root, "build/hot.ts"))});
      Bun.plugin(hotMarks);
      const tiering = await import(${JSON.stringify(join(root, "lib/redact/tiering.ts"))});
      const { createRedactor } = await import(${JSON.stringify(join(root, "lib/redact/index.ts"))});
      const out = createRedactor({ fingerprintKey: "k" }).text("token=ghp_" + "A1b2".repeat(9));
      process.stdout.write(JSON.stringify({ count: tiering.hotFunctionCount(), out }));
    `;
    const p = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    expect(p.stderr.toString()).toBe("");
    const { count, out } = JSON.parse(p.stdout.toString());
    expect(count).toBeGreaterThan(300);
    expect(out).toBe("token=ghp_[REDACTED:github-pat:" + out.slice(-5));
  });
});

// The binary as `npm run build` makes it: JavaScriptCore says, for each function it compiles with
// DFG, whether the function is barred from FTL. With the marks, a large payload's compiles are
// nearly all of the redactor's functions, barred (96 of 109 at 1 MB); without them (the marks
// dropped from the build), one in five was at 5 MB (the 27 tiering used to name by hand).
describe.skipIf(!existsSync(bin))("the compiled binary", () => {
  function dfgCompiles(chars: number): { barred: number; free: number } {
    const script = `
      const { mixedDocument } = await import(${JSON.stringify(join(root, "bench/redact/corpus.ts"))});
      let doc = mixedDocument();
      while (doc.length < ${chars}) doc += doc;
      process.stdout.write(doc.slice(0, ${chars}));
    `;
    const doc = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe" }).stdout;
    const p = spawnSync(bin, ["redact"], { input: doc, env: { ...process.env, BUN_JSC_reportCompileTimes: "1", TRACEGATE_HOME: mkdtempSync(join(tmpdir(), "tg-hot-")) }, maxBuffer: 64 << 20 });
    expect(p.status).toBe(0);
    const lines = p.stderr.toString().split("\n").filter((l) => l.includes(" using DFG "));
    const barred = lines.filter((l) => l.includes("NeverFTLOptimize")).length;
    return { barred, free: lines.length - barred };
  }

  test("a 1 MB payload keeps the redactor's functions below FTL", () => {
    // How many functions reach DFG before the process exits is the JIT threads' timing: under a
    // loaded CI run one count came to 53 (100-140 here alone). As linear.test.ts does for its
    // ratios, a count that falls short is measured once more; the bars stay as they are.
    let { barred, free } = dfgCompiles(4 * ONE_SHOT_MIN_CHARS);
    if (barred <= 60 || barred <= 3 * free) ({ barred, free } = dfgCompiles(4 * ONE_SHOT_MIN_CHARS));
    expect(barred).toBeGreaterThan(60);
    expect(barred).toBeGreaterThan(3 * free);
  }, 60_000);

  test("a payload under the threshold leaves every function free to climb", () => {
    const { barred, free } = dfgCompiles(ONE_SHOT_MIN_CHARS - 4096);
    expect(free).toBeGreaterThan(10);
    expect(barred).toBe(0);
  }, 60_000);
});
