/**
 * The Claude Code plugin's hooks/hooks.json, derived from the HOOKS table so
 * the committed file can never drift from subcommands.ts and the Claude
 * adapter's event list (a test compares them).
 * Exec form (`command` + `args`): no shell between Claude Code and the
 * launcher, and `${CLAUDE_PLUGIN_ROOT}` is substituted by Claude Code itself.
 *
 * Stop runs as the gate; it only gates when the user config names an oracle,
 * so a plugin user opts into gating by configuring one. SessionEnd's cap
 * (1.2 s) keeps it inside the 1.5 s budget that plugin hooks cannot raise.
 */
import { claude } from "../harness/claude.ts";
import { HOOKS } from "../hook/subcommands.ts";

/** The plugin's launcher, relative to the plugin root. */
export const PLUGIN_COMMAND = "${CLAUDE_PLUGIN_ROOT}/bin/tracegate";

/**
 * hooks/hooks.json as an object.
 *
 * @example
 * ```ts
 * pluginHooks().hooks.Stop[0].hooks[0].args; // ["stop"]
 * ```
 */
export function pluginHooks() {
  const hooks: Record<string, unknown[]> = {};
  for (const [event, name] of Object.entries(claude.events)) {
    const handler = { type: "command", command: PLUGIN_COMMAND, args: [name], timeout: HOOKS[name].timeoutS };
    hooks[event] = [claude.install.matcherEvents.has(event) ? { matcher: "", hooks: [handler] } : { hooks: [handler] }];
  }
  return {
    description: "tracegate: records each session (redacted), diffs the repo against the session's base commit, gates Stop on a signed oracle verdict when one is configured",
    hooks,
  };
}
