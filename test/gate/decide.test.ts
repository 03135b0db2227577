import { blockCapFrom } from "../../lib/harness/claude.ts";
import { describe, expect, test } from "bun:test";
import {
  BLOCK_REASON,
  decide,
  type DecideInput,
  type Decision,
  type VerdictState,
} from "../../lib/gate/decide.ts";

const base: DecideInput = {
  verdict: "none",
  attempts: 0,
  stop_hook_active: false,
  max_attempts: 3,
  on_error: "allow",
  consecutive_blocks: 0,
  block_cap: 8,
};

const BLOCK: Decision = { action: "block", reason: BLOCK_REASON };
const CAP: Decision = { action: "block", reason: BLOCK_REASON, outcome: "cap" };
const ASK: Decision = { action: "ask-oracle" };
const FLIP: Decision = { action: "allow", reason: "oracle PASS", outcome: "flip" };
const GIVE_UP: Decision = { action: "allow", reason: "max attempts reached", outcome: "no_flip" };
const ERR_ALLOW: Decision = { action: "allow", reason: "oracle error, on_error allow", outcome: "no_flip" };
const UNV_ALLOW: Decision = { action: "allow", reason: "oracle answer did not verify, on_error allow", outcome: "no_flip" };

describe("decision table: the rows a user meets", () => {
  const rows: [string, Partial<DecideInput>, Decision][] = [
    ["first Stop: ask the oracle", {}, ASK],
    ["first Stop after a block (flag set): still ask, the flag is not a reason to stop asking", { stop_hook_active: true, attempts: 1, consecutive_blocks: 1 }, ASK],
    ["attempts used up before asking: let it stop, not flipped", { attempts: 3, stop_hook_active: true, consecutive_blocks: 2 }, GIVE_UP],
    ["verified PASS on the first attempt: flip", { verdict: "pass", attempts: 1 }, FLIP],
    ["verified PASS after blocks: flip", { verdict: "pass", attempts: 3, stop_hook_active: true, consecutive_blocks: 2 }, FLIP],
    ["verified PASS even at the cap: flip", { verdict: "pass", attempts: 9, max_attempts: 20, stop_hook_active: true, consecutive_blocks: 8 }, FLIP],
    ["FAIL on attempt 1 of 3: block with the fixed reason", { verdict: "fail", attempts: 1 }, BLOCK],
    ["FAIL on attempt 2 of 3: block", { verdict: "fail", attempts: 2, stop_hook_active: true, consecutive_blocks: 1 }, BLOCK],
    ["FAIL on the last attempt: allow, not flipped", { verdict: "fail", attempts: 3, stop_hook_active: true, consecutive_blocks: 2 }, GIVE_UP],
    ["max_attempts 1: the first FAIL lets it stop", { verdict: "fail", attempts: 1, max_attempts: 1 }, GIVE_UP],
    ["FAIL after 7 blocks in a row: block, Claude Code still honours it", { verdict: "fail", attempts: 8, max_attempts: 20, stop_hook_active: true, consecutive_blocks: 7 }, BLOCK],
    ["FAIL after 8 blocks in a row: the block Claude Code overrides: cap", { verdict: "fail", attempts: 9, max_attempts: 20, stop_hook_active: true, consecutive_blocks: 8 }, CAP],
    ["a stale count with the flag unset is a new turn, not a cap", { verdict: "fail", attempts: 1, max_attempts: 20, stop_hook_active: false, consecutive_blocks: 8 }, BLOCK],
    ["cap disabled (0): no cap however many blocks", { verdict: "fail", attempts: 9, max_attempts: 20, stop_hook_active: true, consecutive_blocks: 50, block_cap: 0 }, BLOCK],
    ["custom cap 3: the 4th block is the capped one", { verdict: "fail", attempts: 4, max_attempts: 20, stop_hook_active: true, consecutive_blocks: 3, block_cap: 3 }, CAP],
    ["pending: provisional block with the same reason", { verdict: "pending", attempts: 1 }, BLOCK],
    ["pending on the last attempt: still block, the next Stop picks it up", { verdict: "pending", attempts: 3, stop_hook_active: true, consecutive_blocks: 2 }, BLOCK],
    ["pending at the cap: cap", { verdict: "pending", attempts: 2, stop_hook_active: true, consecutive_blocks: 8 }, CAP],
    ["oracle error, on_error allow (default): the stop goes through", { verdict: "error", attempts: 1 }, ERR_ALLOW],
    ["oracle error, on_error block: block", { verdict: "error", attempts: 1, on_error: "block" }, BLOCK],
    ["oracle error, on_error block, last attempt: never wedge, allow", { verdict: "error", attempts: 3, on_error: "block", stop_hook_active: true, consecutive_blocks: 2 }, GIVE_UP],
    ["unverified PASS, on_error allow: allowed but never a flip", { verdict: "unverified", attempts: 1 }, UNV_ALLOW],
    ["unverified, on_error block: block", { verdict: "unverified", attempts: 1, on_error: "block" }, BLOCK],
  ];
  for (const [name, change, want] of rows) {
    test(name, () => {
      expect(decide({ ...base, ...change })).toEqual(want);
    });
  }
});

