/**
 * The store layout, one place for it (the README documents it for other tools):
 *
 *     <prefix>/<org>/<repo>/<YYYY>/<MM>/<DD>/<session>/<offset>.jsonl
 *
 * `<offset>` is the segment's first byte in the session file, 12 digits, so
 * keys sort in file order and concatenating a session's segments in key order
 * gives back the file's complete lines byte for byte. The name depends only on
 * the position: two syncs that reach the same position race for the same key,
 * and the conditional create lets exactly one of them write it.
 */

/** Digits in a segment name: offsets up to 1 TB. */
export const OFFSET_DIGITS = 12;

/** A path component that can neither climb out of its prefix nor hide (no dot start). */
export function safeComponent(s: string, fallback: string): string {
  const clean = s.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[.]+/, "_").slice(0, 100);
  return clean || fallback;
}

/**
 * `org/repo` from a git remote URL, credentials and `.git` dropped; null when
 * the URL names no host path (a local path remote).
 *
 * @example
 * ```ts
 * repoSlug("https://user:tok@github.com/acme/api.git"); // { org: "acme", repo: "api" }
 * repoSlug("git@github.com:acme/api.git");               // { org: "acme", repo: "api" }
 * repoSlug("https://gitlab.com/a/b/c");                  // { org: "a-b", repo: "c" }
 * ```
 */
export function repoSlug(remote: string): { org: string; repo: string } | null {
  let path: string | null = null;
  const url = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?[^/]+(\/.*)$/i.exec(remote.trim());
  if (url) path = url[1]!;
  else {
    const scp = /^(?:[^@/:]+@)?[^/:]+:(?!\/)(.+)$/.exec(remote.trim());
    if (scp) path = scp[1]!;
  }
  if (!path) return null;
  const parts = path
    .split(/[?#]/)[0]!
    .split("/")
    .filter((p) => p && p !== "." && p !== "..");
  if (parts.length < 2) return null;
  const repo = parts.pop()!.replace(/\.git$/, "");
  if (!repo) return null;
  return { org: safeComponent(parts.join("-"), "_"), repo: safeComponent(repo, "_") };
}

/** `YYYY/MM/DD` of an ISO timestamp in UTC; `1970/01/01` when it is not one, so the name stays a function of the bytes. */
export function datePath(ts: unknown): string {
  const ms = typeof ts === "string" && /^\d{4}-\d{2}-\d{2}T/.test(ts) ? Date.parse(ts) : NaN;
  const d = new Date(Number.isFinite(ms) ? ms : 0).toISOString();
  return `${d.slice(0, 4)}/${d.slice(5, 7)}/${d.slice(8, 10)}`;
}

/** The key prefix of one session's segments (no trailing slash). */
export function sessionPrefix(root: string, org: string, repo: string, date: string, session: string): string {
  return [root, org, repo, date, session].filter(Boolean).join("/");
}

/** A segment's key. */
export function segmentKey(prefix: string, offset: number): string {
  return `${prefix}/${String(offset).padStart(OFFSET_DIGITS, "0")}.jsonl`;
}

export interface ParsedKey {
  /** Everything before the segment name: `<prefix>/<org>/<repo>/<Y>/<M>/<D>/<session>`. */
  readonly sessionPrefix: string;
  readonly session: string;
  readonly org: string;
  readonly repo: string;
  readonly date: string;
  readonly offset: number;
}

/**
 * Parse a segment key; null for anything else in the bucket.
 *
 * @example
 * ```ts
 * parseSegmentKey("t/acme/api/2026/12/01/s1/000000000000.jsonl")?.offset; // 0
 * ```
 */
export function parseSegmentKey(key: string): ParsedKey | null {
  const parts = key.split("/");
  // A file store opened below its root (file:///store/acme/api) lists keys without org/repo.
  if (parts.length < 5) return null;
  const m = new RegExp(`^(\\d{${OFFSET_DIGITS}})\\.jsonl$`).exec(parts.at(-1)!);
  const [y, mo, d, session] = parts.slice(-5, -1) as [string, string, string, string];
  if (!m || !/^\d{4}$/.test(y) || !/^\d{2}$/.test(mo) || !/^\d{2}$/.test(d)) return null;
  const org = parts.at(-7) ?? "";
  const repo = parts.at(-6) ?? "";
  return { sessionPrefix: parts.slice(0, -1).join("/"), session, org, repo, date: `${y}/${mo}/${d}`, offset: Number(m[1]) };
}
