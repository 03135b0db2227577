import { describe, expect, test } from "bun:test";
import { gateStateOf, outcomeOf } from "../../lib/gate/outcome.ts";

const start = { type: "session_start", base_commit: "b".repeat(40) };
const user = { type: "message", role: "user", text: "do it" };
const assistant = { type: "message", role: "assistant", text: "done" };
function v(attempt: number, verdict: string, decision: string, extra: Record<string, unknown> = {}) {
  return { type: "oracle_verdict", attempt, verdict, verified: verdict === "PASS" || verdict === "FAIL", decision, tests_hash: "h", signed: null, ...extra };
}

describe("outcomeOf", () => {
  test("no verdicts: no_oracle", () => {
    expect(outcomeOf([])).toBe("no_oracle");
    expect(outcomeOf([start, user, assistant])).toBe("no_oracle");
  });

  test("FAIL then verified PASS: flip", () => {
    expect(outcomeOf([start, user, assistant, v(1, "FAIL", "block"), assistant, v(2, "PASS", "allow")])).toBe("flip");
  });

  test("an unverified PASS is never a flip", () => {
    expect(outcomeOf([start, user, { ...v(1, "PASS", "allow"), verified: false }])).toBe("no_flip");
  });

  test("the gate gave up after its attempts: no_flip", () => {
    expect(outcomeOf([start, user, v(1, "FAIL", "block"), v(2, "FAIL", "block"), v(3, "FAIL", "allow", { outcome: "no_flip" })])).toBe("no_flip");
  });

  test("the last block was the one Claude Code's cap overrode: cap, read from the record", () => {
    const recs: unknown[] = [start, user];
    for (let i = 1; i <= 8; i++) recs.push(assistant, v(i, "FAIL", "block", { blocks_in_row: i, block_cap: 8 }));
    recs.push(assistant, v(9, "FAIL", "block", { blocks_in_row: 9, block_cap: 8, outcome: "cap" }));
    expect(outcomeOf(recs)).toBe("cap");
    // The same, derived from the counts alone (no outcome field).
    recs[recs.length - 1] = v(9, "FAIL", "block", { blocks_in_row: 9, block_cap: 8 });
    expect(outcomeOf(recs)).toBe("cap");
  });

  test("8 blocks in a row is not yet the cap: Claude Code honours the 8th", () => {
    expect(outcomeOf([start, v(8, "FAIL", "block", { blocks_in_row: 8, block_cap: 8 })])).toBe("no_flip");
  });

  test("an oracle error is no_flip; a PASS in an earlier turn does not outlive a later FAIL", () => {
    expect(outcomeOf([start, user, v(1, "ERROR", "allow")])).toBe("no_flip");
    expect(outcomeOf([start, user, v(1, "PASS", "allow"), user, v(2, "FAIL", "allow")])).toBe("no_flip");
  });

  test("junk lines are skipped", () => {
    expect(outcomeOf([null, 3, "x", [], v(1, "PASS", "allow"), { type: "oracle_verdict" }])).toBe("flip");
  });
});

describe("gateStateOf", () => {
  test("fresh session", () => {
    expect(gateStateOf([start, user])).toEqual({ base_commit: "b".repeat(40), next_attempt: 1, attempts_in_turn: 0, consecutive_blocks: 0 });
  });

  test("no session_start: no base commit", () => {
    expect(gateStateOf([user]).base_commit).toBeNull();
  });

  test("the first base commit wins over a resumed session's later one", () => {
    expect(gateStateOf([start, { type: "session_start", base_commit: "c".repeat(40) }]).base_commit).toBe("b".repeat(40));
    expect(gateStateOf([{ type: "session_start", base_commit: null }, start]).base_commit).toBe("b".repeat(40));
  });

  test("counts attempts and blocks in the current turn, attempt numbers across the session", () => {
    const recs = [start, user, v(1, "FAIL", "block"), v(2, "FAIL", "allow"), user, v(3, "FAIL", "block"), assistant, v(4, "FAIL", "block")];
    expect(gateStateOf(recs)).toEqual({ base_commit: "b".repeat(40), next_attempt: 5, attempts_in_turn: 2, consecutive_blocks: 2 });
  });

  test("an allowed Stop ends the turn even without a user prompt after it", () => {
    const recs = [start, v(1, "FAIL", "block"), v(2, "PASS", "allow"), v(3, "FAIL", "block")];
    expect(gateStateOf(recs)).toMatchObject({ next_attempt: 4, attempts_in_turn: 1, consecutive_blocks: 1 });
  });

  test("a pending job and its verdict are one attempt but two blocks", () => {
    const pending = v(1, "PENDING", "block", { job_id: "j1", diff_sha256: "d", submitted_at: "2026-01-01T00:00:00.000Z" });
    const s = gateStateOf([start, user, pending]);
    expect(s.pending).toEqual({ job_id: "j1", attempt: 1, diff_sha256: "d", submitted_at: "2026-01-01T00:00:00.000Z", polls: 1 });
    expect(gateStateOf([start, user, pending, pending]).pending?.polls).toBe(2);
    expect(s).toMatchObject({ next_attempt: 2, attempts_in_turn: 1, consecutive_blocks: 1 });
    const after = gateStateOf([start, user, pending, v(1, "FAIL", "block")]);
    expect(after.pending).toBeUndefined();
    expect(after).toMatchObject({ next_attempt: 2, attempts_in_turn: 1, consecutive_blocks: 2 });
  });

  test("a pending job from an earlier turn is not picked up", () => {
    expect(gateStateOf([start, v(1, "PENDING", "block", { job_id: "j" }), user]).pending).toBeUndefined();
  });
});
