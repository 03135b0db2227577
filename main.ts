#!/usr/bin/env bun
/**
 * tracegate's entry point. Hook subcommands go through the hook runtime,
 * which owns exit codes, stdout, stdin and the deadline; user commands come
 * from the table in lib/cli/commands.ts, checked by its argument gate, and
 * return their exit code. Modules load lazily so a hook pays only for what it
 * runs.
 */
import { isHookName } from "./lib/hook/caps.ts";

const argv = process.argv.slice(2);
const [name = "--help", ...rest] = argv;

if (isHookName(name) && !((rest.includes("--help") || rest.includes("-h")) && process.stdin.isTTY)) {
  const [{ runHook }, { handlerFor }] = await Promise.all([
    import("./lib/hook/run.ts"),
    import("./lib/handlers/index.ts"),
  ]);
  // Never returns: the runtime exits 0 on every path.
  await runHook(name, rest, handlerFor);
} else if (isHookName(name)) {
  // Only a person at a terminal gets here: a harness pipes stdin.
  process.exit(await (await import("./lib/cli/help.ts")).helpCommand([name]));
} else {
  const gate = await (await import("./lib/cli/args.ts")).gateArgs(argv.length ? argv : ["--help"]);
  process.exit("exit" in gate ? gate.exit : await gate.run(gate.argv));
}
