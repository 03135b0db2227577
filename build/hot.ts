/**
 * The compile step's one change to the program: every function the
 * redactor's modules declare at their top level is named to
 * lib/redact/tiering.ts at load, so a one-shot process that redacts a large
 * payload can keep all of them below JavaScriptCore's top tier (FTL).
 *
 * Why every function and not a list: the FTL compiles a cold 5 MB redaction
 * starts are whichever functions got hot first while the compiler threads
 * were busy, and they change from run to run and input to input (58 of ours
 * on the mixed document, 21 on real files, in two runs that shared only 14).
 * Marking the 27 largest left the rest to climb (`scanKeyValue` then spent
 * 152 ms in one compile, bench/redact/README.md, twelfth session); marking
 * all of them took a cold 5 MB `redact` to 0.87x of that (nineteenth
 * session). A list kept by hand in 37 modules would be 365 names long and
 * wrong by the next commit; the source itself is the list.
 *
 * What counts as declared: a line that opens with `function`, `const X = (…) =>`
 * or `class` (with `export` or `async` before it), the style the modules are
 * written in. A function nested in another is reached only through its
 * parent's tiers, which is what the limit wants anyway.
 */
import type { BunPlugin } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Where the redactor lives, and the module that keeps the names (it cannot name itself: it is imported by the others). */
const REDACT_DIR = join(import.meta.dir, "..", "lib", "redact");
const TIERING = join(REDACT_DIR, "tiering.ts");

const FUNCTION = /^(?:export )?(?:async )?function\*?\s*([A-Za-z_$][\w$]*)/gm;
// `const name = (` or `const name = async (` or `const name = x =>`, with an optional type on the name.
const ARROW = /^(?:export )?const ([A-Za-z_$][\w$]*)(?::[^\n]*?)? = (?:async )?(?:\(|[A-Za-z_$][\w$]* =>)/gm;
const CLASS = /^(?:export )?(?:abstract )?class ([A-Za-z_$][\w$]*)/gm;

/**
 * The names a TypeScript module declares as functions or classes at its top
 * level, each once, in source order.
 *
 * @example
 * ```ts
 * topLevelFunctions("export function a() {}\nconst b = (x: number) => x;\nclass C {}\n  function inner() {}");
 * // ["a", "b", "C"]
 * ```
 */
export function topLevelFunctions(source: string): string[] {
  const found: [number, string][] = [];
  for (const re of [FUNCTION, ARROW, CLASS]) for (const m of source.matchAll(re)) found.push([m.index, m[1]!]);
  found.sort((a, b) => a[0] - b[0]);
  return [...new Set(found.map(([, name]) => name))];
}

/**
 * `source` with a last line that names its functions to tiering, in a
 * closure that is only called if a payload turns the limit on.
 *
 * @example
 * ```ts
 * withHotMarks("function scan() {}", "/abs/lib/redact/tiering.ts");
 * // ends with: __tgHot(() => [scan]);
 * ```
 */
export function withHotMarks(source: string, tiering: string): string {
  const names = topLevelFunctions(source);
  if (names.length === 0) return source;
  return `${source}\nimport { hotFunctions as __tgHot } from ${JSON.stringify(tiering)};\n__tgHot(() => [${names.join(", ")}]);\n`;
}

/**
 * The bundler plugin: each module under lib/redact (but tiering.ts) gets its
 * marks as it is loaded.
 */
export const hotMarks: BunPlugin = {
  name: "tracegate-hot-marks",
  setup(build) {
    build.onLoad({ filter: /[\\/]lib[\\/]redact[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      return { contents: args.path === TIERING ? source : withHotMarks(source, TIERING), loader: "ts" };
    });
  },
};
