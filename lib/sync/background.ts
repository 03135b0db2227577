/**
 * `sync.on_session_end`: the SessionEnd hook starts `tracegate sync` for its
 * own session in the background and returns at once. The child is detached
 * (own session, stdio closed, so the hook's stdout stays silent and the
 * harness does not wait for it), carries TRACEGATE_INTERNAL=1 so nothing it
 * runs is traced, and gets only a sanitised session file name in argv: no
 * payload in argv or env.
 */
import { spawn } from "node:child_process";
import { basename } from "node:path";
import { sessionPath } from "../trace/store.ts";

/** argv that re-runs this binary (compiled) or this script (under bun). */
function selfCommand(): string[] {
  const main = Bun.main;
  const compiled = main.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/.test(main);
  return compiled ? [process.execPath] : [process.execPath, main];
}

/**
 * Start a detached background sync of one session; never throws.
 *
 * @example
 * ```ts
 * startBackgroundSync(ctx.home, sessionId, ctx.env);
 * ```
 */
export function startBackgroundSync(home: string, sessionId: string, env: Readonly<Record<string, string | undefined>>): void {
  const [exe, ...pre] = selfCommand();
  const file = basename(sessionPath(home, sessionId));
  const child = spawn(exe!, [...pre, "sync", "--session-file", file, "--after-session-end"], {
    detached: true,
    stdio: "ignore",
    env: { ...env, TRACEGATE_INTERNAL: "1", TRACEGATE_HOME: home },
  });
  child.on("error", () => {});
  child.unref();
}
