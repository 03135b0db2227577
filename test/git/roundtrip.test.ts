/**
 * The seeded round trip: build a repository with git, commit a base, mutate
 * it every way a session can (some mutations committed after the base, some
 * staged, some not), make the patch with diffAgainstBase, apply it with the
 * real `git apply --binary` to a fresh checkout of the base, and require that
 * `git add -A` records exactly the same tree in both places: every
 * non-ignored path, its content, its mode, its link target.
 *
 * Replay a failure with TRACEGATE_DIFF_SEED=<seed printed> bun test test/git.
 */
import { expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { diffAgainstBase } from "../../lib/git/diff.ts";
import { cloneAt, git, gitApply, prng, recordedTree, type Sandbox, sandbox, withGitEnv } from "./helpers.ts";

const SCENARIOS = Number(process.env.TRACEGATE_DIFF_SCENARIOS ?? 40);
const SEED = Number(process.env.TRACEGATE_DIFF_SEED ?? Math.floor(Math.random() * 2 ** 31));

const WORDS = ["alpha", "beta", "gamma", "delta", "}", "{", "", "return x;", "  indent", "\tTab", "naïve", "日本語", "end"];
const NAMES = [
  "a.txt", "b.md", "c.ts", "with space.txt", 'quo"te.txt', "ünï.txt", "tab\tname.txt", "back\\slash.txt",
  "-dash.txt", "日本.txt", "x.log", "keep.log", "important.log", "rootonly.txt", "a.tmp", "secret.txt", "z.bak", "Makefile",
];
const DIRS = ["", "src", "src/deep", "docs", "a b", "ünï", "build", "lib/x/y", "node_modules/pkg"];

const IGNORES: Record<string, string> = {
  ".gitignore": "*.log\n!keep.log\nbuild/\n/rootonly.txt\nnode_modules/\n",
  "src/.gitignore": "*.tmp\n!important.log\n",
};

type Rand = () => number;
const pick = <T,>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

function textContent(r: Rand): Buffer {
  const n = r() < 0.1 ? 200 + Math.floor(r() * 300) : Math.floor(r() * 40);
  const eol = r() < 0.2 ? "\r\n" : "\n";
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(pick(r, WORDS) + (r() < 0.5 ? ` ${i % 7}` : ""));
  let s = lines.join(eol);
  if (n > 0 && r() < 0.75) s += eol;
  return Buffer.from(s);
}

function binaryContent(r: Rand): Buffer {
  const n = Math.floor(r() * (r() < 0.2 ? 20000 : 600));
  const b = Buffer.alloc(n + 1);
  for (let i = 0; i < b.length; i++) b[i] = r() < 0.3 ? 0 : Math.floor(r() * 256);
  return b;
}

function latin1Content(r: Rand): Buffer {
  return Buffer.concat([Buffer.from(`caf${r() < 0.5 ? "e" : "o"}`), Buffer.from([0xe9, 0x0a]), textContent(r)]);
}

function anyContent(r: Rand): Buffer {
  const k = r();
  if (k < 0.1) return Buffer.alloc(0);
  if (k < 0.2) return binaryContent(r);
  if (k < 0.25) return latin1Content(r);
  return textContent(r);
}

/** Edit a text at a few places, so hunks (and their merging) get exercised. */
function editText(r: Rand, old: Buffer): Buffer {
  const lines = old.toString("utf8").split(/(?<=\n)/);
  const edits = 1 + Math.floor(r() * 4);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(r() * (lines.length + 1));
    const k = r();
    if (k < 0.3) lines.splice(at, 1 + Math.floor(r() * 3));
    else if (k < 0.6) lines.splice(at, 0, `${pick(r, WORDS)} new\n`);
    else if (at < lines.length) lines[at] = `${pick(r, WORDS)} changed${lines[at]!.endsWith("\r\n") ? "\r\n" : lines[at]!.endsWith("\n") ? "\n" : ""}`;
  }
  let s = lines.join("");
  if (r() < 0.15) s = s.endsWith("\n") ? s.replace(/\r?\n$/, "") : `${s}\n`; // toggle the final newline
  return Buffer.from(s);
}

function allFiles(root: string, rel = ""): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (d.name === ".git") continue;
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...allFiles(root, p));
    else out.push(p);
  }
  return out.sort();
}

