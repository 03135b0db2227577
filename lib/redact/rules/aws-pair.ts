/** An AWS secret access key next to its access key id. */
import { classifyKey, entropy } from "../keys.ts";
import { push } from "./push.ts";
import type { Rule } from "../types.ts";

const LABEL_BEFORE = /["']?([A-Za-z_][\w.-]{0,63})["']?[ \t]{0,4}[:=][ \t]{0,4}["']?$/;
const AWS_SECRET = /(?<![A-Za-z0-9+/_-])([A-Za-z0-9+/]{40})(?![A-Za-z0-9+/=_-])/g;
/** An unlabelled 40-char secret within five lines after an AKIA/ASIA id. */
export const awsPairRule: Rule = {
  kinds: ["aws-secret-access-key"],
  keywords: ["akia", "asia"],
  scan(ctx, pos) {
    const id = ctx.s.slice(pos, pos + 21);
    if (!/^(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/.test(id) || id.startsWith("EXAMPLE", 13)) return;
    const from = Math.max(pos + 20, ctx.memo.awsPair ?? 0);
    let lim = from;
    let lines = 0;
    while (lim < ctx.s.length && lim - from < 600 && lines < 6) {
      if (ctx.s[lim] === "\n") lines++;
      lim++;
    }
    ctx.memo.awsPair = lim;
    const win = ctx.s.slice(from, lim);
    AWS_SECRET.lastIndex = 0;
    for (let m = AWS_SECRET.exec(win); m; m = AWS_SECRET.exec(win)) {
      const v = m[1]!;
      if (!/[a-z]/.test(v) || !/[A-Z]/.test(v) || !/[0-9+/]/.test(v) || entropy(v) < 4.0 || v.includes("EXAMPLE")) continue;
      // Labelled by a key that names something else (`"nextPageToken": "…"`): not the pair's secret.
      const label = LABEL_BEFORE.exec(win.slice(Math.max(0, m.index - 80), m.index));
      if (label && !classifyKey(label[1]!)) continue;
      push(ctx, { from: from + m.index, start: from + m.index, end: from + m.index + 40, kind: "aws-secret-access-key", priority: 2 });
    }
  },
};
