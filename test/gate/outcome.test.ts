import { afterAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeSession, gateStateOf, OUTCOMES } from "../../lib/gate/outcome.ts";
import { signVerdict } from "../../lib/oracle/verdict.ts";
import { chainStart } from "../../lib/trace/chain.ts";
import { appendRecords, sessionPath } from "../../lib/trace/store.ts";

const start = { type: "session_start", base_commit: "b".repeat(40) };
const user = { type: "message", role: "user", text: "do it" };
const assistant = { type: "message", role: "assistant", text: "done" };
function v(attempt: number, verdict: string, decision: string, extra: Record<string, unknown> = {}) {
  return { type: "oracle_verdict", attempt, verdict, verified: verdict === "PASS" || verdict === "FAIL", decision, tests_hash: "h", signed: null, ...extra };
}

/** A real session file in a temp store: records appended (and chained) by the store, verdicts signed by a real key. */
function sessionFile(id = "sess-o") {
  const home = mkdtempSync(join(tmpdir(), "tg-outcome-"));
  homes.push(home);
  const file = sessionPath(home, id);
  let n = 0;
  const rec = (r: Record<string, unknown>) => ({ id: `r${++n}`, session_id: id, harness: "claude", ts: "2026-01-01T00:00:00.000Z", ...r });
  return {
    id,
    home,
    file,
    add(...rs: Record<string, unknown>[]) {
      appendRecords(home, rs.map(rec) as any);
    },
    /** A signed verdict over the file's current chain head, as the Stop gate writes it. */
    verdict(attempt: number, verdict: "PASS" | "FAIL", extra: Record<string, unknown> = {}, key = keys.priv) {
      const head = analyze().head;
      const signed = signVerdict({ task_id: "t", session_id: id, base_commit: "b".repeat(40), diff_sha256: "d".repeat(64), chain_head: head, attempt, verdict, tests_hash: "h".repeat(64) }, key);
      const r = { type: "oracle_verdict", attempt, verdict, tests_hash: signed.tests_hash, signed, verified: true, decision: verdict === "PASS" ? "allow" : "block", task_id: "t", base_commit: "b".repeat(40), chain_head: head, diff_sha256: "d".repeat(64), ...extra };
      this.add(r);
      return r;
    },
    bytes: () => readFileSync(file),
    lines: () => readFileSync(file, "utf8").split("\n").filter(Boolean),
    write: (lines: string[]) => writeFileSync(file, lines.map((l) => `${l}\n`).join("")),
  };
  function analyze() {
    return existsSync(file) ? analyzeSession(readFileSync(file), { file, publicKey: keys.pub, sessionId: id }) : { head: chainStart(id) };
  }
}

