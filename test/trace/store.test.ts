import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { appendRecords, parseSessionText, readSession, sessionFileName, sessionPath } from "../../lib/trace/store.ts";
import type { TraceRecord } from "../../lib/trace/record.ts";
import { cleanup, tempDir } from "../support/tracegate.ts";

const home = tempDir();
afterAll(() => cleanup(home));

const HOSTILE = ["../../x", "/etc/passwd", "a\0b", "x".repeat(5000), "..", ".", "", "_abc", "a/b/../../../c", "C:\\Windows\\win.ini", "😀", " spaced id "];

test("hostile session ids never leave the sessions dir and never collide", () => {
  const names = new Set<string>();
  for (const id of HOSTILE) {
    const name = sessionFileName(id);
    expect(name).toMatch(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,200}\.jsonl$/);
    expect(name.includes("/")).toBe(false);
    expect(name.length).toBeLessThan(200);
    expect(resolve(sessionPath(home, id)).startsWith(resolve(home, "sessions") + "/")).toBe(true);
    names.add(name);
  }
  expect(names.size).toBe(HOSTILE.length);
});

test("plain ids are used as they are", () => {
  expect(sessionFileName("3f9a1c2e-1111-4222-8333-444455556666")).toBe("3f9a1c2e-1111-4222-8333-444455556666.jsonl");
});

test("appends under hostile ids land inside the store and read back", () => {
  const recs: TraceRecord[] = HOSTILE.map((id, i) => ({
    id: `r${i}`, type: "message", session_id: id, harness: "claude", ts: new Date().toISOString(), role: "user", text: "t",
  }));
  appendRecords(home, recs);
  expect(readdirSync(home)).toEqual(["sessions"]);
  for (const id of HOSTILE) expect(readSession(home, id).records.map((r) => r.session_id)).toEqual([id]);
});

test("corrupt lines are reported with their line number and the rest still read", () => {
  const text = '{"type":"a"}\nnot json\n[1]\n{"type":"b"}\n';
  const { records, problems } = parseSessionText("f.jsonl", text);
  expect(records.map((r) => r.type as string)).toEqual(["a", "b"]);
  expect(problems.map((p) => p.line)).toEqual([2, 3]);
});

test("a record is one line ending in a newline", () => {
  const id = "one-line";
  appendRecords(home, [{ id: "x", type: "message", session_id: id, harness: "claude", ts: "2026-01-01T00:00:00.000Z", role: "user", text: "a\nb" }]);
  const text = readFileSync(join(home, "sessions", `${id}.jsonl`), "utf8");
  expect(text.split("\n")).toEqual([expect.any(String), ""]);
});

test("a type filter returns exactly the records of those types, even when other records quote the type", () => {
  const text = [
    JSON.stringify({ type: "session_start", base_commit: "b" }),
    JSON.stringify({ type: "tool_call", output: { stdout: '{"type":"oracle_verdict"}' } }),
    JSON.stringify({ type: "tool_call", output: { type: "oracle_verdict" } }),
    JSON.stringify({ type: "oracle_verdict", attempt: 1 }),
  ].join("\n");
  const { records } = parseSessionText("f", text, ["oracle_verdict", "session_start"]);
  expect(records.map((r) => r.type as string)).toEqual(["session_start", "oracle_verdict"]);
});
