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
  // Only the session files; a hook's lock file (`….jsonl.lock`) comes and goes between the listing and the read.
  return readdirSync(dir).some((f) => f.endsWith(".jsonl") && readIfThere(join(dir, f)).includes(`"type":"${type}"`));
}

/** A file's text, or "" when it is gone by the time it is read. */
function readIfThere(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw e;
  }
}
