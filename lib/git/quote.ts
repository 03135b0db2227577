/**
 * Path quoting as git does it in patch headers (`quote_c_style` with the
 * default core.quotePath): a name with a control character, a double quote,
 * a backslash or any byte above 0x7f is written in double quotes with C
 * escapes, non-ASCII bytes as three-digit octal. Other names are as they are,
 * spaces included.
 *
 * @example
 * ```ts
 * quotePath("a/héllo.txt"); // "\"a/h\\303\\251llo.txt\""
 * quotePath("a/two words"); // "a/two words"
 * ```
 */

const NAMED: Record<number, string> = { 7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r", 0x22: '"', 0x5c: "\\" };

function needsQuote(b: number): boolean {
  return b < 0x20 || b === 0x22 || b === 0x5c || b >= 0x7f;
}

/** `name` quoted for a patch header when git would quote it. */
export function quotePath(name: string): string {
  let plain = true;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (needsQuote(c)) {
      plain = false;
      break;
    }
  }
  if (plain) return name;
  let out = '"';
  for (const b of Buffer.from(name, "utf8")) {
    if (!needsQuote(b)) out += String.fromCharCode(b);
    else if (NAMED[b] !== undefined) out += `\\${NAMED[b]}`;
    else out += `\\${b.toString(8).padStart(3, "0")}`;
  }
  return `${out}"`;
}
