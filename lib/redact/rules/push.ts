/** Shared by the structural rules. */
import type { Finding, ScanCtx } from "../types.ts";

/** Records a finding unless it is empty. */
export const push = (ctx: ScanCtx, f: Finding): void => {
  if (f.end > f.start) ctx.out.push(f);
};