describe("every combination keeps the invariants", () => {
  const verdicts: VerdictState[] = ["none", "pass", "fail", "unverified", "error", "pending"];
  const combos: DecideInput[] = [];
  for (const verdict of verdicts)
    for (const stop_hook_active of [false, true])
      for (const max_attempts of [1, 3, 20])
        for (const attempts of [0, 1, max_attempts - 1, max_attempts, max_attempts + 1])
          for (const on_error of ["allow", "block"] as const)
            for (const block_cap of [0, 3, 8])
              for (const consecutive_blocks of [0, 1, block_cap - 1, block_cap, block_cap + 1, 30])
                combos.push({ verdict, stop_hook_active, max_attempts, attempts: Math.max(0, attempts), on_error, block_cap, consecutive_blocks: Math.max(0, consecutive_blocks) });

  test(`${combos.length} combinations`, () => {
    expect(combos.length).toBeGreaterThan(4000);
    for (const c of combos) {
      const d = decide(c);
      const where = JSON.stringify(c);
      const last = c.attempts >= c.max_attempts;
      const capped = c.block_cap > 0 && c.stop_hook_active && c.consecutive_blocks >= c.block_cap;
      // Only the first call asks the oracle, and only with attempts left.
      expect(d.action === "ask-oracle", where).toBe(c.verdict === "none" && !last);
      // A block always carries the one fixed reason, and is marked cap exactly when Claude Code overrides it.
      if (d.action === "block") {
        expect(d.reason, where).toBe(BLOCK_REASON);
        expect(d.outcome, where).toBe(capped ? "cap" : undefined);
      }
      // Every allow says how the gating ended; only a verified PASS is a flip.
      if (d.action === "allow") {
        expect(d.outcome === "flip", where).toBe(c.verdict === "pass");
        expect(d.outcome === "no_flip" || d.outcome === "flip", where).toBe(true);
      }
      // A verified PASS always lets the agent stop.
      if (c.verdict === "pass") expect(d.action, where).toBe("allow");
      // A verified FAIL with attempts left always blocks; on the last attempt it always allows.
      if (c.verdict === "fail") expect(d.action, where).toBe(last ? "allow" : "block");
      // The default error policy never blocks.
      if ((c.verdict === "error" || c.verdict === "unverified") && c.on_error === "allow") expect(d.action, where).toBe("allow");
      // A pending job always blocks provisionally.
      if (c.verdict === "pending") expect(d.action, where).toBe("block");
      // The flag alone never stops the gate asking.
      if (c.verdict === "none" && !last) expect(decide({ ...c, stop_hook_active: !c.stop_hook_active }).action).toBe("ask-oracle");
    }
  });
});

describe("the block reason", () => {
  test("says FAIL and to keep working, and is one line of plain text", () => {
    expect(BLOCK_REASON).toContain("FAIL");
    expect(BLOCK_REASON.toLowerCase()).toContain("keep working");
    expect(BLOCK_REASON).not.toContain("\n");
    expect(BLOCK_REASON.length).toBeLessThan(300);
  });
});

describe("block cap from the environment", () => {
  const rows: [string | undefined, number][] = [
    [undefined, 8],
    ["8", 8],
    ["3", 3],
    ["0", 0],
    [" 12 ", 12],
    ["-1", 8],
    ["abc", 8],
    ["", 8],
    ["2.5", 8],
  ];
  for (const [raw, want] of rows) {
    test(`${JSON.stringify(raw)} -> ${want}`, () => {
      expect(blockCapFrom({ CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: raw })).toBe(want);
    });
  }
});
