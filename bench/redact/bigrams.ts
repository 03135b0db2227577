/**
 * Derives the letter-pair table of lib/redact/rules/entropy.ts (PAIR_LEVELS):
 * counts lowercase letter pairs in the words of README.md and `.d.ts` files
 * under node_modules (this repo's and the global one), then prints one row per
 * first letter, digit d = round(log2(share * 676)) + 4, clamped to 0..9.
 * The table is committed; rerun this only to rebuild it.
 *
 *   bun bench/redact/bigrams.ts [DIR...]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const roots = process.argv.length > 2 ? process.argv.slice(2) : ["/usr/lib/node_modules", join(import.meta.dir, "../../node_modules")];
const counts = new Map<string, number>();
let files = 0;

function walk(dir: string, depth: number): void {
  if (depth > 6 || files > 4000) return;
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const n of names) {
    const p = join(dir, n);
    let st;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) walk(p, depth + 1);
    else if (/\.(?:md|d\.ts)$/.test(n) && st.size < 500_000) {
      files++;
      for (const m of readFileSync(p, "utf8").matchAll(/[A-Z]?[a-z]{3,}|[A-Z]{3,}(?![a-z])/g)) {
        const w = m[0].toLowerCase();
        for (let i = 0; i + 1 < w.length; i++) counts.set(w.slice(i, i + 2), (counts.get(w.slice(i, i + 2)) ?? 0) + 1);
      }
    }
  }
}

for (const r of roots) walk(r, 0);
const total = [...counts.values()].reduce((a, b) => a + b, 0);
const L = "abcdefghijklmnopqrstuvwxyz";
const rows = [...L].map((a) =>
  [...L].map((b) => String(Math.max(0, Math.min(9, Math.round(Math.log2((((counts.get(a + b) ?? 0.5) / total) * 676)) + 4))))).join(""),
);
console.error(`${files} files, ${total} letter pairs`);
console.log(JSON.stringify(rows, null, 2));