function writeFile(root: string, rel: string, data: Buffer, exec = false): void {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  try {
    const st = fs.lstatSync(abs);
    if (st.isDirectory()) fs.rmSync(abs, { recursive: true, force: true });
    else fs.rmSync(abs);
  } catch {
    // new path
  }
  fs.writeFileSync(abs, data);
  if (exec) fs.chmodSync(abs, 0o755);
}

function symlink(root: string, rel: string, target: string): void {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.rmSync(abs, { recursive: true, force: true });
  fs.symlinkSync(target, abs);
}

function randomPath(r: Rand): string {
  const dir = pick(r, DIRS);
  return dir ? `${dir}/${pick(r, NAMES)}` : pick(r, NAMES);
}

/** Age every file so the index's stat data is trusted (not "racily clean"). */
function backdate(root: string): void {
  const past = new Date(Date.now() - 3600_000);
  for (const f of allFiles(root)) {
    try {
      fs.lutimesSync(path.join(root, f), past, past);
    } catch {
      // dangling symlink on a platform without lutimes
    }
  }
}

/** One mutation of a random kind; returns the paths it touched. */
function mutate(r: Rand, root: string): string[] {
  const files = allFiles(root).filter((f) => !f.endsWith(".gitignore"));
  const existing = files.length > 0 ? pick(r, files) : null;
  const k = Math.floor(r() * 15);
  const abs = existing ? path.join(root, existing) : "";
  const isLink = existing ? fs.lstatSync(abs).isSymbolicLink() : false;
  switch (k) {
    case 0:
    case 1:
    case 2: // edit a text file
      if (existing && !isLink) {
        writeFile(root, existing, editText(r, fs.readFileSync(abs)), (fs.statSync(abs).mode & 0o100) !== 0);
        return [existing];
      }
      break;
    case 3: // delete
      if (existing) {
        fs.rmSync(abs);
        return [existing];
      }
      break;
    case 4: { // new file, maybe in a new nested directory
      const p = r() < 0.5 ? randomPath(r) : `new${Math.floor(r() * 100)}/n${Math.floor(r() * 9)}/${pick(r, NAMES)}`;
      writeFile(root, p, anyContent(r), r() < 0.2);
      return [p];
    }
    case 5: // flip the exec bit
      if (existing && !isLink) {
        fs.chmodSync(abs, fs.statSync(abs).mode & 0o100 ? 0o644 : 0o755);
        return [existing];
      }
      break;
    case 6: { // symlink created or retargeted
      const p = r() < 0.5 && existing && isLink ? existing : randomPath(r);
      symlink(root, p, r() < 0.5 ? pick(r, NAMES) : `../${pick(r, DIRS)}/missing target`);
      return [p];
    }
    case 7: // file <-> symlink
      if (existing) {
        if (isLink) writeFile(root, existing, textContent(r));
        else symlink(root, existing, pick(r, NAMES));
        return [existing];
      }
      break;
    case 8: // emptied or binary
      if (existing && !isLink) {
        writeFile(root, existing, r() < 0.5 ? Buffer.alloc(0) : binaryContent(r));
        return [existing];
      }
      break;
    case 9: // an ignored file, or one re-included by a negation
      {
        const p = pick(r, ["x.log", "src/y.log", "src/important.log", "keep.log", "build/out.txt", "rootonly.txt", "docs/rootonly.txt", "src/a.tmp", "secret.txt", "z.bak", "node_modules/pkg/index.js", "docs/secret-2.md"]);
        writeFile(root, p, textContent(r));
        return [p];
      }
    case 10: // file replaced by a directory
      if (existing && !isLink) {
        fs.rmSync(abs);
        writeFile(root, `${existing}/inner.txt`, textContent(r));
        return [existing, `${existing}/inner.txt`];
      }
      break;
    case 11: // rename
      if (existing) {
        const to = randomPath(r);
        if (to !== existing && !files.some((f) => f.startsWith(`${to}/`) || to.startsWith(`${f}/`))) {
          const data = isLink ? null : fs.readFileSync(abs);
          const target = isLink ? fs.readlinkSync(abs) : "";
          fs.rmSync(abs);
          if (data) writeFile(root, to, data);
          else symlink(root, to, target);
          return [existing, to];
        }
      }
      break;
    case 12: // CRLF line endings
      if (existing && !isLink) {
        writeFile(root, existing, Buffer.from(fs.readFileSync(abs).toString("latin1").replace(/\r?\n/g, "\r\n"), "latin1"));
        return [existing];
      }
      break;
    case 13: // a whole new tree
      for (let i = 0; i < 3; i++) writeFile(root, `fresh/${i}/${pick(r, NAMES)}`, anyContent(r));
      return ["fresh"];
    case 14: // touch without change: stat differs, content does not
      if (existing && !isLink) {
        const t = new Date();
        fs.utimesSync(abs, t, t);
        return [existing];
      }
      break;
  }
  return [];
}

