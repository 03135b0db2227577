/**
 * A unified diff of two small texts, for `--dry-run`. Settings files are a
 * few hundred lines, so a plain LCS table is fast enough and easy to trust.
 */

type Op = { kind: " " | "-" | "+"; line: string };

function lines(text: string): string[] {
  if (text === "") return [];
  const ls = text.split("\n");
  if (ls[ls.length - 1] === "") ls.pop();
  return ls;
}

function ops(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const w = m + 1;
  const t = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      t[i * w + j] = a[i] === b[j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!);
    }
  }
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ kind: " ", line: a[i++]! });
      j++;
    } else if (j < m && (i >= n || t[i * w + j + 1]! >= t[(i + 1) * w + j]!)) {
      out.push({ kind: "+", line: b[j++]! });
    } else {
      out.push({ kind: "-", line: a[i++]! });
    }
  }
  return out;
}

/**
 * Unified diff with 3 lines of context; empty string when the texts are equal.
 *
 * @example
 * ```ts
 * unifiedDiff("a\nb\n", "a\nc\n", "settings.json");
 * // "--- settings.json\n+++ settings.json\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
 * ```
 */
export function unifiedDiff(before: string, after: string, name: string, context = 3): string {
  if (before === after) return "";
  const all = ops(lines(before), lines(after));
  const hunks: string[] = [];
  let k = 0;
  while (k < all.length) {
    if (all[k]!.kind === " ") {
      k++;
      continue;
    }
    // Grow a hunk from this change until `2 * context` unchanged lines separate it from the next.
    let start = Math.max(0, k - context);
    let end = k;
    while (end < all.length) {
      if (all[end]!.kind !== " ") {
        end++;
        continue;
      }
      let run = 0;
      while (end + run < all.length && all[end + run]!.kind === " ") run++;
      if (end + run >= all.length || run > 2 * context) {
        end = Math.min(all.length, end + context);
        break;
      }
      end += run;
    }
    let aStart = 1;
    let bStart = 1;
    for (let x = 0; x < start; x++) {
      if (all[x]!.kind !== "+") aStart++;
      if (all[x]!.kind !== "-") bStart++;
    }
    const body = all.slice(start, end);
    const aLen = body.filter((o) => o.kind !== "+").length;
    const bLen = body.filter((o) => o.kind !== "-").length;
    const range = (s: number, l: number) => `${l === 0 ? s - 1 : s},${l}`;
    hunks.push(`@@ -${range(aStart, aLen)} +${range(bStart, bLen)} @@\n`);
    for (const o of body) hunks.push(`${o.kind}${o.line}\n`);
    k = end;
    start = end;
  }
  return `--- ${before === "" ? "/dev/null" : name}\n+++ ${after === "" ? "/dev/null" : name}\n${hunks.join("")}`;
}
