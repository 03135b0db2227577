/**
 * A file shown as bytes. `xxd`, `hexdump -C` and `od -c` print a file 16
 * bytes to a line, in hex and as characters, so `DB_PASSWORD=hunter2hunter`
 * in a `.env` an agent dumps to look for a stray byte (a BOM, a `\r`) is cut
 * at every sixteenth byte and spelled twice, and no rule reads it whole: the
 * key/value rule masks `hunt` on the key's line, and `er2hunter` on the next
 * line stays, with the hex of all of it.
 *
 * So a dump is read back into its bytes (latin1: one character per byte, so
 * a byte's place is its character's), the bytes are scanned like any text,
 * and each secret found in them is masked where the dump shows it: its hex
 * digits and its characters, line by line. Every piece carries the whole
 * secret (`Finding.of`): one tag for all of them, and the copy search looks
 * for the secret itself elsewhere in the record.
 *
 * A dump is found by its first line's offset, `0000000` (seven zeros open
 * every format's first line), and read while its lines follow on, each at
 * the offset the bytes before it reach: a whole dump or its head (`| head`).
 * A dump that starts elsewhere (`tail`, `xxd -s`), `xxd -i` and
 * `od -t x1` are not read (`xxd -p` is hex of text: rules/encoded.ts).
 */
import { hexValue, isHexUnit } from "../decode.ts";
import type { Finding, Rule, ScanCtx } from "../types.ts";

/** A dump read back: its bytes, and where the text shows each. */
export interface Dump {
  /** The bytes as latin1 text (one character per byte). */
  readonly text: string;
  /** Per byte, where the text shows it first (its hex digits, or od's cell): `[at, end)`; -1 for none. */
  readonly at: Int32Array;
  readonly end: Int32Array;
  /** Per byte, where the text shows it again (xxd's and hexdump's character column), or -1. */
  readonly charAt: Int32Array;
  /** Per byte, the line it is on (a piece never spans two). */
  readonly line: Int32Array;
  /** Where the dump ends in the text. */
  readonly stop: number;
}

/** Longest dump read (bytes): past it the rest is left to the other rules. */
export const DUMP_MAX_BYTES = 1 << 20;

type Format = "xxd" | "hexdump" | "od";

const isOctal = (c: number): boolean => c >= 48 && c <= 55;

/** The format whose first line opens at `a`: its offset column, then what follows it. */
function formatAt(s: string, a: number): Format | undefined {
  // xxd: `00000000: 4e4f …`; hexdump -C: `00000000  4e 4f …`; od -c: `0000000   N   O …`.
  if (s.startsWith("00000000: ", a)) return "xxd";
  if (s.startsWith("00000000  ", a)) return "hexdump";
  if (s.startsWith("0000000 ", a) && s.charCodeAt(a + 7) === 32) return "od";
  return undefined;
}

/** The offset a line opens with (hex for xxd and hexdump, octal for od), or -1. */
function offsetOf(s: string, a: number, b: number, format: Format): number {
  const digits = format === "od" ? 7 : 8;
  if (b - a < digits) return -1;
  let v = 0;
  for (let i = a; i < a + digits; i++) {
    const c = s.charCodeAt(i);
    if (format === "od" ? !isOctal(c) : !isHexUnit(c)) return -1;
    v = v * (format === "od" ? 8 : 16) + (format === "od" ? c - 48 : hexValue(c));
  }
  // Past digits the offset may go on (a dump of 4 GB); the first lines never do.
  return v;
}

/** od -c's backslash escapes: the byte each names. */
const OD_ESCAPES: Record<string, number> = { "\\0": 0, "\\a": 7, "\\b": 8, "\\t": 9, "\\n": 10, "\\v": 11, "\\f": 12, "\\r": 13 };

/** Growable byte lists for the dump being read. */
class Bytes {
  codes: number[] = [];
  at: number[] = [];
  end: number[] = [];
  charAt: number[] = [];
  line: number[] = [];
  push(code: number, at: number, end: number, line: number): void {
    this.codes.push(code);
    this.at.push(at);
    this.end.push(end);
    this.charAt.push(-1);
    this.line.push(line);
  }
  /** Drops the bytes from `n` on (a line read part way that turned out to be no dump line). */
  truncate(n: number): void {
    this.codes.length = this.at.length = this.end.length = this.charAt.length = this.line.length = n;
  }
}

