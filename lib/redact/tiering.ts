/**
 * How far up JavaScriptCore's tiers the redactor's functions may climb in a
 * process that redacts one large payload and exits.
 *
 * A hook and `tracegate redact` are such processes. On a large payload the
 * top tier (FTL) compiles the hot functions while they run, and the compiles
 * (tens of milliseconds each for the biggest, on a JIT thread that shares two
 * cores with the scan and the collector) cost such a process more than the
 * faster code earns back before it exits. So in the compiled binary every
 * function the redactor's modules declare is named here at load (build/hot.ts
 * adds the line to each module), and a one-shot process about to redact a
 * large payload calls `oneShotPayload`: from then on none of them climbs past
 * the DFG tier, and the JIT's thresholds go back to normal, so they reach DFG
 * sooner. A long-running process (export, sync, the in-process benchmarks)
 * never calls it and keeps FTL: a warm call is about 10% faster with it.
 *
 * Measured on a cold 5 MB `tracegate redact` (bench/redact/README.md): the 27
 * largest functions kept below FTL, 0.91x of none (twelfth session); every
 * function kept below FTL with normal thresholds, 0.87-0.92x of that
 * (nineteenth session, 30 pairs a run).
 *
 * Such a process also asks for its heap in 2 MB pages (lib/runtime/pages.ts)
 * once its payload is large enough for the page faults to matter.
 *
 * `bun:jsc`'s `noFTL` only marks a function, and the thresholds only say when
 * to compile: output never depends on either.
 */
import { adviseHugePages } from "../runtime/pages.ts";

/**
 * From this many characters on, the heap is asked for 2 MB pages. Measured
 * (whole `redact` processes alternating, with the advice and without): 100 KB
 * 0.96x, 500 KB 0.90x, 1 MB 0.86x, 5 MB 0.75-0.80x; a 10 KB hook the same time
 * with 14 MB more peak RSS, so small payloads go without.
 */
export const HUGE_PAGES_MIN_CHARS = 512 * 1024;

/**
 * From this many characters on, a one-shot process limits the tiers. With 27
 * functions named by hand it paid only from 2 MB (twelfth session: 1 MB 1.03x);
 * with every function named and the thresholds normal, `redact` of the mixed
 * document measured (25 pairs each, against the limit from 2 MB) 100 KB 0.975x,
 * 300 KB 0.95x, 600 KB 0.90x, 1 MB 0.86x, and of real files 300 KB 0.93x, 1 MB
 * 0.91x; a PostToolUse hook 300 KB 0.97-0.99x, 1 MB 0.95x. Under 100 KB it is
 * within noise (50 KB 1.06x, spread 0.8-1.3), and a 10 KB hook's code runs
 * mostly once, which the build's raised thresholds are for.
 */
export const ONE_SHOT_MIN_CHARS = 256 << 10;

type AnyFunction = (...args: never[]) => unknown;

/** Each module's list, unread until a payload turns the limit on: a small hook pays one closure per module. */
const lists: (() => readonly unknown[])[] = [];
let limit: ((f: AnyFunction) => void) | undefined;

/** Every function and method the lists name. */
function named(): AnyFunction[] {
  return lists.flatMap((list) => list().flatMap(methodsOf)) as AnyFunction[];
}

/**
 * Names a module's functions (called once, at the module's load, with a
 * closure over them: nothing is read until the limit goes on). A class stands
 * for its methods; anything that is not a function is skipped, so a
 * generated list need not know.
 *
 * @example
 * ```ts
 * function scanAll(s: string): number { return s.length; }
 * hotFunctions(() => [scanAll]);
 * ```
 */
export function hotFunctions(list: () => readonly unknown[]): void {
  lists.push(list);
  if (limit) for (const f of list().flatMap(methodsOf)) limit(f as AnyFunction);
}

/**
 * How many functions and methods are named: in the compiled binary, every
 * one the redactor declares (some 400); run from source, none (build/hot.ts
 * adds the lines at compile time).
 *
 * @example
 * ```ts
 * hotFunctionCount(); // 0 from source
 * ```
 */
export function hotFunctionCount(): number {
  return named().length;
}

/**
 * A function with its methods, its static ones and its prototype's: what
 * runs hot when `f` is a class is its methods, not its constructor.
 *
 * @example
 * ```ts
 * class Box { open(): void {} }
 * methodsOf(Box).length; // 2: Box and open
 * ```
 */
export function methodsOf(f: unknown): unknown[] {
  if (typeof f !== "function") return [];
  const out: unknown[] = [f];
  const own = (o: object, skip: string): void => {
    for (const k of Object.getOwnPropertyNames(o)) {
      if (k === skip) continue;
      const d = Object.getOwnPropertyDescriptor(o, k)!;
      for (const x of [d.value, d.get, d.set]) if (typeof x === "function") out.push(x);
    }
  };
  own(f, "prototype");
  const proto = (f as { prototype?: unknown }).prototype;
  if (proto !== null && typeof proto === "object") own(proto, "constructor");
  return out;
}

/**
 * Keeps every named function below FTL from now on, and puts the JIT's
 * thresholds back to normal, when a one-shot process is about to redact
 * `chars` characters or more (and asks for huge pages from
 * HUGE_PAGES_MIN_CHARS on); a smaller payload changes nothing.
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
  for (const f of named()) limit(f);
  // The binary starts with thresholds twenty times the normal (build.ts: a hook's code mostly runs
  // once). A large payload's scan is the opposite: with FTL out of the way, the sooner its functions
  // reach DFG the better. A cold 5 MB redaction against the 27 functions named by hand: every
  // function limited 0.955x (40 pairs), limited with normal thresholds 0.87x (30 pairs).
  const unsafe = (globalThis as { Bun?: { unsafe?: { setJITPolicy?: (scale: number) => void } } }).Bun?.unsafe;
  if (typeof unsafe?.setJITPolicy === "function") unsafe.setJITPolicy(1);
  return true;
}
