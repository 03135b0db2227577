/**
 * Session ids as people type them: the full id, any unique prefix (like
 * git's short hashes), or `last` for the most recently active session.
 */
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { listSessionFiles, sessionPath } from "../trace/store.ts";

/** A resolved session: its id as stored (the file's name) and its file. */
export interface ResolvedSession {
  readonly id: string;
  readonly path: string;
}

/** Why an id did not resolve; `message` says what to do. */
export interface Unresolved {
  readonly error: string;
}

/**
 * Resolve what a person typed to one session file.
 *
 * @example
 * ```ts
 * resolveSession(home, "3f2a");  // { id: "3f2a9c...", path: ".../3f2a9c....jsonl" } when unique
 * resolveSession(home, "last");  // the most recently written session
 * ```
 */
export function resolveSession(home: string, typed: string): ResolvedSession | Unresolved {
  const files = listSessionFiles(home);
  const where = `the store at ${home}`;
  if (typed === "last") {
    const f = files[0];
    return f ? { id: basename(f.path, ".jsonl"), path: f.path } : { error: `no sessions in ${where} yet` };
  }
  const exact = sessionPath(home, typed);
  if (existsSync(exact)) return { id: typed, path: exact };
  const matches = typed === "" ? [] : files.filter((f) => basename(f.path).startsWith(typed));
  if (matches.length === 1) return { id: basename(matches[0]!.path, ".jsonl"), path: matches[0]!.path };
  if (matches.length > 1) {
    const shown = matches.slice(0, 10).map((f) => `  ${basename(f.path, ".jsonl")}`);
    const more = matches.length > 10 ? [`  ... and ${matches.length - 10} more`] : [];
    return {
      error: `"${typed}" matches ${matches.length} sessions; type more of the id:\n${[...shown, ...more].join("\n")}`,
    };
  }
  return { error: `no session "${typed}" in ${where} (run \`tracegate sessions\` to list them)` };
}
