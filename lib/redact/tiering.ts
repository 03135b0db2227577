/**
 * How far up JavaScriptCore's tiers the redactor's largest scanning
 * functions may climb in a process that redacts one large payload and exits.
 *
 * A hook and `tracegate redact` are such processes. On a large payload the
 * top tier (FTL) compiles these functions while they run, and the compiles
 * (tens of milliseconds each for the biggest, on a JIT thread that shares two
 * cores with the scan and the collector) cost such a process more than the
 * faster code earns back before it exits: a cold 5 MB redaction took 434 ms
 * with them and 378 ms with them kept at the DFG tier, while a warm call went
 * from 132 to 147 ms (bench/redact/README.md, "twelfth session"). So the
 * modules name their largest hot functions here, and a one-shot process about
 * to redact a large payload calls `oneShotPayload`; a long-running process
 * (export, sync, the in-process benchmarks) never does, and keeps FTL.
 *
 * Such a process also asks for its heap in 2 MB pages (lib/runtime/pages.ts)
 * once its payload is large enough for the page faults to matter.
 *
 * `bun:jsc`'s `noFTL` only marks a function; output never depends on it.
 */
import { adviseHugePages } from "../runtime/pages.ts";

/**
 * From this many characters on, the heap is asked for 2 MB pages. Measured
 * (whole `redact` processes alternating, with the advice and without): 100 KB
 * 0.96x, 500 KB 0.90x, 1 MB 0.86x, 5 MB 0.75-0.80x; a 10 KB hook the same time
 * with 14 MB more peak RSS, so small payloads go without.
 */
export const HUGE_PAGES_MIN_CHARS = 512 * 1024;

/** Below this many characters the limit bought nothing (1 MB: 221 vs 227 ms a process; 2 MB: 313 vs 299; 5 MB: 538 vs 491). */
export const ONE_SHOT_MIN_CHARS = 2 << 20;

type AnyFunction = (...args: never[]) => unknown;

const hot: AnyFunction[] = [];
let limit: ((f: AnyFunction) => void) | undefined;

/**
 * Names a module's largest hot functions (called once, at the module's load).
 *
 * @example
 * ```ts
 * function scanAll(s: string): number { return s.length; }
 * hotFunctions(scanAll);
 * ```
 */
export function hotFunctions(...fns: AnyFunction[]): void {
  hot.push(...fns);
  if (limit) for (const f of fns) limit(f);
}

/**
 * Keeps every named hot function below FTL from now on, when a one-shot
 * process is about to redact `chars` characters or more (and asks for huge
 * pages from HUGE_PAGES_MIN_CHARS on); a smaller payload changes nothing.
 * Returns whether the FTL limit is on.
 *
 * @example
 * ```ts
 * oneShotPayload(10_000); // false: a small payload never reaches FTL
 * ```
 */
export function oneShotPayload(chars: number): boolean {
  if (chars >= HUGE_PAGES_MIN_CHARS) adviseHugePages();
  if (limit) return true;
  if (chars < ONE_SHOT_MIN_CHARS) return false;
  let noFTL: ((f: AnyFunction) => void) | undefined;
  try {
    noFTL = (require("bun:jsc") as { noFTL?: (f: AnyFunction) => void }).noFTL;
  } catch {
    return false;
  }
  if (typeof noFTL !== "function") return false;
  limit = noFTL;
  for (const f of hot) limit(f);
  return true;
}
