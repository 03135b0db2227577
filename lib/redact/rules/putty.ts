/** PuTTY `.ppk` private keys. */
import { push } from "./push.ts";
import type { Rule } from "../types.ts";

/** How far past `PuTTY-User-Key-File-` the key's `Private-Lines:` may sit. */
const WINDOW = 16384;
const PRIVATE_LINES = /private-lines:/gi;
const PRIVATE_MAC = /private-mac:/gi;
const LINE_END = /\r|\n|\\n|"/g;

/** The first match of `re` at or after `from` that ends by `lim`, or -1. */
function matchWithin(re: RegExp, s: string, from: number, lim: number): number {
  re.lastIndex = from;
  const m = re.exec(s);
  return m !== null && m.index + m[0].length <= lim ? m.index : -1;
}

/**
 * PuTTY `.ppk`: redact from `Private-Lines:` through the `Private-MAC:` line,
 * both within WINDOW of the file's first line. Searched in the text itself,
 * case-insensitively: a lowercased copy of the window per hit cost more than
 * the rest of the rule, and lowercasing can change a string's length, which
 * moved every offset after such a character.
 */
export const puttyRule: Rule = {
  kinds: ["putty-private-key"],
  keywords: ["putty-user-key-file-"],
  scan(ctx, pos) {
    if (pos < (ctx.memo.putty ?? 0)) return;
    const s = ctx.s;
    const lim = Math.min(s.length, pos + WINDOW);
    const pl = matchWithin(PRIVATE_LINES, s, pos, lim);
    if (pl < 0) {
      ctx.memo.putty = pos + WINDOW;
      return;
    }
    let end = matchWithin(PRIVATE_MAC, s, pl, lim);
    if (end >= 0) {
      const nl = matchWithin(LINE_END, s, end, lim);
      end = nl < 0 ? lim : nl;
    } else end = Math.min(lim, pl + 8192);
    ctx.memo.putty = end;
    push(ctx, { from: pos, start: pl, end, kind: "putty-private-key", priority: 2.8 });
  },
};
