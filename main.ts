#!/usr/bin/env bun
/**
 * tracegate's command table. Hook subcommands go through the hook runtime,
 * which owns exit codes, stdout, stdin and the deadline; user commands return
 * their exit code. Modules load lazily so a hook pays only for what it runs.
 */
import { isHookName } from "./lib/hook/caps.ts";

type Command = (argv: string[]) => Promise<number>;

const commands: Record<string, () => Promise<Command>> = {
  sessions: async () => (await import("./lib/cli/sessions.ts")).sessionsCommand,
  show: async () => (await import("./lib/cli/show.ts")).showCommand,
  verify: async () => (await import("./lib/cli/verify.ts")).verifyCommand,
  export: async () => (await import("./lib/export/cli.ts")).exportCommand,
  annotate: async () => (await import("./lib/cli/annotate.ts")).annotateCommand,
  redact: async () => (await import("./lib/redact/cli.ts")).redactCommand,
  diff: async () => (await import("./lib/git/cli.ts")).diffCommand,
  install: async () => (await import("./lib/install/cli.ts")).installCommand,
  uninstall: async () => (await import("./lib/install/cli.ts")).uninstallCommand,
  doctor: async () => (await import("./lib/install/cli.ts")).doctorCommand,
  oracle: async () => (await import("./lib/oracle/cli.ts")).oracleCommand,
  "--version": async () => (await import("./lib/cli/version.ts")).versionCommand,
  version: async () => (await import("./lib/cli/version.ts")).versionCommand,
  "--help": async () => (await import("./lib/cli/help.ts")).helpCommand,
  help: async () => (await import("./lib/cli/help.ts")).helpCommand,
};

const [name = "--help", ...rest] = process.argv.slice(2);

if (isHookName(name)) {
  const [{ runHook }, { handlerFor }] = await Promise.all([
    import("./lib/hook/run.ts"),
    import("./lib/handlers/index.ts"),
  ]);
  // Never returns: the runtime exits 0 on every path.
  await runHook(name, rest, handlerFor);
} else {
  const load = commands[name];
  if (!load) {
    const { helpCommand } = await import("./lib/cli/help.ts");
    process.exit(await helpCommand([], `unknown command "${name}"`));
  }
  process.exit(await (await load())(rest));
}
