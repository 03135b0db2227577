/**
 * Benchmark: `tracegate diff` (the compiled binary) against git producing
 * the same content (`git add -A` into a throwaway index, then
 * `git diff --cached --binary --no-renames BASE`), on generated repositories
 * of 10,000 and 100,000 files with a few dozen changed, new and deleted files
 * and an ignored node_modules. Runs alternate; prints medians, the ratio and
 * peak RSS (from /usr/bin/time when present).
 *
 * Usage: bun bench/diff/run.ts [--sizes 10000,100000,10000h] [--runs 7] [--bin dist/tracegate] [--against OTHER]
 * A size ending in "h" adds 20 commits of history after the base, packed
 * with `gc --aggressive` (see generate).
 * `--against` times a second binary (an older build, say) in the same
 * alternation, so a before/after comparison sees the same machine load.
 * Both binaries are copied to a temp dir first: a rebuild during the run
 * (shared checkout) cannot swap one mid-way.
 * Repositories are generated once under $TMPDIR/tracegate-bench-diff-N and reused.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,100000" },
    runs: { type: "string", default: "7" },
    bin: { type: "string", default: path.resolve(import.meta.dir, "../../dist/tracegate") },
    against: { type: "string" },
  },
});
const SIZES = values.sizes!.split(",");
const RUNS = Number(values.runs);
const snapDir = fs.mkdtempSync(path.join(os.tmpdir(), "tracegate-bench-diff-bin-"));
process.on("exit", () => fs.rmSync(snapDir, { recursive: true, force: true }));
function snapshot(bin: string, name: string): string {
  if (!fs.existsSync(bin)) throw new Error(`${bin} not found: run \`flock /tmp/build.lock npm run build\` first`);
  const to = path.join(snapDir, name);
  fs.copyFileSync(bin, to);
  fs.chmodSync(to, 0o755);
  return to;
}
const BIN = snapshot(path.resolve(values.bin!), "tracegate");
const AGAINST = values.against ? snapshot(path.resolve(values.against), "against") : null;
const TIME = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : null;

const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: os.tmpdir(),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "b",
  GIT_AUTHOR_EMAIL: "b@example.invalid",
  GIT_COMMITTER_NAME: "b",
  GIT_COMMITTER_EMAIL: "b@example.invalid",
  TRACEGATE_INTERNAL: "1",
  // No background auto-gc racing the explicit one.
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "gc.auto",
  GIT_CONFIG_VALUE_0: "0",
};

function run(cmd: string, args: string[], cwd: string, extra: Record<string, string> = {}): { ms: number; kb: number; stdout: string } {
  const full = TIME ? [TIME, ["-f", "%M", cmd, ...args]] as const : [cmd, args] as const;
  const t0 = performance.now();
  const r = spawnSync(full[0], full[1], { cwd, env: { ...env, ...extra }, encoding: "utf8", maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr}`);
  const kb = TIME ? Number(r.stderr.trim().split("\n").pop()) : 0;
  return { ms, kb, stdout: r.stdout };
}

function git(cwd: string, ...args: string[]): string {
  return run("git", args, cwd).stdout;
}

/** Deterministic pseudo-random text. */
function text(i: number, lines: number): string {
  let s = "";
  for (let l = 0; l < lines; l++) s += `line ${l} of file ${i}: ${((i * 2654435761 + l * 40503) >>> 0).toString(36)}\n`;
  return s;
}

/**
 * The repository for one size. With `history`, 20 more commits of 40 edited
 * files each follow the base and the whole is packed with `gc --aggressive`,
 * so the diff reads deltified trees and blobs (HEAD moved on during the
 * session); otherwise the base is the only commit.
 */
function generate(n: number, history: boolean): { root: string; base: string } {
  const root = path.join(os.tmpdir(), `tracegate-bench-diff-${n}${history ? "-h" : ""}`);
  const marker = path.join(root, ".bench-base");
  if (fs.existsSync(marker)) {
    const [base, tip = base] = fs.readFileSync(marker, "utf8").trim().split(" ");
    // Undo the previous run's changes: back to the tip, then re-apply below.
    git(root, "reset", "-q", "--hard", tip!);
    git(root, "clean", "-qfd");
    return { root, base: base! };
  }
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  git(root, "init", "-q");
  // About 100 files a directory, two levels deep, like a real source tree.
  const file = (i: number) => path.join(root, `pkg${i % Math.ceil(n / 1000)}`, `mod${Math.floor(i / 100) % 10}`, `file${i}.ts`);
  for (let i = 0; i < n; i++) {
    fs.mkdirSync(path.dirname(file(i)), { recursive: true });
    fs.writeFileSync(file(i), text(i, 5 + (i % 30)));
  }
  fs.writeFileSync(path.join(root, ".gitignore"), "node_modules/\n*.log\n");
  const past = new Date(Date.now() - 3600_000);
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "base");
  const base = git(root, "rev-parse", "HEAD").trim();
  if (history) {
    for (let c = 0; c < 20; c++) {
      for (let k = 0; k < 40; k++) {
        const i = (c * 7723 + k * 104395301) % n;
        fs.appendFileSync(file(i), `// commit ${c}\n`);
      }
      git(root, "commit", "-q", "-am", `c${c}`);
    }
    git(root, "gc", "-q", "--aggressive");
  } else git(root, "gc", "-q");
  // Age the files so the index's stat data is trusted, then let git refresh the index.
  spawnSync("find", [root, "-path", `${root}/.git`, "-prune", "-o", "-exec", "touch", "-h", "-d", past.toISOString(), "{}", "+"]);
  git(root, "update-index", "--refresh", "-q");
  const tip = git(root, "rev-parse", "HEAD").trim();
  fs.writeFileSync(marker, `${base} ${tip}\n`);
  fs.appendFileSync(path.join(root, ".git/info/exclude"), ".bench-base\n");
  return { root, base };
}

