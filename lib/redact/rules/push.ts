/** Shared by the structural rules: recording a find, and the next occurrence of a marker. */
import type { Finding, ScanCtx } from "../types.ts";

/** Records a finding unless it is empty. */
export const push = (ctx: ScanCtx, f: Finding): void => {
  if (f.end > f.start) ctx.out.push(f);
};

/**
 * The first `needle` in the scanned text at or after `from` (-1: none),
 * remembered in the scan's memo and searched again only when the one
 * remembered is behind `from` or was searched from further on. A rule asks
 * at its hits, in ascending order, so each occurrence is read once: an
 * indexOf per hit read the rest of the text each time a needle never came
 * (BEGIN lines with no END, `PS ` heads with no `> `). Every rule asking for
 * the same needle shares the answer, which is the same for all of them.
 *
 * @example
 * ```ts
 * nextIndexOf({ s: "a > b > c", memo: {} } as never, "> ", 3); // 6
 * ```
 */
export function nextIndexOf(ctx: Pick<ScanCtx, "s" | "memo">, needle: string, from: number): number {
  let keys = MEMO_KEYS.get(needle);
  if (keys === undefined) MEMO_KEYS.set(needle, (keys = [`next:${needle}`, `next:${needle}:from`]));
  const m = ctx.memo;
  const at = m[keys[0]];
  const since = m[keys[1]];
  if (at !== undefined && since !== undefined && since <= from && (at === -1 || at >= from)) return at;
  const found = ctx.s.indexOf(needle, from);
  m[keys[0]] = found;
  m[keys[1]] = from;
  return found;
}
const MEMO_KEYS = new Map<string, [string, string]>();
