/**
 * One file's section of a git patch, from the two sides' modes, ids and
 * bytes. Pure: the caller reads the bytes. A change of type (file, symlink,
 * submodule) is written as a deletion and a creation, as git does.
 *
 * Text is kept only when it is valid UTF-8 and has no NUL in its first 8000
 * bytes (git's own test); anything else goes out as a binary patch. That
 * keeps the whole patch valid UTF-8, so it travels in a JSON string to the
 * oracle without one byte changing.
 *
 * @example
 * ```ts
 * filePatch("a.txt", { mode: 0o100644, oid: o1, data: old }, { mode: 0o100644, oid: o2, data: cur });
 * // "diff --git a/a.txt b/a.txt\nindex 1234567..89abcde 100644\n--- a/a.txt\n+++ b/a.txt\n@@ ..."
 * ```
 */
import { literalHunk } from "./binary.ts";
import { unifiedHunks } from "./hunks.ts";
import { quotePath } from "./quote.ts";

export interface Side {
  readonly mode: number;
  readonly oid: string;
  readonly data: Uint8Array;
}

export interface FilePatch {
  readonly text: string;
  readonly added: number;
  readonly removed: number;
  readonly binary: boolean;
}

const NULL_OID = "0".repeat(40);
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The text of some bytes, or null when git would call them binary or they are not UTF-8. */
export function asText(data: Uint8Array): string | null {
  if (data.subarray(0, 8000).includes(0)) return null;
  try {
    return utf8.decode(data);
  } catch {
    return null;
  }
}

function typeOf(mode: number): number {
  return mode & 0o170000;
}

function modeText(mode: number): string {
  return mode.toString(8).padStart(6, "0");
}

/**
 * The patch section(s) for one path. Either side may be absent (creation,
 * deletion); both present with equal mode and id gives "".
 */
export function filePatch(path: string, oldSide: Side | null, newSide: Side | null): FilePatch {
  if (oldSide && newSide && typeOf(oldSide.mode) !== typeOf(newSide.mode)) {
    const del = section(path, oldSide, null);
    const add = section(path, null, newSide);
    return {
      text: del.text + add.text,
      added: add.added,
      removed: del.removed,
      binary: del.binary || add.binary,
    };
  }
  if (oldSide && newSide && oldSide.mode === newSide.mode && oldSide.oid === newSide.oid) {
    return { text: "", added: 0, removed: 0, binary: false };
  }
  return section(path, oldSide, newSide);
}

function section(path: string, a: Side | null, b: Side | null): FilePatch {
  const nameA = quotePath(`a/${path}`);
  const nameB = quotePath(`b/${path}`);
  const head: string[] = [`diff --git ${nameA} ${nameB}\n`];
  if (!a) head.push(`new file mode ${modeText(b!.mode)}\n`);
  else if (!b) head.push(`deleted file mode ${modeText(a.mode)}\n`);
  else if (a.mode !== b.mode) head.push(`old mode ${modeText(a.mode)}\n`, `new mode ${modeText(b.mode)}\n`);
  const oidA = a?.oid ?? NULL_OID;
  const oidB = b?.oid ?? NULL_OID;
  if (oidA === oidB) return { text: head.join(""), added: 0, removed: 0, binary: false };

  const dataA = a?.data ?? new Uint8Array(0);
  const dataB = b?.data ?? new Uint8Array(0);
  const textA = asText(dataA);
  const textB = asText(dataB);
  const sameMode = a && b && a.mode === b.mode ? ` ${modeText(a.mode)}` : "";
  if (textA === null || textB === null) {
    // Binary: full ids (git apply refuses a binary patch without them),
    // then the forward and the reverse literal.
    head.push(`index ${oidA}..${oidB}${sameMode}\n`, "GIT binary patch\n", literalHunk(dataB), literalHunk(dataA));
    return { text: head.join(""), added: 0, removed: 0, binary: true };
  }
  head.push(`index ${oidA.slice(0, 7)}..${oidB.slice(0, 7)}${sameMode}\n`);
  if (textA === "" && textB === "") return { text: head.join(""), added: 0, removed: 0, binary: false };
  // git adds a tab after a name with a space, so GNU patch reads it whole.
  const labelA = a ? nameA + (nameA.includes(" ") ? "\t" : "") : "/dev/null";
  const labelB = b ? nameB + (nameB.includes(" ") ? "\t" : "") : "/dev/null";
  const hunks = unifiedHunks(textA, textB);
  head.push(`--- ${labelA}\n`, `+++ ${labelB}\n`, hunks.text);
  return { text: head.join(""), added: hunks.added, removed: hunks.removed, binary: false };
}
