/**
 * Issue 11 against the compiled binary: a hostile payload, data dir or
 * repository never hangs the hook, never loses the record, never makes it
 * write outside its data dir. Each case also checks that the next normal
 * event is recorded. Times are checked only against the declared timeout
 * (the invariant); bench/hostile prints the figures.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { closeSync, existsSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOOKS } from "../../lib/hook/subcommands.ts";
import { BINARY, baseEnv, cleanup, keyedPayloadDigest, postToolUse, recordsIn, run, tempDir } from "../support/tracegate.ts";

const TIMEOUT_MS = HOOKS["post-tool-use"].timeoutS * 1000;
const sha = (s: string | Uint8Array) => new Bun.CryptoHasher("sha256").update(s).digest("hex");

let root: string;
beforeAll(() => {
  root = tempDir("tg-hostile-");
});
afterAll(() => cleanup(root));

let n = 0;
/** A fresh data dir and config path per case. */
function fresh(): { home: string; env: Record<string, string> } {
  const home = join(root, `h${n++}`);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return { home, env: { TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "none.jsonc") } };
}

function mkfifo(path: string): void {
  const r = Bun.spawnSync(["mkfifo", path]);
  if (r.exitCode !== 0) throw new Error(`mkfifo ${path} failed`);
}

/** Run a hook with stdin bound to an open file descriptor (a file or a device), as `hook < path` does. */
async function runWithStdinFile(args: string[], path: string, env: Record<string, string>) {
  const fd = openSync(path, "r");
  const started = performance.now();
  try {
    const proc = Bun.spawn([BINARY, ...args], { stdin: fd, stdout: "pipe", stderr: "pipe", env: baseEnv(env) });
    const [stdout, code] = await Promise.all([new Response(proc.stdout).arrayBuffer(), proc.exited]);
    return { code, stdout: new Uint8Array(stdout), ms: performance.now() - started };
  } finally {
    closeSync(fd);
  }
}

async function nextEventRecorded(env: Record<string, string>, home: string, sid = "next-normal") {
  const r = await run(["post-tool-use"], { stdin: postToolUse(sid), env });
  expect(r.code).toBe(0);
  expect(recordsIn(home, `${sid}.jsonl`).map((x) => x.type)).toEqual(["tool_call"]);
}

describe("nothing lost", () => {
  test("a 100 KB payload nested 50,000 levels deep is recorded, its deep part kept as JSON text with the secret at the bottom redacted", async () => {
    const { home, env } = fresh();
    const depth = 50_000;
    const secret = `ghp_${"Zq8vR1xK4m".repeat(3)}abcdef`;
    const deep = `${"[".repeat(depth)}"bottom ${secret}"${"]".repeat(depth)}`;
    const payload = `{"session_id":"deep50k","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"x"},"tool_response":${deep}}`;
    expect(payload.length).toBeGreaterThan(100_000);
    const r = await run(["post-tool-use"], { stdin: payload, env });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(0);
    const recs = recordsIn(home, "deep50k.jsonl");
    expect(recs.map((x) => x.type)).toEqual(["tool_call"]);
    const rec = recs[0];
    expect(rec.tool_name).toBe("Bash");
    expect(rec.input).toEqual({ command: "x" });
    // Walk the kept levels down to the text that holds the rest.
    let node: unknown = rec.output;
    let kept = 0;
    while (Array.isArray(node)) {
      expect(node).toHaveLength(1);
      node = node[0];
      kept++;
    }
    expect(typeof node).toBe("string");
    const text = node as string;
    expect(kept).toBeGreaterThan(10);
    expect(text.startsWith("[".repeat(depth - kept))).toBe(true);
    expect(text.endsWith("]".repeat(depth - kept))).toBe(true);
    expect(text).toContain('"bottom ghp_[REDACTED:');
    expect(JSON.stringify(recs)).not.toContain(secret.slice(4, 20));
    await nextEventRecorded(env, home);
  }, 30_000);

  for (const [name, input] of [
    ["a top-level array", '[1,{"session_id":"arr-session"},3]'],
    ["a top-level number", "42"],
    ["a top-level string", '"hello \\u0041"'],
  ] as const) {
    test(`${name} is kept as a payload_cut record`, async () => {
      const { home, env } = fresh();
      const r = await run(["post-tool-use"], { stdin: input, env });
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBe(0);
      const recs = recordsIn(home);
      expect(recs).toHaveLength(1);
      expect(recs[0].type).toBe("payload_cut");
      expect(recs[0].reason).toBe("not_an_object");
      expect(recs[0].bytes).toBe(Buffer.byteLength(input));
      expect(recs[0].keyed_sha256).toBe(keyedPayloadDigest(home, input));
      expect(JSON.stringify(recs[0])).not.toContain(sha(input));
      expect(recs[0].event).toBe("PostToolUse");
      await nextEventRecorded(env, home);
    });
  }

  test('a real session called "unattributed" stays apart from the bucket for unattributable payloads', async () => {
    const { home, env } = fresh();
    await run(["post-tool-use"], { stdin: postToolUse("unattributed", { tool_use_id: "real" }), env });
    await run(["post-tool-use"], { stdin: "{not json at all", env });
    await run(["post-tool-use"], { stdin: postToolUse("", { tool_use_id: "no-id" }), env });
    const real = recordsIn(home, "unattributed.jsonl");
    expect(real.map((x) => [x.type, x.session_id, x.tool_use_id])).toEqual([["tool_call", "unattributed", "real"]]);
    const bucket = recordsIn(home, "_unattributed.jsonl");
    expect(bucket.map((x) => [x.type, x.session_id])).toEqual([
      ["payload_cut", ""],
      ["tool_call", ""],
    ]);
    expect(readdirSync(join(home, "sessions")).sort()).toEqual(["_unattributed.jsonl", "unattributed.jsonl"]);
  });
});

