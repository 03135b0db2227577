/**
 * `tracegate diff [--cwd DIR] [--base REV] [--stat]`: the patch of DIR's
 * working tree (new files included) against REV, or a git-like summary.
 *
 * @example
 * ```sh
 * tracegate diff --base HEAD~2 > session.patch
 * tracegate diff --stat
 * ```
 */
import { parseArgs } from "../runtime/builtins.ts";
import { err, fail, out } from "../cli/print.ts";
import { diffAgainstBase, diffStat, type FileStat, GitDiffError } from "./diff.ts";

const USAGE = "usage: tracegate diff [--cwd DIR] [--base REV] [--stat]";

/**
 * git's `--stat` layout: name, change count, a +/- bar scaled to fit, then a
 * summary line.
 *
 * @example
 * ```ts
 * formatStat([{ path: "a", added: 1, removed: 0, binary: false, oldSize: 0, newSize: 2 }]);
 * // " a | 1 +\n 1 file changed, 1 insertion(+)\n"
 * ```
 */
export function formatStat(stats: readonly FileStat[], width = 80): string {
  if (stats.length === 0) return "";
  const nameWidth = Math.max(...stats.map((s) => s.path.length));
  const maxChange = Math.max(...stats.map((s) => s.added + s.removed));
  const countWidth = Math.max(String(maxChange).length, stats.some((s) => s.binary) ? 3 : 0);
  const room = Math.max(10, width - nameWidth - countWidth - 6);
  const scale = (n: number): number => (maxChange <= room ? n : Math.ceil((n * room) / maxChange));
  let text = "";
  let ins = 0;
  let del = 0;
  for (const s of stats) {
    ins += s.added;
    del += s.removed;
    const name = ` ${s.path.padEnd(nameWidth)} | `;
    if (s.binary) text += `${name}${"Bin".padStart(countWidth)} ${s.oldSize} -> ${s.newSize} bytes\n`;
    else {
      const bar = "+".repeat(scale(s.added)) + "-".repeat(scale(s.removed));
      text += `${name}${String(s.added + s.removed).padStart(countWidth)}${bar ? ` ${bar}` : ""}\n`;
    }
  }
  const n = stats.length;
  let summary = ` ${n} file${n === 1 ? "" : "s"} changed`;
  if (ins || !del) summary += `, ${ins} insertion${ins === 1 ? "" : "s"}(+)`;
  if (del || !ins) summary += `, ${del} deletion${del === 1 ? "" : "s"}(-)`;
  return `${text}${summary}\n`;
}

/** Entry point of `tracegate diff`; returns the exit code. */
export async function diffCommand(argv: string[]): Promise<number> {
  let values: { cwd?: string; base?: string; stat?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        cwd: { type: "string" },
        base: { type: "string" },
        stat: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    return fail(`${(e as Error).message}\n${USAGE}`, 2);
  }
  if (values.help) {
    out(`${USAGE}\n`);
    return 0;
  }
  const opts = { cwd: values.cwd ?? process.cwd(), base: values.base ?? "HEAD", maxBytes: Number.POSITIVE_INFINITY };
  try {
    if (values.stat) out(formatStat(await diffStat(opts)));
    else out((await diffAgainstBase(opts)).patch);
    return 0;
  } catch (e) {
    if (e instanceof GitDiffError) return fail(e.message, 1);
    err(`tracegate: diff failed: ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}
