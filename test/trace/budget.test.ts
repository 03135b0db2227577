/**
 * Sanitising in pieces against a budget: the pieces redact what the whole
 * would (secrets at piece boundaries, PEM blocks across them, key context),
 * and a deadline that passed stops the work with BudgetExceeded.
 */
import { expect, test } from "bun:test";
import { createRedactor } from "../../lib/redact/index.ts";
import type { TraceRecord } from "../../lib/trace/record.ts";
import { BudgetExceeded, PIECE_CHARS, sanitize, sanitizeWithin } from "../../lib/trace/sanitize.ts";
import { jsonText } from "../../lib/trace/depth.ts";

const redactor = createRedactor({ fingerprintKey: "budget-test" });
const clock = { now: () => performance.now() };
const rec = (output: unknown) => ({ id: "i", type: "tool_call", session_id: "s", harness: "claude", ts: "t", tool_name: "Bash", tool_use_id: "u", input: null, output, duration_ms: 1, status: "ok" }) as unknown as TraceRecord;
const token = (i: number) => `ghp_${String(i).padStart(6, "0")}${"Zq8vR1xK4m".repeat(3)}`;

test("a long string is redacted piece by piece, with no secret left at any piece boundary", async () => {
  // Tokens every ~1000 characters, so several straddle the 256 K piece boundaries.
  const parts: string[] = [];
  for (let i = 0; parts.join("").length < 3 * PIECE_CHARS; i++) parts.push(`${"x".repeat(997 + (i % 7))} ${token(i)}\n`);
  const text = parts.join("");
  const out = (await sanitizeWithin(rec({ stdout: text }), redactor, { fieldBytes: 64 << 20, recordBytes: 64 << 20 }, { deadline: Infinity, ...clock })) as any;
  expect(typeof out.output.stdout).toBe("string");
  expect(out.output.stdout).not.toMatch(/ghp_\d{6}Zq8v/);
  expect(out.output.stdout.match(/\[REDACTED:github-pat:/g)?.length).toBe(parts.length);
});

test("a PEM block across a piece boundary is redacted whole", async () => {
  const body = Array.from({ length: 40 }, (_, i) => `MIIEvQIBADANBgkqhkiG9w0BAQEFAASC${String(i).padStart(32, "A")}`).join("\n");
  const pem = `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----`;
  const text = `${"y".repeat(PIECE_CHARS - 200)}\n${pem}\n${"z".repeat(1000)}`;
  const out = (await sanitizeWithin(rec({ stdout: text }), redactor, { fieldBytes: 64 << 20, recordBytes: 64 << 20 }, { deadline: Infinity, ...clock })) as any;
  expect(out.output.stdout).not.toContain("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC");
});

test("key context survives the split: a large object's secret-named key still redacts its value", async () => {
  const big = { filler: "f".repeat(PIECE_CHARS + 10), password: "hunter22-Zq8vR1x", env: { API_KEY: "abcd1234efgh5678ijkl" } };
  const out = (await sanitizeWithin(rec(big), redactor, { fieldBytes: 64 << 20, recordBytes: 64 << 20 }, { deadline: Infinity, ...clock })) as any;
  const whole = sanitize(rec({ password: "hunter22-Zq8vR1x", env: { API_KEY: "abcd1234efgh5678ijkl" } }), redactor) as any;
  expect(out.output.password).toBe(whole.output.password);
  expect(out.output.env).toEqual(whole.output.env);
  expect(JSON.stringify(out)).not.toContain("hunter22-Zq8vR1x");
});

test("the output of a command that prints a secret keeps its command when it is redacted in pieces", async () => {
  const password = "correct-horse-battery";
  const stdout = `${password}\n${"build log line\n".repeat(Math.ceil((PIECE_CHARS + 1000) / 15))}`;
  const r = { ...(rec({ stdout, stderr: "" }) as object), input: { command: "printenv DB_PASSWORD" } } as unknown as TraceRecord;
  const out = (await sanitizeWithin(r, redactor, { fieldBytes: 64 << 20, recordBytes: 64 << 20 }, { deadline: Infinity, ...clock })) as any;
  expect(out.output.stdout.startsWith("[REDACTED:password:")).toBe(true);
  expect(JSON.stringify(out)).not.toContain(password);
  expect(out.output.stdout.length).toBe(stdout.length - password.length + "[REDACTED:password:0000]".length);
  expect(out.input.command).toBe("printenv DB_PASSWORD");
});

test("a deadline that has passed stops the work", async () => {
  const big = rec({ stdout: "a".repeat(4 * PIECE_CHARS) });
  await expect(sanitizeWithin(big, redactor, undefined, { deadline: -1, ...clock })).rejects.toBeInstanceOf(BudgetExceeded);
});

test("jsonText serialises any depth exactly as JSON.stringify does where that works", () => {
  for (const v of [{ a: [1, "x", null, true, { b: {} }], 'c"d': -0.5, e: [] }, [], {}, "s", 1, null, [[[]]]]) expect(jsonText(v)).toBe(JSON.stringify(v));
  let deep: unknown = "bottom";
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const t = jsonText(deep);
  expect(t).toBe(`${"[".repeat(100_000)}"bottom"${"]".repeat(100_000)}`);
});
