import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { capRecord, cutString, utf8Head } from "../../lib/trace/cap.ts";
import { boundDepth, depthExceeds } from "../../lib/trace/depth.ts";
import { HEADER_BYTES, sanitize, sanitizeHeaderText } from "../../lib/trace/sanitize.ts";
import { defaultRedactor } from "../../lib/redact/index.ts";
import type { TraceRecord } from "../../lib/trace/record.ts";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

test("cutString keeps the head, the full sha256 and byte length", () => {
  const s = "é".repeat(1000); // 2000 bytes
  const c = cutString(s, 101);
  expect(typeof c).toBe("object");
  if (typeof c === "string") throw new Error("not cut");
  expect(c.bytes).toBe(2000);
  expect(c.sha256).toBe(sha(s));
  expect(c.head).toBe("é".repeat(50)); // never splits a character
  expect(cutString("short", 100)).toBe("short");
});

test("utf8Head never splits a multi-byte character", () => {
  expect(utf8Head("a😀b", 3)).toBe("a");
  expect(utf8Head("a😀b", 5)).toBe("a😀");
});

test("boundDepth keeps shallow values identical and turns deep subtrees into JSON text", () => {
  const shallow = { a: [1, { b: 2 }] };
  expect(boundDepth(shallow, 64)).toBe(shallow);
  let deep: unknown = 1;
  for (let i = 0; i < 20_000; i++) deep = [deep];
  expect(depthExceeds(deep, 64)).toBe(true);
  const bounded = boundDepth({ x: deep }, 64);
  expect(depthExceeds(bounded, 64)).toBe(false);
  expect(JSON.stringify(bounded)).toContain("[[[[");
});

test("sanitize redacts before it cuts, so a secret at the cut cannot leave half of itself", () => {
  const token = `ghp_${"A1b2C3d4E5".repeat(3)}abcdef`;
  const text = `${"x".repeat(1020)} ${token} ${"y".repeat(5000)}`;
  const rec = { id: "i", type: "message", session_id: "s", harness: "claude", ts: "t", role: "user", text } as TraceRecord;
  const out = sanitize(rec, defaultRedactor, { fieldBytes: 1030, recordBytes: 1 << 20 }) as any;
  expect(out.text.cut).toBe(true);
  expect(out.text.head).not.toContain("ghp_A1b2");
  expect(JSON.stringify(out)).not.toContain(token.slice(4, 16));
});

test("sanitize redacts and caps header fields too", () => {
  const token = `ghp_${"A1b2C3d4E5".repeat(3)}abcdef`;
  const rec = { id: "i", type: "message", session_id: token, harness: "claude", ts: "t", event: "x".repeat(10_000), role: "user", text: "hi" } as TraceRecord;
  const out = sanitize(rec, defaultRedactor) as any;
  expect(out.session_id).not.toContain(token.slice(4, 16));
  expect(out.session_id).toContain("[REDACTED:");
  expect(Buffer.byteLength(out.event)).toBeLessThanOrEqual(HEADER_BYTES);
  expect(out.event.startsWith("xxxx")).toBe(true);
  // One id always maps to one stored value, and two long ids stay apart.
  expect(sanitizeHeaderText("x".repeat(10_000), defaultRedactor)).toBe(out.event);
  expect(sanitizeHeaderText(`${"x".repeat(9_999)}y`, defaultRedactor)).not.toBe(out.event);
  expect(out.id).toBe("i");
});

test("capRecord shrinks the largest members, deepest first, and keeps the rest", () => {
  const rec = { id: "i", type: "tool_call", output: { filePath: "/a", content: "c".repeat(50_000), lines: Array(5000).fill("l") } };
  const out = capRecord(rec, 20_000, 4_000) as any;
  expect(JSON.stringify(out).length).toBeLessThanOrEqual(20_000);
  expect(out.output.filePath).toBe("/a");
  expect(out.output.content.cut).toBe(true);
  expect(out.output.content.json).toBe(true);
  expect(out.output.content.sha256).toBe(sha(JSON.stringify("c".repeat(50_000))));
});

test("a verdict's signed answer and digests are evidence, never redacted; its other fields still are", () => {
  const signature = "bNDeo76jdkVw1zIxqqMOlQbzBLYDTQtPAxJQaBOpQhRwrExwpDPujT/D8kMW5jdTJOfeOqRiQoRhNzQzqW+5AA==";
  const digest = "c9909a8c62b2a7fdf01b8dd0847827711b93651c8975d59d760b4c6bcc52cd55";
  const token = `ghp_${"k7Qx2mZ9".repeat(4)}abcd`;
  const rec = {
    id: "v1", type: "oracle_verdict", session_id: "s", harness: "claude", ts: "2026-12-01T00:00:00.000Z",
    attempt: 1, verdict: "FAIL", tests_hash: digest, verified: true, chain_head: digest, diff_sha256: digest,
    signed: { verdict: "FAIL", attempt: 1, tests_hash: digest, chain_head: digest, key_id: "e642a6e2f8e0fba3", signature },
    problem: `the oracle said ${token}`,
  } as unknown as TraceRecord;
  const out = sanitize(rec, defaultRedactor) as unknown as Record<string, any>;
  expect(out.signed).toEqual((rec as unknown as Record<string, unknown>).signed);
  expect([out.tests_hash, out.chain_head, out.diff_sha256]).toEqual([digest, digest, digest]);
  expect(out.problem).not.toContain(token);
  // The stored line keeps the record's own field order (the evidence is not moved to the front).
  expect(Object.keys(out)).toEqual(Object.keys(rec));
});
