/**
 * The hook runtime's one entry into the viewer: after a hook has written its
 * records to the store, show them on a running `tracegate view`, if there is
 * one. The only cost when no viewer runs is one lstat of the discovery record;
 * the challenge-and-post client is imported only when the record exists.
 * Forwarding is for live display only: it never throws, never prints, and
 * gives up well inside the hook's cap.
 *
 * @example
 * ```ts
 * await forwardToViewer(home, "post-tool-use", written, ctx.remainingMs);
 * ```
 */
import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { TraceRecord } from "../trace/record.ts";

/** File name of the discovery record inside the data dir (defined here so the hook path imports nothing more). */
export const DISCOVERY_FILE = "view.json";

/** Forward records already in the store to a proven viewer, if one runs; never throws or prints. */
export async function forwardToViewer(
  home: string,
  hook: string,
  records: readonly TraceRecord[],
  remainingMs: () => number,
): Promise<void> {
  if (records.length === 0) return;
  try {
    if (!lstatSync(join(home, DISCOVERY_FILE), { throwIfNoEntry: false })) return;
    const { forward } = await import("./forward-run.ts");
    await forward(home, hook, records, remainingMs);
  } catch {
    // A viewer is a display; nothing it does may reach the hook's outcome.
  }
}