/**
 * One line of hex pairs from `p` (xxd groups pairs, hexdump -C spaces
 * them): the bytes, up to two spaces in a row. Returns where the hex ended,
 * or -1 when the line is not one.
 */
function hexPairs(s: string, p: number, b: number, bytes: Bytes, line: number, format: Format): number {
  let n = 0;
  while (p + 1 < b && isHexUnit(s.charCodeAt(p)) && isHexUnit(s.charCodeAt(p + 1))) {
    bytes.push((hexValue(s.charCodeAt(p)) << 4) | hexValue(s.charCodeAt(p + 1)), p, p + 2, line);
    n++;
    p += 2;
    // The next pair: adjacent (an xxd group), after one space, or after two in hexdump's middle.
    if (p < b && s.charCodeAt(p) === 32) {
      if (p + 1 < b && isHexUnit(s.charCodeAt(p + 1))) p++;
      else if (format === "hexdump" && n === 8 && p + 2 < b && s.charCodeAt(p + 1) === 32 && isHexUnit(s.charCodeAt(p + 2))) p += 2;
    }
  }
  // The hex ends at the two spaces before the character column (or the line's end).
  if (p < b && !(p + 1 < b && s.charCodeAt(p) === 32 && s.charCodeAt(p + 1) === 32)) return -1;
  return n === 0 ? -1 : p;
}

/** Whether the character column `s[c..c+n)` shows bytes `from..from+n` (a printable byte as itself, any other as `.`). */
function showsBytes(s: string, c: number, codes: readonly number[], from: number, n: number): boolean {
  for (let k = 0; k < n; k++) {
    const byte = codes[from + k]!;
    const ch = s.charCodeAt(c + k);
    if (byte >= 32 && byte < 127 ? ch !== byte : ch !== 46) return false;
  }
  return true;
}

/**
 * The dump whose first line opens at `a`, read back; undefined when the text
 * there is no dump. Pure: a function of the text.
 *
 * @example
 * ```ts
 * const d = readDump("00000000: 4142 0a                                AB.\n", 0)!;
 * d.text; // "AB\n"
 * ```
 */
export function readDump(s: string, a: number): Dump | undefined {
  const format = formatAt(s, a);
  if (format === undefined) return undefined;
  const bytes = new Bytes();
  let stop = a;
  let line = 0;
  // The file offset the next line should open at (past a `*`, a later one).
  let expect = 0;
  for (let p = a; p < s.length && bytes.codes.length < DUMP_MAX_BYTES; line++) {
    let b = s.indexOf("\n", p);
    if (b < 0) b = s.length;
    const lineEnd = b > p && s.charCodeAt(b - 1) === 13 ? b - 1 : b;
    // `*`: lines the same as the one before, left out (hexdump, od, xxd -a); what follows is at a later offset.
    if (s.charCodeAt(p) === 42 && lineEnd - p === 1) {
      stop = b;
      p = b + 1;
      continue;
    }
    const offset = offsetOf(s, p, lineEnd, format);
    if (offset < 0) break;
    // A line at an offset its bytes do not follow on from: after `*`, a gap the text does not
    // show (a new stretch, with a break the scan reads as a line's end); anything else ends the dump.
    if (offset !== expect && !(line > 0 && s.charCodeAt(stop - 1) === 42 && offset > expect)) break;
    const mark = bytes.codes.length;
    if (offset !== expect) bytes.push(10, -1, -1, line);
    const first = bytes.codes.length;
    if (format === "od") {
      if (!odCells(s, p + 7, lineEnd, bytes, line)) {
        bytes.truncate(mark);
        break;
      }
    } else {
      // The last line of hexdump -C (and od) is the length alone.
      if (lineEnd - p === 8) {
        stop = b;
        break;
      }
      if (format === "xxd" ? s.charCodeAt(p + 8) !== 58 : s.charCodeAt(p + 8) !== 32) break;
      const hexEnd = hexPairs(s, p + 10, lineEnd, bytes, line, format);
      if (hexEnd < 0) {
        bytes.truncate(mark);
        break;
      }
      const n = bytes.codes.length - first;
      // The character column: xxd's last n characters of the line, hexdump's between bars.
      const c = format === "xxd" ? lineEnd - n : s.indexOf("|", hexEnd) + 1;
      if (c > hexEnd && c + n <= lineEnd && showsBytes(s, c, bytes.codes, first, n)) for (let k = 0; k < n; k++) bytes.charAt[first + k] = c + k;
    }
    expect = offset + bytes.codes.length - first;
    stop = b;
    p = b + 1;
  }
  if (bytes.codes.length === 0) return undefined;
  let text = "";
  for (let i = 0; i < bytes.codes.length; i += 4096) text += String.fromCharCode(...bytes.codes.slice(i, i + 4096));
  return { text, at: Int32Array.from(bytes.at), end: Int32Array.from(bytes.end), charAt: Int32Array.from(bytes.charAt), line: Int32Array.from(bytes.line), stop };
}

