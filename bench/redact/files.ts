/**
 * Files under a directory, in name order, depth first: what the benches that
 * read real text (external.ts's real-code set, machine.ts) walk. Unreadable
 * entries are skipped, empty files are never kept.
 *
 * @example
 * ```ts
 * const out: string[] = [];
 * walkFiles("/etc", (p, size) => p.endsWith(".conf") && size < 100_000, out, 50);
 * ```
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export function walkFiles(dir: string, keep: (path: string, size: number) => boolean, out: string[], limit: number, skipDir?: RegExp): void {
  if (out.length >= limit) return;
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const n of names) {
    if (out.length >= limit) return;
    const p = join(dir, n);
    let st;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) {
      if (!skipDir?.test(n)) walkFiles(p, keep, out, limit, skipDir);
    } else if (st.isFile() && st.size > 0 && keep(p, st.size)) out.push(p);
  }
}