const homes: string[] = [];
afterAll(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

function pair() {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return { priv: privateKey.export({ type: "pkcs8", format: "pem" }) as string, pub: publicKey.export({ type: "spki", format: "pem" }) as string };
}
const keys = pair();
const other = pair();

const outcome = (s: ReturnType<typeof sessionFile>, publicKey: string | null = keys.pub) => analyzeSession(s.bytes(), { file: s.file, publicKey });

describe("analyzeSession: the outcome comes from signatures only", () => {
  test("no verdicts: no_oracle", () => {
    const s = sessionFile();
    s.add(start, user, assistant);
    expect(outcome(s).outcome).toBe("no_oracle");
    expect(outcome(s).problems).toEqual([]);
  });

  test("FAIL then PASS, both signed over the chain: flip, no problems; what follows is not covered", () => {
    const s = sessionFile();
    s.add(start, user, assistant);
    s.verdict(1, "FAIL");
    s.add(assistant);
    s.verdict(2, "PASS");
    s.add({ type: "session_end", reason: "exit", outcome: "flip" });
    const a = outcome(s);
    expect(a.outcome).toBe("flip");
    expect(a.problems).toEqual([]);
    expect(a.notes.map((n) => n.problem)).toEqual(["line 7 comes after the last signed verdict: not covered by a verdict"]);
  });

  test("without a public key: unverified, never flip", () => {
    const s = sessionFile();
    s.add(start);
    s.verdict(1, "PASS");
    expect(outcome(s, null).outcome).toBe("unverified");
  });

  test("signed by another key: unverified", () => {
    const s = sessionFile();
    s.add(start);
    s.verdict(1, "PASS", {}, other.priv);
    expect(outcome(s).outcome).toBe("unverified");
  });

  test("a stated field that differs from the signed payload: unverified, reported at its line", () => {
    for (const [field, value] of [["verdict", "PASS"], ["attempt", 9], ["task_id", "x"], ["base_commit", "c".repeat(40)], ["diff_sha256", "e".repeat(64)], ["tests_hash", "z"], ["chain_head", "f".repeat(64)]] as const) {
      const s = sessionFile();
      s.add(start);
      const v = s.verdict(1, "FAIL");
      const lines = s.lines();
      lines[1] = lines[1]!.replace(JSON.stringify({ [field]: (v as any)[field] }).slice(1, -1), JSON.stringify({ [field]: value }).slice(1, -1));
      s.write(lines);
      const a = outcome(s);
      expect(a.outcome).toBe("unverified");
      expect(a.problems.some((p) => p.line === 2)).toBe(true);
    }
  });

  test("a forged record (signed: null, verified: true) after a FAIL is a problem and never a flip", () => {
    const s = sessionFile();
    s.add(start);
    s.verdict(1, "FAIL");
    s.add({ type: "oracle_verdict", attempt: 2, verdict: "PASS", tests_hash: "h", signed: null, verified: true, decision: "allow" });
    const a = outcome(s);
    expect(a.outcome).toBe("unverified");
    expect(a.problems.map((p) => p.line)).toContain(3);
  });

  test("the same signed verdict twice (a replay) counts for neither", () => {
    const s = sessionFile();
    s.add(start);
    s.verdict(1, "PASS");
    const lines = s.lines();
    s.write([...lines, lines[1]!]);
    expect(outcome(s).outcome).toBe("unverified");
    expect(outcome(s).problems.some((p) => p.problem.includes("replay"))).toBe(true);
  });

  test("a record edited, removed, reordered or inserted before the verdict breaks the chain: unverified", () => {
    const edits: ((l: string[]) => string[])[] = [
      (l) => [l[0]!, l[1]!.replace("do it", "do that"), ...l.slice(2)],
      (l) => [l[0]!, ...l.slice(2)],
      (l) => [l[0]!, l[2]!, l[1]!, ...l.slice(3)],
      (l) => [l[0]!, l[1]!, l[1]!.replace("do it", "extra"), ...l.slice(2)],
    ];
    for (const edit of edits) {
      const s = sessionFile();
      s.add(start, user, assistant);
      s.verdict(1, "PASS");
      expect(outcome(s).outcome).toBe("flip");
      s.write(edit(s.lines()));
      const a = outcome(s);
      expect(a.outcome).toBe("unverified");
      expect(a.problems.length).toBeGreaterThan(0);
    }
  });

  test("an oracle error is no_flip; a PASS in an earlier turn does not outlive a later FAIL", () => {
    const s = sessionFile();
    s.add(start, user, { type: "oracle_verdict", attempt: 1, verdict: "ERROR", tests_hash: null, signed: null, verified: false, decision: "allow" });
    expect(outcome(s).outcome).toBe("no_flip");
    const t = sessionFile();
    t.add(start, user);
    t.verdict(1, "PASS");
    t.add(user);
    t.verdict(2, "FAIL", { decision: "allow" });
    expect(outcome(t).outcome).toBe("no_flip");
  });

  test("the cap, read from the last (verified) FAIL's record", () => {
    const s = sessionFile();
    s.add(start, user);
    s.verdict(1, "FAIL", { blocks_in_row: 9, block_cap: 8, outcome: "cap" });
    expect(outcome(s).outcome).toBe("cap");
  });

  test("every outcome is in the session_end schema's enum", () => {
    const schema = JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "schema", "records", "session_end.schema.json"), "utf8"));
    expect(schema.properties.outcome.enum).toEqual([...OUTCOMES]);
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
    expect(s.pending).toEqual({ job_id: "j1", attempt: 1, diff_sha256: "d", submitted_at: "2026-01-01T00:00:00.000Z", polls: 1, chain_head: null });
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
