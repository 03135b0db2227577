/**
 * `tracegate diff --session ID`: the diff engine's command with one more
 * option, the base commit (and cwd) taken from a recorded session's
 * `session_start`. Without `--session` it is `lib/git/cli.ts` unchanged.
 */
import { parseArgs } from "../runtime/builtins.ts";
import { dataDir } from "../config/paths.ts";
import { parseSessionText } from "../trace/store.ts";
import { readFileSync } from "node:fs";
import { parseOptions } from "./args.ts";
import { COMMANDS } from "./commands.ts";
import { fail } from "./print.ts";
import { resolveSession } from "./resolve.ts";

/** Entry point of `tracegate diff [--session ID] [--cwd DIR] [--base REV] [--stat]`. */
export async function diffSessionCommand(argv: string[]): Promise<number> {
  const { diffCommand } = await import("../git/cli.ts");
  const { values } = parseArgs({ args: argv, options: parseOptions(COMMANDS.diff!), strict: true });
  const v = values as { session?: string; cwd?: string; base?: string; stat?: boolean };
  if (v.session === undefined) return diffCommand(argv);
  if (v.base !== undefined) return fail("--session and --base both name the base commit; pass one of them", 2);
  const home = dataDir(process.env);
  const found = resolveSession(home, v.session);
  if ("error" in found) return fail(found.error);
  const { records } = parseSessionText(found.path, readFileSync(found.path, "utf8"), ["session_start"]);
  const start = records[0] as { base_commit?: unknown; cwd?: unknown } | undefined;
  if (!start) return fail(`session ${found.id} has no session_start record (${found.path}), so its base commit is unknown; pass --base REV`);
  if (typeof start.base_commit !== "string") {
    return fail(`session ${found.id} did not start inside a git repository (base_commit is null in ${found.path}); pass --cwd DIR --base REV`);
  }
  const cwd = v.cwd ?? (typeof start.cwd === "string" ? start.cwd : undefined);
  if (cwd === undefined) return fail(`session ${found.id} recorded no cwd; pass --cwd DIR`);
  return diffCommand(["--cwd", cwd, "--base", start.base_commit, ...(v.stat ? ["--stat"] : [])]);
}
