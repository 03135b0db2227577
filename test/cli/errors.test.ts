/**
 * Errors a person can act on, through the compiled binary: each names the
 * file or URL and says what to do. Also doctor's warnings, the settings
 * backup, uninstall --purge, and the portable project-scope entry.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { hookCommand, parseHookCommand } from "../../lib/install/entries.ts";
import { BINARY, cleanup, recordsIn, tempDir } from "../support/tracegate.ts";

let root: string;
beforeAll(() => {
  root = tempDir("tg-errors-");
});
afterAll(() => cleanup(root));

function world(name: string) {
  const dir = join(root, name);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(dir, "home"),
    CLAUDE_CONFIG_DIR: join(dir, "claude"),
    TRACEGATE_HOME: join(dir, "data"),
    TRACEGATE_CONFIG: join(dir, "config.jsonc"),
  };
  const project = join(dir, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(env.HOME!, { recursive: true });
  const run = (args: string[], extra: { env?: Record<string, string>; stdin?: string; cwd?: string } = {}) => {
    const r = spawnSync(BINARY, args, { env: { ...env, ...extra.env }, cwd: extra.cwd ?? project, encoding: "utf8", input: extra.stdin });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  return { dir, env, project, run, user: join(env.CLAUDE_CONFIG_DIR!, "settings.json") };
}

function gitRepo(dir: string, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true });
  const g = (...a: string[]) => spawnSync("git", a, { cwd: dir, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
  g("init", "-q", "-b", "main");
  for (const [n, t] of Object.entries(files)) writeFileSync(join(dir, n), t);
  g("add", "-A");
  g("commit", "-qm", "base");
  return dir;
}

async function freePortThatRefuses(): Promise<number> {
  // Bind, read the port, close: nothing listens there afterwards.
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

test("oracle serve --key with the public key: says so and which file to pass, no OpenSSL code, no chmod advice first", () => {
  const w = world("pubkey");
  const repo = gitRepo(join(w.dir, "repo"), { "t.sh": "exit 0\n" });
  expect(w.run(["oracle", "keygen", "--out", join(w.dir, "keys")]).code).toBe(0);
  const pub = join(w.dir, "keys", "oracle.pub");
  const r = w.run(["oracle", "serve", "--repo", repo, "--test-cmd", "true", "--key", pub]);
  expect(r.code).toBe(1);
  expect(r.err).toStartWith(`tracegate: --key ${pub} is a public key; serve needs the private key: pass oracle.key`);
  expect(r.err).not.toContain("chmod");
  expect(r.err).not.toMatch(/ERR_|error:[0-9A-F]{8}|DECODER/);
  const missing = w.run(["oracle", "serve", "--repo", repo, "--test-cmd", "true", "--key", join(w.dir, "nope.key")]);
  expect(missing.err).toContain(`cannot read --key ${join(w.dir, "nope.key")} (no such file); pass the oracle.key written by`);
});

test("oracle serve refuses to start when the test command does not exist; a script missing from the repo too", () => {
  const w = world("testcmd");
  const repo = gitRepo(join(w.dir, "repo"), { "t.sh": "exit 0\n" });
  w.run(["oracle", "keygen", "--out", join(w.dir, "keys")]);
  const key = join(w.dir, "keys", "oracle.key");
  const typo = w.run(["oracle", "serve", "--repo", repo, "--test-cmd", "npmm test", "--key", key, "--port", "0"]);
  expect(typo.code).toBe(1);
  expect(typo.err).toContain('--test-cmd "npmm test": npmm: command not found on this host\'s PATH; every verdict would be a FAIL');
  const chained = w.run(["oracle", "serve", "--repo", repo, "--test-cmd", "true && no-such-tool-xyz", "--key", key, "--port", "0"]);
  expect(chained.err).toContain("no-such-tool-xyz: command not found");
  const script = w.run(["oracle", "serve", "--repo", repo, "--test-cmd", "./run-tests.sh", "--key", key, "--port", "0"]);
  expect(script.err).toContain(`./run-tests.sh is not in ${repo} at HEAD`);
  const syntax = w.run(["oracle", "serve", "--repo", repo, "--test-cmd", "if true; then", "--key", key, "--port", "0"]);
  expect(syntax.err).toContain("not valid shell syntax");
});

test("oracle serve --verbose logs each job's test output on the oracle's stderr, never in the verdict", async () => {
  const w = world("verbose");
  const repo = gitRepo(join(w.dir, "repo"), { "t.sh": 'echo "TEST-OUTPUT-MARKER from the suite"\nexit 1\n' });
  w.run(["oracle", "keygen", "--out", join(w.dir, "keys")]);
  const child = spawn(BINARY, ["oracle", "serve", "--repo", repo, "--test-cmd", "sh t.sh", "--key", join(w.dir, "keys", "oracle.key"), "--port", "0", "--verbose"], {
    env: w.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (b) => (out += b));
  child.stderr.on("data", (b) => (err += b));
  try {
    for (let i = 0; i < 400 && !/listening on (\S+)/.test(out); i++) await Bun.sleep(25);
    const url = /listening on (\S+)/.exec(out)![1]!;
    const base = spawnSync("git", ["-C", repo, "rev-parse", "HEAD"], { encoding: "utf8" }).stdout.trim();
    const res = await fetch(`${url}/v1/verdicts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ task_id: "t", session_id: "s", repo: null, base_commit: base, diff: "", attempt: 1 }),
    });
    let body = await res.text();
    if (res.status === 202) {
      const { job_id } = JSON.parse(body);
      for (let i = 0; i < 400; i++) {
        const r = await fetch(`${url}/v1/verdicts/${job_id}`);
        body = await r.text();
        if (r.status === 200) break;
        await Bun.sleep(50);
      }
    }
    expect(JSON.parse(body).verdict).toBe("FAIL");
    expect(body).not.toContain("TEST-OUTPUT-MARKER");
    for (let i = 0; i < 100 && !err.includes("TEST-OUTPUT-MARKER"); i++) await Bun.sleep(20);
    expect(err).toMatch(/job \S+ test output:\nTEST-OUTPUT-MARKER from the suite/);
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.on("close", r));
  }
});

test("doctor with the oracle down says to start `tracegate oracle serve` and that Stop is allowed until then", async () => {
  const w = world("down");
  w.run(["oracle", "keygen", "--out", join(w.dir, "keys")]);
  const port = await freePortThatRefuses();
  const url = `http://127.0.0.1:${port}`;
  writeFileSync(w.env.TRACEGATE_CONFIG!, JSON.stringify({ oracle: { url, public_key: join(w.dir, "keys", "oracle.pub") } }));
  const r = w.run(["doctor"]);
  expect(r.out).toContain(`problem: oracle: ${url}/v1/key does not answer (connection refused: nothing listens there): start \`tracegate oracle serve\` there, or fix oracle.url in ${w.env.TRACEGATE_CONFIG}; until then Stop is allowed`);
  expect(r.out).not.toMatch(/Unable to connect|ECONNREFUSED|typo in the url/i);
});

test("a config with one unknown key: doctor names it with the nearest key and does not claim the oracle URL is missing", () => {
  const w = world("unknown-key");
  writeFileSync(w.env.TRACEGATE_CONFIG!, JSON.stringify({ oracle: { url: "http://127.0.0.1:9", public_key: "k" }, timeout: 5 }));
  const r = w.run(["doctor", "--json"]);
  const rep = JSON.parse(r.out);
  expect(rep.problems).toContain(`config: ${w.env.TRACEGATE_CONFIG}: unknown key "timeout"; did you mean "oracle.timeout_s"?`);
  expect(rep.oracle.status).toBe("config_invalid");
  expect(JSON.stringify(rep)).not.toContain("no oracle.url");
});

test("a settings file with a trailing comma: install and doctor name the file and say what to do", () => {
  const w = world("comma");
  mkdirSync(w.env.CLAUDE_CONFIG_DIR!, { recursive: true });
  writeFileSync(w.user, '{\n  "model": "sonnet",\n}\n');
  const r = w.run(["install"]);
  expect(r.code).toBe(1);
  expect(r.err).toContain(`tracegate: ${w.user}: not valid JSON at line 3`);
  expect(r.err).toContain("fix the file");
  expect(readFileSync(w.user, "utf8")).toBe('{\n  "model": "sonnet",\n}\n');
  const d = w.run(["doctor"]);
  expect(d.out).toContain(`problem: ${w.user}: not valid JSON at line 3`);
});

test("doctor warns when an oracle is configured but Stop is registered without --gate, and when plugin and settings are both active", () => {
  const w = world("ungated");
  w.run(["oracle", "keygen", "--out", join(w.dir, "keys")]);
  expect(w.run(["install"]).code).toBe(0);
  writeFileSync(w.env.TRACEGATE_CONFIG!, JSON.stringify({ oracle: { url: "http://127.0.0.1:9", public_key: join(w.dir, "keys", "oracle.pub") } }));
  const r = JSON.parse(w.run(["doctor", "--json"]).out);
  expect(r.problems).toContain(`an oracle is configured (http://127.0.0.1:9) but ${w.user} registers Stop without --gate, so the gate is off: run \`tracegate install --gate --scope user\``);
  const s = JSON.parse(readFileSync(w.user, "utf8"));
  writeFileSync(w.user, JSON.stringify({ ...s, enabledPlugins: { "tracegate@local": true } }, null, 2));
  const p = JSON.parse(w.run(["doctor", "--json"]).out);
  expect(p.problems.some((x: string) => x.startsWith("the plugin (tracegate@local) and a settings install") && x.includes("recorded twice"))).toBe(true);
});

test("settings.json.tracegate.bak is the file before tracegate first touched it; uninstall removes it", () => {
  const w = world("backup");
  mkdirSync(w.env.CLAUDE_CONFIG_DIR!, { recursive: true });
  const original = '{\n  "model": "opus"\n}\n';
  writeFileSync(w.user, original);
  expect(w.run(["install"]).code).toBe(0);
  const bak = `${w.user}.tracegate.bak`;
  expect(readFileSync(bak, "utf8")).toBe(original);
  // A second install that changes the file (now with --gate) keeps the original as the backup.
  expect(w.run(["install", "--gate"]).code).toBe(0);
  expect(readFileSync(w.user, "utf8")).toContain("stop'");
  expect(readFileSync(bak, "utf8")).toBe(original);
  const u = w.run(["uninstall"]);
  expect(u.code).toBe(0);
  expect(readFileSync(w.user, "utf8")).toBe(original);
  expect(existsSync(bak)).toBe(false);
  // A file install created has nothing to back up.
  const fresh = world("backup-new");
  expect(fresh.run(["install"]).code).toBe(0);
  expect(existsSync(`${fresh.user}.tracegate.bak`)).toBe(false);
});

test("uninstall --purge removes every scope's entries and the data dir; refuses a dir that is not tracegate's", () => {
  const w = world("purge");
  expect(w.run(["install"]).code).toBe(0);
  w.run(["user-prompt-submit"], { stdin: JSON.stringify({ session_id: "s", prompt: "p" }) });
  expect(existsSync(join(w.env.TRACEGATE_HOME!, "sessions", "s.jsonl"))).toBe(true);
  const dry = w.run(["uninstall", "--purge", "--dry-run"]);
  expect(dry.out).toContain(`would delete the data dir ${w.env.TRACEGATE_HOME}`);
  expect(existsSync(w.env.TRACEGATE_HOME!)).toBe(true);
  const r = w.run(["uninstall", "--purge"]);
  expect(r.code).toBe(0);
  expect(r.out).toContain(`deleted the data dir ${w.env.TRACEGATE_HOME}`);
  expect(existsSync(w.env.TRACEGATE_HOME!)).toBe(false);
  expect(existsSync(w.user)).toBe(false);
  const precious = join(w.dir, "precious");
  mkdirSync(precious);
  writeFileSync(join(precious, "thesis.tex"), "x");
  const no = w.run(["uninstall", "--purge"], { env: { TRACEGATE_HOME: precious } });
  expect(no.code).toBe(1);
  expect(no.err).toContain(`${precious} does not look like tracegate's data dir`);
  expect(existsSync(join(precious, "thesis.tex"))).toBe(true);
});

test("--scope project writes a portable entry: tracegate from PATH in a second clone; silent and drained when it is missing", () => {
  const w = world("portable");
  const bin = join(w.dir, "bin");
  mkdirSync(bin);
  symlinkSync(BINARY, join(bin, "tracegate"));
  const withBin = { PATH: `${bin}:${w.env.PATH}` };
  gitRepo(w.project, { "README.md": "x\n" });
  const inst = w.run(["install", "--scope", "project"], { env: withBin });
  expect(inst.code).toBe(0);
  expect(inst.err).toBe("");
  const settings = readFileSync(join(w.project, ".claude", "settings.json"), "utf8");
  expect(settings).not.toContain(BINARY);
  const cmd: string = JSON.parse(settings).hooks.UserPromptSubmit[0].hooks[0].command;
  expect(parseHookCommand(cmd)).toEqual({ bin: "tracegate", subcommand: "user-prompt-submit", args: [], guarded: true });
  spawnSync("git", ["add", "-A"], { cwd: w.project });
  spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "hooks"], { cwd: w.project });
  const clone = join(w.dir, "clone");
  expect(spawnSync("git", ["clone", "-q", w.project, clone]).status).toBe(0);
  const cloned: string = JSON.parse(readFileSync(join(clone, ".claude", "settings.json"), "utf8")).hooks.UserPromptSubmit[0].hooks[0].command;
  const payload = JSON.stringify({ session_id: "teammate", prompt: "hello from the clone" });
  const ok = spawnSync("/bin/sh", ["-c", cloned], { cwd: clone, env: { ...w.env, ...withBin, CLAUDE_PROJECT_DIR: clone }, input: payload });
  expect(ok.status).toBe(0);
  expect(ok.stdout.length).toBe(0);
  expect(recordsIn(w.env.TRACEGATE_HOME!).map((r) => r.text)).toEqual(["hello from the clone"]);
  // Not on PATH: exit 0, nothing printed, a big stdin drained (no broken pipe).
  const big = "x".repeat(4 * 1024 * 1024);
  const missing = spawnSync("/bin/sh", ["-c", cloned], { cwd: clone, env: { ...w.env, PATH: "/usr/bin:/bin" }, input: big });
  expect(missing.status).toBe(0);
  expect(missing.stdout.length + missing.stderr.length).toBe(0);
  expect(missing.error).toBeUndefined();
  // A binary inside the project, by a relative path, found through CLAUDE_PROJECT_DIR from a subdirectory.
  mkdirSync(join(w.project, "tools"));
  symlinkSync(BINARY, join(w.project, "tools", "tracegate"));
  expect(w.run(["install", "--scope", "local", "--bin", "./tools/tracegate"]).code).toBe(0);
  const rel = w.run(["install", "--scope", "project", "--bin", "./tools/tracegate", "--dry-run"]);
  expect(rel.out).toContain(`' 'tools/tracegate'`);
  // The doctor of a teammate with the binary on PATH is content.
  const doc = JSON.parse(spawnSync(BINARY, ["doctor", "--json"], { cwd: clone, env: { ...w.env, ...withBin }, encoding: "utf8" }).stdout);
  expect(doc.binaries.find((b: { path: string }) => b.path.endsWith("/bin/tracegate"))?.executable).toBe(true);
  // Not on PATH at install time: a warning that says what to do.
  const warn = w.run(["install", "--scope", "project", "--dry-run"], { env: { PATH: "/usr/bin:/bin" } });
  expect(warn.err).toContain('"tracegate" is not on PATH here');
});

test("the Windows entry has the missing-binary guard too", () => {
  const cmd = hookCommand("C:\\Users\\me\\tracegate.exe", "stop", [], "win32");
  expect(cmd).toStartWith(`/bin/sh -c '[ -x "$0" ] || { cat >/dev/null 2>&1; exit 0; }; exec "$0" stop' `);
  expect(cmd).toEndWith(`'C:/Users/me/tracegate.exe'`);
  expect(parseHookCommand(cmd)).toEqual({ bin: "C:/Users/me/tracegate.exe", subcommand: "stop", args: [], guarded: true });
  const r = spawnSync("/bin/sh", ["-c", hookCommand(join(root, "gone.exe"), "stop", [], "win32")], { input: "{}" });
  expect(r.status).toBe(0);
});