/** A few dozen changes: edits, new files in new nested directories, deletions, ignored files. */
function mutate(root: string, n: number): void {
  const dirs = Math.ceil(n / 1000);
  for (let k = 0; k < 30; k++) {
    const i = (k * 7919) % n;
    const f = path.join(root, `pkg${i % dirs}`, `mod${Math.floor(i / 100) % 10}`, `file${i}.ts`);
    fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace("line 2 ", "line two ") + "// appended\n");
  }
  for (let k = 0; k < 20; k++) {
    const dir = path.join(root, "new", `area${k % 4}`, `sub${k % 3}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `new${k}.ts`), text(n + k, 20));
  }
  for (let k = 0; k < 5; k++) {
    const i = (k * 104729 + 13) % n;
    fs.rmSync(path.join(root, `pkg${i % dirs}`, `mod${Math.floor(i / 100) % 10}`, `file${i}.ts`), { force: true });
  }
  const nm = path.join(root, "node_modules", "dep");
  fs.mkdirSync(nm, { recursive: true });
  for (let k = 0; k < 2000; k++) fs.writeFileSync(path.join(nm, `m${k}.js`), "module.exports = 1;\n");
  fs.writeFileSync(path.join(root, "debug.log"), "ignored\n");
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const withoutIndexLines = (p: string): string => p.replace(/^index .*$/gm, "");

console.log(
  `tracegate diff vs git ${git(os.tmpdir(), "--version").trim().replace("git version ", "")}, ${RUNS} alternating runs, ` +
    `${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`,
);
for (const size of SIZES) {
  const n = Number(size.replace(/h$/, ""));
  const history = size.endsWith("h");
  const t = performance.now();
  const { root, base } = generate(n, history);
  mutate(root, n);
  const setup = ((performance.now() - t) / 1000).toFixed(1);
  const tmpIndex = path.join(os.tmpdir(), `tracegate-bench-index-${size}`);
  const ours: number[] = [];
  const other: number[] = [];
  const theirs: number[] = [];
  let oursKb = 0;
  let otherKb = 0;
  let theirsKb = 0;
  let same = true;
  let otherSame = true;
  for (let r = 0; r < RUNS + 1; r++) {
    const a = run(BIN, ["diff", "--cwd", root, "--base", base], root);
    const b = AGAINST ? run(AGAINST, ["diff", "--cwd", root, "--base", base], root) : null;
    fs.copyFileSync(path.join(root, ".git/index"), tmpIndex);
    const st = fs.statSync(path.join(root, ".git/index"));
    fs.utimesSync(tmpIndex, st.atime, st.mtime);
    const g1 = run("git", ["add", "-A"], root, { GIT_INDEX_FILE: tmpIndex });
    const g2 = run("git", ["diff", "--cached", "--binary", "--no-renames", base], root, { GIT_INDEX_FILE: tmpIndex });
    if (r === 0) {
      same = withoutIndexLines(a.stdout) === withoutIndexLines(g2.stdout);
      otherSame = !b || withoutIndexLines(b.stdout) === withoutIndexLines(g2.stdout);
      continue; // warm-up
    }
    ours.push(a.ms);
    if (b) other.push(b.ms);
    theirs.push(g1.ms + g2.ms);
    oursKb = Math.max(oursKb, a.kb);
    otherKb = Math.max(otherKb, b?.kb ?? 0);
    theirsKb = Math.max(theirsKb, g1.kb, g2.kb);
  }
  fs.rmSync(tmpIndex, { force: true });
  const mo = median(ours);
  const mg = median(theirs);
  console.log(
    `${n} files${history ? " + history" : ""} (setup ${setup}s): tracegate ${mo.toFixed(0)} ms, git ${mg.toFixed(0)} ms, ratio ${(mo / mg).toFixed(2)}x; ` +
      `peak RSS tracegate ${(oursKb / 1024).toFixed(0)} MB, git ${(theirsKb / 1024).toFixed(0)} MB; ` +
      `same patch as git (index lines aside): ${same}`,
  );
  if (AGAINST) {
    const mb = median(other);
    console.log(
      `${n} files${history ? " + history" : ""}: --against ${mb.toFixed(0)} ms, ratio ${(mb / mg).toFixed(2)}x; peak RSS ${(otherKb / 1024).toFixed(0)} MB; ` +
        `same patch as git: ${otherSame}`,
    );
  }
}