/** od -c's cells from `p`, four characters each, right-aligned: a character, an escape, or three octal digits. False when the line is not one. */
function odCells(s: string, p: number, b: number, bytes: Bytes, line: number): boolean {
  let n = 0;
  for (; p + 4 <= b; p += 4, n++) {
    let x = p;
    while (x < p + 4 && s.charCodeAt(x) === 32) x++;
    const cell = s.slice(x, p + 4);
    let code: number;
    if (cell.length === 0) code = 32;
    else if (cell.length === 1) code = cell.charCodeAt(0);
    else if (cell.length === 2 && OD_ESCAPES[cell] !== undefined) code = OD_ESCAPES[cell]!;
    else if (cell.length === 3 && isOctal(cell.charCodeAt(0)) && isOctal(cell.charCodeAt(1)) && isOctal(cell.charCodeAt(2))) code = parseInt(cell, 8) & 255;
    // `**`: a byte of the character the cell before shows (od -c on UTF-8).
    else if (cell === "**") code = 0x80;
    else return false;
    bytes.push(code, cell.length === 0 ? p + 3 : x, p + 4, line);
  }
  return n > 0 && p === b;
}

/**
 * The findings for bytes `[from, to)` of dump `d`, kind `kind`, piece `of`:
 * one per line for the hex (or od's cells) and one per line for the character column.
 */
function dumpPieces(d: Dump, from: number, to: number, kind: string, of: string, out: Finding[]): void {
  for (let x = from; x < to; ) {
    let y = x;
    while (y < to && d.line[y] === d.line[x]) y++;
    // A break between stretches (no place in the text) is skipped.
    let a = x;
    while (a < y && d.at[a]! < 0) a++;
    if (a < y) {
      out.push({ from: d.at[a]!, start: d.at[a]!, end: d.end[y - 1]!, kind, priority: DUMP_PRIORITY, of });
      if (d.charAt[a]! >= 0 && d.charAt[y - 1]! >= 0) out.push({ from: d.charAt[a]!, start: d.charAt[a]!, end: d.charAt[y - 1]! + 1, kind, priority: DUMP_PRIORITY, of });
    }
    x = y;
  }
}

/** What a piece of a secret found in a dump weighs against the finds of the dump's own lines: a structural rule's. */
const DUMP_PRIORITY = 2;

/** See the module comment. */
export const dumpRule: Rule = {
  kinds: [],
  keywords: ["0000000"],
  scan(ctx: ScanCtx, pos: number) {
    const s = ctx.s;
    // The first line's offset opens its line (after Gemini CLI's `Output: `, or at the text's start).
    const lead = pos >= 8 && s.startsWith("Output: ", pos - 8) ? pos - 8 : pos;
    if (lead > 0 && s.charCodeAt(lead - 1) !== 10) return;
    if (pos < (ctx.memo.dumpEnd ?? -1)) return;
    const d = readDump(s, pos);
    if (d === undefined) return;
    ctx.memo.dumpEnd = d.stop;
    const segs = ctx.segments?.(d.text);
    if (segs === undefined) return;
    for (const g of segs) dumpPieces(d, g.start, g.end, g.kind, d.text.slice(g.start, g.end), ctx.out);
  },
};
