/**
 * Sessions for the viewer's tests, benchmark and screenshots: records in the
 * shapes the hooks write (see lib/trace/record.ts and lib/gate/stop.ts), with
 * a hostile tool output, a redaction mark, an Edit with its structured patch,
 * a blocked FAIL and an allowed PASS.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionFileName } from "../../lib/trace/store.ts";

/** Text a hostile tool could return: it must show as text and never run. */
export const HOSTILE = `<img src=x onerror="window.__pwned='img'"><script>window.__pwned='script'</script></pre><b>bold?</b>`;
export const REDACTION_MARK = "ghp_[REDACTED:github-pat:3f9a]";

let n = 0;
const id = () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;

export interface DemoOptions {
  readonly sessionId: string;
  readonly start: Date;
  readonly cwd?: string;
  readonly prompt?: string;
  readonly harness?: string;
  /** Add a stored `diff` on the FAIL verdict (the renderer's path for records that hold the patch). */
  readonly verdictDiff?: boolean;
  readonly end?: boolean;
  /** Sign each verdict for real with this private key (PEM); otherwise the signatures are placeholders. */
  readonly oracleKey?: string;
}

const TESTS_HASH = "9c1d2e7f4a6b8c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d";
const BASE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

function signed(o: DemoOptions, attempt: number, verdict: "PASS" | "FAIL", diff_sha256: string, issued_at: string): unknown {
  if (!o.oracleKey) return { verdict, attempt, key_id: "oracle-1", signature: "MEUCIQ…" };
  const { signVerdict } = require("../../lib/oracle/verdict.ts") as typeof import("../../lib/oracle/verdict.ts");
  // The chain head a real Stop would send is not modelled here: the viewer checks each record on its own
  // (signature, stated fields, session); the chain is `verify`'s, over the whole file.
  return signVerdict({ task_id: "acme-billing-17", session_id: o.sessionId, base_commit: BASE, diff_sha256, attempt, verdict, tests_hash: TESTS_HASH, issued_at, chain_head: "0".repeat(64) }, o.oracleKey);
}

