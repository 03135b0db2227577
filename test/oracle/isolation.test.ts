/**
 * The reference oracle does not run agent code with its own privileges
 * (issue 10, part 2): the compiled `dist/tracegate oracle serve` against a
 * real task repository, with diffs that replace the task's test script by an
 * attack. The attack script exits 0 (PASS) only if the attack worked, so
 * every attack must come back FAIL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { BINARY } from "../support/tracegate.ts";
import { AUTH, bwrapWorks, cleanup, diffOf, keygen, makeTaskRepo, postJson, serve, tempDir, TEST_TOKEN, type Served } from "./support.ts";

let dir: string;
let repo: string;
let base: string;
let keys: ReturnType<typeof keygen>;
let oracle: Served;
let limited: Served;
let attempt = 0;
const sandbox = bwrapWorks();

beforeAll(async () => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`npm run build\``);
  dir = tempDir("tg-iso-");
  chmodSync(dir, 0o711);
  ({ repo, base } = makeTaskRepo(dir));
  keys = keygen(dir);
  const common = ["--repo", repo, "--test-cmd", "sh check.sh", "--key", keys.keyFile, "--token-file", keys.tokenFile];
  oracle = await serve([...common, "--cpu", "2", "--memory", "256"], {}, [BINARY]);
  limited = await serve([...common, "--protect", "check.sh", "--protect", "tests/**", "--cpu", "1", "--max-attempts", "2", "--keep-jobs", "2"], {}, [BINARY]);
});

afterAll(async () => {
  await Promise.all([oracle?.stop(), limited?.stop()]);
  cleanup(dir);
});

function request(diff: string, session_id = "sess-iso") {
  return { task_id: "task-42", session_id, repo: null, base_commit: base, diff, chain_head: "c".repeat(64), attempt: ++attempt };
}

async function verdictFor(s: Served, files: Record<string, string>, session?: string): Promise<{ status: number; body: any }> {
  return postJson(`${s.url}/v1/verdicts`, request(diffOf(repo, files), session), { authorization: `Bearer ${keys.token}` });
}

/** A check.sh that passes only when `attack` succeeds. */
const attackScript = (attack: string) => `set -u\n( ${attack} ) >/dev/null 2>&1 && exit 0\nexit 1\n`;

