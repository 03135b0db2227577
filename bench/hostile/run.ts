/**
 * Every hostile class of issue 11 at its worst, against the compiled binary,
 * on a loaded machine: prints each hook's wall time against its cap + 0.25 s
 * and whether the next normal event was recorded. A benchmark: it prints
 * figures and asserts nothing.
 *
 *   bun bench/hostile/run.ts [--load N]   (N busy processes, default: one per core)
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createDeflate } from "node:zlib";
import { HOOKS, type HookName } from "../../lib/hook/subcommands.ts";

const BIN = resolve(import.meta.dir, "..", "..", "dist", "tracegate");
const argLoad = process.argv.indexOf("--load");
const LOAD = argLoad > 0 ? Number(process.argv[argLoad + 1]) : cpus().length;
const root = mkdtempSync(join(tmpdir(), "tg-hostile-bench-"));
let n = 0;

function home(): { home: string; env: Record<string, string> } {
  const h = join(root, `h${n++}`);
  mkdirSync(join(h, "sessions"), { recursive: true, mode: 0o700 });
  return { home: h, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TRACEGATE_HOME: h, TRACEGATE_CONFIG: join(h, "none.jsonc") } };
}

const normal = (sid: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ session_id: sid, cwd: "/tmp", hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_response: { stdout: "a" }, tool_use_id: "t", ...extra });

/** Run a hook; stdin is bytes, or a path opened as the child's stdin. */
function hook(name: HookName, env: Record<string, string>, stdin: Uint8Array | string | { path: string }): Promise<number> {
  return new Promise((done) => {
    const started = performance.now();
    const fd = typeof stdin === "object" && "path" in stdin ? openSync(stdin.path, "r") : null;
    const child = spawn(BIN, [name], { env, stdio: [fd ?? "pipe", "ignore", "ignore"] });
    if (fd === null) {
      child.stdin!.on("error", () => {});
      child.stdin!.end(stdin as Uint8Array | string);
    }
    child.on("exit", () => {
      if (fd !== null) closeSync(fd);
      done(performance.now() - started);
    });
  });
}

async function nextRecorded(h: string, env: Record<string, string>): Promise<boolean> {
  await hook("post-tool-use", env, normal("next-normal"));
  try {
    return readFileSync(join(h, "sessions", "next-normal.jsonl"), "utf8").trim().split("\n").length === 1;
  } catch {
    return false;
  }
}

function mkfifo(p: string): void {
  spawnSync("mkfifo", [p]);
}

function repo(): string {
  const dir = join(root, `repo${n++}`);
  mkdirSync(dir);
  const env = { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" };
  for (const args of [["init", "-q"], ["add", "."], ["commit", "-qm", "x", "--allow-empty"], ["pack-refs", "--all"]]) spawnSync("git", ["-C", dir, ...args], { env });
  writeFileSync(join(dir, "a.txt"), "a\n");
  spawnSync("git", ["-C", dir, "add", "a.txt"], { env });
  spawnSync("git", ["-C", dir, "commit", "-qm", "a"], { env });
  return dir;
}

function denseSecrets(mb: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < mb * 1024 * 1024; i++) {
    const l = `GITHUB_TOKEN=ghp_${i.toString(36).padStart(8, "0")}${"Zq8vR1xK4m".repeat(3)}ab password=hunter${i}Zq8vR1x AKIAABCDEFGH12345678\n`;
    lines.push(l);
    size += l.length;
  }
  return lines.join("");
}

interface Case {
  readonly name: string;
  readonly hook: HookName;
  setup(h: string): Promise<Uint8Array | string | { path: string }> | Uint8Array | string | { path: string };
  readonly payloadFor?: (h: string) => string;
}

