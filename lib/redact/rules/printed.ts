/**
 * A terminal transcript's `$ printenv DB_PASSWORD` and the lines it printed
 * (see printed.ts for which commands and lines count). A prompt is `$`, `%`
 * or `#` after at most a `user@host:path` head, or PowerShell's
 * `PS C:\path>`; the output runs to the next prompt line (which may also be
 * a `❯` one: keywords are ASCII, so `❯` opens no command of its own).
 */
import { MAX_LINES, printedBy, printedLines } from "../printed.ts";
import type { Rule } from "../types.ts";
import { nextIndexOf } from "./push.ts";

/** A prompt's head before its marker: spaces, then at most `user@host:~/dir` (or `(venv) dir`). */
const PROMPT_HEAD = /^[ \t]*(?:\([\w.-]{1,40}\) )?[\w.@~:/\\[\]-]{0,120}$/;
const PS_HEAD = /^[ \t]*PS [^\n>]{0,200}$/;
const PROMPT_LINE = /^[ \t]*(?:\([\w.-]{1,40}\) )?(?:[\w.@~:/\\[\]-]{0,120}[$%#❯]|PS [^\n>]{0,200}>) /;
/** What PROMPT_HEAD and PS_HEAD may hold: word characters, `.@~:/\[]()-`, spaces and tabs. */
const HEAD_CHAR = new Uint8Array(128);
for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.@~:/\\[]()- \t") HEAD_CHAR[c.charCodeAt(0)] = 1;
/** How far the output of one command is read. */
const MAX_OUTPUT = 16 * 1024;

export const printedRule: Rule = {
  kinds: ["password", "generic-secret"],
  // The markers, not the commands: a prompt line is rare, and printed.ts holds the one list of commands.
  // PowerShell's by its `PS ` head (`> ` is in every `=> ` and test-runner line of a build log).
  keywords: ["$ ", "% ", "# ", "ps "],
  scan(ctx, pos, keyword) {
    const s = ctx.s;
    if (pos < (ctx.memo.printed ?? 0)) return;
    if (keyword === "ps ") {
      if (s.charCodeAt(pos) !== 80 || s.charCodeAt(pos + 1) !== 83) return;
      const gt = nextIndexOf(ctx, "> ", pos + 3);
      if (gt < 0 || gt - pos > 200) return;
      pos = gt;
    }
    // Back to the line's start over what a prompt's head may hold, giving up at anything else:
    // most hits are `=> `, `x = 1  # note` or `>> `, and end here after a character or two.
    let ls = pos;
    while (ls > 0 && pos - ls < 256) {
      const c = s.charCodeAt(ls - 1);
      if (c === 10) break;
      if (c >= 128 || HEAD_CHAR[c] === 0) return;
      ls--;
    }
    if (ls > 0 && s.charCodeAt(ls - 1) !== 10) return;
    const head = s.slice(ls, pos);
    if (!(keyword === "ps " ? PS_HEAD : PROMPT_HEAD).test(head)) return;
    let le = s.indexOf("\n", pos);
    if (le < 0) le = s.length;
    ctx.memo.printed = le;
    const by = printedBy(s.slice(pos + 2, Math.min(le, pos + 4096)));
    if (!by || le >= s.length) return;
    // The output: to the next prompt line, at most MAX_LINES lines and MAX_OUTPUT characters.
    const from = le + 1;
    let to = from;
    for (let n = 0; to < s.length && n < MAX_LINES && to - from < MAX_OUTPUT; n++) {
      let e = s.indexOf("\n", to);
      if (e < 0) e = s.length;
      if (PROMPT_LINE.test(s.slice(to, Math.min(e, to + 400)))) break;
      to = e + 1;
    }
    printedLines(s, from, Math.min(to, s.length), by, ctx.out);
  },
};
