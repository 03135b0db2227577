/**
 * "Did you mean": the nearest of some known words to a word a person typed,
 * for unknown commands, options and config keys.
 */

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

function score(word: string, candidate: string): number {
  const w = word.toLowerCase();
  const c = candidate.toLowerCase();
  // A dotted key also matches on its last part: `timeout` is near `oracle.timeout_s`.
  const last = c.slice(c.lastIndexOf(".") + 1);
  let s = Math.min(editDistance(w, c), editDistance(w, last));
  if (w.length >= 3 && (last.startsWith(w) || c.includes(w) || w.includes(last))) s = Math.min(s, 1);
  return s;
}

/**
 * The candidate nearest to `word`, or null when none is near enough to be a
 * plausible typo.
 *
 * @example
 * ```ts
 * nearest("timeout", ["oracle.url", "oracle.timeout_s", "task_id"]); // "oracle.timeout_s"
 * nearest("sesions", ["sessions", "show"]);                          // "sessions"
 * nearest("zzz", ["sessions"]);                                      // null
 * ```
 */
export function nearest(word: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestScore = Infinity;
  for (const c of candidates) {
    const s = score(word, c);
    if (s < bestScore) {
      best = c;
      bestScore = s;
    }
  }
  const limit = Math.max(2, Math.floor(word.length / 3));
  return bestScore <= limit ? best : null;
}