describe("never hangs, never past its cap", () => {
  test("/dev/zero as stdin ends inside the declared timeout with a payload_cut", async () => {
    const { home, env } = fresh();
    const r = await runWithStdinFile(["post-tool-use"], "/dev/zero", env);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(0);
    expect(r.ms).toBeLessThan(TIMEOUT_MS);
    const recs = recordsIn(home);
    expect(recs).toHaveLength(1);
    expect(recs[0].type).toBe("payload_cut");
    expect(recs[0].reason).toBe("stdin_cap");
    expect(recs[0].bytes).toBeGreaterThan(0);
    await nextEventRecorded(env, home);
  }, 30_000);

  test("a regular file as stdin is read and recorded like a pipe", async () => {
    const { home, env } = fresh();
    const file = join(home, "payload.json");
    writeFileSync(file, postToolUse("from-file"));
    const r = await runWithStdinFile(["post-tool-use"], file, env);
    expect(r.code).toBe(0);
    expect(recordsIn(home, "from-file.jsonl").map((x) => x.type)).toEqual(["tool_call"]);
  });

  test("a 60 MB payload dense with secrets ends inside the declared timeout and leaves a record, with no secret on disk", async () => {
    const { home, env } = fresh();
    const secret = (i: number) => `ghp_${i.toString(36).padStart(8, "0")}${"Zq8vR1xK4m".repeat(3)}ab`;
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < 60 * 1024 * 1024; i++) {
      const l = `GITHUB_TOKEN=${secret(i)} password=hunter${i}Zq8vR1x AKIA${"ABCDEFGH12345678".slice(0, 16)}\n`;
      lines.push(l);
      size += l.length;
    }
    const r = await run(["post-tool-use"], { stdin: postToolUse("dense", { tool_response: { stdout: lines.join("") } }), env });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(0);
    expect(r.ms).toBeLessThan(TIMEOUT_MS);
    const recs = recordsIn(home, "dense.jsonl");
    expect(recs).toHaveLength(1);
    // Either the whole record (redacted, cut) or, past the budget, a payload_cut saying what was cut.
    if (recs[0].type === "payload_cut") {
      // budget: parsing would not fit (no cut_type) or sanitising ran out (cut_type says what);
      // deadline: the hard timer came first on an overloaded machine.
      expect(["budget", "deadline"]).toContain(recs[0].reason);
      if (recs[0].cut_type !== undefined) expect(recs[0].cut_type).toBe("tool_call");
      expect(recs[0].bytes).toBeGreaterThan(60 * 1024 * 1024);
      expect(recs[0].keyed_sha256).toMatch(/^[0-9a-f]{64}$/);
    } else {
      expect(recs[0].type).toBe("tool_call");
      expect(recs[0].output.stdout.cut).toBe(true);
    }
    const disk = readFileSync(join(home, "sessions", "dense.jsonl"), "utf8");
    expect(disk).not.toContain(secret(0).slice(4));
    expect(disk).not.toContain("hunter0Zq8vR1x");
    await nextEventRecorded(env, home);
  }, 120_000);
});

