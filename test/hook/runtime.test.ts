/**
 * The runtime's guarantees, against the compiled binary: parallel appends
 * stay whole, our own children are not traced, the deadline exits 0, and
 * every hook subcommand is silent on stdout.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { HOOKS, type HookName } from "../../lib/hook/subcommands.ts";
import { BINARY, baseEnv, cleanup, postToolUse, recordsIn, run, tempDir, toolUseIdOf } from "../support/tracegate.ts";

let home: string;
beforeAll(() => {
  home = tempDir();
});
afterAll(() => cleanup(home));
const env = () => ({ TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "none.jsonc") });

test("64 concurrent post-tool-use processes for one session: 64 intact records", async () => {
  const big = "z".repeat(50_000);
  const runs = Array.from({ length: 64 }, (_, i) =>
    run(["post-tool-use"], {
      stdin: postToolUse("parallel", { tool_use_id: `toolu_${i}`, tool_response: { stdout: `${i}:${big}` } }),
      env: env(),
    }),
  );
  const results = await Promise.all(runs);
  expect(results.every((r) => r.code === 0 && r.stdout.length === 0)).toBe(true);
  const text = await Bun.file(join(home, "sessions", "parallel.jsonl")).text();
  const lines = text.split("\n").filter(Boolean);
  expect(lines).toHaveLength(64);
  // On a machine loaded past the budget a hook keeps a payload_cut (reason budget or
  // deadline) whose head still holds the payload: no record is lost either way.
  const recs = lines.map((l) => JSON.parse(l));
  const ids = new Set(recs.map(toolUseIdOf));
  expect(ids.size).toBe(64);
  for (const r of recs) {
    if (r.type === "payload_cut") expect(["budget", "deadline"]).toContain(r.reason);
    else expect(r.output.stdout).toMatch(/^\d+:z{50000}$/);
  }
}, 60_000);

test("records are appended, never rewritten", async () => {
  const path = join(home, "sessions", "append.jsonl");
  await run(["post-tool-use"], { stdin: postToolUse("append", { tool_use_id: "a" }), env: env() });
  const before = await Bun.file(path).text();
  await run(["post-tool-use"], { stdin: postToolUse("append", { tool_use_id: "b" }), env: env() });
  const after = await Bun.file(path).text();
  expect(after.startsWith(before)).toBe(true);
  expect(after.split("\n").filter(Boolean)).toHaveLength(2);
});

test("TRACEGATE_INTERNAL=1 exits before reading a byte", async () => {
  // stdin is a FIFO this test holds open at both ends, with a payload already
  // in it: a hook that read even one byte would leave less than was written
  // (and one that waited for EOF would wait for the deadline).
  const { closeSync, constants, openSync, readSync, writeSync } = await import("node:fs");
  const fifo = join(home, "internal.fifo");
  expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
  const fd = openSync(fifo, constants.O_RDWR);
  const payload = Buffer.from(postToolUse("internal"));
  expect(writeSync(fd, payload)).toBe(payload.length);
  try {
    const proc = Bun.spawn([BINARY, "post-tool-use"], { stdin: fd, stdout: "pipe", env: baseEnv({ ...env(), TRACEGATE_INTERNAL: "1" }) });
    const code = await proc.exited;
    expect(code).toBe(0);
    expect((await new Response(proc.stdout).arrayBuffer()).byteLength).toBe(0);
    // A sentinel behind the payload, so the read below returns at once either way.
    const sentinel = Buffer.from("\n#sentinel");
    writeSync(fd, sentinel);
    const left = Buffer.alloc(payload.length + sentinel.length + 16);
    const n = readSync(fd, left, 0, left.length, null);
    expect(left.subarray(0, n).equals(Buffer.concat([payload, sentinel]))).toBe(true);
  } finally {
    closeSync(fd);
  }
  expect(recordsIn(home).some((r) => r.session_id === "internal")).toBe(false);
});

test("stdin that never closes: the hard deadline exits 0 before the declared timeout", async () => {
  const spec = HOOKS["post-tool-use"];
  const started = performance.now();
  const proc = Bun.spawn([BINARY, "post-tool-use"], { stdin: "pipe", stdout: "pipe", env: baseEnv(env()) });
  proc.stdin.write(postToolUse("never-closed").slice(0, 40));
  const code = await proc.exited;
  const ms = performance.now() - started;
  expect(code).toBe(0);
  expect((await new Response(proc.stdout).arrayBuffer()).byteLength).toBe(0);
  expect(ms).toBeGreaterThanOrEqual(spec.capMs - 50);
  expect(ms).toBeLessThan(spec.timeoutS * 1000);
  expect(await Bun.file(join(home, "errors.log")).text()).toContain("stage=deadline");
  // What did arrive is kept, not lost.
  const kept = recordsIn(home, "never-closed.jsonl");
  expect(kept.map((r) => [r.type, r.reason, r.bytes])).toEqual([["payload_cut", "deadline", 40]]);
  expect(kept[0].head).toBe(postToolUse("never-closed").slice(0, 40));
}, 30_000);

describe("every hook subcommand: exit 0, silent, recorded", () => {
  const payloads: Record<HookName, Record<string, unknown>> = {
    "session-start": { hook_event_name: "SessionStart", source: "startup", model: "claude-x" },
    "user-prompt-submit": { hook_event_name: "UserPromptSubmit", prompt: "fix the bug" },
    "pre-tool-use": { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t1" },
    "post-tool-use": { hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_response: { stdout: "a" }, tool_use_id: "t1", duration_ms: 3 },
    "post-tool-use-failure": { hook_event_name: "PostToolUseFailure", tool_name: "Bash", tool_input: { command: "false" }, tool_use_id: "t2", error: "Exit code 1", is_interrupt: false },
    stop: { hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "done" },
    "subagent-stop": { hook_event_name: "SubagentStop", agent_id: "a1", agent_type: "general", stop_hook_active: false },
    "pre-compact": { hook_event_name: "PreCompact", trigger: "manual", custom_instructions: null },
    notification: { hook_event_name: "Notification", message: "needs input", notification_type: "idle_prompt" },
    "session-end": { hook_event_name: "SessionEnd", reason: "other" },
    event: { hook_event_name: "PermissionRequest", tool_name: "Bash", tool_input: { command: "ls" } },
  };
  const expectedType: Record<HookName, string> = {
    "session-start": "session_start",
    "user-prompt-submit": "message",
    "pre-tool-use": "pre_tool_use",
    "post-tool-use": "tool_call",
    "post-tool-use-failure": "tool_call",
    stop: "message",
    "subagent-stop": "subagent_stop",
    "pre-compact": "pre_compact",
    notification: "notification",
    "session-end": "session_end",
    event: "event",
  };
  for (const hook of Object.keys(HOOKS) as HookName[]) {
    test(hook, async () => {
      const sid = `every-${hook}`;
      const r = await run([hook], {
        stdin: JSON.stringify({ session_id: sid, cwd: home, transcript_path: "/x", future_field: { kept: true }, ...payloads[hook] }),
        env: env(),
      });
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBe(0);
      const recs = recordsIn(home, `${sid}.jsonl`);
      expect(recs.map((x) => x.type)).toEqual([expectedType[hook]]);
      expect(JSON.stringify(recs[0])).toContain('"future_field":{"kept":true}');
    });
  }
});

test("the same secret gets the same tag across hook processes, and nothing of it reaches disk", async () => {
  const secret = "hunter22-Zq8vR1x";
  for (const id of ["a", "b"]) {
    await run(["post-tool-use"], { stdin: postToolUse("tags", { tool_use_id: id, tool_response: { stdout: `DB_PASSWORD=${secret}` } }), env: env() });
  }
  const text = await Bun.file(join(home, "sessions", "tags.jsonl")).text();
  expect(text).not.toContain(secret);
  const tags = text.match(/\[REDACTED:[a-z0-9-]+:[0-9a-f]{4}\]/g) ?? [];
  expect(tags).toHaveLength(2);
  expect(tags[0]).toBe(tags[1]!);
  const { statSync } = await import("node:fs");
  expect(statSync(join(home, "redact.key")).mode & 0o777).toBe(0o600);
});

test("a command that prints a secret: its output is redacted on disk, however plain the secret", async () => {
  // A password that is a word and an API key that is a UUID: no shape or label marks either.
  const password = "correct-horse-battery";
  const key = "5eb4223e-5008-46e5-be67-c7b8f2732305";
  const r = await run(["post-tool-use"], {
    stdin: postToolUse("printed", { tool_input: { command: "printenv DB_PASSWORD && echo $PAYMENTS_API_KEY" }, tool_response: { stdout: `${password}\n${key}\n`, stderr: "" } }),
    env: env(),
  });
  expect(r.code).toBe(0);
  expect(r.stdout.length).toBe(0);
  const text = await Bun.file(join(home, "sessions", "printed.jsonl")).text();
  expect(text).not.toContain(password);
  expect(text).not.toContain(key);
  const rec = recordsIn(home, "printed.jsonl")[0]! as { input: { command: string }; output: { stdout: string } };
  expect(rec.input.command).toBe("printenv DB_PASSWORD && echo $PAYMENTS_API_KEY");
  // Two secrets of two kinds, and which line is which is not known: the kind says only "secret".
  expect(rec.output.stdout).toMatch(/^\[REDACTED:generic-secret:[0-9a-f]{4}\]\n\[REDACTED:generic-secret:[0-9a-f]{4}\]\n$/);
});

test("a password a script prints alone on its line, symbols and all, does not reach disk", async () => {
  // No label, and a command that names no secret: only the line's shape says what it is.
  const password = "dB2yF6@qL9vZm1P#4J";
  const r = await run(["post-tool-use"], {
    stdin: postToolUse("alone", { tool_input: { command: "./scripts/new-db-user.sh app" }, tool_response: { stdout: `created role app\n${password}\nstore it now\n`, stderr: "" } }),
    env: env(),
  });
  expect(r.code).toBe(0);
  expect(r.stdout.length).toBe(0);
  const text = await Bun.file(join(home, "sessions", "alone.jsonl")).text();
  expect(text).not.toContain(password);
  const rec = recordsIn(home, "alone.jsonl")[0]! as { output: { stdout: string } };
  expect(rec.output.stdout).toMatch(/^created role app\n\[REDACTED:password:[0-9a-f]{4}\]\nstore it now\n$/);
});

test("a printf into .env, an expect script and a psql connection string: the words they pass do not reach disk", async () => {
  // An agent writing settings and logging in non-interactively: no `KEY=value` holds the secrets,
  // only the printf format, the password prompt and the connection string's other pairs name them.
  const env1 = "CorrectHorseBattery";
  const typed = "BlueMonkeyDance";
  const conn = "RedPandaJumps";
  const command = `printf 'DB_PASSWORD=%s\\n' '${env1}' >> .env && expect -c 'spawn ssh admin@db; expect "Password:"; send "${typed}\\r"' && psql "host=db user=app password=${conn} dbname=x" -c 'select 1'`;
  const r = await run(["post-tool-use"], {
    stdin: postToolUse("scripted", { tool_input: { command }, tool_response: { stdout: "ok\n", stderr: "" } }),
    env: env(),
  });
  expect(r.code).toBe(0);
  expect(r.stdout.length).toBe(0);
  const text = await Bun.file(join(home, "sessions", "scripted.jsonl")).text();
  for (const secret of [env1, typed, conn]) expect(text).not.toContain(secret);
  const rec = recordsIn(home, "scripted.jsonl")[0]! as { input: { command: string } };
  // Only the three words went: the command reads back whole with them put in their tags' places.
  let back = rec.input.command;
  for (const secret of [env1, typed, conn]) back = back.replace(/\[REDACTED:password:[0-9a-f]{4}\]/, secret);
  expect(back).toBe(command);
});

test("a `cat .env` and a secret-store command: word-built secrets under any secret name do not reach disk", async () => {
  // `.env contents leaked via transcripts`: values under JWT_SECRET and SESSION_SECRET were words, which
  // only a password key's value could be; and `vault kv put` pairs are what gets stored.
  const jwt = "supersecretjwtkey";
  const session = "keyboardcatsecret";
  const phrase = "CorrectHorseBattery";
  const r = await run(["post-tool-use"], {
    stdin: postToolUse("dotenv", {
      tool_input: { command: `cat .env && vault kv put secret/db password=${phrase}` },
      tool_response: { stdout: `NODE_ENV=production\nJWT_SECRET=${jwt}\nSESSION_SECRET="${session}"\nK8S_SECRET=db-credentials\n`, stderr: "" },
    }),
    env: env(),
  });
  expect(r.code).toBe(0);
  expect(r.stdout.length).toBe(0);
  const text = await Bun.file(join(home, "sessions", "dotenv.jsonl")).text();
  for (const secret of [jwt, session, phrase]) expect(text).not.toContain(secret);
  const rec = recordsIn(home, "dotenv.jsonl")[0]! as { input: { command: string }; output: { stdout: string } };
  expect(rec.input.command).toMatch(/^cat \.env && vault kv put secret\/db password=\[REDACTED:password:[0-9a-f]{4}\]$/);
  expect(rec.output.stdout).toMatch(/^NODE_ENV=production\nJWT_SECRET=\[REDACTED:[a-z-]+:[0-9a-f]{4}\]\nSESSION_SECRET="\[REDACTED:[a-z-]+:[0-9a-f]{4}\]"\nK8S_SECRET=db-credentials\n$/);
});

test("a secret an agent's command hands over (stdin, a setter, a YAML value) does not reach disk", async () => {
  // Shapes with no token-like value and no key/value pair: what reads the word, or the call
  // that sets it, or the YAML line it ends, says what it is.
  const password = "Xk9mQ2vL7pR4tW8z";
  const phrase = "CorrectHorseBattery";
  const command = `echo ${password} | docker login -u me --password-stdin registry.example.com`;
  const r = await run(["post-tool-use"], {
    stdin: postToolUse("handed", {
      tool_input: { command },
      tool_response: { stdout: `define('DB_PASSWORD', '${password}');\ndatabase:\n  user: app\n  password: ${phrase}\n`, stderr: "" },
    }),
    env: env(),
  });
  expect(r.code).toBe(0);
  expect(r.stdout.length).toBe(0);
  const text = await Bun.file(join(home, "sessions", "handed.jsonl")).text();
  expect(text).not.toContain(password);
  expect(text).not.toContain(phrase);
  const rec = recordsIn(home, "handed.jsonl")[0]! as { input: { command: string }; output: { stdout: string } };
  expect(rec.input.command).toMatch(/^echo \[REDACTED:password:[0-9a-f]{4}\] \| docker login -u me --password-stdin registry\.example\.com$/);
  expect(rec.output.stdout).toMatch(/^define\('DB_PASSWORD', '\[REDACTED:password:[0-9a-f]{4}\]'\);\ndatabase:\n  user: app\n  password: \[REDACTED:password:[0-9a-f]{4}\]\n$/);
});
