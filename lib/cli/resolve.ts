/**
 * Session ids as people type them: the full id, any unique prefix (like
 * git's short hashes), or `last` for the most recently active session. One
 * matching rule for the local data dir and for a synced store (`--from`).
 */
import { basename } from "node:path";
import type { SourceSession, StoreSource } from "../source/index.ts";
import { listSessionFiles, sessionFileName } from "../trace/store.ts";

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
 * Which of `names` (session file names without `.jsonl`, newest first) the
 * typed id means. Pure.
 *
 * @example
 * ```ts
 * pickSession(["3f2a9c", "77b1"], "3f", "the store"); // { name: "3f2a9c" }
 * pickSession(["3f2a9c", "3f99"], "3f", "the store"); // { error: '"3f" matches 2 sessions; ...' }
 * ```
 */
export function pickSession(names: readonly string[], typed: string, where: string): { name: string } | Unresolved {
  if (typed === "last") return names[0] !== undefined ? { name: names[0] } : { error: `no sessions in ${where} yet` };
  const exact = sessionFileName(typed).replace(/\.jsonl$/, "");
  if (names.includes(exact)) return { name: exact };
  const matches = typed === "" ? [] : names.filter((n) => n.startsWith(typed));
  if (matches.length === 1) return { name: matches[0]! };
  if (matches.length > 1) {
    const shown = matches.slice(0, 10).map((n) => `  ${n}`);
    const more = matches.length > 10 ? [`  ... and ${matches.length - 10} more`] : [];
    return { error: `"${typed}" matches ${matches.length} sessions; type more of the id:\n${[...shown, ...more].join("\n")}` };
  }
  return { error: `no session "${typed}" in ${where} (run \`tracegate sessions\` to list them)` };
}

/**
 * Resolve what a person typed to one session file in the local data dir.
 *
 * @example
 * ```ts
 * resolveSession(home, "3f2a");  // { id: "3f2a9c...", path: ".../3f2a9c....jsonl" } when unique
 * resolveSession(home, "last");  // the most recently written session
 * ```
 */
export function resolveSession(home: string, typed: string): ResolvedSession | Unresolved {
  const files = listSessionFiles(home);
  const picked = pickSession(files.map((f) => basename(f.path, ".jsonl")), typed, `the store at ${home}`);
  if ("error" in picked) return picked;
  return { id: picked.name, path: files.find((f) => basename(f.path, ".jsonl") === picked.name)!.path };
}

/**
 * Resolve a typed id in any store source: the local data dir or a synced
 * store read with `--from`.
 *
 * @example
 * ```ts
 * const found = await resolveIn(await openSource("s3://traces/acme", home, env), "last");
 * ```
 */
export async function resolveIn(source: StoreSource, typed: string): Promise<SourceSession | Unresolved> {
  const all = await source.list();
  const picked = pickSession(all.map((s) => s.name), typed, source.label.includes("://") ? source.label : `the store at ${source.label}`);
  if ("error" in picked) return picked;
  return all.find((s) => s.name === picked.name)!;
}
