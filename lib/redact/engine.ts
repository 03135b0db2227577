/**
 * The scan engine: lowercase once, find each rule's literal keywords with
 * `indexOf`, run only the rules whose keyword occurred, at the positions it
 * occurred; then resolve overlapping findings and render the replacement.
 */
import { contextRule } from "./context.ts";
import { PREFIX_RULES } from "./prefix.ts";
import { STRUCTURAL_RULES } from "./structural.ts";
import type { Finding, Rule, ScanCtx } from "./types.ts";

/** Every built-in rule. */
export const BUILTIN_RULES: readonly Rule[] = [...PREFIX_RULES, ...STRUCTURAL_RULES, contextRule];

/** Every built-in finding kind. */
export const KINDS: readonly string[] = [...new Set(BUILTIN_RULES.flatMap((r) => r.kinds))].sort();

/** A user-supplied pattern (config `redact.extra`): runs over the whole text. */
export interface ExtraRule {
  readonly kind: string;
  readonly re: RegExp;
}

const MAX_HITS_PER_KEYWORD = 200_000;

function positions(lower: string, kw: string): number[] {
  const out: number[] = [];
  for (let p = lower.indexOf(kw); p !== -1 && out.length < MAX_HITS_PER_KEYWORD; p = lower.indexOf(kw, p + 1)) out.push(p);
  return out;
}

/**
 * ASCII-only lowercase that keeps indices aligned (`toLowerCase` can change
 * length for a few non-ASCII characters such as U+0130).
 */
function lowerAligned(s: string): string {
  const l = s.toLowerCase();
  if (l.length === s.length) return l;
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/**
 * All raw findings in `s` (overlapping, unresolved).
 *
 * @example
 * ```ts
 * scan("token=" + "ghp_" + "A1b2".repeat(9)).length; // >= 1
 * ```
 */
export function scan(s: string, rules: readonly Rule[] = BUILTIN_RULES, extras: readonly ExtraRule[] = []): Finding[] {
  const out: Finding[] = [];
  if (s.length < 4) return out;
  const lower = lowerAligned(s);
  const ctx: ScanCtx = { s, lower, out, memo: {} };
  const hits = new Map<string, number[]>();
  const hitsOf = (kw: string): number[] => {
    let h = hits.get(kw);
    if (!h) {
      h = positions(lower, kw);
      hits.set(kw, h);
    }
    return h;
  };
  for (const rule of rules) {
    if (rule.keywords.length === 1) {
      const kw = rule.keywords[0]!;
      for (const p of hitsOf(kw)) rule.scan(ctx, p, kw);
      continue;
    }
    // Several keywords: visit positions in order so rule memos stay valid.
    const merged: [number, string][] = [];
    for (const kw of rule.keywords) for (const p of hitsOf(kw)) merged.push([p, kw]);
    if (merged.length === 0) continue;
    merged.sort((x, y) => x[0] - y[0]);
    for (const [p, kw] of merged) rule.scan(ctx, p, kw);
  }
  for (const x of extras) {
    x.re.lastIndex = 0;
    let n = 0;
    for (let m = x.re.exec(s); m && n < 100_000; m = x.re.exec(s), n++) {
      if (m[0].length === 0) {
        x.re.lastIndex++;
        continue;
      }
      const g = m.length > 1 && m[1] !== undefined ? 1 : 0;
      const at = g === 0 ? m.index : m.index + m[0].indexOf(m[1]!);
      out.push({ from: m.index, start: at, end: at + m[g]!.length, kind: x.kind, priority: 2 });
    }
  }
  return out;
}

/** A resolved, non-overlapping span to replace. */
export interface Segment {
  readonly start: number;
  readonly end: number;
  readonly kind: string;
  readonly checksum?: boolean;
}

/**
 * Resolves overlaps: a finding inside a higher-priority finding's whole match
 * (prefix included) is dropped, so `Authorization: Bearer ghp_…` keeps `ghp_`;
 * anything else that overlaps is merged, so no part of a secret escapes.
 *
 * @example
 * ```ts
 * resolve([{ from: 0, start: 4, end: 10, kind: "a", priority: 3 }, { from: 0, start: 0, end: 10, kind: "b", priority: 1 }]);
 * // [{ start: 4, end: 10, kind: "a" }]
 * ```
 */
export function resolve(findings: readonly Finding[]): Segment[] {
  if (findings.length === 0) return [];
  const sorted = [...findings].sort((a, b) => a.from - b.from || b.end - a.end);
  const out: Segment[] = [];
  let i = 0;
  while (i < sorted.length) {
    // A cluster: findings whose [from, end) ranges chain-overlap.
    let j = i + 1;
    let hi = sorted[i]!.end;
    while (j < sorted.length && sorted[j]!.from < hi) {
      hi = Math.max(hi, sorted[j]!.end);
      j++;
    }
    const cluster = sorted.slice(i, j);
    i = j;
    const kept = cluster.length === 1
      ? cluster
      : cluster.filter((f) => !cluster.some((g) => g !== f && g.priority > f.priority && g.from <= f.start && f.end <= g.end));
    kept.sort((a, b) => a.start - b.start || b.priority - a.priority);
    let cur: { start: number; end: number; best: Finding } | undefined;
    for (const f of kept) {
      if (cur && f.start < cur.end) {
        cur.end = Math.max(cur.end, f.end);
        if (f.priority > cur.best.priority) cur.best = f;
        continue;
      }
      if (cur) out.push({ start: cur.start, end: cur.end, kind: cur.best.kind, checksum: cur.best.checksum });
      cur = { start: f.start, end: f.end, best: f };
    }
    if (cur) out.push({ start: cur.start, end: cur.end, kind: cur.best.kind, checksum: cur.best.checksum });
  }
  return out;
}

/**
 * Replaces each segment with `[REDACTED:<kind>:<tag>]`.
 *
 * @example
 * ```ts
 * render("a=secret", [{ start: 2, end: 8, kind: "password" }], () => "0000"); // "a=[REDACTED:password:0000]"
 * ```
 */
export function render(s: string, segs: readonly Segment[], tag: (secret: string) => string): string {
  if (segs.length === 0) return s;
  const parts: string[] = [];
  let at = 0;
  for (const g of segs) {
    parts.push(s.slice(at, g.start), `[REDACTED:${g.kind}:${tag(s.slice(g.start, g.end))}]`);
    at = g.end;
  }
  parts.push(s.slice(at));
  return parts.join("");
}