test("output built to cost redaction (BEGIN lines with no END, values nested in values) is recorded whole inside the timeout", async () => {
  // Each 256 KB of these once cost redaction 0.7-1.4 s, so such output past a few hundred KB was
  // cut for the budget; now each costs what ordinary output costs, give or take tens of times.
  const { home, env } = fresh();
  const quarter = (unit: string) => unit.repeat(Math.ceil((256 * 1024) / unit.length)).slice(0, 256 * 1024);
  const secret = `ghp_${"Zq8vR1xK4m".repeat(3)}abcdef`;
  const stdout = [quarter("-----BEGIN CERTIFICATE-----\n"), quarter("token="), `\nGITHUB_TOKEN=${secret}\n`, quarter(":secret:"), quarter("-----BEGIN RSA PRIVATE KEY-----\n")].join("");
  const r = await run(["post-tool-use"], { stdin: postToolUse("costly", { tool_response: { stdout } }), env });
  expect(r.code).toBe(0);
  expect(r.stdout.length).toBe(0);
  expect(r.ms).toBeLessThan(TIMEOUT_MS);
  const recs = recordsIn(home, "costly.jsonl");
  expect(recs.map((x) => x.type)).toEqual(["tool_call"]);
  expect(readFileSync(join(home, "sessions", "costly.jsonl"), "utf8")).not.toContain(secret.slice(4));
  await nextEventRecorded(env, home);
}, 60_000);

describe("special files in the data dir", () => {
  for (const where of ["sessions/victim.jsonl", "errors.log", "redact.key"]) {
    test(`a FIFO at ${where} does not hang the hook`, async () => {
      const { home, env } = fresh();
      mkdirSync(join(home, "sessions"), { mode: 0o700 });
      mkfifo(join(home, where));
      // A secret makes the redactor need its key; invalid JSON makes the runtime log an error.
      const r = await run(["post-tool-use"], { stdin: postToolUse("victim", { tool_response: { stdout: "DB_PASSWORD=hunter22-Zq8vR1x" } }), env });
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBe(0);
      expect(r.ms).toBeLessThan(TIMEOUT_MS);
      const bad = await run(["post-tool-use"], { stdin: "{broken", env });
      expect(bad.code).toBe(0);
      expect(bad.ms).toBeLessThan(TIMEOUT_MS);
      expect(lstatSync(join(home, where)).isFIFO()).toBe(true);
      await nextEventRecorded(env, home);
    }, 30_000);
  }

  test("/dev/zero behind redact.key is refused: a per-process key, nothing read from it", async () => {
    const { home, env } = fresh();
    symlinkSync("/dev/zero", join(home, "redact.key"));
    const r = await run(["post-tool-use"], { stdin: postToolUse("zkey", { tool_response: { stdout: "DB_PASSWORD=hunter22-Zq8vR1x" } }), env });
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(TIMEOUT_MS);
    const [rec] = recordsIn(home, "zkey.jsonl");
    expect(JSON.stringify(rec)).toContain("[REDACTED:");
    expect(JSON.stringify(rec)).not.toContain("hunter22-Zq8vR1x");
  });
});

