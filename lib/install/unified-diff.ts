/**
 * The unified diff `--dry-run` prints. Linear and bounded: the hunks come
 * from the diff engine's linear-space Myers (lib/git/hunks.ts, on
 * `diff-sequences`) after the common head and tail are trimmed; when what is
 * left is too large for that to stay cheap (a settings file rewritten
 * wholesale), the middle becomes one hunk, which is still a correct diff.
 * The old LCS table took 14.7 s and 2.5 GB on a 25,000-line file.
 *
 * Printing is bounded too: a line over DIFF_LINE_CHARS is shown cut (an
 * 18 MB minified settings file is one line), at most DIFF_MAX_LINES lines are
 * shown, and control characters are escaped, because a project-scope
 * settings file is the repository's text. The diff applies with patch(1)
 * unless one of those bounds was hit, and then it says so.
 */
import { escapeControl } from "../cli/print.ts";
import { splitLines, unifiedHunks } from "../git/hunks.ts";

/** Lines of the middle (both sides together) the line diff runs on; beyond, one hunk. */
export const DIFF_MAX_MIDDLE_LINES = 20_000;
/** The most lines a dry run prints. */
export const DIFF_MAX_LINES = 5_000;
/** The most characters of one line a dry run prints. */
export const DIFF_LINE_CHARS = 4_000;

function hunksOf(before: string, after: string, context: number): string {
  const a = splitLines(before);
  const b = splitLines(after);
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  if (a.length - p - s + (b.length - p - s) <= DIFF_MAX_MIDDLE_LINES) return unifiedHunks(before, after, context).text;
  // One hunk: the trimmed middle replaced whole, with context around it.
  const a0 = Math.max(0, p - context);
  const a1 = Math.min(a.length, a.length - s + context);
  const b1 = Math.min(b.length, b.length - s + context);
  const out: string[] = [];
  const range = (start: number, count: number) => `${count === 0 ? start : start + 1},${count}`;
  out.push(`@@ -${range(a0, a1 - a0)} +${range(a0, b1 - a0)} @@\n`);
  const emit = (prefix: string, line: string) => {
    out.push(prefix, line);
    if (!line.endsWith("\n")) out.push("\n\\ No newline at end of file\n");
  };
  for (let i = a0; i < p; i++) emit(" ", a[i]!);
  for (let i = p; i < a.length - s; i++) emit("-", a[i]!);
  for (let i = p; i < b.length - s; i++) emit("+", b[i]!);
  for (let i = a.length - s; i < a1; i++) emit(" ", a[i]!);
  return out.join("");
}

/** Cut long lines and long output, escape control characters; say what was left out. */
function bounded(text: string): string {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const out: string[] = [];
  let cutLines = 0;
  for (const line of lines.slice(0, DIFF_MAX_LINES)) {
    const shown = line.length > DIFF_LINE_CHARS ? line.slice(0, DIFF_LINE_CHARS) : line;
    if (shown !== line) cutLines++;
    // A CRLF file's line keeps its \r, so the patch still applies.
    const cr = shown.endsWith("\r");
    out.push(`${escapeControl(cr ? shown.slice(0, -1) : shown)}${cr ? "\r" : ""}${shown !== line ? ` [... ${line.length - DIFF_LINE_CHARS} more characters not shown]` : ""}`);
  }
  if (lines.length > DIFF_MAX_LINES) out.push(`[... ${lines.length - DIFF_MAX_LINES} more lines not shown]`);
  if (cutLines || lines.length > DIFF_MAX_LINES) out.push("[this diff was cut for display and does not apply as a patch]");
  return `${out.join("\n")}\n`;
}

/**
 * Unified diff with 3 lines of context; empty string when the texts are equal.
 *
 * @example
 * ```ts
 * import { unifiedDiff } from "./unified-diff.ts";
 * unifiedDiff("a\nb\n", "a\nc\n", "settings.json");
 * // "--- settings.json\n+++ settings.json\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
 * ```
 */
export function unifiedDiff(before: string, after: string, name: string, context = 3): string {
  if (before === after) return "";
  const head = `--- ${before === "" ? "/dev/null" : name}\n+++ ${after === "" ? "/dev/null" : name}\n`;
  return bounded(`${head}${hunksOf(before, after, context)}`);
}

/**
 * What `--dry-run` prints: a header saying nothing was written, then the diff.
 *
 * @example
 * ```ts
 * import { dryRunReport } from "./unified-diff.ts";
 * dryRunReport("install", "/home/u/.claude/settings.json", "--- ...");
 * ```
 */
export function dryRunReport(command: "install" | "uninstall", path: string, diff: string): string {
  if (!diff) return "";
  return `# tracegate ${command} --dry-run: nothing was written; this is the change to ${escapeControl(path)}\n${diff}`;
}
