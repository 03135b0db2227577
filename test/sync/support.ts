/** Fixtures shared by the sync tests: session files, and checks on what a store holds. */
import { expect } from "bun:test";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseSegmentKey } from "../../lib/sync/layout.ts";
import type { ObjectStore } from "../../lib/sync/objects.ts";

/** A schema-valid message record. */
export function message(session: string, i: number, text = `prompt ${i}`, ts = "2026-11-30T10:00:00.000Z"): string {
  return JSON.stringify({ id: `r-${session}-${i}`, type: "message", session_id: session, harness: "claude", ts, role: "user", text });
}

/** A schema-valid session_start record. */
export function sessionStart(session: string, cwd: string | null, ts = "2026-11-30T10:00:00.000Z"): string {
  return JSON.stringify({ id: `r-${session}-start`, type: "session_start", session_id: session, harness: "claude", ts, cwd, base_commit: null });
}

/** Write (or append) lines to a session file in a data dir. */
export function writeSession(home: string, session: string, lines: string[], append = false): string {
  const dir = join(home, "sessions");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${session}.jsonl`);
  const text = lines.map((l) => `${l}\n`).join("");
  if (append) appendFileSync(path, text);
  else writeFileSync(path, text);
  return path;
}

/** `n` sessions of `records` lines each, padded to about `recordBytes` a line. */
export function bulkSessions(home: string, n: number, records: number, recordBytes = 200, prefix = "bulk"): string[] {
  const ids: string[] = [];
  for (let s = 0; s < n; s++) {
    const id = `${prefix}-${String(s).padStart(4, "0")}`;
    ids.push(id);
    const pad = "x".repeat(Math.max(0, recordBytes - 120));
    writeSession(home, id, [sessionStart(id, null), ...Array.from({ length: records - 1 }, (_, i) => message(id, i, `${pad} ${i}`))]);
  }
  return ids;
}

/** Every object in a store, key -> bytes. */
export async function storeObjects(store: ObjectStore, prefix = ""): Promise<Map<string, Buffer>> {
  const keys: string[] = [];
  for await (const o of store.list(prefix)) keys.push(o.key);
  const bodies = await Promise.all(keys.map(async (k) => Buffer.from(await store.get(k))));
  return new Map(keys.map((k, i) => [k, bodies[i]!]));
}

/**
 * The store holds each session's complete lines exactly once: its segments
 * start at 0, each starts where the previous ended, each ends on a newline,
 * and together they are the local file's complete-line prefix byte for byte.
 */
export function expectExactlyOnce(home: string, objects: Map<string, Buffer>, sessions?: string[]): void {
  const by = new Map<string, { offset: number; body: Buffer; prefix: string }[]>();
  for (const [key, body] of objects) {
    const k = parseSegmentKey(key);
    expect(k).not.toBeNull();
    const list = by.get(k!.session) ?? [];
    list.push({ offset: k!.offset, body, prefix: k!.sessionPrefix });
    by.set(k!.session, list);
  }
  const names = sessions ?? readdirSync(join(home, "sessions")).map((n) => n.replace(/\.jsonl$/, ""));
  for (const name of names) {
    const local = readFileSync(join(home, "sessions", `${name}.jsonl`));
    const complete = local.subarray(0, local.lastIndexOf(0x0a) + 1);
    const segs = (by.get(name) ?? []).sort((a, b) => a.offset - b.offset);
    expect(new Set(segs.map((s) => s.prefix)).size).toBeLessThanOrEqual(1);
    let at = 0;
    for (const s of segs) {
      expect(s.offset).toBe(at);
      expect(s.body.at(-1)).toBe(0x0a);
      at += s.body.length;
    }
    expect(Buffer.concat(segs.map((s) => s.body)).equals(complete)).toBe(true);
  }
}

/** Size of a file, 0 when absent. */
export function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
