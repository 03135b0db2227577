/**
 * The reference oracle, as a real `tracegate oracle serve` process on
 * 127.0.0.1 against a real git repository.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { testsHashOfList } from "../../lib/oracle/run.ts";
import { keyIdOf, sha256Hex, verifyVerdict } from "../../lib/oracle/verdict.ts";
import { AUTH, cleanup, cliArgv, diffOf, keygen, makeTaskRepo, postJson, serve, tempDir, type Served } from "./support.ts";

let dir: string;
let repo: string;
let base: string;
let keys: ReturnType<typeof keygen>;
let a: Served; // the everyday oracle
let b: Served; // tight limits: no queue, 1 s timeout, a tests list
let jobTmp: string;
const TEST_CMD = "sh check.sh";
let envProbe: string;

beforeAll(async () => {
  dir = tempDir();
  // The sandbox user (65534, when the tests run as root) must be able to reach the job directories.
  require("node:fs").chmodSync(dir, 0o711);
  ({ repo, base } = makeTaskRepo(dir));
  keys = keygen(dir);
  jobTmp = join(dir, "jobs");
  require("node:fs").mkdirSync(jobTmp);
  envProbe = join(dir, "env.txt");
  // What the test command sees: TRACEGATE_INTERNAL=1 and an empty stdin (not a pipe left open); else it fails.
  const probeCmd = `test "$TRACEGATE_INTERNAL" = 1 && test -z "$(cat)" && ${TEST_CMD}`;
  a = await serve(["--repo", repo, "--test-cmd", probeCmd, "--key", keys.keyFile, "--max-diff-bytes", "20000"], { TMPDIR: jobTmp });
  b = await serve(["--repo", repo, "--test-cmd", TEST_CMD, "--key", keys.keyFile, "--queue", "0", "--timeout", "1", "--tests-list", "printf 'b\\na\\n\\nb\\n'"]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  cleanup(dir);
});

function request(diff: string, attempt = 1, session_id = "sess-1") {
  return { task_id: "task-42", session_id, repo: "example/task", base_commit: base, diff, chain_head: "c".repeat(64), attempt };
}

function binding(req: ReturnType<typeof request>) {
  return { task_id: req.task_id, session_id: req.session_id, base_commit: req.base_commit, diff_sha256: sha256Hex(req.diff), chain_head: req.chain_head, attempt: req.attempt };
}

describe("keygen", () => {
  test("writes a 0600 PKCS8 private key and an SPKI public key", () => {
    expect(statSync(keys.keyFile).mode & 0o777).toBe(0o600);
    expect(keys.priv).toStartWith("-----BEGIN PRIVATE KEY-----");
    expect(keys.pub).toStartWith("-----BEGIN PUBLIC KEY-----");
  });

  test("refuses to overwrite an existing key pair", () => {
    const r = Bun.spawnSync([...cliArgv(), "oracle", "keygen", "--out", join(dir, "keys")]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.toString()).toContain("already exists");
    expect(readFileSync(keys.keyFile, "utf8")).toBe(keys.priv);
  });
});

describe("verdicts", () => {
  test("GET /v1/key and /healthz", async () => {
    const key = await (await fetch(`${a.url}/v1/key`)).json();
    expect(key).toEqual({ key_id: keyIdOf(keys.pub), public_key: keys.pub });
    expect((await (await fetch(`${a.url}/healthz`)).json()) as any).toMatchObject({ ok: true });
  });

  test("a diff that makes the tests pass: 200, signed PASS that verifies", async () => {
    const req = request(diffOf(repo, { "answer.txt": "42\n" }));
    const r = await postJson(`${a.url}/v1/verdicts`, req);
    expect(r.status).toBe(200);
    expect(r.body.verdict).toBe("PASS");
    expect(r.body.tests_hash).toBe(sha256Hex(`test "$TRACEGATE_INTERNAL" = 1 && test -z "$(cat)" && ${TEST_CMD}`));
    expect(verifyVerdict(r.body, keys.pub, binding(req))).toEqual({ verified: true });
    // The probe in the test command passed: TRACEGATE_INTERNAL=1 and an empty, closed stdin.
  });

  test("a diff that does not: signed FAIL", async () => {
    const req = request(diffOf(repo, { "answer.txt": "41\n" }), 2);
    const r = await postJson(`${a.url}/v1/verdicts`, req);
    expect(r.status).toBe(200);
    expect(r.body.verdict).toBe("FAIL");
    expect(verifyVerdict(r.body, keys.pub, binding(req)).verified).toBe(true);
  });

  test("an empty diff is judged as the base commit (FAIL here)", async () => {
    const r = await postJson(`${a.url}/v1/verdicts`, request("", 3));
    expect(r.status).toBe(200);
    expect(r.body.verdict).toBe("FAIL");
  });

  test("a diff that does not apply: signed FAIL, not an error", async () => {
    const bad = "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-not what the file says\n+42\n";
    const req = request(bad, 4);
    const r = await postJson(`${a.url}/v1/verdicts`, req);
    expect(r.status).toBe(200);
    expect(r.body.verdict).toBe("FAIL");
    expect(verifyVerdict(r.body, keys.pub, binding(req)).verified).toBe(true);
    expect(await a.proc.exitCode).toBeNull();
  });

  test("every job's temporary checkout is removed", async () => {
    expect(readdirSync(jobTmp)).toEqual([]);
  });

  test("the source repository is untouched: no worktrees, no new refs, clean status", () => {
    const { git } = require("./support.ts");
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(git(repo, "worktree", "list").split("\n")).toHaveLength(1);
    expect(existsSync(join(repo, "answer.txt"))).toBe(false);
  });

  test("a slow test run: 202 with a job id, 202 while running, then 200 with the verdict", async () => {
    const req = request(diffOf(repo, { "answer.txt": "42\n", slow: "2" }), 5);
    const r = await postJson(`${a.url}/v1/verdicts`, req, { prefer: "wait=0" });
    expect(r.status).toBe(202);
    expect(r.body.job_id).toBeString();
    const first = await fetch(`${a.url}/v1/verdicts/${r.body.job_id}`, { headers: AUTH });
    expect(first.status).toBe(202);
    expect(await first.json()).toMatchObject({ job_id: r.body.job_id });
    let final: Response | undefined;
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${a.url}/v1/verdicts/${r.body.job_id}`, { headers: AUTH });
      if (res.status !== 202) {
        final = res;
        break;
      }
      await Bun.sleep(100);
    }
    expect(final?.status).toBe(200);
    const signed = (await final!.json()) as any;
    expect(signed.verdict).toBe("PASS");
    expect(verifyVerdict(signed, keys.pub, binding(req)).verified).toBe(true);
  });
});

describe("error answers carry a JSON body", () => {
  const cases: [string, () => Promise<{ status: number; body: any }>, number][] = [
    ["not JSON", () => postJson(`${a.url}/v1/verdicts`, "{nope"), 400],
    ["an array", () => postJson(`${a.url}/v1/verdicts`, "[]"), 400],
    ["missing diff", () => postJson(`${a.url}/v1/verdicts`, { ...request(""), diff: undefined }), 400],
    ["attempt 0", () => postJson(`${a.url}/v1/verdicts`, { ...request(""), attempt: 0 }), 400],
    ["abbreviated base commit", () => postJson(`${a.url}/v1/verdicts`, { ...request(""), base_commit: base.slice(0, 12) }), 400],
    ["option-like base commit", () => postJson(`${a.url}/v1/verdicts`, { ...request(""), base_commit: "--output=/tmp/x" }), 400],
    ["diff over --max-diff-bytes", () => postJson(`${a.url}/v1/verdicts`, request("x".repeat(20_001))), 413],
    ["unknown base commit", () => postJson(`${a.url}/v1/verdicts`, { ...request(""), base_commit: "0123456789abcdef0123456789abcdef01234567" }), 422],
  ];
  for (const [name, send, status] of cases) {
    test(`${name} -> ${status}`, async () => {
      const r = await send();
      expect(r.status).toBe(status);
      expect(typeof r.body.error).toBe("string");
    });
  }

  test("unknown job -> 404, GET on the POST route -> 405, unknown path -> 404", async () => {
    const unknown = await fetch(`${a.url}/v1/verdicts/no-such-job`, { headers: AUTH });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error).toBeString();
    expect((await fetch(`${a.url}/v1/verdicts`, { headers: AUTH })).status).toBe(405);
    expect((await fetch(`${a.url}/nope`)).status).toBe(404);
  });
});

describe("limits", () => {
  test("a test command past --timeout is a FAIL; the tests list sets tests_hash (sorted, de-duplicated)", async () => {
    const req = request(diffOf(repo, { "answer.txt": "42\n", slow: "30" }), 1, "sess-b");
    const started = Date.now();
    const r = await postJson(`${b.url}/v1/verdicts`, req);
    expect(r.status).toBe(200);
    expect(r.body.verdict).toBe("FAIL");
    expect(r.body.tests_hash).toBe(testsHashOfList("a\nb\n"));
    expect(verifyVerdict(r.body, keys.pub, binding(req)).verified).toBe(true);
    // Killed at the limit, not after the 30 s sleep (a generous bound, not a timing assertion).
    expect(Date.now() - started).toBeLessThan(25_000);
  });

  test("with the one slot busy and --queue 0, the next request gets 503", async () => {
    const slow = request(diffOf(repo, { "answer.txt": "42\n", slow: "30" }), 2, "sess-b");
    const first = await postJson(`${b.url}/v1/verdicts`, slow, { prefer: "wait=0" });
    expect(first.status).toBe(202);
    const second = await postJson(`${b.url}/v1/verdicts`, request("", 3, "sess-b"));
    expect(second.status).toBe(503);
    expect(second.body.error).toContain("queue");
  });
});
