/**
 * The hook runtime's only stdout writer. Observers never reach it; the Stop
 * gate's decision is the one object a hook ever prints. Anything else on
 * stdout would be read by the model (SessionStart, UserPromptSubmit) or parsed
 * as hook JSON, so a source-scan test keeps every other spelling of stdout out
 * of the code.
 */
import { writeSync } from "node:fs";
import { beforeThirdParty } from "../runtime/third-party.ts";

/**
 * Print a decision as one JSON line.
 *
 * @example
 * ```ts
 * emitDecision({ decision: "block", reason: "..." });
 * ```
 */
export function emitDecision(decision: object): void {
  const buf = Buffer.from(`${JSON.stringify(decision)}\n`, "utf8");
  let off = 0;
  while (off < buf.length) off += writeSync(1, buf, off, buf.length - off);
}

/**
 * Replace the console writers now, and process.stdout's right before a
 * third-party module loads (lib/runtime/third-party.ts: building the stream
 * is dear, and only a library would write to it), with ones that report
 * instead of printing, so a dependency that logs cannot reach the harness.
 */
export function muzzleStdout(report: (e: Error) => void): void {
  const swallow = (..._args: unknown[]) => report(new Error("a module tried to print to the console"));
  for (const m of ["log", "info", "warn", "error", "debug", "trace", "dir", "table"] as const) {
    (console as unknown as Record<string, unknown>)[m] = swallow;
  }
  beforeThirdParty(() => {
    process.stdout.write = ((..._args: unknown[]) => {
      report(new Error("a module tried to write to process.stdout"));
      return true;
    }) as typeof process.stdout.write;
  });
}