describe.if(sandbox)("a test command cannot reach the oracle's secrets", () => {
  test("the control: the same mechanism passes when the script just succeeds", async () => {
    const r = await verdictFor(oracle, { "check.sh": attackScript("true") });
    expect(r.status).toBe(200);
    expect(r.body.verdict).toBe("PASS");
  });

  test("the key file (--key) is not readable", async () => {
    const r = await verdictFor(oracle, { "check.sh": attackScript(`cat ${keys.keyFile}`) });
    expect(r.body.verdict).toBe("FAIL");
  });

  test("the oracle process is invisible: no command line naming --key, no memory map", async () => {
    const find = `for p in /proc/[0-9]*; do if tr '\\0' ' ' < $p/cmdline | grep -q -- "${keys.keyFile}"; then head -c 64 $p/maps >/dev/null && exit 0; fi; done; exit 1`;
    const r = await verdictFor(oracle, { "check.sh": attackScript(find) });
    expect(r.body.verdict).toBe("FAIL");
    const pid = `cat /proc/${oracle.proc.pid}/cmdline | tr '\\0' ' ' | grep -q -- --key`;
    expect((await verdictFor(oracle, { "check.sh": attackScript(pid) })).body.verdict).toBe("FAIL");
    // Its memory, read the way a debugger would: the first mapped byte through /proc/PID/mem.
    const mem = `p=${oracle.proc.pid}; a=$(head -1 /proc/$p/maps | cut -d- -f1); test "$(dd if=/proc/$p/mem bs=1 count=1 skip=$((0x$a)) 2>/dev/null | wc -c)" = 1`;
    expect((await verdictFor(oracle, { "check.sh": attackScript(mem) })).body.verdict).toBe("FAIL");
  });

  test("--repo is neither visible nor writable, and the checkout borrows nothing from it", async () => {
    expect((await verdictFor(oracle, { "check.sh": attackScript(`ls ${repo}/.git`) })).body.verdict).toBe("FAIL");
    expect((await verdictFor(oracle, { "check.sh": attackScript(`touch ${repo}/.git/objects/pwned`) })).body.verdict).toBe("FAIL");
    expect((await verdictFor(oracle, { "check.sh": attackScript("test -e .git/objects/info/alternates") })).body.verdict).toBe("FAIL");
    expect(existsSync(join(repo, ".git", "objects", "pwned"))).toBe(false);
  });

  test("no network: the oracle's own port cannot be reached", async () => {
    const port = new URL(oracle.url).port;
    const r = await verdictFor(oracle, { "check.sh": attackScript(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}'`) });
    expect(r.body.verdict).toBe("FAIL");
  });

  test("an unprivileged user; system directories read-only", async () => {
    const uid = process.getuid!();
    expect((await verdictFor(oracle, { "check.sh": attackScript(`test "$(id -u)" = ${uid}`) })).body.verdict).toBe("FAIL");
    expect((await verdictFor(oracle, { "check.sh": attackScript("test \"$(id -u)\" = 0") })).body.verdict).toBe("FAIL");
    expect((await verdictFor(oracle, { "check.sh": attackScript("touch /usr/tg-pwned || touch /etc/tg-pwned") })).body.verdict).toBe("FAIL");
    expect(existsSync("/usr/tg-pwned") || existsSync("/etc/tg-pwned")).toBe(false);
    // The checkout itself is writable: tests that build things still work.
    expect((await verdictFor(oracle, { "check.sh": attackScript("touch built && test -f built") })).body.verdict).toBe("PASS");
  });

  test("--cpu: a test command past its CPU time is killed and FAILs", async () => {
    const r = await verdictFor(oracle, { "check.sh": "echo 42 > answer.txt\nwhile :; do :; done\n" }, "sess-cpu");
    expect(r.status).toBe(200);
    expect(r.body.verdict).toBe("FAIL");
  });
});

describe.if(sandbox && process.getuid?.() === 0)("the setpriv mode (a root oracle on a host without unprivileged user namespaces)", () => {
  test("the same attacks fail: key, --repo, network, root", async () => {
    const alt = await serve(["--repo", repo, "--test-cmd", "sh check.sh", "--key", keys.keyFile, "--token-file", keys.tokenFile], { TRACEGATE_SANDBOX_MODE: "setpriv" }, [BINARY]);
    try {
      const port = new URL(alt.url).port;
      expect((await verdictFor(alt, { "check.sh": attackScript("true") })).body.verdict).toBe("PASS");
      for (const attack of [`cat ${keys.keyFile}`, `ls ${repo}/.git`, `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}'`, 'test "$(id -u)" = 0', "cat /etc/shadow", `for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline | grep -q -- "${keys.keyFile}" && exit 0; done; exit 1`]) {
        expect({ attack, verdict: (await verdictFor(alt, { "check.sh": attackScript(attack) })).body.verdict }).toEqual({ attack, verdict: "FAIL" });
      }
    } finally {
      await alt.stop();
    }
    expect(await alt.stderr()).toContain("setpriv");
  });
});

describe.if(sandbox)("memory", () => {
  test("--memory: an allocation past the address-space limit fails; a small one works", async () => {
    const alloc = (bytes: number) => attackScript(`awk 'BEGIN { s = "x"; while (length(s) < ${bytes}) s = s s; exit length(s) >= ${bytes} ? 0 : 1 }'`);
    expect((await verdictFor(oracle, { "check.sh": alloc(1_000_000) })).body.verdict).toBe("PASS");
    expect((await verdictFor(oracle, { "check.sh": alloc(600_000_000) })).body.verdict).toBe("FAIL");
  });
});

describe.if(sandbox)("processes", () => {
  test("--procs: forks past the limit fail, a fork bomb is contained, and the oracle goes on", async () => {
    const few = await serve(["--repo", repo, "--test-cmd", "sh check.sh", "--key", keys.keyFile, "--token-file", keys.tokenFile, "--procs", "24", "--timeout", "20"], {}, [BINARY]);
    try {
      // PASS only if every fork worked: 8 sleepers fit under 24, 64 do not.
      const forks = (n: number) => `for i in $(seq 1 ${n}); do sleep 2 & done 2>err.txt\nwait\ngrep -qi fork err.txt && exit 1\nexit 0\n`;
      expect((await verdictFor(few, { "check.sh": forks(8) })).body.verdict).toBe("PASS");
      expect((await verdictFor(few, { "check.sh": forks(64) })).body.verdict).toBe("FAIL");
      // The classic bomb: with no limit it takes the host down. Here it runs into the limit, the job
      // ends (its time limit at worst), and the next job is served as usual.
      const bomb = await verdictFor(few, { "check.sh": "b() { b | b & }; b\nsleep 1\nexit 1\n" });
      expect(bomb.status).toBe(200);
      expect(bomb.body.verdict).toBe("FAIL");
      expect((await verdictFor(few, { "check.sh": forks(8) })).body.verdict).toBe("PASS");
    } finally {
      await few.stop();
    }
  }, 120_000);
});

describe("--protect: the task's tests are the oracle's", () => {
  test("without --protect the agent can rewrite the test script (documented)", async () => {
    const r = await verdictFor(oracle, { "check.sh": "exit 0\n" });
    expect(r.body.verdict).toBe("PASS");
  });

  test("with --protect a rewritten test script and an added protected file are undone, and the job log says so", async () => {
    const r = await verdictFor(limited, { "check.sh": "exit 0\n", "tests/extra.sh": "exit 0\n" }, "sess-protect");
    expect(r.status).toBe(200);
    expect(r.body.verdict).toBe("FAIL");
    // The right answer still passes under the restored script.
    const ok = await verdictFor(limited, { "check.sh": "exit 0\n", "answer.txt": "42\n" }, "sess-protect");
    expect(ok.body.verdict).toBe("PASS");
  });
});

test("a base commit on no branch of --repo is still a base (the job fetches exactly that commit)", async () => {
  const { git } = await import("./support.ts");
  git(repo, "checkout", "-q", "--detach");
  require("node:fs").writeFileSync(join(repo, "answer.txt"), "42\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "dangling");
  const dangling = git(repo, "rev-parse", "HEAD");
  git(repo, "checkout", "-q", "main");
  const r = await postJson(`${oracle.url}/v1/verdicts`, { ...request(""), base_commit: dangling }, { authorization: `Bearer ${keys.token}` });
  expect(r.status).toBe(200);
  expect(r.body.verdict).toBe("PASS");
});

describe("credentials and limits", () => {
  test("no token, a wrong token: 401; the right one: accepted", async () => {
    const body = request(diffOf(repo, { "answer.txt": "42\n" }), "sess-token");
    expect((await postJson(`${oracle.url}/v1/verdicts`, body, { authorization: "" })).status).toBe(401);
    expect((await postJson(`${oracle.url}/v1/verdicts`, body, { authorization: `Bearer ${TEST_TOKEN}` })).status).toBe(401);
    expect((await postJson(`${oracle.url}/v1/verdicts`, body, { authorization: `Bearer ${keys.token}x` })).status).toBe(401);
    expect((await fetch(`${oracle.url}/v1/verdicts/any`, { headers: AUTH })).status).toBe(401);
    expect((await postJson(`${oracle.url}/v1/verdicts`, body, { authorization: `Bearer ${keys.token}` })).status).toBe(200);
  });

  test("--max-attempts per (task, session): the third request is refused with 429, another session is not", async () => {
    const diff = { "answer.txt": "1\n" };
    expect((await verdictFor(limited, diff, "sess-limit")).status).toBe(200);
    expect((await verdictFor(limited, diff, "sess-limit")).status).toBe(200);
    const third = await verdictFor(limited, diff, "sess-limit");
    expect(third.status).toBe(429);
    expect(third.body.error).toContain("attempts");
    expect((await verdictFor(limited, diff, "sess-limit-2")).status).toBe(200);
  });

  test("--keep-jobs: finished jobs beyond the bound are dropped, oldest first", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await postJson(`${limited.url}/v1/verdicts`, request(diffOf(repo, { "answer.txt": `${i}\n` }), `sess-keep-${i}`), {
        authorization: `Bearer ${keys.token}`,
        prefer: "wait=0",
      });
      expect([200, 202]).toContain(r.status);
      ids.push(r.body.job_id ?? "");
      // Wait for it to finish so it counts as finished.
      for (let j = 0; j < 100 && r.body.job_id; j++) {
        const g = await fetch(`${limited.url}/v1/verdicts/${r.body.job_id}`, { headers: { authorization: `Bearer ${keys.token}` } });
        if (g.status !== 202) break;
        await Bun.sleep(50);
      }
    }
    const first = await fetch(`${limited.url}/v1/verdicts/${ids[0]}`, { headers: { authorization: `Bearer ${keys.token}` } });
    const last = await fetch(`${limited.url}/v1/verdicts/${ids[2]}`, { headers: { authorization: `Bearer ${keys.token}` } });
    expect(first.status).toBe(404);
    expect(last.status).toBe(200);
  });
});

test("--keep-bytes: finished answers beyond the byte bound are dropped, oldest first", async () => {
  const small = await serve(["--repo", repo, "--test-cmd", "sh check.sh", "--key", keys.keyFile, "--token-file", keys.tokenFile, "--keep-bytes", "1024"], {}, [BINARY]);
  try {
    const auth = { authorization: `Bearer ${keys.token}` };
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await postJson(`${small.url}/v1/verdicts`, request(diffOf(repo, { "answer.txt": `${i}\n` }), `sess-bytes-${i}`), { ...auth, prefer: "wait=0" });
      ids.push(r.body.job_id ?? "");
      for (let j = 0; j < 100; j++) {
        if ((await fetch(`${small.url}/v1/verdicts/${ids[i]}`, { headers: auth })).status !== 202) break;
        await Bun.sleep(50);
      }
    }
    // One signed answer (~600 bytes) plus its bookkeeping fits in 1 KiB; two do not.
    expect((await fetch(`${small.url}/v1/verdicts/${ids[0]}`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${small.url}/v1/verdicts/${ids[1]}`, { headers: auth })).status).toBe(200);
  } finally {
    await small.stop();
  }
});

describe("without bubblewrap", () => {
  test("serve refuses to start unless --no-sandbox, which it then prints on every job", async () => {
    const args = ["oracle", "serve", "--port", "0", "--repo", repo, "--test-cmd", "sh check.sh", "--key", keys.keyFile, "--token-file", keys.tokenFile];
    const env = { ...process.env, TRACEGATE_BWRAP: join(dir, "no-such-bwrap") };
    const refused = Bun.spawnSync([BINARY, ...args], { env });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr.toString()).toContain("--no-sandbox");
    expect(refused.stdout.toString()).toBe("");
    const open = await serve([...args.slice(4), "--no-sandbox"], { TRACEGATE_BWRAP: join(dir, "no-such-bwrap") }, [BINARY]);
    try {
      const r = await postJson(`${open.url}/v1/verdicts`, request(diffOf(repo, { "answer.txt": "42\n" }), "sess-open"), { authorization: `Bearer ${keys.token}` });
      expect(r.body.verdict).toBe("PASS");
    } finally {
      await open.stop();
    }
    const log = await open.stderr();
    expect(log).toContain("--no-sandbox");
    expect(log).toMatch(/job \S+ WARNING: running the test command WITHOUT a sandbox/);
  });

  test("serve refuses to start without a token", () => {
    const r = Bun.spawnSync([BINARY, "oracle", "serve", "--port", "0", "--repo", repo, "--test-cmd", "true", "--key", keys.keyFile, "--no-sandbox"], {
      env: { ...process.env, TRACEGATE_ORACLE_TOKEN: "" },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.toString()).toContain("--token-file");
  });
});

test("the job log names the protected paths a diff touched", async () => {
  await limited.stop();
  const log = await limited.stderr();
  expect(log).toContain('the diff touched protected paths, restored from the base commit: "check.sh" "tests/extra.sh"');
});

test("every job's checkout is removed", () => {
  expect(readdirSync(dir).filter((n) => n.startsWith("tracegate-oracle-"))).toEqual([]);
});