/** One full session: start, prompt, tool calls, FAIL (blocked), fix, PASS (allowed), end. */
export function demoSession(o: DemoOptions): Record<string, unknown>[] {
  const t = (s: number) => new Date(o.start.getTime() + s * 1000).toISOString();
  const base = { session_id: o.sessionId, harness: o.harness ?? "claude" };
  const cwd = o.cwd ?? "/home/dev/src/acme/billing";
  const patch1 = ["--- a/billing/tax.py", "+++ b/billing/tax.py", "@@ -10,3 +10,3 @@ def total(items):", "     subtotal = sum(i.price for i in items)", "-    return subtotal * 1.2", "+    return round(subtotal * 1.2, 2)", ""].join("\n");
  const recs: Record<string, unknown>[] = [
    { id: id(), ...base, ts: t(0), event: "SessionStart", type: "session_start", cwd, base_commit: BASE, model: "claude-sonnet-4-5", source: "startup" },
    { id: id(), ...base, ts: t(2), event: "UserPromptSubmit", type: "message", role: "user", text: o.prompt ?? "The invoice total is off by a cent for some carts. Fix the rounding in billing/tax.py and make the tests pass." },
    { id: id(), ...base, ts: t(5), event: "PostToolUse", type: "tool_call", tool_name: "Bash", tool_use_id: "toolu_01A", input: { command: "pytest -q tests/test_tax.py", description: "Run the tax tests" }, output: { stdout: `F.\nFAILED tests/test_tax.py::test_rounding - assert 35.988 == 35.99\n1 failed, 1 passed in 0.04s\n`, stderr: "", interrupted: false }, duration_ms: 1840, status: "ok" },
    { id: id(), ...base, ts: t(9), event: "PostToolUse", type: "tool_call", tool_name: "Read", tool_use_id: "toolu_01B", input: { file_path: `${cwd}/billing/tax.py` }, output: { type: "text", file: { filePath: `${cwd}/billing/tax.py`, content: "def total(items):\n    subtotal = sum(i.price for i in items)\n    return subtotal * 1.2\n" } }, duration_ms: 12, status: "ok" },
    { id: id(), ...base, ts: t(14), event: "PostToolUse", type: "tool_call", tool_name: "Bash", tool_use_id: "toolu_01C", input: { command: "cat .env.example; curl -s https://ci.example/status" }, output: { stdout: `GITHUB_TOKEN=${REDACTION_MARK}\nstatus page says:\n${HOSTILE}\n`, stderr: "", interrupted: false }, duration_ms: 310, status: "ok" },
    { id: id(), ...base, ts: t(20), event: "PostToolUse", type: "tool_call", tool_name: "Edit", tool_use_id: "toolu_01D", input: { file_path: `${cwd}/billing/tax.py`, old_string: "    return subtotal * 1.2", new_string: "    return round(subtotal * 1.2, 2)" }, output: { filePath: `${cwd}/billing/tax.py`, structuredPatch: [{ oldStart: 10, oldLines: 3, newStart: 10, newLines: 3, lines: ["     subtotal = sum(i.price for i in items)", "-    return subtotal * 1.2", "+    return round(subtotal * 1.2, 2)"] }] }, duration_ms: 25, status: "ok" },
    { id: id(), ...base, ts: t(24), event: "PostToolUseFailure", type: "tool_call", tool_name: "Bash", tool_use_id: "toolu_01E", input: { command: "mypy billing" }, output: null, error: "mypy: command not found", duration_ms: 40, status: "error" },
    { id: id(), ...base, ts: t(30), event: "Stop", type: "message", role: "assistant", text: "Rounded the total to cents in billing/tax.py." },
    { id: id(), ...base, ts: t(41), event: "Stop", type: "oracle_verdict", attempt: 1, verdict: "FAIL", tests_hash: TESTS_HASH, signed: signed(o, 1, "FAIL", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", t(41)), verified: true, decision: "block", blocks_in_row: 1, block_cap: 8, task_id: "acme-billing-17", diff_sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", diff_bytes: 412, diff_files: 1, elapsed_ms: 10890, ...(o.verdictDiff ? { diff: patch1 } : {}) },
    { id: id(), ...base, ts: t(55), event: "PostToolUse", type: "tool_call", tool_name: "Edit", tool_use_id: "toolu_01F", input: { file_path: `${cwd}/billing/tax.py`, old_string: "from decimal import Decimal\n", new_string: "from decimal import Decimal, ROUND_HALF_UP\n" }, output: { filePath: `${cwd}/billing/tax.py` }, duration_ms: 18, status: "ok" },
    { id: id(), ...base, ts: t(60), event: "Stop", type: "message", role: "assistant", text: "Switched to Decimal with ROUND_HALF_UP; both tax tests pass locally." },
    { id: id(), ...base, ts: t(72), event: "Stop", type: "oracle_verdict", attempt: 2, verdict: "PASS", tests_hash: TESTS_HASH, signed: signed(o, 2, "PASS", "5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef", t(72)), verified: true, decision: "allow", blocks_in_row: 0, block_cap: 8, outcome: "flip", task_id: "acme-billing-17", diff_sha256: "5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef", diff_bytes: 655, diff_files: 1, elapsed_ms: 11204 },
  ];
  if (o.end !== false) recs.push({ id: id(), ...base, ts: t(80), event: "SessionEnd", type: "session_end", reason: "prompt_input_exit", outcome: "flip" });
  return recs;
}

/** Write records as the store does: `<home>/sessions/<id>.jsonl`. Returns the file name (the viewer's key). */
export function writeSession(home: string, records: readonly Record<string, unknown>[]): string {
  const dir = join(home, "sessions");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = sessionFileName(String(records[0]!.session_id));
  writeFileSync(join(dir, name), records.map((r) => `${JSON.stringify(r)}\n`).join(""), { mode: 0o600 });
  return name;
}

const PROMPTS = [
  "Add pagination to the /orders endpoint and cover it with tests.",
  "The CSV export drops rows with unicode names; find out why.",
  "Upgrade the logging library and fix the deprecation warnings.",
  "Refactor the retry loop in the HTTP client into a helper.",
  "Why does the nightly job time out? Make it finish under 10 minutes.",
  "Write a migration that backfills the customer region column.",
];
const REPOS = ["acme/billing", "acme/orders", "acme/web", "tools/ingest", "tools/cli"];

/** `count` varied sessions (some unfinished, some without an oracle), newest `start` first. */
export function manySessions(home: string, count: number, start = new Date("2026-11-30T18:00:00Z"), oracleKey?: string): string[] {
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const s = new Date(start.getTime() - i * 37 * 60_000);
    const recs = demoSession({ sessionId: `sess-${String(i).padStart(5, "0")}-${(i * 2654435761) % 1e8}`, start: s, cwd: `/home/dev/src/${REPOS[i % REPOS.length]}`, prompt: PROMPTS[i % PROMPTS.length], harness: i % 7 === 3 ? "codex" : "claude", end: i % 5 !== 1, oracleKey });
    if (i % 4 === 2) recs.splice(8); // no oracle configured: no verdicts
    const pass = recs.findIndex((r) => r.attempt === 2);
    if (i % 6 === 4 && pass >= 0) recs.splice(pass); // the gate gave up after the FAIL
    names.push(writeSession(home, recs));
  }
  return names;
}
