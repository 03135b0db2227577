/** PuTTY `.ppk` private keys. */
import { push } from "./push.ts";
import type { Rule } from "../types.ts";

/** PuTTY `.ppk`: redact from `Private-Lines:` through the `Private-MAC:` line. */
export const puttyRule: Rule = {
  kinds: ["putty-private-key"],
  keywords: ["putty-user-key-file-"],
  scan(ctx, pos) {
    if (pos < (ctx.memo.putty ?? 0)) return;
    const win = ctx.s.slice(pos, pos + 16384).toLowerCase();
    const pl = win.indexOf("private-lines:");
    if (pl < 0) {
      ctx.memo.putty = pos + 16384;
      return;
    }
    let end = win.indexOf("private-mac:", pl);
    if (end >= 0) {
      const nl = win.slice(end).search(/\r|\n|\\n|"/);
      end = nl < 0 ? win.length : end + nl;
    } else end = Math.min(win.length, pl + 8192);
    ctx.memo.putty = pos + end;
    push(ctx, { from: pos, start: pos + pl, end: pos + end, kind: "putty-private-key", priority: 2.8 });
  },
};