const depth = 50_000;
const CASES: Case[] = [
  { name: "50,000-level nesting, 100 KB", hook: "post-tool-use", setup: () => `{"session_id":"deep","tool_response":${"[".repeat(depth)}"x"${"]".repeat(depth)}}` },
  { name: "top-level array", hook: "post-tool-use", setup: () => "[1,2,3]" },
  { name: "/dev/zero as stdin", hook: "post-tool-use", setup: () => ({ path: "/dev/zero" }) },
  { name: "30 MB tool output", hook: "post-tool-use", setup: () => normal("big30", { tool_response: { stdout: "y".repeat(30 * 1024 * 1024) } }) },
  { name: "60 MB dense with secrets", hook: "post-tool-use", setup: () => normal("dense", { tool_response: { stdout: denseSecrets(60) } }) },
  { name: "64 MB past the stdin cap", hook: "post-tool-use", setup: () => normal("huge", { tool_response: "a".repeat(70 * 1024 * 1024) }) },
  { name: "FIFO at sessions/<id>.jsonl", hook: "post-tool-use", setup: (h) => (mkfifo(join(h, "sessions", "fifo.jsonl")), normal("fifo")) },
  { name: "FIFO at errors.log (bad JSON)", hook: "post-tool-use", setup: (h) => (mkfifo(join(h, "errors.log")), "{bad") },
  { name: "FIFO at redact.key (a secret)", hook: "post-tool-use", setup: (h) => (mkfifo(join(h, "redact.key")), normal("key", { tool_response: "DB_PASSWORD=hunter22-Zq8vR1x" })) },
  { name: "symlinked session file", hook: "post-tool-use", setup: (h) => (symlinkSync("/dev/null", join(h, "sessions", "ln.jsonl")), normal("ln")) },
  { name: "10 MB session_id", hook: "post-tool-use", setup: () => normal("s".repeat(10 * 1024 * 1024)) },
  ...(["HEAD", "commondir", "packed-refs", "config"] as const).map((f): Case => ({
    name: `.git/${f} a FIFO`,
    hook: "session-start",
    setup: () => {
      const r = repo();
      rmSync(join(r, ".git", f), { force: true });
      mkfifo(join(r, ".git", f));
      return JSON.stringify({ session_id: `git-${f}`, cwd: r, hook_event_name: "SessionStart", source: "startup" });
    },
  })),
  {
    name: ".git/HEAD -> /dev/zero",
    hook: "session-start",
    setup: () => {
      const r = repo();
      rmSync(join(r, ".git", "HEAD"));
      symlinkSync("/dev/zero", join(r, ".git", "HEAD"));
      return JSON.stringify({ session_id: "git-zero", cwd: r, hook_event_name: "SessionStart", source: "startup" });
    },
  },
];

async function bombRepo(): Promise<string> {
  const r = repo();
  const oid = spawnSync("git", ["-C", r, "rev-parse", "HEAD:a.txt"], { encoding: "utf8" }).stdout.trim();
  const d = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  d.on("data", (c: Buffer) => parts.push(c));
  const ended = new Promise((ok) => d.on("end", ok));
  d.write("blob 10\0");
  const mb = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < 1536; i++) if (!d.write(mb)) await new Promise((ok) => d.once("drain", ok));
  d.end();
  await ended;
  const file = join(r, ".git", "objects", oid.slice(0, 2), oid.slice(2));
  rmSync(file, { force: true });
  writeFileSync(file, Buffer.concat(parts));
  writeFileSync(join(r, "a.txt"), "changed\n");
  return r;
}

const load = Array.from({ length: LOAD }, () => spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
try {
  await new Promise((ok) => setTimeout(ok, 500));
  console.log(`tracegate hostile bench: ${BIN}\n${LOAD} busy processes on ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}\n`);
  console.log(`${"case".padEnd(34)} ${"hook".padEnd(15)} ${"wall ms".padStart(8)} ${"cap+0.25s".padStart(10)}  within  next event recorded  records`);
  for (const c of CASES) {
    const { home: h, env } = home();
    const stdin = await c.setup(h);
    const ms = await hook(c.hook, env, stdin);
    const limit = HOOKS[c.hook].capMs + 250;
    const ok = await nextRecorded(h, env);
    const records = readdirSync(join(h, "sessions")).filter((f) => f !== "next-normal.jsonl").length;
    console.log(`${c.name.padEnd(34)} ${c.hook.padEnd(15)} ${ms.toFixed(0).padStart(8)} ${String(limit).padStart(10)}  ${ms <= limit ? "yes" : "NO "}     ${ok ? "yes" : "NO "}                  ${records} file(s)`);
  }
  const r = await bombRepo();
  const started = performance.now();
  const res = spawnSync("/usr/bin/time", ["-f", "%M", BIN, "diff", "--cwd", r], { encoding: "utf8" });
  const rss = Number(res.stderr.trim().split("\n").pop());
  console.log(`\ninflate bomb (1.5 GB of zeros behind a "blob 10" header, ${(readdirSync(join(r, ".git", "objects")).length)} object dirs): tracegate diff ${(performance.now() - started).toFixed(0)} ms, peak RSS ${(rss / 1024).toFixed(0)} MB, exit ${res.status}: ${res.stderr.split("\n")[0]}`);
} finally {
  for (const p of load) p.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
}
