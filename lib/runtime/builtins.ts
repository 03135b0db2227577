/**
 * Node builtins that load on first use. The executable is one bundled
 * module, and the bundler hoists every static `import ... from "node:X"` of
 * every command to its top, so a builtin imported anywhere was loaded by
 * every hook and every `--version`. Measured as compiled binaries that import
 * one builtin and exit (bench/hook-latency/README.md): node:crypto about
 * +3 ms and +3 MB of peak RSS, node:tty +1 ms and +4 MB, node:util +0.5 ms and
 * +2.5 MB. A `require` inside a function stays where it is, so these load
 * only in the command that calls them.
 *
 * @example
 * ```ts
 * import { nodeCrypto } from "../runtime/builtins.ts";
 * nodeCrypto().createHash("sha256").update("x").digest("hex");
 * ```
 */
import type * as Crypto from "node:crypto";
import type * as Tty from "node:tty";
import type * as Util from "node:util";

/** node:crypto, loaded on the first call. */
export function nodeCrypto(): typeof Crypto {
  return require("node:crypto") as typeof Crypto;
}

/** node:util's parseArgs, with node:util loaded on the first call. */
export const parseArgs: typeof Util.parseArgs = (config) => (require("node:util") as typeof Util).parseArgs(config);

/** node:tty's isatty, with node:tty loaded on the first call. */
export function isatty(fd: number): boolean {
  return (require("node:tty") as typeof Tty).isatty(fd);
}
