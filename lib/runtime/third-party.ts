/**
 * Where third-party code enters a process. The hook muzzles stdout against
 * libraries that print, but replacing `process.stdout.write` makes Bun build
 * the stdout stream, which costs a compiled hook about 7 ms and 8 MB of peak
 * RSS (bench/hook-latency/README.md), more than a quarter of a 10 KB
 * PostToolUse. Our own modules never spell stdout, and the other libraries
 * a hook imports (jsonc-parser, re2js, ignore, diff-sequences, ajv's
 * runtime) never touch a process stream: both are checked in
 * test/hook/source-scan. So the stream is muzzled only when a library that
 * does (isomorphic-git) is about to load, through this door.
 *
 * @example
 * ```ts
 * import { beforeThirdParty, isomorphicGit } from "../runtime/third-party.ts";
 * beforeThirdParty(() => {});
 * const git = await isomorphicGit();
 * ```
 */
import type IsomorphicGit from "isomorphic-git";

let guard: (() => void) | undefined;

/** Runs `f` once, right before the first third-party module loads. */
export function beforeThirdParty(f: () => void): void {
  guard = f;
}

/** isomorphic-git, loaded on the first call, after the guard. */
export async function isomorphicGit(): Promise<typeof IsomorphicGit> {
  const g = guard;
  guard = undefined;
  g?.();
  return (await import("isomorphic-git")).default;
}
