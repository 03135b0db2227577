/**
 * Run a command on a real pseudo-terminal with util-linux `script`, for
 * tests of what a person at a terminal sees. Returns null (after a loud
 * warning; a failure under CI) when `script` is missing.
 */
import { spawnSync } from "node:child_process";
import { expect } from "bun:test";
import { shQuote } from "../../lib/install/entries.ts";

export function script(argv: string[], env: Record<string, string>, opts: { columns?: number } = {}): { code: number | null; out: string } | null {
  const which = spawnSync("sh", ["-c", "command -v script"], { encoding: "utf8" });
  if (which.status !== 0) {
    console.warn("SKIPPED: util-linux `script` is not installed (apt-get install util-linux); pty tests need it");
    if (process.env.CI === "true") expect("util-linux script").toBe("installed");
    return null;
  }
  const cmd = `stty cols ${opts.columns ?? 200} 2>/dev/null; exec ${argv.map(shQuote).join(" ")}`;
  const r = spawnSync("script", ["-qec", cmd, "/dev/null"], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000,
  });
  return { code: r.status, out: (r.stdout ?? "").replaceAll("\r\n", "\n") };
}
