/**
 * The best of `runs` timings of `call`, each after a full garbage
 * collection: on a noisy machine a collection or a neighbour landing in one
 * run says nothing about the code, and the tests that use this compare two
 * such figures as a ratio, never against a wall-clock limit.
 *
 * @example
 * ```ts
 * const ms = bestMs(() => "x".repeat(1000).toUpperCase());
 * ```
 */
export function bestMs(call: () => unknown, runs = 5): number {
  let best = Infinity;
  for (let k = 0; k < runs; k++) {
    Bun.gc(true);
    const t0 = performance.now();
    call();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}
