/**
 * gitignore rules as git layers them: core.excludesFile, then
 * .git/info/exclude, then a .gitignore in every directory from the root down;
 * a deeper file overrides a shallower one and, inside one file, the last
 * matching pattern wins (a `!pattern` match re-includes). Pattern matching
 * itself is the `ignore` package's, which follows the gitignore spec (case
 * sensitive, as git is unless core.ignoreCase is set).
 *
 * @example
 * ```ts
 * let rules = baseRules(["node_modules/\n"]);
 * rules = withDir(rules, "src", "*.log\n");
 * isIgnored(rules, "src/a.log", false); // true
 * ```
 */
import ignore, { type Ignore } from "ignore";

interface Frame {
  /** Directory the patterns are relative to ("" for the root). */
  readonly base: string;
  readonly ig: Ignore;
}

/** An immutable stack of rule frames, shallowest first. */
export type Rules = readonly Frame[];

/** Root-level rules from the texts of excludesFile and info/exclude, lowest priority first. */
export function baseRules(texts: readonly string[]): Rules {
  return texts.filter((t) => t.trim() !== "").map((t) => ({ base: "", ig: ignore({ ignorecase: false }).add(t) }));
}

/** Rules extended with the .gitignore text found in directory `dir`. */
export function withDir(rules: Rules, dir: string, text: string): Rules {
  if (text.trim() === "") return rules;
  return [...rules, { base: dir, ig: ignore({ ignorecase: false }).add(text) }];
}

/**
 * Whether a path (relative to the worktree root) is ignored. The caller walks
 * top-down and never asks about the contents of an ignored directory, as git
 * does not look inside one either.
 */
export function isIgnored(rules: Rules, rel: string, isDir: boolean): boolean {
  for (let i = rules.length - 1; i >= 0; i--) {
    const { base, ig } = rules[i]!;
    const sub = base === "" ? rel : rel.slice(base.length + 1);
    const r = testOwn(ig, isDir ? `${sub}/` : sub);
    if (r.ignored) return true;
    if (r.unignored) return false;
  }
  return false;
}

/** The `ignore` instance's internal one-path test (`ignore` is pinned at 5.3.2, which has it). */
type OnePathTest = (path: string, checkUnignored: boolean) => { ignored: boolean; unignored: boolean };

/**
 * Match one path against one frame's patterns, without the frame's own
 * verdict on the path's parent directories. `ig.test()` first asks whether a
 * parent is excluded *by this frame alone*; but the walk has already decided
 * every parent with all frames (a deeper `.gitignore` can re-include a
 * directory a shallower one excludes: `*.log` at the root, `!important.log`
 * in src/, then src/important.log/inner.txt is tracked, as git does it).
 */
function testOwn(ig: Ignore, path: string): { ignored: boolean; unignored: boolean } {
  const one = (ig as unknown as { _testOne?: OnePathTest })._testOne;
  return typeof one === "function" ? one.call(ig, path, true) : ig.test(path);
}
