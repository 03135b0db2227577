/**
 * The repository's `lib/` as committed at a revision, unpacked beside the
 * working tree's for an A/B in one run: on a noisy machine only taking turns
 * in one run says whether a change helped.
 *
 * @example
 * ```ts
 * const old = libAt("HEAD~3", "/tmp/x");        // "/tmp/x/rev/lib"
 * await import(`${old}/redact/index.ts`);
 * ```
 */
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "../..");

/** Unpacks `lib/` at `rev` into `dir/rev/lib` (its node_modules linked) and returns that path. */
export function libAt(rev: string, dir: string): string {
  const out = join(dir, "rev");
  mkdirSync(out, { recursive: true });
  // All of lib/, not only lib/redact: the redactor imports lib/fs and lib/config, and rules/ is a folder.
  const archive = Bun.spawnSync(["git", "archive", "--format=tar", rev, "lib"], { cwd: root });
  if (archive.exitCode !== 0) throw new Error(`git archive ${rev} lib: ${archive.stderr.toString().trim()}`);
  const tar = Bun.spawnSync(["tar", "-x", "-C", out], { stdin: archive.stdout });
  if (tar.exitCode !== 0) throw new Error(`tar: ${tar.stderr.toString().trim()}`);
  symlinkSync(join(root, "node_modules"), join(out, "node_modules"));
  return join(out, "lib");
}
