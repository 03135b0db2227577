/**
 * `tracegate view [--port N] [--from URL] [--open]`: serve the local page on
 * 127.0.0.1 and print its URL with a fresh access token. Viewing the local
 * store, it also writes the discovery record that lets hooks forward events
 * live (removed on exit; a SIGKILLed viewer's record is cleaned by the next
 * hook or viewer). `--from file:///dir` shows a synced tree read-only, with no
 * live forwarding.
 *
 * @example
 * ```sh
 * tracegate view            # prints http://127.0.0.1:PORT/?token=...
 * tracegate view --from file:///mnt/traces --port 8080
 * ```
 */
import { spawn } from "node:child_process";
import { parseArgs } from "../runtime/builtins.ts";
import { dataDir } from "../config/paths.ts";
import { parseOptions } from "../cli/args.ts";
import { COMMANDS } from "../cli/commands.ts";
import { fail, out } from "../cli/print.ts";
import { newDiscovery, randomHex, readDiscovery, removeOwnDiscovery, writeDiscovery, type Discovery } from "./discovery.ts";
import { openViewSource } from "./source.ts";
import { startViewer } from "./server.ts";
import { configuredPublicKey } from "./verdicts.ts";

const USAGE = "usage: tracegate view [--port N] [--from file:///dir] [--open]";

function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === "darwin" ? ["open", [url]] : process.platform === "win32" ? ["cmd", ["/c", "start", "", url]] : ["xdg-open", [url]];
  try {
    const child = spawn(cmd, args, { stdio: "ignore", detached: true, env: { ...process.env, TRACEGATE_INTERNAL: "1" } });
    child.on("error", () => {});
    child.unref();
  } catch {
    // the URL is printed; opening it is a convenience
  }
}

/** `tracegate view`: returns only on a usage or start-up error (exit code); otherwise runs until a signal. */
export async function viewCommand(argv: string[]): Promise<number> {
  let values: { port?: string; from?: string; open?: boolean };
  try {
    values = parseArgs({ args: argv, options: parseOptions(COMMANDS.view!), strict: true }).values as typeof values;
  } catch (e) {
    return fail(`${(e as Error).message}\n${USAGE}`, 2);
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return fail(`--port must be a number from 0 to 65535 (0: a free port), not "${values.port}"\n${USAGE}`, 2);
  const home = dataDir(process.env);
  let source;
  try {
    source = await openViewSource(values.from, home, process.env);
  } catch (e) {
    return fail((e as Error).message, 2);
  }
  try {
    // A store that cannot be listed (no bucket, bad credentials) is an error now, not a blank page.
    await source.list();
  } catch (e) {
    return fail(`cannot list ${source.label}: ${(e as Error).message}`);
  }
  const live = source.local;
  const proofToken = live ? randomHex(32) : null;
  let viewer;
  try {
    viewer = startViewer({ source, port, accessToken: randomHex(24), proofToken, oracleKey: await configuredPublicKey(process.env) });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") return fail(`port ${port} on 127.0.0.1 is in use; pick another or omit --port for a free one`);
    return fail(`cannot listen on 127.0.0.1:${port}: ${code ?? (e as Error).message}`);
  }
  let record: Discovery | null = null;
  if (live) {
    record = { ...newDiscovery(viewer.port), token: proofToken! };
    try {
      writeDiscovery(home, record);
    } catch (e) {
      viewer.stop();
      return fail(`cannot write the discovery record in ${home}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  const rec = record;
  const shutdown = () => {
    if (rec) removeOwnDiscovery(home, rec);
    viewer.stop();
    process.exit(0);
  };
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, shutdown);
  process.on("exit", () => {
    if (rec) removeOwnDiscovery(home, rec);
  });
  // Put the record back if something removed it; never take over from a newer viewer.
  if (rec) {
    setInterval(() => {
      if (readDiscovery(home).text === null) {
        try {
          writeDiscovery(home, rec);
        } catch {
          // retried on the next tick
        }
      }
    }, 2000);
  }
  out(`tracegate view: ${viewer.url}\n`);
  out(`  ${source.label}${live ? ", live (hooks forward to this viewer)" : ", read-only"}; Ctrl-C to stop\n`);
  if (values.open) openBrowser(viewer.url);
  return new Promise<number>(() => {});
}
