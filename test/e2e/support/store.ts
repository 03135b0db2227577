/**
 * Reading tracegate's store while a client still runs (to time a signal).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Whether any session file in the data dir already holds a record of this type.
 *
 * @example
 * ```ts
 * stored(world.dataDir, "pre_tool_use"); // false until the PreToolUse hook has run
 * ```
 */
export function stored(dataDir: string, type: string): boolean {
  const dir = join(dataDir, "sessions");
  if (!existsSync(dir)) return false;
  return readdirSync(dir).some((f) => readFileSync(join(dir, f), "utf8").includes(`"type":"${type}"`));
}
