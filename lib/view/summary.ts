/**
 * One row of the sessions table, from a bounded read of the session: the
 * first HEAD_BYTES and the last TAIL_BYTES (TAIL_RETRY_BYTES when the last
 * record is larger than that), never the whole file (a session
 * with a few large tool outputs can be hundreds of MB). What the head says:
 * harness, cwd, start, first prompt. What the tail says: last activity, the
 * verdicts and the session end. Tool calls are counted exactly when the two
 * windows cover the session, else as a lower bound (`tool_calls_exact: false`)
 * until the session is opened in full. Rows are cached by each segment's size
 * and mtime, so a listing of 10,000 unchanged sessions is 10,000 stats.
 *
 * @example
 * ```ts
 * const cache = new SummaryCache();
 * const row = await cache.get(entry); // read once, then from the cache until the file changes
 * ```
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { SessionEntry } from "./source.ts";

export const HEAD_BYTES = 32 * 1024;
export const TAIL_BYTES = 32 * 1024;
/** The second look at the tail: above the store's default record cap (2 MiB). */
export const TAIL_RETRY_BYTES = 2 * 1024 * 1024 + 64 * 1024;
/** How much of the first prompt a row carries. */
const PROMPT_MAX = 300;

export interface SessionRow {
  readonly key: string;
  readonly session_id: string;
  readonly harness: string | null;
  /** `org/repo` from the layout, else the session's cwd. */
  readonly repo: string | null;
  readonly cwd: string | null;
  readonly start: string | null;
  readonly last: string | null;
  readonly duration_ms: number | null;
  readonly tool_calls: number;
  readonly tool_calls_exact: boolean;
  /**
   * Outcome from verdicts whose signatures verify. A session whose records claim a flip is a flip
   * only if its last verdict's signature checks out with the configured oracle key; one that does
   * not is `no_flip`, with `outcome_check: "fails"`.
   */
  readonly outcome: string;
  /** The check behind a claimed flip: `ok`, `fails`, `unchecked` (no key), or null (no flip claimed, or not checked). */
  readonly outcome_check: "ok" | "fails" | "unchecked" | null;
  readonly ended: boolean;
  readonly first_prompt: string | null;
  readonly bytes: number;
  readonly mtime_ms: number;
}

type Rec = Record<string, unknown>;

