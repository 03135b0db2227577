/**
 * `tracegate export` end to end: sessions made by the compiled binary's hooks
 * and the real Stop gate against real `tracegate oracle serve` processes,
 * then forged, replayed, corrupted and annotated the way a hostile host
 * would, and exported. Every file the export writes is checked: the right
 * sessions, the right reasons, no secret, valid ATIF.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import { BLOCK_REASON } from "../../lib/gate/decide.ts";
import { cleanup, keygen, makeTaskRepo, serve, tempDir, TEST_TOKEN, type Served } from "../oracle/support.ts";
import { BINARY, run } from "../support/tracegate.ts";
import { makeStore, playSession, type Store } from "./support.ts";
import { rgw } from "../support/rgw.ts";
import { mkdirSync } from "node:fs";

const GHP = `ghp_${"k7Qx2mZ9".repeat(4)}abcd`;

let dir: string;
let taskRepo: string;
let keyA: ReturnType<typeof keygen>;
let keyB: ReturnType<typeof keygen>;
let oracleA: Served;
let oracleB: Served;
let main: Store;
let plain: Store;

const oracleConfig = (o: Served, pub: string, extra: Record<string, unknown> = {}) => ({
  oracle: { url: o.url, public_key: pub, token: TEST_TOKEN, timeout_s: 30, on_error: "allow" },
  gate: { max_attempts: 3 },
  task_id: "task-42",
  ...extra,
});

function sessionFile(store: Store, id: string): string {
  return join(store.home, "sessions", `${id}.jsonl`);
}

function lines(path: string): string[] {
  return readFileSync(path, "utf8").split("\n").filter(Boolean);
}

async function exportRun(store: Store, args: string[]) {
  return run(["export", ...args], { env: store.env(), cwd: dir });
}

beforeAll(async () => {
  dir = tempDir("tg-export-");
  ({ repo: taskRepo } = makeTaskRepo(dir));
  keyA = keygen(join(dir, "a"));
  keyB = keygen(join(dir, "b"));
  oracleA = await serve(["--repo", taskRepo, "--test-cmd", "sh check.sh", "--key", keyA.keyFile], {}, [BINARY]);
  oracleB = await serve(["--repo", taskRepo, "--test-cmd", "sh check.sh", "--key", keyB.keyFile], {}, [BINARY]);
  main = makeStore(dir, "main", oracleConfig(oracleA, keyA.pubFile));
  const otherKey = makeStore(dir, "other-key", oracleConfig(oracleB, keyB.pubFile));
  plain = makeStore(dir, "plain", oracleConfig(oracleA, keyA.pubFile, { redact: { enabled: false } }));

  const w = (id: string) => join(dir, "work", id);
  // Genuine flips: FAIL, block, fix, PASS.
  for (const id of ["s-flip", "s-corrupt", "s-excluded"]) {
    await playSession(main, taskRepo, { id, work: w(id), attempts: [{ "answer.txt": "41\n" }, { "answer.txt": "42\n" }] });
  }
  // Never passes: three FAILs, the last one allowed by the attempt limit.
  await playSession(main, taskRepo, { id: "s-noflip", work: w("s-noflip"), attempts: [{ "answer.txt": "1\n" }, { "answer.txt": "2\n" }, { "answer.txt": "3\n" }] });
  // One FAIL, later edited on disk to PASS with its signature left as it was.
  await playSession(main, taskRepo, { id: "s-forged", work: w("s-forged"), attempts: [{ "answer.txt": "7\n" }] });
  // One FAIL, then another session's genuine PASS line copied in.
  await playSession(main, taskRepo, { id: "s-replay", work: w("s-replay"), attempts: [{ "answer.txt": "8\n" }] });
  // The oracle was never asked.
  await playSession(main, taskRepo, { id: "s-noverdict", work: w("s-noverdict"), attempts: [] });
  // A genuine PASS, but from an oracle whose key the exporter does not trust.
  await playSession(otherKey, taskRepo, { id: "s-otherkey", work: w("s-otherkey"), attempts: [{ "answer.txt": "42\n" }] });
  copyFileSync(sessionFile(otherKey, "s-otherkey"), sessionFile(main, "s-otherkey"));
  // Collected with redaction off (the user's choice): the token reaches disk, export must still remove it.
  await playSession(plain, taskRepo, { id: "s-secret", work: w("s-secret"), attempts: [{ "answer.txt": "42\n" }], toolOutput: `token=${GHP}\n42` });

  const forged = sessionFile(main, "s-forged");
  writeFileSync(forged, readFileSync(forged, "utf8").replace('"verdict":"FAIL"', '"verdict":"PASS"'));
  const pass = lines(sessionFile(main, "s-flip")).find((l) => l.includes('"type":"oracle_verdict"') && l.includes('"verdict":"PASS"'))!;
  appendFileSync(sessionFile(main, "s-replay"), `${pass}\n`);
  appendFileSync(sessionFile(main, "s-corrupt"), '{"type":"tool_call","session_id":"s-corrupt", torn\n');
  const r = await run(["annotate", "s-excluded", "--exclude"], { env: main.env() });
  expect(r.code).toBe(0);
}, 240_000);

afterAll(async () => {
  await Promise.all([oracleA?.stop(), oracleB?.stop()]);
  cleanup(dir);
});

describe("selection", () => {
  test("only the genuine flip is exported; every other session is reported with its reason, the forged ones flagged", async () => {
    const out = join(dir, "chat.jsonl");
    const report = join(dir, "report.json");
    const r = await exportRun(main, ["--format", "chat-jsonl", "--out", out, "--report", report]);
    expect(r.stderr).toContain("WARNING: 3 sessions have verdicts that do not verify");
    expect(r.code).toBe(0);
    const exported = lines(out).map((l) => JSON.parse(l));
    expect(exported.map((e) => e.metadata.session_id)).toEqual(["s-flip"]);
    const rep = JSON.parse(readFileSync(report, "utf8"));
    const reasons = Object.fromEntries(rep.sessions.map((s: any) => [s.session_id, s.reasons[0] ?? null]));
    expect(reasons).toEqual({
      "s-flip": null,
      "s-corrupt": "corrupt lines",
      "s-excluded": "excluded by annotation",
      "s-noflip": "not flipped",
      "s-forged": "unverified verdict",
      "s-replay": "unverified verdict",
      "s-noverdict": "no verdict",
      "s-otherkey": "unverified verdict",
    });
    expect(rep.flagged.sort()).toEqual(["s-forged", "s-otherkey", "s-replay"]);
    expect(rep.exported).toBe(1);
    expect(rep.excluded).toBe(7);
  });

  test("the stored lines still claim what a host could claim: the forged file says PASS", () => {
    // Guards the test above: the forgery is really on disk, so the exclusion is the audit's doing.
    expect(readFileSync(sessionFile(main, "s-forged"), "utf8")).toContain('"verdict":"PASS"');
    expect(readFileSync(sessionFile(main, "s-replay"), "utf8")).toContain('"verdict":"PASS"');
  });

  test("--only all adds the readable, verified sessions that did not flip, never the forged, corrupt or excluded", async () => {
    const out = join(dir, "all.jsonl");
    const r = await exportRun(main, ["--format", "chat-jsonl", "--out", out, "--only", "all"]);
    expect(r.code).toBe(0);
    const ids = lines(out).map((l) => JSON.parse(l).metadata.session_id).sort();
    expect(ids).toEqual(["s-flip", "s-noflip", "s-noverdict"]);
  });

  test("without a public key, export refuses with what to do", async () => {
    const bare = makeStore(dir, "bare", {});
    const r = await exportRun(bare, ["--format", "chat-jsonl"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--public-key");
    expect(r.stderr).toContain("oracle.public_key");
  });

  test("--public-key of another oracle flags the genuine flips too", async () => {
    const out = join(dir, "other.jsonl");
    const r = await exportRun(main, ["--format", "chat-jsonl", "--out", out, "--public-key", keyB.pubFile]);
    expect(r.code).toBe(0);
    expect(lines(out).map((l) => JSON.parse(l).metadata.session_id)).toEqual(["s-otherkey"]);
  });
});

describe("chat-jsonl", () => {
  test("one session is one example: prompt, tool call and result, final message, the gate's reason, the fix", async () => {
    const out = join(dir, "shape.jsonl");
    expect((await exportRun(main, ["--format", "chat-jsonl", "--out", out])).code).toBe(0);
    const [ex] = lines(out).map((l) => JSON.parse(l));
    const roles = ex.messages.map((m: any) => m.role);
    expect(roles).toEqual(["user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]);
    expect(ex.messages[0].content).toBe("write 42 into answer.txt");
    const call = ex.messages[1].tool_calls[0];
    expect(call.type).toBe("function");
    expect(call.function.name).toBe("Bash");
    expect(JSON.parse(call.function.arguments)).toEqual({ command: "cat answer.txt # attempt 1" });
    expect(ex.messages[2].tool_call_id).toBe(call.id);
    expect(ex.messages[2].content).toBe("41\n");
    expect(ex.messages[3].content).toBe("done (attempt 1)");
    expect(ex.messages[4].content).toBe(BLOCK_REASON);
    expect(ex.messages[7].content).toBe("done (attempt 2)");
    expect(ex.metadata.outcome).toBe("flip");
    expect(ex.metadata.harness).toBe("claude");
    expect(ex.metadata.task_id).toBe("task-42");
    expect(ex.metadata.verdicts.map((v: any) => [v.verdict, v.verified])).toEqual([["FAIL", true], ["PASS", true]]);
    expect(typeof ex.metadata.verdicts[1].signed.signature).toBe("string");
  });
});

describe("atif", () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(JSON.parse(readFileSync(join(import.meta.dir, "atif-v1.4.schema.json"), "utf8")));

  function atifProblems(t: any): string[] {
    const problems: string[] = [];
    if (!validate(t)) problems.push(...(validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));
    t.steps?.forEach((s: any, i: number) => {
      if (s.step_id !== i + 1) problems.push(`steps[${i}].step_id is ${s.step_id}`);
      const ids = new Set((s.tool_calls ?? []).map((c: any) => c.tool_call_id));
      for (const res of s.observation?.results ?? []) {
        if (res.source_call_id != null && !ids.has(res.source_call_id)) problems.push(`step ${s.step_id} observes ${res.source_call_id}`);
      }
    });
    return problems;
  }

  test("the validator rejects what the reference models reject", () => {
    expect(atifProblems({ schema_version: "ATIF-v1.4", session_id: "x", agent: { name: "a", version: "1" }, steps: [{ step_id: 2, source: "user", message: "", tool_calls: [] }] }).length).toBeGreaterThan(0);
    expect(atifProblems({ schema_version: "ATIF-v1.4", session_id: "x", agent: { name: "a", version: "1" }, steps: [], bogus: 1 }).length).toBeGreaterThan(0);
  });

  test("one valid trajectory per exported session, with task, harness, model, base commit, signed verdicts and outcome", async () => {
    const out = join(dir, "atif-out");
    const r = await exportRun(main, ["--format", "atif", "--out", out, "--only", "all"]);
    expect(r.code).toBe(0);
    const files = readdirSync(out).sort();
    expect(files).toEqual(["s-flip.json", "s-noflip.json", "s-noverdict.json"]);
    for (const f of files) {
      const t = JSON.parse(readFileSync(join(out, f), "utf8"));
      expect(atifProblems(t)).toEqual([]);
    }
    const t = JSON.parse(readFileSync(join(out, "s-flip.json"), "utf8"));
    expect(t.agent).toEqual({ name: "claude-code", version: "unknown", model_name: "claude-test-1" });
    expect(t.extra.tracegate.task_id).toBe("task-42");
    expect(t.extra.tracegate.harness).toBe("claude");
    expect(t.extra.tracegate.outcome).toBe("flip");
    expect(t.extra.tracegate.base_commit).toMatch(/^[0-9a-f]{40}$/);
    expect(t.extra.tracegate.verdicts).toHaveLength(2);
    expect(t.steps.map((s: any) => s.source)).toEqual(["user", "agent", "agent", "user", "agent", "agent"]);
    expect(t.steps[3].extra.tracegate.kind).toBe("gate_block");
  });

  test("atif into a directory that already holds files is refused", async () => {
    const out = join(dir, "atif-out");
    const r = await exportRun(main, ["--format", "atif", "--out", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("not empty");
  });
});

describe("second pass and scanner", () => {
  test("a token stored in clear (redaction was off) is not in the export and is counted", async () => {
    expect(readFileSync(sessionFile(plain, "s-secret"), "utf8")).toContain(GHP);
    const out = join(dir, "secret.jsonl");
    const report = join(dir, "secret-report.json");
    const r = await exportRun(plain, ["--format", "chat-jsonl", "--out", out, "--report", report]);
    expect(r.code).toBe(0);
    const text = readFileSync(out, "utf8");
    expect(lines(out)).toHaveLength(1);
    expect(text).not.toContain(GHP);
    expect(text).not.toContain(GHP.slice(4, 24));
    expect(text).toContain("[REDACTED:");
    expect(JSON.parse(readFileSync(report, "utf8")).second_pass.redacted).toBeGreaterThanOrEqual(1);
  });

  test("a scanner with findings stops the export: nothing is written and the report says why", async () => {
    const out = join(dir, "scanned.jsonl");
    const report = join(dir, "scan-report.json");
    const r = await exportRun(main, ["--format", "chat-jsonl", "--out", out, "--report", report, "--scanner", 'grep "answer.txt" >&2 && exit 1; exit 0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("reported findings");
    expect(existsSync(out)).toBe(false);
    const rep = JSON.parse(readFileSync(report, "utf8"));
    expect(rep.written).toBe(false);
    expect(rep.scanner.findings).toBeGreaterThanOrEqual(1);
    expect(readdirSync(dir).filter((n) => n.includes(".partial-"))).toEqual([]);
  });

  test("a scanner without findings lets it through", async () => {
    const out = join(dir, "scanned-ok.jsonl");
    const r = await exportRun(main, ["--format", "atif", "--out", out, "--scanner", "cat >/dev/null"]);
    expect(r.code).toBe(0);
    expect(readdirSync(out)).toEqual(["s-flip.json"]);
  });
});

describe("annotate", () => {
  test("an annotation is a new record; the session's earlier lines are byte for byte as they were", async () => {
    const file = sessionFile(main, "s-flip");
    const before = readFileSync(file, "utf8");
    const r = await run(["annotate", "s-flip", "--note", `checked by hand ${GHP}`], { env: main.env() });
    expect(r.code).toBe(0);
    const after = readFileSync(file, "utf8");
    expect(after.startsWith(before)).toBe(true);
    const added = JSON.parse(after.slice(before.length));
    expect(added.type).toBe("annotation");
    expect(added.note).not.toContain(GHP);
    // The annotation joins the hash chain: the session still verifies, the note is simply not covered by a verdict.
    const v = await run(["verify", "s-flip"], { env: main.env() });
    expect(new TextDecoder().decode(v.stdout)).toContain("not covered by a verdict");
    expect(v.code).toBe(0);
  });

  test("a record annotation must name a record the session has", async () => {
    const r = await run(["annotate", "s-flip", "--record", "nope", "--exclude"], { env: main.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no record");
  });

  test("without --exclude or --note it says what is missing", async () => {
    const r = await run(["annotate", "s-flip"], { env: main.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--exclude or --note");
  });
});

describe("--from a synced store", () => {
  /** Sync the main store to `url`, then export from it with a fresh, empty data dir: the same bytes as from the local dir. */
  async function roundTrip(url: string, env: Record<string, string>) {
    const up = await run(["sync", "--to", url], { env: main.env(env) });
    expect(up.stderr).toBe("");
    // The corrupt session's torn line is reported by sync (exit 1) and everything else goes up.
    expect([0, 1]).toContain(up.code ?? -1);
    const local = join(dir, `local-${Math.random().toString(36).slice(2)}.jsonl`);
    const remote = join(dir, `remote-${Math.random().toString(36).slice(2)}.jsonl`);
    const l = await exportRun(main, ["--format", "chat-jsonl", "--out", local, "--only", "all"]);
    expect(l.code).toBe(0);
    const fresh = makeStore(dir, `fresh-${Math.random().toString(36).slice(2)}`, oracleConfig(oracleA, keyA.pubFile));
    const r = await run(["export", "--format", "chat-jsonl", "--out", remote, "--only", "all", "--from", url], { env: fresh.env(env), cwd: dir });
    expect(r.code).toBe(0);
    expect(readdirSync(join(fresh.home))).not.toContain("sessions");
    expect(readFileSync(remote, "utf8")).toBe(readFileSync(local, "utf8"));
    expect(lines(remote).length).toBeGreaterThanOrEqual(3);
  }

  test("file:// store", async () => {
    const store = join(dir, "file-store");
    mkdirSync(store);
    await roundTrip(`file://${store}`, {});
  });

  test("s3:// on the real Ceph RGW", async () => {
    const server = await rgw();
    if (!server) return; // rgw() warned loudly (and throws under CI=true)
    const bucket = await server.bucket();
    await roundTrip(`s3://${bucket}/acme`, server.env());
  });
});
