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
 * A dump is found by a line's offset: eight hex digits for xxd and hexdump
 * -C, seven digits for od and plain hexdump. It is read while its lines
 * follow on, each at the offset the bytes before it reach; a line at another
 * offset (past a squeezed `*`, or lines `grep` picked out) opens a new stretch,
 * which the scan reads as after a line break. Its first line is looked for at
 * `0000000` (the first line of every layout) and, for xxd, hexdump -C and od
 * -c, wherever a 16-byte line's offset ends (its last digit `0`, then xxd's
 * `: ` or the others' spaces): so `xxd -s 0x100`, `od -c -j 16`, `| tail`
 * and `| grep -A3` are read too.
 *
 * The layouts read: xxd (any `-c`, `-g`, `-u`), hexdump -C, od -c, and from
 * offset 0 od -t x1 (with or without `z`'s character column) and the
 * two-byte words of plain hexdump and od -x (little-endian: a word `715a`
 * shows the bytes `5a 71`). Not read: those two past offset 0 (their lines'
 * offsets have no literal to find them by), lines at offsets that do not end
 * in 0 (`xxd -s 5`), od -A n (no offsets). `xxd -i` is a byte list (below),
 * `xxd -p` hex of text (rules/encoded.ts).
 */
import { hexValue, isHexUnit } from "../decode.ts";
import type { Finding, Rule, ScanCtx } from "../types.ts";

/**
 * Text shown in another form, read back: a dump's bytes, a byte list's, or
 * text one escaping level down (escaped.ts), with where the text shows
 * each character, so a secret found in it is masked where it is shown.
 */
export interface Dump {
  /** What was read back: a dump's bytes as latin1 text (one character per byte), or the unescaped characters. */
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

type Format = "xxd" | "hexdump" | "od" | "odx1" | "words";

/** How a dump's lines open: its layout, and its offsets' digits and radix. */
interface Layout {
  readonly format: Format;
  readonly digits: 7 | 8;
  readonly radix: 8 | 16;
}

const isOctal = (c: number): boolean => c >= 48 && c <= 55;
const isDigitOf = (c: number, radix: 8 | 16): boolean => (radix === 8 ? isOctal(c) : isHexUnit(c));
/** The byte two hex digits at `i` spell. */
const hexByteAt = (s: string, i: number): number => (hexValue(s.charCodeAt(i)) << 4) | hexValue(s.charCodeAt(i + 1));

/** Whether `s[a..a+n)` are hex digits. */
function hexRun(s: string, a: number, n: number): boolean {
  for (let i = a; i < a + n; i++) if (!isHexUnit(s.charCodeAt(i))) return false;
  return true;
}

/** Whether `s[a..a+n)` are digits in `radix`. */
function digitRun(s: string, a: number, n: number, radix: 8 | 16): boolean {
  for (let i = a; i < a + n; i++) if (!isDigitOf(s.charCodeAt(i), radix)) return false;
  return true;
}

/**
 * The layouts a dump line opening at `a` may have, most likely first: its
 * offset column, then what follows it. Plain hexdump's offsets are hex and
 * od -x's octal, in the same layout, so both are tried.
 */
function layoutsAt(s: string, a: number): Layout[] {
  // xxd: `00000010: 4e4f …`; hexdump -C: `00000010  4e 4f …`.
  if (hexRun(s, a, 8)) {
    if (s.charCodeAt(a + 8) === 58 && s.charCodeAt(a + 9) === 32) return [{ format: "xxd", digits: 8, radix: 16 }];
    if (s.charCodeAt(a + 8) === 32 && s.charCodeAt(a + 9) === 32 && isHexUnit(s.charCodeAt(a + 10))) return [{ format: "hexdump", digits: 8, radix: 16 }];
    return [];
  }
  if (!hexRun(s, a, 7) || s.charCodeAt(a + 7) !== 32) return [];
  const octal = digitRun(s, a, 7, 8);
  // od -t x1: ` 4e 4f`; words (plain hexdump, od -x): ` 4f4e 4544`; od -c: `   N   O`.
  if (hexRun(s, a + 8, 2) && (s.charCodeAt(a + 10) === 32 || atLineEnd(s, a + 10))) return octal ? [{ format: "odx1", digits: 7, radix: 8 }] : [];
  if (hexRun(s, a + 8, 4)) {
    const words: Layout[] = [{ format: "words", digits: 7, radix: 16 }];
    return octal ? [...words, { format: "words", digits: 7, radix: 8 }] : words;
  }
  return octal ? [{ format: "od", digits: 7, radix: 8 }] : [];
}

/** Whether a line ends at `i` (`\n`, `\r\n` or the text's end). */
const atLineEnd = (s: string, i: number): boolean => i >= s.length || s.charCodeAt(i) === 10 || s.charCodeAt(i) === 13;

/** The offset a line opens with, or -1. */
function offsetOf(s: string, a: number, b: number, layout: Layout): number {
  if (b - a < layout.digits) return -1;
  let v = 0;
  for (let i = a; i < a + layout.digits; i++) {
    const c = s.charCodeAt(i);
    if (!isDigitOf(c, layout.radix)) return -1;
    v = v * layout.radix + hexValue(c);
  }
  // Past digits the offset may go on (a dump of 4 GB); the lines read here never do.
  return v;
}

/** od -c's backslash escapes: the byte each names. */
const OD_ESCAPES: Record<string, number> = { "\\0": 0, "\\a": 7, "\\b": 8, "\\t": 9, "\\n": 10, "\\v": 11, "\\f": 12, "\\r": 13 };

/**
 * A text being read back, growing: its code units (a dump's bytes, or
 * unescaped characters) and where the text shows each.
 */
export class ReadBack {
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
  /** What was read back, ending at `stop` in the text. */
  done(stop: number): Dump {
    let text = "";
    // In slices: a spread of a whole megabyte overflows the call stack.
    for (let i = 0; i < this.codes.length; i += 4096) text += String.fromCharCode(...this.codes.slice(i, i + 4096));
    return { text, at: Int32Array.from(this.at), end: Int32Array.from(this.end), charAt: Int32Array.from(this.charAt), line: Int32Array.from(this.line), stop };
  }
}

/**
 * One line of hex pairs from `p` (xxd groups pairs, hexdump -C spaces
 * them): the bytes, up to two spaces in a row. Returns where the hex ended,
 * or -1 when the line is not one.
 */
function hexPairs(s: string, p: number, b: number, bytes: ReadBack, line: number, format: Format): number {
  let n = 0;
  while (p + 1 < b && isHexUnit(s.charCodeAt(p)) && isHexUnit(s.charCodeAt(p + 1))) {
    bytes.push(hexByteAt(s, p), p, p + 2, line);
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
  let best: Dump | undefined;
  let bestBreaks = 0;
  // Plain hexdump and od -x differ only in their offsets' radix: the reading that goes further wins,
  // and of two that go as far, the one whose offsets follow on (the other breaks at every line).
  for (const layout of layoutsAt(s, a)) {
    const d = readWith(s, a, layout);
    if (d === undefined) continue;
    const breaks = d.at.filter((x) => x < 0).length;
    if (best === undefined || d.stop > best.stop || (d.stop === best.stop && breaks < bestBreaks)) {
      best = d;
      bestBreaks = breaks;
    }
  }
  return best;
}

/** readDump in one layout. */
function readWith(s: string, a: number, layout: Layout): Dump | undefined {
  const { format } = layout;
  const bytes = new ReadBack();
  let stop = a;
  let line = 0;
  // The file offset the next line should open at (past a `*`, a later one); the first line sets it.
  let expect = -1;
  for (let p = a; p < s.length && bytes.codes.length < DUMP_MAX_BYTES; line++) {
    let b = s.indexOf("\n", p);
    if (b < 0) b = s.length;
    const lineEnd = b > p && s.charCodeAt(b - 1) === 13 ? b - 1 : b;
    // `*`: lines the same as the one before, left out (hexdump, od, xxd -a); what follows is at a later offset.
    if (line > 0 && s.charCodeAt(p) === 42 && lineEnd - p === 1) {
      stop = b;
      p = b + 1;
      continue;
    }
    const offset = offsetOf(s, p, lineEnd, layout);
    if (offset < 0) break;
    if (expect < 0) expect = offset;
    // A line at an offset its bytes do not follow on from (past `*`, or lines `grep` picked out) opens
    // a new stretch, with a break the scan reads as a line's end: one dump and one rescan for all of
    // them, where a dump per line cost a rescan each.
    // The last line of every format but xxd's is the length alone.
    if (lineEnd - p === layout.digits) {
      if (format !== "xxd") stop = b;
      break;
    }
    const mark = bytes.codes.length;
    if (offset !== expect) bytes.push(10, -1, -1, line);
    const first = bytes.codes.length;
    if (!readLine(s, p, lineEnd, layout, bytes, line)) {
      bytes.truncate(mark);
      break;
    }
    expect = offset + bytes.codes.length - first;
    stop = b;
    p = b + 1;
  }
  return bytes.codes.length === 0 ? undefined : bytes.done(stop);
}

/** One dump line's bytes, after its offset, into `bytes` (and where its character column shows them). False when the line is not one. */
function readLine(s: string, p: number, lineEnd: number, layout: Layout, bytes: ReadBack, line: number): boolean {
  const first = bytes.codes.length;
  switch (layout.format) {
    case "od":
      return odCells(s, p + 7, lineEnd, bytes, line);
    case "words":
      return wordCells(s, p + 7, lineEnd, bytes, line);
    case "odx1": {
      const hexEnd = byteCells(s, p + 7, lineEnd, bytes, line);
      if (hexEnd < 0) return false;
      // `-t x1z`: the characters between `>` and `<` after the cells.
      const open = s.indexOf(">", hexEnd);
      if (open >= 0 && open < lineEnd) markColumn(s, open + 1, hexEnd, lineEnd, bytes, first);
      return true;
    }
    default: {
      if (layout.format === "xxd" ? s.charCodeAt(p + 8) !== 58 : s.charCodeAt(p + 8) !== 32) return false;
      const hexEnd = hexPairs(s, p + 10, lineEnd, bytes, line, layout.format);
      if (hexEnd < 0) return false;
      // The character column: xxd's last n characters of the line, hexdump's between bars.
      const n = bytes.codes.length - first;
      markColumn(s, layout.format === "xxd" ? lineEnd - n : s.indexOf("|", hexEnd) + 1, hexEnd, lineEnd, bytes, first);
      return true;
    }
  }
}

/** Notes where the character column from `c` shows the line's bytes from `first` on, when it shows them all. */
function markColumn(s: string, c: number, hexEnd: number, lineEnd: number, bytes: ReadBack, first: number): void {
  const n = bytes.codes.length - first;
  if (c > hexEnd && c + n <= lineEnd && showsBytes(s, c, bytes.codes, first, n)) for (let k = 0; k < n; k++) bytes.charAt[first + k] = c + k;
}

/** od -t x1's cells from `p`, ` hh` each. Returns where they ended, or -1 when the line is not one. */
function byteCells(s: string, p: number, b: number, bytes: ReadBack, line: number): number {
  let n = 0;
  for (; p + 3 <= b && s.charCodeAt(p) === 32 && isHexUnit(s.charCodeAt(p + 1)) && isHexUnit(s.charCodeAt(p + 2)); p += 3, n++) {
    bytes.push(hexByteAt(s, p + 1), p + 1, p + 3, line);
  }
  return n > 0 && (p === b || s.charCodeAt(p) === 32) ? p : -1;
}

/**
 * The two-byte words of plain hexdump and od -x from `p`, ` hhhh` each: each
 * word is little-endian, so its last two digits show the first byte. False
 * when the line is not one (trailing spaces pad a short last line).
 */
function wordCells(s: string, p: number, b: number, bytes: ReadBack, line: number): boolean {
  let n = 0;
  for (; p + 5 <= b && s.charCodeAt(p) === 32 && hexRun(s, p + 1, 4); p += 5, n++) {
    bytes.push(hexByteAt(s, p + 3), p + 3, p + 5, line);
    bytes.push(hexByteAt(s, p + 1), p + 1, p + 3, line);
  }
  while (p < b && s.charCodeAt(p) === 32) p++;
  return n > 0 && p === b;
}

/** od -c's cells from `p`, four characters each, right-aligned: a character, an escape, or three octal digits. False when the line is not one. */
function odCells(s: string, p: number, b: number, bytes: ReadBack, line: number): boolean {
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
 * Any text read back with each character's place (a Dump) is masked this way.
 */
function dumpPieces(d: Dump, from: number, to: number, kind: string, of: string, out: Finding[]): void {
  for (let x = from; x < to; ) {
    let y = x;
    while (y < to && d.line[y] === d.line[x]) y++;
    // The span of the line's bytes: a word's bytes show in reverse, and a break between stretches (no place in the text) is skipped.
    let start = -1;
    let end = -1;
    let charStart = -1;
    let charEnd = -1;
    for (let k = x; k < y; k++) {
      if (d.at[k]! < 0) continue;
      if (start < 0 || d.at[k]! < start) start = d.at[k]!;
      if (d.end[k]! > end) end = d.end[k]!;
      if (d.charAt[k]! >= 0) {
        if (charStart < 0 || d.charAt[k]! < charStart) charStart = d.charAt[k]!;
        if (d.charAt[k]! + 1 > charEnd) charEnd = d.charAt[k]! + 1;
      }
    }
    if (start >= 0) {
      out.push({ from: start, start, end, kind, priority: DUMP_PRIORITY, of });
      if (charStart >= 0) out.push({ from: charStart, start: charStart, end: charEnd, kind, priority: DUMP_PRIORITY, of });
    }
    x = y;
  }
}

/**
 * Rescans read-back text `d` (charged to the call's decoding budget) and
 * masks each secret found in it where the text shows it.
 */
export function maskReadBack(ctx: ScanCtx, d: Dump): void {
  const segs = ctx.segments?.(d.text);
  if (segs === undefined) return;
  for (const g of segs) dumpPieces(d, g.start, g.end, g.kind, d.text.slice(g.start, g.end), ctx.out);
}

/** What a piece of a secret found in a dump weighs against the finds of the dump's own lines: a structural rule's. */
const DUMP_PRIORITY = 2;

/** See the module comment. */
export const dumpRule: Rule = {
  kinds: [],
  // Where a line's offset may open a dump: the first line of every format, and the end of any 16-byte line's offset.
  keywords: ["0000000", "0: ", "0  "],
  scan(ctx: ScanCtx, pos: number, kw: string) {
    const s = ctx.s;
    // Where the offset opens, for this keyword: at the hit, or its last digit's place back (eight digits, or od's seven).
    for (const a of kw === "0000000" ? [pos] : kw === "0: " ? [pos - 7] : [pos - 7, pos - 6]) {
      if (a < 0 || a < (ctx.memo.dumpEnd ?? -1)) continue;
      // The offset opens its line (after Gemini CLI's `Output: `, or at the text's start).
      const lead = a >= 8 && s.startsWith("Output: ", a - 8) ? a - 8 : a;
      if (lead > 0 && s.charCodeAt(lead - 1) !== 10) continue;
      const d = readDump(s, a);
      if (d === undefined) continue;
      ctx.memo.dumpEnd = d.stop;
      maskReadBack(ctx, d);
      return;
    }
  },
};

/** Fewest bytes a list is read back from: a shorter one holds no secret worth the rescan. */
const LIST_MIN_BYTES = 8;
/** Most byte lists read back in one text. */
const LISTS_MAX = 1000;

/**
 * A list of byte values from `a` read back: two hex digits each, one space
 * apart (Node's `<Buffer 44 42 …>`), or decimal or `0x` literals,
 * comma-separated with any spaces and line breaks (`Uint8Array(94) [ 68, 66,
 * … ]`, a Buffer in JSON, `{ 0x44, 0x42, … }`);
 * undefined when fewer than LIST_MIN_BYTES are there. Pure.
 *
 * @example
 * ```ts
 * readByteList("68,66,95,80,65,83,83,61]", 0, 10)!.text; // "DB_PASS="
 * ```
 */
export function readByteList(s: string, a: number, radix: 10 | 16): Dump | undefined {
  const bytes = new ReadBack();
  let line = 0;
  let p = a;
  while (bytes.codes.length < DUMP_MAX_BYTES) {
    let q = p;
    let v = 0;
    if (radix === 16) {
      if (!hexRun(s, p, 2) || isHexUnit(s.charCodeAt(p + 2))) break;
      v = hexByteAt(s, p);
      q = p + 2;
    } else if (s.charCodeAt(p) === 48 && (s.charCodeAt(p + 1) | 32) === 120) {
      // A code literal's `0x44` (xxd -i, a byte array in source).
      for (q = p + 2; q < s.length && q - p < 5 && isHexUnit(s.charCodeAt(q)); q++) v = (v << 4) | hexValue(s.charCodeAt(q));
      if (q === p + 2 || q - p > 4 || v > 255) break;
    } else {
      while (q < s.length && q - p < 4 && s.charCodeAt(q) >= 48 && s.charCodeAt(q) <= 57) v = v * 10 + s.charCodeAt(q++) - 48;
      if (q === p || q - p > 3 || v > 255) break;
    }
    bytes.push(v, p, q, line);
    // The separator: one space between hex pairs; a comma, with any spaces and line breaks, between decimals.
    if (radix === 16) {
      if (s.charCodeAt(q) !== 32) break;
      p = q + 1;
    } else {
      while (q < s.length && (s.charCodeAt(q) === 32 || s.charCodeAt(q) === 13)) q++;
      if (s.charCodeAt(q) !== 44) break;
      q++;
      for (; q < s.length && (s.charCodeAt(q) === 32 || s.charCodeAt(q) === 10 || s.charCodeAt(q) === 13 || s.charCodeAt(q) === 9); q++) if (s.charCodeAt(q) === 10) line++;
      p = q;
    }
  }
  return bytes.codes.length < LIST_MIN_BYTES ? undefined : bytes.done(bytes.end[bytes.end.length - 1]!);
}

/**
 * Where a list opens, by the keyword that finds it: what follows the keyword up to the first value,
 * and how values are written (hex pairs, or decimals and `0x` literals).
 */
const LIST_HEADS: ReadonlyMap<string, { readonly head: RegExp; readonly radix: 10 | 16 }> = new Map([
  // Node's inspect of a Buffer: `<Buffer 44 42 …>`.
  ["<buffer ", { head: /(?:)/y, radix: 16 }],
  // Node's inspect of a Uint8Array, `Uint8Array(94) [ 68, … ]`, and the literal `new Uint8Array([68, …])`.
  ["uint8array(", { head: /(?:\d{1,9}\) )?\[[ \t\r\n]*/y, radix: 10 }],
  // A Buffer in JSON: `{"type":"Buffer","data":[68,…]}` (the keyword ends at the closing quote).
  ['"buffer"', { head: /[ \t\r\n]*,[ \t\r\n]*"data"[ \t]*:[ \t\r\n]*\[[ \t\r\n]*/y, radix: 10 }],
  // Byte arrays in source and `xxd -i`: `unsigned char x[] = { 0x44, … }`, Go's `[]byte{0x44, …}`,
  // Java's and C#'s `new byte[] { 68, … }`, Python's `bytes([68, …])`, Node's `Buffer.from([68, …])`.
  ["[] = {", { head: /[ \t\r\n]*/y, radix: 10 }],
  ["[]byte{", { head: /[ \t\r\n]*/y, radix: 10 }],
  ["byte[] {", { head: /[ \t\r\n]*/y, radix: 10 }],
  ["byte[]{", { head: /[ \t\r\n]*/y, radix: 10 }],
  ["bytes([", { head: /[ \t\r\n]*/y, radix: 10 }],
  ["bytearray([", { head: /[ \t\r\n]*/y, radix: 10 }],
  ["buffer.from([", { head: /[ \t\r\n]*/y, radix: 10 }],
]);

/**
 * Bytes a program printed as a list of values: Node's inspect of a Buffer
 * (`<Buffer 44 42 5f 50 …>`, its first 50 bytes in hex) or of a Uint8Array
 * (`Uint8Array(94) [ 68, 66, 95, … ]`), a Buffer as JSON writes it
 * (`{"type":"Buffer","data":[68,66,95,…]}`): an agent printing what
 * `fs.readFileSync('.env')` returned; and the same list written as code,
 * `xxd -i`'s C array or a byte array in source (`[]byte{0x73, …}`, `new
 * byte[] { … }`, `bytes([…])`), where a credential is sometimes kept out of
 * plain sight. Read back and scanned like a dump, each secret masked on the
 * values that show it.
 */
export const byteListRule: Rule = {
  kinds: [],
  keywords: [...LIST_HEADS.keys()],
  scan(ctx: ScanCtx, pos: number, kw: string) {
    const s = ctx.s;
    if (pos < (ctx.memo.byteListEnd ?? -1)) return;
    const { head, radix } = LIST_HEADS.get(kw)!;
    head.lastIndex = pos + kw.length;
    if (!head.test(s)) return;
    const d = readByteList(s, head.lastIndex, radix);
    if (d === undefined) return;
    ctx.memo.byteListEnd = d.stop;
    // Each list is a rescan of its own: past LISTS_MAX in one text (no program's output prints so
    // many), a record built of thousands of short ones would cost a rescan each.
    if ((ctx.memo.byteLists = (ctx.memo.byteLists ?? 0) + 1) > LISTS_MAX) return;
    maskReadBack(ctx, d);
  },
};
