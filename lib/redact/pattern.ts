/**
 * User-supplied patterns (config `redact.extra`, user and repository) run on
 * `re2js`, a pure-JS port of RE2: matching is linear in the input whatever
 * the pattern, so a repository's `(.|.)*\u0000` costs what a literal costs.
 * RE2 has no backreferences or lookaround; a pattern that needs them is
 * refused with a config error rather than run on the backtracking engine.
 */
import type { RE2JS as RE2JSClass } from "re2js";

type RE2JS = RE2JSClass;
let engine: typeof RE2JSClass | undefined;
/**
 * The RE2 engine, loaded on first use: a hook with no user patterns (the
 * common case) never evaluates the module, so it costs nothing at start-up.
 */
function re2(): typeof RE2JSClass {
  // A require (not a static import) so the bundle evaluates re2js lazily.
  return (engine ??= (require("re2js") as typeof import("re2js")).RE2JS);
}

/**
 * Whether `s` fully matches user allowlist entry `source` (RE2), or undefined
 * when RE2 cannot compile it (the entry then matches as a literal only).
 *
 * @example
 * ```ts
 * allowMatcher("test_[a-z]+")?.("test_abc"); // true
 * ```
 */
export function allowMatcher(source: string): ((s: string) => boolean) | undefined {
  try {
    const re = re2().compile(source);
    return (s) => re.matcher(s).matches();
  } catch {
    return undefined;
  }
}

/** A compiled user pattern: finds `[start, end)` of the secret (group 1 if the pattern has one). */
export interface UserPattern {
  readonly kind: string;
  /** Every match in `s`, at most `max`, as [from, start, end] (`from` is the whole match's start). */
  matches(s: string, max: number): [number, number, number][];
}

/** Finding kinds a user may name: lowercase letters, digits and dashes. */
export const USER_KIND = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** Longest pattern source accepted (RE2 compiles to a program proportional to it). */
export const PATTERN_MAX = 4096;

/**
 * Compiles a user pattern with RE2 semantics, or says why it cannot.
 *
 * @example
 * ```ts
 * compileUserPattern("acme-token", "acme_([A-Za-z0-9]{32})"); // { pattern }
 * compileUserPattern("x", "(a)\\1").error; // "… RE2 cannot compile it (invalid escape sequence: `\1`); …"
 * ```
 */
export function compileUserPattern(kind: string, source: string): { pattern: UserPattern; error?: undefined } | { error: string; pattern?: undefined } {
  if (typeof source !== "string" || source.length === 0) return { error: "pattern must be a non-empty string" };
  if (source.length > PATTERN_MAX) return { error: `pattern is ${source.length} characters; the limit is ${PATTERN_MAX}` };
  let re: RE2JS;
  try {
    re = re2().compile(source);
  } catch (e) {
    const why = String((e as Error).message ?? e).replace(/^error parsing regexp: /, "");
    return { error: `RE2 cannot compile it (${why}); user patterns run on a linear-time engine, so backreferences and lookaround are not available: rewrite it without them` };
  }
  const groups = re.groupCount();
  return {
    pattern: {
      kind,
      matches(s, max) {
        const out: [number, number, number][] = [];
        const m = re.matcher(s);
        let at = 0;
        while (out.length < max && at <= s.length && m.find(at)) {
          const from = m.start();
          const end = m.end();
          const g = groups >= 1 && m.start(1) >= 0 ? 1 : 0;
          const gs = g === 1 ? m.start(1) : from;
          const ge = g === 1 ? m.end(1) : end;
          if (ge > gs) out.push([from, gs, ge]);
          at = end > from ? end : from + 1;
        }
        return out;
      },
    },
  };
}