describe("special files in the repository", () => {
  function repo(): string {
    const dir = join(root, `repo${n++}`);
    mkdirSync(dir);
    const git = (...args: string[]) => Bun.spawnSync(["git", "-C", dir, ...args], { env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
    git("init", "-q");
    writeFileSync(join(dir, "a.txt"), "a\n");
    git("add", "a.txt");
    git("commit", "-qm", "one");
    git("pack-refs", "--all");
    return dir;
  }

  const replace = (path: string, how: "fifo" | "zero") => {
    Bun.spawnSync(["rm", "-f", path]);
    if (how === "fifo") mkfifo(path);
    else symlinkSync("/dev/zero", path);
  };

  for (const [file, how] of [
    ["HEAD", "fifo"],
    ["HEAD", "zero"],
    ["commondir", "fifo"],
    ["packed-refs", "fifo"],
    ["config", "fifo"],
    ["refs/heads/main", "fifo"],
  ] as const) {
    test(`.git/${file} as ${how === "fifo" ? "a FIFO" : "a symlink to /dev/zero"}: session-start ends in time and is recorded`, async () => {
      const { home, env } = fresh();
      const dir = repo();
      replace(join(dir, ".git", file), how);
      const sid = `git-${file.replace(/\W/g, "-")}-${how}`;
      const r = await run(["session-start"], { stdin: JSON.stringify({ session_id: sid, cwd: dir, hook_event_name: "SessionStart", source: "startup" }), env });
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBe(0);
      expect(r.ms).toBeLessThan(TIMEOUT_MS);
      const recs = recordsIn(home, `${sid}.jsonl`);
      expect(recs.map((x) => x.type)).toEqual(["session_start"]);
      await nextEventRecorded(env, home);
    }, 30_000);
  }
});

describe("never writes outside", () => {
  test("a symlinked session file, errors.log or sessions dir is refused and the victim untouched", async () => {
    const { home, env } = fresh();
    const victims = join(root, `victims${n++}`);
    mkdirSync(victims);
    writeFileSync(join(victims, "v1"), "keep\n");
    writeFileSync(join(victims, "v2"), "keep\n");
    mkdirSync(join(home, "sessions"), { mode: 0o700 });
    symlinkSync(join(victims, "v1"), join(home, "sessions", "linked.jsonl"));
    symlinkSync(join(victims, "v2"), join(home, "errors.log"));
    const r = await run(["post-tool-use"], { stdin: postToolUse("linked"), env });
    expect(r.code).toBe(0);
    await run(["post-tool-use"], { stdin: "{broken", env });
    expect(readFileSync(join(victims, "v1"), "utf8")).toBe("keep\n");
    expect(readFileSync(join(victims, "v2"), "utf8")).toBe("keep\n");

    // The sessions dir itself a symlink: nothing is written through it.
    const { home: home2, env: env2 } = fresh();
    const elsewhere = join(victims, "dir");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(home2, "sessions"));
    const r2 = await run(["post-tool-use"], { stdin: postToolUse("through"), env: env2 });
    expect(r2.code).toBe(0);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(readFileSync(join(home2, "errors.log"), "utf8")).toContain("ENOTDIR_REAL");
  });

  test("a hard link planted as a session file is refused", async () => {
    const { home, env } = fresh();
    const victim = join(root, `hard${n++}`);
    writeFileSync(victim, "keep\n");
    mkdirSync(join(home, "sessions"), { mode: 0o700 });
    linkSync(victim, join(home, "sessions", "hard.jsonl"));
    const r = await run(["post-tool-use"], { stdin: postToolUse("hard"), env });
    expect(r.code).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("keep\n");
    expect(readFileSync(join(home, "errors.log"), "utf8")).toContain("ELINKS");
  });

  test("a session_id that is a token is stored redacted, and the file is named from the redacted id", async () => {
    const { home, env } = fresh();
    const token = `ghp_${"Zq8vR1xK4m".repeat(3)}abcdef`;
    for (const id of ["1", "2"]) await run(["post-tool-use"], { stdin: postToolUse(token, { tool_use_id: id }), env });
    const names = readdirSync(join(home, "sessions"));
    expect(names).toHaveLength(1);
    expect(names[0]).not.toContain(token.slice(4, 12));
    const recs = recordsIn(home);
    expect(recs).toHaveLength(2);
    for (const rec of recs) {
      expect(rec.session_id).toContain("[REDACTED:");
      expect(rec.session_id).not.toContain(token.slice(4, 12));
    }
    expect(recs[0].session_id).toBe(recs[1].session_id);
  });

  test("a 10 MB session_id and hook_event_name make a record under the record cap", async () => {
    const { home, env } = fresh();
    const big = "s".repeat(10 * 1024 * 1024);
    const r = await run(["post-tool-use"], { stdin: postToolUse(big, { hook_event_name: big }), env });
    expect(r.code).toBe(0);
    const names = readdirSync(join(home, "sessions"));
    expect(names).toHaveLength(1);
    const size = statSync(join(home, "sessions", names[0]!)).size;
    expect(size).toBeLessThan(4096);
    const [rec] = recordsIn(home);
    expect(rec.session_id.startsWith("ssss")).toBe(true);
    expect(Buffer.byteLength(rec.session_id)).toBeLessThanOrEqual(256);
  }, 30_000);
});

describe("raw text decoded before redaction", () => {
  test("the head kept for an unparseable payload has its JSON escapes decoded before redaction", async () => {
    const { home, env } = fresh();
    const key = "AKIAQWERTYUIOPASDFGH";
    const escaped = `\\u0041${key.slice(1)}`;
    const input = `{"session_id":"esc","tool_response":"aws_access_key_id=${escaped} more", broken`;
    const r = await run(["post-tool-use"], { stdin: input, env });
    expect(r.code).toBe(0);
    const [rec] = recordsIn(home, "esc.jsonl");
    expect(rec.type).toBe("payload_cut");
    expect(rec.reason).toBe("unparseable");
    const disk = readFileSync(join(home, "sessions", "esc.jsonl"), "utf8");
    expect(disk).not.toContain(key.slice(4));
    expect(rec.head).toContain("[REDACTED:");
  });

  // The head is redacted, so everything in a short payload but the secret is on disk. A plain
  // digest of the whole would then confirm guesses at the secret offline: fill the [REDACTED]
  // span, hash, compare. Only a digest under the data dir's key may be kept.
  test("a short unparseable payload's digest cannot confirm a guess at the password it held", async () => {
    const { home, env } = fresh();
    const input = `{"session_id":"guess","tool_input":{"command":"mysql -u root -phunter2 app"}, broken`;
    const r = await run(["post-tool-use"], { stdin: input, env });
    expect(r.code).toBe(0);
    const [rec] = recordsIn(home, "guess.jsonl");
    expect(rec.type).toBe("payload_cut");
    expect(rec.head).toContain("-p[REDACTED:");
    const disk = readFileSync(join(home, "sessions", "guess.jsonl"), "utf8");
    expect(disk).not.toContain("hunter2");
    // The attacker's test: the right guess, hashed plainly, must appear nowhere on disk.
    expect(disk).not.toContain(sha(input));
    expect(disk).not.toContain(sha(input).slice(0, 16));
    expect(rec.sha256).toBeUndefined();
    expect(rec.keyed_sha256).toBe(keyedPayloadDigest(home, input));
  });

  test("a session id too long to redact whole is cut with a keyed digest, not a plain one", async () => {
    const { home, env } = fresh();
    // Past PIECE_CHARS (256 K characters) only a head of a header is redacted; the rest is digested.
    const sid = `s-${"a".repeat(300 * 1024)}-password=hunter2`;
    const r = await run(["post-tool-use"], { stdin: postToolUse(sid), env });
    expect(r.code).toBe(0);
    const files = readdirSync(join(home, "sessions"));
    expect(files).toHaveLength(1);
    const disk = readFileSync(join(home, "sessions", files[0]!), "utf8");
    expect(disk).not.toContain("hunter2");
    // The attacker's test, for a guess of the whole id: what a plain digest would have stored (the
    // head redacted, here unchanged, the digest of the whole after '#', and the digest of that).
    const plainBounded = `${sid.slice(0, 256 * 1024)}#${sha(sid).slice(0, 16)}`;
    expect(disk).not.toContain(sha(sid).slice(0, 16));
    expect(disk).not.toContain(sha(plainBounded).slice(0, 16));
  });

  test("errors.log never receives the payload's cwd through config errors", async () => {
    const { home, env } = fresh();
    const cwd = join(root, `secret-project-name-${n++}`);
    mkdirSync(cwd);
    // A repository config is read only at the root of a git repository.
    execFileSync("git", ["init", "-q", cwd]);
    writeFileSync(join(cwd, ".tracegate.jsonc"), '{"oracle": {"url": "http://evil"}, "redact": {"extra": [{"kind": "x", "pattern": "(a+)+"}]}}');
    const r = await run(["post-tool-use"], { stdin: postToolUse("cfg", { cwd }), env });
    expect(r.code).toBe(0);
    const log = readFileSync(join(home, "errors.log"), "utf8");
    expect(log).toContain("stage=config");
    expect(log).not.toContain("secret-project-name");
    expect(log).not.toContain(cwd);
    expect(existsSync(join(home, "sessions", "cfg.jsonl"))).toBe(true);
  });
});

test("a data dir the user reached through a symlink still works; only the dirs under it must be real", async () => {
  const real = join(root, `real-home-${n++}`);
  mkdirSync(real, { mode: 0o700 });
  const link = join(root, `link-home-${n++}`);
  symlinkSync(real, link);
  const env = { TRACEGATE_HOME: link, TRACEGATE_CONFIG: join(real, "none.jsonc") };
  await run(["post-tool-use"], { stdin: postToolUse("via-link"), env });
  await run(["post-tool-use"], { stdin: "{broken", env });
  expect(recordsIn(real, "via-link.jsonl")).toHaveLength(1);
  expect(readFileSync(join(real, "errors.log"), "utf8")).toContain("stage=parse");
});
