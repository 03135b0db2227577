/**
 * Unified-diff hunks between two texts, line by line, as git writes them:
 * three lines of context, hunks closer than twice that merged, `-a,b +c,d`
 * headers with `,1` left out, and "\ No newline at end of file" after a last
 * line without one. Lines keep their terminators, so CRLF and a missing final
 * newline survive byte for byte. The longest common subsequence comes from
 * `diff-sequences` (Jest's linear-space Myers), run over interned line ids.
 *
 * @example
 * ```ts
 * unifiedHunks("a\nb\n", "a\nc\n").text; // "@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
 * // A hunk further down is headed by the nearest line above it that starts
 * // with a letter, "_" or "$", as git's default funcname rule does.
 * ```
 */
import * as diffSequencesModule from "diff-sequences";

type DiffSequences = (
  aLength: number,
  bLength: number,
  isCommon: (aIndex: number, bIndex: number) => boolean,
  foundSubsequence: (nCommon: number, aCommon: number, bCommon: number) => void,
) => void;

// diff-sequences is CommonJS with `exports.default`; depending on the bundler's
// interop the function sits one or two `default`s deep (the compiled binary
// sees the module object where `bun run` sees the function).
const diffSequences: DiffSequences = (() => {
  let m: unknown = diffSequencesModule;
  for (let i = 0; i < 3 && typeof m !== "function"; i++) m = (m as { default?: unknown }).default;
  if (typeof m !== "function") throw new Error("diff-sequences: no function export");
  return m as DiffSequences;
})();

export interface Hunks {
  /** The hunks, each line ending in "\n". Empty when the texts are equal. */
  readonly text: string;
  readonly added: number;
  readonly removed: number;
}

/** Split after every "\n"; a last line without one is kept as it is. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    if (nl < 0) break;
    lines.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** A run of changes: a[a0..a1) replaced by b[b0..b1). */
interface Change {
  a0: number;
  a1: number;
  b0: number;
  b1: number;
}

/** The changes between two line arrays, in order. */
export function lineChanges(a: readonly string[], b: readonly string[]): Change[] {
  const ids = new Map<string, number>();
  const intern = (l: string): number => {
    let id = ids.get(l);
    if (id === undefined) ids.set(l, (id = ids.size));
    return id;
  };
  const A = Int32Array.from(a, intern);
  const B = Int32Array.from(b, intern);
  const changes: Change[] = [];
  let ai = 0;
  let bi = 0;
  const common = (n: number, aStart: number, bStart: number): void => {
    if (aStart > ai || bStart > bi) changes.push({ a0: ai, a1: aStart, b0: bi, b1: bStart });
    ai = aStart + n;
    bi = bStart + n;
  };
  diffSequences(A.length, B.length, (i, j) => A[i] === B[j], common);
  if (ai < A.length || bi < B.length) changes.push({ a0: ai, a1: A.length, b0: bi, b1: B.length });
  return changes;
}

function range(start: number, count: number): string {
  // An empty range names the line before it, as in "-0,0" for a new file.
  const s = count === 0 ? start : start + 1;
  return count === 1 ? `${s}` : `${s},${count}`;
}

/**
 * git's default hunk-header context: the nearest line above the hunk that
 * starts with a letter, "_" or "$", trailing space trimmed, at most 80 bytes
 * (cut at a whole character, so the patch stays valid UTF-8).
 */
function funcName(a: readonly string[], start: number): string {
  for (let i = start - 1; i >= 0; i--) {
    const line = a[i]!;
    if (!/^[A-Za-z_$]/.test(line)) continue;
    let text = line;
    if (Buffer.byteLength(text) > 80) {
      text = Buffer.from(text).subarray(0, 80).toString("utf8");
      if (text.endsWith("\uFFFD")) text = text.slice(0, -1);
    }
    return text.replace(/[ \t\n\v\f\r]+$/, "");
  }
  return "";
}

function emit(out: string[], prefix: string, line: string): void {
  out.push(prefix, line);
  if (!line.endsWith("\n")) out.push("\n\\ No newline at end of file\n");
}

/** Unified hunks turning `oldText` into `newText`. */
export function unifiedHunks(oldText: string, newText: string, context = 3): Hunks {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  const changes = lineChanges(a, b);
  const out: string[] = [];
  let added = 0;
  let removed = 0;
  let i = 0;
  while (i < changes.length) {
    // Gather changes whose gaps are at most 2 * context into one hunk.
    let j = i;
    while (j + 1 < changes.length && changes[j + 1]!.a0 - changes[j]!.a1 <= 2 * context) j++;
    const first = changes[i]!;
    const last = changes[j]!;
    const lead = Math.min(context, first.a0);
    const trail = Math.min(context, a.length - last.a1);
    const a0 = first.a0 - lead;
    const b0 = first.b0 - lead;
    const aCount = last.a1 + trail - a0;
    const bCount = last.b1 + trail - b0;
    const func = funcName(a, a0);
    out.push(`@@ -${range(a0, aCount)} +${range(b0, bCount)} @@${func ? ` ${func}` : ""}\n`);
    let pos = a0;
    for (let k = i; k <= j; k++) {
      const c = changes[k]!;
      for (; pos < c.a0; pos++) emit(out, " ", a[pos]!);
      for (let x = c.a0; x < c.a1; x++) emit(out, "-", a[x]!);
      for (let y = c.b0; y < c.b1; y++) emit(out, "+", b[y]!);
      removed += c.a1 - c.a0;
      added += c.b1 - c.b0;
      pos = c.a1;
    }
    for (; pos < last.a1 + trail; pos++) emit(out, " ", a[pos]!);
    i = j + 1;
  }
  return { text: out.join(""), added, removed };
}
