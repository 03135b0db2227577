/**
 * mulberry32: a small seeded PRNG, so a failing generated case can be
 * replayed from its printed seed and no realistic token is ever committed.
 *
 * @example
 * ```ts
 * const next = prng(42);
 * next(); // a number in [0, 1), the same for the same seed
 * ```
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
