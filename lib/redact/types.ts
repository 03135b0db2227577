/** Shared shapes of the engine: findings and rules. */

/** One detected secret: `[start, end)` is replaced; `[from, start)` is a kept prefix or key. */
export interface Finding {
  /** Start of the match including any kept prefix (used to decide containment). */
  from: number;
  start: number;
  end: number;
  kind: string;
  /** 3 prefixed token, 2 structural, 1 key/value context. Higher wins on overlap. */
  priority: number;
  /** True when an offline checksum (GitHub/npm CRC32) verified the token. */
  checksum?: boolean;
}

/** Per-call scan state: the text and rule-local memos. */
export interface ScanCtx {
  readonly s: string;
  readonly out: Finding[];
  /** Rule-local positions that keep repeated work linear (skip-until marks, cached searches). */
  readonly memo: Record<string, number>;
}

/**
 * A rule runs only where one of its lowercase `keywords` occurs, at that
 * occurrence (`pos`). Each rule reads at most a bounded window around `pos`.
 */
export interface Rule {
  readonly kinds: readonly string[];
  readonly keywords: readonly string[];
  scan(ctx: ScanCtx, pos: number, keyword: string): void;
}
