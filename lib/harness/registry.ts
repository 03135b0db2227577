/**
 * `--harness NAME` to its adapter. The one list of the harnesses tracegate
 * knows; a name not on it gets the neutral adapter, so its events are still
 * recorded (never dropped), only not gated.
 *
 * @example
 * ```ts
 * adapterFor("gemini").blockOutput("R"); // { decision: "deny", reason: "R" }
 * adapterFor(null).name;                 // "claude"
 * ```
 */
import { claude } from "./claude.ts";
import { codex } from "./codex.ts";
import { copilot } from "./copilot.ts";
import { cursor } from "./cursor.ts";
import { gemini } from "./gemini.ts";
import { neutralAdapter } from "./neutral.ts";
import { opencode } from "./opencode.ts";
import type { HarnessAdapter } from "./types.ts";

/** The harness a hook or install serves when `--harness` is not given. */
export const DEFAULT_HARNESS = "claude";

/** Every harness with an adapter, by `--harness` name. */
export const ADAPTERS: Readonly<Record<string, HarnessAdapter>> = { claude, codex, gemini, copilot, opencode, cursor };

/** Whether tracegate has an adapter (events, block shape, hook config) for this name. */
export function isKnownHarness(name: string): boolean {
  return Object.hasOwn(ADAPTERS, name);
}

/** The adapter for `--harness NAME` (null: the default), neutral for an unknown name. */
export function adapterFor(name: string | null | undefined): HarnessAdapter {
  const n = name ?? DEFAULT_HARNESS;
  return Object.hasOwn(ADAPTERS, n) ? ADAPTERS[n]! : neutralAdapter(n);
}