function readRange(path: string, start: number, length: number): Buffer {
  const buf = Buffer.alloc(Math.max(0, length));
  const fd = openSync(path, "r");
  try {
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, start + off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

/** Parse complete JSON-object lines; `dropFirst`/`dropLast` discard lines a window cut through. */
function parseLines(text: string, dropFirst: boolean, dropLast: boolean): Rec[] {
  const lines = text.split("\n");
  if (dropFirst) lines.shift();
  if (dropLast) lines.pop();
  const out: Rec[] = [];
  for (const line of lines) {
    if (!line) continue;
    try {
      const v = JSON.parse(line);
      if (v && typeof v === "object" && !Array.isArray(v)) out.push(v as Rec);
    } catch {
      // a corrupt line is the full view's business
    }
  }
  return out;
}

/** A stored string, or the head of a cut one. */
export function textOf(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (v && typeof v === "object" && typeof (v as Rec).head === "string") return (v as Rec).head as string;
  return null;
}

/** The records a bounded read sees, and whether they are all of the session's. */
export function boundedRecords(entry: SessionEntry): { head: Rec[]; tail: Rec[]; complete: boolean } {
  const segs = entry.segments;
  const total = segs.reduce((n, s) => n + s.bytes, 0);
  if (total <= HEAD_BYTES + TAIL_BYTES) {
    const text = segs.map((s) => readRange(s.path, 0, s.bytes).toString("utf8")).join("");
    return { head: parseLines(text, false, false), tail: [], complete: true };
  }
  const first = segs[0]!;
  const last = segs[segs.length - 1]!;
  const headLen = Math.min(HEAD_BYTES, first.bytes);
  const head = parseLines(readRange(first.path, 0, headLen).toString("utf8"), false, headLen < first.bytes);
  let tail: Rec[] = [];
  // A session that ends in a large record (a live one mid tool output) shows no whole line in the
  // tail window: look once more, far enough back to hold the largest record the store writes.
  for (const window of [TAIL_BYTES, TAIL_RETRY_BYTES]) {
    const tailStart = Math.max(0, last.bytes - window);
    tail = parseLines(readRange(last.path, tailStart, last.bytes - tailStart).toString("utf8"), tailStart > 0, false);
    if (tail.length > 0 || tailStart === 0) break;
  }
  return { head, tail, complete: false };
}

/** Checks a verdict record's signature again (see verdicts.ts). */
export type VerdictCheck = (verdict: Rec) => "ok" | "fails" | "unchecked";

/** A row from records; `complete` when they are every record of the session. */
export function rowFrom(entry: SessionEntry, head: Rec[], tail: Rec[], complete: boolean, check?: VerdictCheck): SessionRow {
  const seen = new Set<unknown>();
  const all: Rec[] = [];
  for (const r of [...head, ...tail]) {
    if (r.id !== undefined && seen.has(r.id)) continue;
    seen.add(r.id);
    all.push(r);
  }
  const start = all.find((r) => r.type === "session_start");
  const first = all[0];
  const lastRec = all[all.length - 1];
  const prompt = all.find((r) => r.type === "message" && r.role === "user");
  const startTs = typeof (start?.ts ?? first?.ts) === "string" ? ((start?.ts ?? first?.ts) as string) : null;
  const lastTs = typeof lastRec?.ts === "string" ? lastRec.ts : null;
  const t0 = startTs ? Date.parse(startTs) : NaN;
  const t1 = lastTs ? Date.parse(lastTs) : NaN;
  const cwd = textOf(start?.cwd);
  const promptText = textOf(prompt?.text);
  // The list reads a bounded head and tail, not the whole file, so it shows
  // what the last verdict claims with that verdict's own signature checked;
  // the whole-file analysis (replays, the hash chain) is `verify`'s.
  const last = all.findLast((r) => r.type === "oracle_verdict" && typeof r.attempt === "number");
  let outcome: string = !last ? "no_oracle" : last.verdict === "PASS" ? "flip" : last.outcome === "cap" ? "cap" : "no_flip";
  let outcomeCheck: SessionRow["outcome_check"] = null;
  if (last && (last.verdict === "PASS" || last.verdict === "FAIL") && check) {
    outcomeCheck = check(last);
    if (outcomeCheck !== "ok") outcome = "unverified";
  }
  return {
    key: entry.key,
    session_id: typeof first?.session_id === "string" ? first.session_id : entry.key.replace(/\.jsonl$/, ""),
    harness: typeof first?.harness === "string" ? first.harness : null,
    repo: entry.repo ?? cwd,
    cwd,
    start: startTs,
    last: lastTs,
    duration_ms: Number.isFinite(t0) && Number.isFinite(t1) ? Math.max(0, t1 - t0) : null,
    tool_calls: all.filter((r) => r.type === "tool_call").length,
    tool_calls_exact: complete,
    outcome,
    outcome_check: outcomeCheck,
    ended: all.some((r) => r.type === "session_end"),
    first_prompt: promptText === null ? null : promptText.slice(0, PROMPT_MAX),
    bytes: entry.bytes,
    mtime_ms: entry.mtimeMs,
  };
}

/** The row for one session from a bounded read. */
export function summarize(entry: SessionEntry, check?: VerdictCheck): SessionRow {
  const { head, tail, complete } = boundedRecords(entry);
  return rowFrom(entry, head, tail, complete, check);
}

function signature(entry: SessionEntry): string {
  return `${entry.bytes}\0${entry.mtimeMs}\0${entry.segments.map((s) => `${s.path}\0${s.bytes}\0${s.mtimeMs}`).join("\0")}`;
}

/** Rows cached by segment paths, sizes and mtimes. */
export class SummaryCache {
  private readonly rows = new Map<string, { sig: string; row: SessionRow }>();

  /** `check`: how claimed flips are checked (absent: they are not). */
  constructor(private readonly check?: VerdictCheck) {}

  /** The cached row when the session has not changed since it was read. */
  peek(entry: SessionEntry): SessionRow | undefined {
    const hit = this.rows.get(entry.key);
    return hit && hit.sig === signature(entry) ? hit.row : undefined;
  }

  /** The row, from the cache or a bounded read (a store session: read whole, once). */
  async get(entry: SessionEntry): Promise<SessionRow> {
    const sig = signature(entry);
    const hit = this.rows.get(entry.key);
    if (hit && hit.sig === sig) return hit.row;
    let row: SessionRow;
    try {
      row = entry.load ? rowFrom(entry, parseLines(await entry.load(), false, false), [], true, this.check) : summarize(entry, this.check);
    } catch {
      row = rowFrom(entry, [], [], false, this.check);
    }
    this.rows.set(entry.key, { sig, row });
    return row;
  }

  /** Replace a row with one computed from the whole session (exact counts). */
  putExact(entry: SessionEntry, records: Rec[]): SessionRow {
    const row = rowFrom(entry, records, [], true, this.check);
    this.rows.set(entry.key, { sig: signature(entry), row });
    return row;
  }
}

export interface ListQuery {
  readonly q?: string;
  readonly harness?: string;
  readonly outcome?: string;
  readonly offset?: number;
  readonly limit?: number;
}

export interface ListPage {
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
  readonly rows: SessionRow[];
  readonly harnesses: string[];
  readonly outcomes: string[];
}

/** Filter, search (case-insensitive substring), sort newest first, page. Pure. */
export function listPage(all: readonly SessionRow[], query: ListQuery): ListPage {
  const q = query.q?.trim().toLowerCase() ?? "";
  const limit = Math.min(500, Math.max(1, query.limit ?? 50));
  const offset = Math.max(0, query.offset ?? 0);
  const rows = all.filter((r) => {
    if (query.harness && r.harness !== query.harness) return false;
    if (query.outcome && r.outcome !== query.outcome) return false;
    if (!q) return true;
    return [r.session_id, r.repo, r.cwd, r.first_prompt, r.harness].some((f) => f?.toLowerCase().includes(q));
  });
  const keyed = rows.map((r) => ({ r, when: (r.start ? Date.parse(r.start) : NaN) || r.mtime_ms }));
  keyed.sort((a, b) => b.when - a.when || (a.r.key < b.r.key ? -1 : 1));
  return {
    total: keyed.length,
    offset,
    limit,
    rows: keyed.slice(offset, offset + limit).map((k) => k.r),
    harnesses: [...new Set(all.map((r) => r.harness).filter((h): h is string => !!h))].sort(),
    outcomes: [...new Set(all.map((r) => r.outcome))].sort(),
  };
}
