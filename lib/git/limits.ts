/**
 * Size bounds for everything the git readers open or inflate. A repository is
 * the agent's to write: `.git/HEAD` can be a FIFO or `/dev/zero`, a 1.4 MB
 * loose object can inflate to 1.5 GB. Files are opened through
 * lib/fs/safe-open.ts (no blocking, regular files only, read with these
 * bounds) and inflation stops at the size the object header declares, which
 * itself must be under MAX_OBJECT_BYTES.
 *
 * @example
 * ```ts
 * import { GIT_LIMITS } from "./limits.ts";
 * GIT_LIMITS.smallFile; // 65536
 * ```
 */
export const MAX_OBJECT_BYTES = 128 * 1024 * 1024;

export const GIT_LIMITS = {
  /** HEAD, commondir, a loose ref, a `.git` file, `info/alternates`, `.gitignore`. */
  smallFile: 64 * 1024,
  /** A git config file. */
  config: 4 * 1024 * 1024,
  /** packed-refs of a repository with hundreds of thousands of refs. */
  packedRefs: 256 * 1024 * 1024,
  /** The index of a 2-million-file tree. */
  index: 512 * 1024 * 1024,
  /** A pack's `.idx` (28 bytes per object and change). */
  packIndex: 1024 * 1024 * 1024,
  /** One object, inflated, or one working-tree file. */
  object: MAX_OBJECT_BYTES,
} as const;