function buildBase(r: Rand, sb: Sandbox, root: string): void {
  fs.mkdirSync(root, { recursive: true });
  git(sb, root, ["init", "-q"]);
  if (r() < 0.3) git(sb, root, ["config", "index.version", "4"]);
  for (const [p, text] of Object.entries(IGNORES)) writeFile(root, p, Buffer.from(text));
  fs.writeFileSync(path.join(root, ".git", "info", "exclude"), "secret*\n");
  fs.writeFileSync(path.join(sb.env.HOME!, "excludes"), "*.bak\n");
  const n = 5 + Math.floor(r() * 25);
  for (let i = 0; i < n; i++) {
    if (r() < 0.12) symlink(root, randomPath(r), pick(r, NAMES));
    else writeFile(root, randomPath(r), anyContent(r), r() < 0.15);
  }
  // Tracked files inside ignored places: still tracked, still diffed.
  writeFile(root, "build/tracked.txt", textContent(r));
  writeFile(root, "x.log", textContent(r));
  backdate(root);
  git(sb, root, ["add", "-A"]);
  git(sb, root, ["add", "-f", "build/tracked.txt", "x.log"]);
  git(sb, root, ["commit", "-q", "--allow-empty", "-m", "base"]);
}

async function scenario(seed: number): Promise<void> {
  const r = prng(seed);
  const sb = sandbox();
  try {
    const root = path.join(sb.dir, "repo");
    buildBase(r, sb, root);
    const base = git(sb, root, ["rev-parse", "HEAD"]).trim();
    const plan = r();
    // Mutations committed after the base: HEAD moves on during the session.
    if (plan < 0.4) {
      const touched: string[] = [];
      for (let i = 0; i < 1 + Math.floor(r() * 6); i++) touched.push(...mutate(r, root));
      backdate(root);
      git(sb, root, ["add", "-A"]);
      git(sb, root, ["commit", "-q", "--allow-empty", "-m", "after base"]);
      if (r() < 0.5) git(sb, root, ["gc", "-q"]); // packfiles and packed refs
    } else if (plan < 0.5) {
      git(sb, root, ["gc", "-q"]);
    }
    const staged: string[] = [];
    for (let i = 0; i < 1 + Math.floor(r() * 8); i++) staged.push(...mutate(r, root));
    if (r() < 0.5) git(sb, root, ["add", "-A"]); // staged edits
    for (let i = 0; i < Math.floor(r() * 8); i++) mutate(r, root); // unstaged on top

    const cwd = r() < 0.3 && fs.existsSync(path.join(root, "src")) && fs.lstatSync(path.join(root, "src")).isDirectory() ? path.join(root, "src") : root;
    const d = await withGitEnv(sb, () => diffAgainstBase({ cwd, base }));
    const want = recordedTree(sb, root);
    const clone = cloneAt(sb, root, base, "clone");
    try {
      gitApply(sb, clone, d.patch);
    } catch (e) {
      fs.writeFileSync(path.join(process.env.TMPDIR ?? "/tmp", `tracegate-failed-${seed}.diff`), d.patch);
      throw e;
    }
    expect(recordedTree(sb, clone)).toEqual(want);
    expect(d.cut).toBe(false);
    expect(d.bytes).toBe(Buffer.byteLength(d.patch));
    expect(d.patch === "").toBe(d.files === 0);
  } finally {
    sb.cleanup();
  }
}

test(`seeded round trip through git apply --binary (${SCENARIOS} scenarios, seed ${SEED})`, async () => {
  for (let i = 0; i < SCENARIOS; i++) {
    const seed = (SEED + i * 7919) >>> 0;
    try {
      await scenario(seed);
    } catch (e) {
      throw new Error(`round trip failed for TRACEGATE_DIFF_SEED=${seed} (run seed ${SEED}, scenario ${i}): ${(e as Error).message}`);
    }
  }
}, 300_000);
