/**
 * The own-file layout (Copilot's `hooks/*.json` directories): tracegate
 * writes a file that is its alone, `{"version":1,"hooks":{"<event>":[handler]}}`,
 * instead of merging into one the user owns. Install writes the whole file;
 * uninstall removes it, so the directory is as it was. A file of that name
 * that holds anything but tracegate's handlers is never overwritten. Pure:
 * text in, text out.
 */
import type { HarnessAdapter } from "../harness/types.ts";
import { type CommandHandler, type DesiredEntry, type ParsedCommand, parseHookCommand } from "./entries.ts";
import { SettingsError, type FoundEntry } from "./settings.ts";

function parseOwn(text: string, path: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new SettingsError(`${path} is not valid JSON (${(e as Error).message}); move it away and install again`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new SettingsError(`${path}: top level is not a JSON object`);
  return v as Record<string, unknown>;
}

/**
 * Every tracegate handler in an own-file, and whether anything else is in it.
 *
 * @example
 * ```ts
 * findOwnEntries('{"version":1,"hooks":{}}', copilot, "f").foreign; // false
 * ```
 */
export function findOwnEntries(text: string, adapter: HarnessAdapter, path: string): { entries: FoundEntry[]; foreign: boolean } {
  const spec = adapter.install;
  const root = parseOwn(text, path);
  let foreign = Object.keys(root).some((k) => k !== "hooks" && !(spec.fileHeader && k in spec.fileHeader));
  const hooks = root.hooks;
  if (hooks === undefined) return { entries: [], foreign };
  if (!hooks || typeof hooks !== "object" || Array.isArray(hooks)) throw new SettingsError(`${path}: "hooks" is not an object`);
  const entries: FoundEntry[] = [];
  for (const [event, list] of Object.entries(hooks as Record<string, unknown>)) {
    if (!Array.isArray(list)) throw new SettingsError(`${path}: "hooks.${event}" is not an array`);
    for (const h of list) {
      const parsed: ParsedCommand | null =
        h && typeof h === "object" ? parseHookCommand((h as Record<string, unknown>)[spec.commandKey]) : null;
      if (!parsed) {
        foreign = true;
        continue;
      }
      const handler = h as Record<string, unknown>;
      entries.push({
        event,
        matcher: undefined,
        timeout: handler[spec.timeoutKey],
        command: handler[spec.commandKey] as string,
        parsed,
        shared: list.length > 1,
      });
    }
  }
  return { entries, foreign };
}

/**
 * The whole own-file for `desired`. Refuses to replace a file that holds
 * anything but tracegate's handlers.
 *
 * @example
 * ```ts
 * planOwnFile("", desiredEntries("/x/tracegate", { gate: false, adapter: copilot }), copilot, "f");
 * // '{\n  "version": 1,\n  "hooks": {\n    "sessionStart": [ ... ] ...'
 * ```
 */
export function planOwnFile(current: string, desired: readonly DesiredEntry[], adapter: HarnessAdapter, path: string): string {
  if (current.trim() !== "" && findOwnEntries(current, adapter, path).foreign) {
    throw new SettingsError(`${path} holds hooks that are not tracegate's; move them to another file in ${path.replace(/[^/\\]+$/, "")} and install again`);
  }
  const hooks: Record<string, CommandHandler[]> = {};
  for (const d of desired) (hooks[d.event] ??= []).push(d.group as CommandHandler);
  const text = `${JSON.stringify({ ...(adapter.install.fileHeader ?? {}), hooks }, null, 2)}\n`;
  return current === text ? current : text;
}
