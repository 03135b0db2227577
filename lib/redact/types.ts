/** Shared shapes of the engine: findings and rules. */

import type { Segment } from "./engine.ts";

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
  /**
   * The container the secret was decoded from (`k8s-secret`, `docker-auth`,
   * `dockerconfigjson`) when `kind` is what a rescan of the decoded plaintext
   * found: a base64 `ghp_…` in a Secret's data is `github-pat` within `k8s-secret`.
   */
  within?: string;
  /** The rule that found it (`prefix`, `pem`, `key-value`, `entropy`, `user`…), for `--explain`. */
  rule?: string;
  /**
   * The whole secret when the text shows it in pieces (a hex dump's lines and
   * columns): what the piece is tagged by and what the copy search looks for.
   */
  of?: string;
}

/** What a rescan of decoded plaintext found: the strongest finding's kind. */
export interface Inner {
  readonly kind: string;
  readonly priority: number;
}

/** Per-call scan state: the text and rule-local memos. */
export interface ScanCtx {
  readonly s: string;
  /** `s` as code units (runs.ts), for the rules that read every character. */
  readonly units: Uint16Array;
  /** Every run of token characters of RUN_MIN+ units in `s`, flat `[start, end, shape, …]` (runs.ts). */
  readonly runs: Int32Array;
  readonly out: Finding[];
  /** Rule-local positions that keep repeated work linear (skip-until marks, cached searches). */
  readonly memo: Record<string, number>;
  /**
   * Rescans decoded plaintext (base64 Secret data, Docker auths) with the
   * same rules; undefined when nested too deep or the per-call decode budget
   * is spent, which keeps a scan linear in its input.
   */
  readonly inner?: (plain: string) => Inner | undefined;
  /**
   * The same rescan, resolved: where the secrets of decoded plaintext are
   * (rules/dump.ts maps them back to the text); undefined as `inner` is.
   */
  readonly segments?: (plain: string) => readonly Segment[] | undefined;
  /** More aggressive unlabelled-entropy detection (`tracegate redact --strict`). */
  readonly strict?: boolean;
}

/**
 * A rule runs only where one of its lowercase `keywords` occurs, at that
 * occurrence (`pos`). Each rule reads at most a bounded window around `pos`.
 */
export interface Rule {
  readonly kinds: readonly string[];
  readonly keywords: readonly string[];
  scan(ctx: ScanCtx, pos: number, keyword: string): void;
  /**
   * Optional: takes every keyword hit at once (keyword -> ascending
   * positions) instead of one `scan` call per hit, for a rule family that
   * dispatches by keyword itself.
   */
  scanHits?(ctx: ScanCtx, hits: ReadonlyMap<string, readonly number[]>): void;
  /** The regex sources and flags the rule runs, for tests that audit patterns (built on call, never at load). */
  patterns?(): readonly RulePattern[];
}

/** A pattern as a rule compiles it. */
export interface RulePattern {
  readonly kind: string;
  readonly source: string;
  readonly flags: string;
}
