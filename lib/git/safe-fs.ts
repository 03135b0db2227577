/**
 * The `fs` handed to isomorphic-git on its fallback paths: node's, except
 * that `readFile` goes through the safe-open policy (regular files only,
 * never blocking on a FIFO, bounded), so a hostile repository cannot hang or
 * balloon the fallback either.
 *
 * @example
 * ```ts
 * import git from "isomorphic-git";
 * import { boundedFs } from "./safe-fs.ts";
 * await git.resolveRef({ fs: boundedFs, gitdir: "/repo/.git", ref: "HEAD" });
 * ```
 */
import fs from "node:fs";
import { readBounded } from "../fs/safe-open.ts";
import { GIT_LIMITS } from "./limits.ts";

async function readFile(file: fs.PathLike, opts?: BufferEncoding | { encoding?: BufferEncoding | null }): Promise<string | Buffer> {
  const buf = readBounded(String(file), GIT_LIMITS.packIndex);
  const encoding = typeof opts === "string" ? opts : opts?.encoding;
  return encoding ? buf.toString(encoding) : buf;
}

export const boundedFs = { ...fs, promises: { ...fs.promises, readFile } };
