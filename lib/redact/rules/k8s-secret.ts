/** Kubernetes `kind: Secret` objects printed as YAML or JSON text. */
import { containerFinding, decodeBase64Text } from "../decode.ts";
import { push } from "./push.ts";
import type { Rule, ScanCtx } from "../types.ts";

const DOC_START = /(?:^|\n)(?:---|[ \t-]*apiVersion:|[ \t]*\{?\s{0,8}\\?"apiVersion\\?":)/g;
const OTHER_OBJECTS = /\n[ \t-]*(?:apiVersion|kind):/g;
const YAML_DATA = /^([ \t]*)(data|stringData):[ \t]*$/gm;
// Raw or JSON-escaped (`\"data\": {\n  \"k\": \"v\"}` inside a JSON string).
const JSON_DATA = /\\?"(data|stringData)\\?"\s{0,8}:\s{0,8}\{/g;
const JSON_PAIR = /(?:\s|\\[nrt]){0,64}\\?"([^"\\\n]{1,253})\\?"\s{0,8}:\s{0,8}\\?"([^"\\\n]{0,4194304})\\?"(?:\s|\\[nrt]){0,64},?/y;

/**
 * One value under a Secret's `data` (base64) or `stringData` (`plain`): always
 * redacted; its kind is what the decoded plaintext holds, if anything known.
 */
function secretValue(ctx: ScanCtx, start: number, end: number, plain: boolean): void {
  const v = ctx.s.slice(start, end);
  const unq = v.length >= 2 && (v[0] === '"' || v[0] === "'") && v[v.length - 1] === v[0] ? v.slice(1, -1) : v;
  const text = plain ? unq : decodeBase64Text(unq);
  const f = containerFinding(ctx, start, start, end, text, "k8s-secret", "k8s-secret");
  if (f) push(ctx, f);
}

/**
 * `kind: Secret` (YAML or JSON text, e.g. `kubectl get secret -o yaml`): every
 * value under `data`/`stringData` is a secret, whatever it looks like.
 */
export const k8sSecretRule: Rule = {
  kinds: ["k8s-secret"],
  keywords: ["kind: secret", "\"kind\": \"secret\"", "\"kind\":\"secret\"", "\\\"kind\\\": \\\"secret\\\"", "\\\"kind\\\":\\\"secret\\\""],
  scan(ctx, pos, kw) {
    const after = ctx.s[pos + kw.length] ?? "";
    // The escaped keyword ends in a backslash-quote; the plain ones in the word itself.
    if (/[A-Za-z0-9]/.test(after)) return; // SecretProviderClass
    const { s } = ctx;
    if (pos < (ctx.memo.k8s ?? 0)) return;
    // Bounded searches for the YAML document separators: an unbounded
    // lastIndexOf/indexOf per keyword hit would be quadratic.
    const backFrom = Math.max(0, pos - 32768, ctx.memo.k8s ?? 0);
    // The object's extent: from its `apiVersion:` (or a `---`) to the next
    // object's, so a ConfigMap printed after a Secret keeps its data.
    const before = s.slice(backFrom, pos);
    let docStart = backFrom;
    for (const m of before.matchAll(DOC_START)) docStart = backFrom + m.index;
    const rest = s.slice(pos + 1, pos + 65536);
    const next = rest.search(DOC_START);
    let docEnd = next < 0 ? Math.min(s.length, pos + 65536) : pos + 1 + next;
    // Never cut a value: a window ending mid-line would leave a long value's tail in clear.
    if (next < 0 && docEnd < s.length && s[docEnd - 1] !== "\n") {
      const nl = s.indexOf("\n", docEnd);
      docEnd = nl < 0 ? s.length : nl;
    }
    if (docEnd <= docStart) return;
    ctx.memo.k8s = docEnd;
    const doc = s.slice(docStart, docEnd);
    // `kind: Secret` is YAML; the quoted keywords are JSON: each reads only its own syntax.
    // YAML only when our `kind:` starts a real line (not `\nkind:` escaped in a JSON string).
    const yaml = kw === "kind: secret" && /(?:^|\n)[ \t-]*$/.test(s.slice(Math.max(0, pos - 64), pos));
    YAML_DATA.lastIndex = yaml ? 0 : doc.length;
    const self = pos - docStart;
    // Whether another object's `kind:`/`apiVersion:` line lies whole in doc[lo, hi): what
    // the regex tested on doc.slice(lo, hi) says, from the object lines found once per doc (they
    // cannot overlap: each opens with its own newline). Testing a slice per `data:` line read the
    // object once per line, and an object of thousands of `data:` lines cost seconds.
    let others: [number, number][] | undefined;
    const otherBetween = (lo: number, hi: number): boolean => {
      others ??= [...doc.matchAll(OTHER_OBJECTS)].map((x) => [x.index, x.index + x[0].length]);
      let a = 0;
      let b = others.length;
      while (a < b) {
        const mid = (a + b) >> 1;
        if (others[mid]![0] < lo) a = mid + 1;
        else b = mid;
      }
      return a < others.length && others[a]![1] <= hi;
    };
    for (let m = yaml ? YAML_DATA.exec(doc) : null; m; m = YAML_DATA.exec(doc)) {
      // Same object only: no other `kind:`/`apiVersion:` line between this
      // `data:` and our `kind: Secret` (kubectl prints data before kind).
      if (m.index < self ? otherBetween(m.index, self) : otherBetween(self + kw.length, m.index)) continue;
      const indent = m[1]!.length;
      const plain = m[2] === "stringData";
      let i = m.index + m[0].length + 1;
      let blockIndent = -1;
      while (i < doc.length) {
        const nl = doc.indexOf("\n", i);
        const lineEnd = nl < 0 ? doc.length : nl;
        const line = doc.slice(i, lineEnd);
        const lead = line.length - line.trimStart().length;
        if (line.trim() === "") {
          i = lineEnd + 1;
          continue;
        }
        if (lead <= indent) break;
        const kv = /^[ \t]*["']?[A-Za-z0-9_.-]{1,253}["']?:[ \t]*(.*?)[ \t]*$/.exec(line);
        if (blockIndent >= 0 && lead > blockIndent) {
          secretValue(ctx, docStart + i + lead, docStart + lineEnd, plain);
        } else if (kv) {
          blockIndent = lead;
          const v = kv[1]!;
          if (v !== "" && v !== "{}" && v !== "''" && v !== '""' && !/^[|>][-+]?$/.test(v) && !/^\{\{/.test(v)) {
            const start = docStart + i + line.lastIndexOf(v);
            secretValue(ctx, start, start + v.length, plain);
          }
        }
        i = lineEnd + 1;
      }
    }
    JSON_DATA.lastIndex = 0;
    for (let m = yaml ? null : JSON_DATA.exec(doc); m; m = JSON_DATA.exec(doc)) {
      let i = m.index + m[0].length;
      const plain = m[1] === "stringData";
      JSON_PAIR.lastIndex = i;
      for (let p = JSON_PAIR.exec(doc); p; p = JSON_PAIR.exec(doc)) {
        const v = p[2]!;
        if (v !== "") {
          const start = docStart + p.index + p[0].lastIndexOf(v);
          secretValue(ctx, start, start + v.length, plain);
        }
        i = JSON_PAIR.lastIndex;
      }
      JSON_DATA.lastIndex = Math.max(JSON_DATA.lastIndex, i);
    }
  },
};
