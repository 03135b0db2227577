/**
 * Help texts, all printed from the command table in commands.ts: the
 * top-level help lists every command with every option it takes, and each
 * command's `--help` prints its usage, options and notes.
 */
import { HOOKS, isHookName } from "../hook/subcommands.ts";
import { COMMANDS, type CommandSpec, HELP_OPTION, type OptionSpec, lookup } from "./commands.ts";
import { err, out } from "./print.ts";

function optionWord(name: string, o: OptionSpec): string {
  return o.type === "string" ? `--${name} ${o.arg ?? "VALUE"}` : `--${name}`;
}

/**
 * The usage line of a command path, every option included.
 *
 * @example
 * ```ts
 * usageLine(["show"], COMMANDS.show!); // "tracegate show SESSION [--json]"
 * ```
 */
export function usageLine(path: readonly string[], spec: CommandSpec): string {
  const words = ["tracegate", ...path];
  if (spec.subcommands && path.length === 1) {
    words.push(`${Object.keys(spec.subcommands).join("|")}`);
    if (Object.keys(spec.options).length === 0) return words.join(" ");
  }
  if (spec.args) words.push(spec.args);
  for (const [name, o] of Object.entries(spec.options)) words.push(o.required ? optionWord(name, o) : `[${optionWord(name, o)}]`);
  return words.join(" ");
}

/** One command's full help. */
export function commandHelp(path: readonly string[], spec: CommandSpec): string {
  const L: string[] = [`usage: ${usageLine(path, spec)}`];
  if (spec.subcommands && path.length === 1) {
    for (const [sub, s] of Object.entries(spec.subcommands)) L.push(`       ${usageLine([...path, sub], s)}`);
  }
  L.push("", spec.summary);
  if (spec.details) L.push("", spec.details);
  const opts: [string, OptionSpec][] = [...Object.entries(spec.options), ["help", HELP_OPTION]];
  const left = opts.map(([n, o]) => `${o.short ? `-${o.short}, ` : "    "}${optionWord(n, o)}`);
  const width = Math.max(...left.map((s) => s.length)) + 2;
  L.push("", "options:");
  opts.forEach(([, o], i) => L.push(`  ${left[i]!.padEnd(width)}${o.required ? "required: " : ""}${o.help}`));
  if (spec.subcommands && path.length === 1) {
    L.push("", "commands:");
    for (const [sub, s] of Object.entries(spec.subcommands)) L.push(`  ${sub.padEnd(10)}${s.summary}`);
    L.push("", `run \`tracegate ${path[0]} COMMAND --help\` for a command's options`);
  }
  return `${L.join("\n")}\n`;
}

/** The top-level help: hooks, every command with every option, environment. */
export function topHelp(): string {
  const L: string[] = [
    "tracegate: records AI coding-agent sessions, redacts secrets, gates the stop on a signed test verdict.",
    "",
    "usage: tracegate COMMAND [OPTIONS]    (tracegate COMMAND --help for one command)",
    "",
    "Commands:",
  ];
  for (const [name, spec] of Object.entries(COMMANDS)) {
    if (spec.listed === false) continue;
    L.push(`  ${name.padEnd(10)}${spec.summary}`);
    if (spec.subcommands) {
      if (Object.keys(spec.options).length) L.push(`      ${usageLine([name], { ...spec, subcommands: undefined })}`);
      for (const [sub, s] of Object.entries(spec.subcommands)) L.push(`      ${usageLine([name, sub], s)}`);
    } else {
      L.push(`      ${usageLine([name], spec)}`);
    }
  }
  L.push(
    "",
    "Hook subcommands (run by the harness; read the event JSON on stdin; always exit 0):",
    `  ${Object.keys(HOOKS).join(" | ")}`,
    "  [--harness=NAME]     claude (default), codex, gemini, copilot, opencode, cursor; `event --event=NAME` records any other event",
    "                       stop also takes --observe (record only, never gate)",
    "",
    "Environment:",
    "  TRACEGATE_HOME     the data dir (sessions, errors.log); default: the platform's user data dir",
    "  TRACEGATE_CONFIG   the config file; default: config.jsonc in the user config dir",
    "  CLAUDE_CONFIG_DIR  Claude Code's settings dir (default ~/.claude); CODEX_HOME, COPILOT_HOME likewise",
    "  TRACEGATE_TASK_ID  the task id sent to the oracle",
    "  NO_COLOR           no colour even on a terminal",
    "",
  );
  return L.join("\n");
}

/** Help for a hook subcommand (shown only to a person: `help stop`, or `stop --help` at a terminal). */
export function hookHelp(name: string): string {
  const spec = (HOOKS as Record<string, { capMs: number; timeoutS: number }>)[name]!;
  return (
    `usage: tracegate ${name} [--harness=NAME]${name === "stop" ? " [--observe]" : ""}${name === "event" ? " --event=NAME" : ""} < EVENT.json\n\n` +
    `The ${name} hook: reads the event JSON on stdin, records it, exits 0 on every path.\n` +
    `Run by the harness (register it with \`tracegate install\`); its deadline is ${spec.capMs / 1000} s, ` +
    `the timeout to declare ${spec.timeoutS} s.\n` +
    (name === "stop" ? "With an oracle configured it gates the stop; --observe only records.\n" : "") +
    "Sample payloads for every event are in docs/hook-payloads.md.\n"
  );
}

/** `tracegate help [COMMAND [SUBCOMMAND]]`; with `problem`, the top help on stderr and exit 2. */
export async function helpCommand(argv: string[], problem?: string): Promise<number> {
  if (problem) {
    err(`tracegate: ${problem}\n\n${topHelp()}`);
    return 2;
  }
  if (argv.length && isHookName(argv[0]!)) {
    out(hookHelp(argv[0]!));
    return 0;
  }
  if (argv.length) {
    const found = lookup(argv);
    if (!found) {
      const { unknownCommand } = await import("./args.ts");
      return unknownCommand(argv[0]!);
    }
    out(commandHelp(found.path, found.spec));
    return 0;
  }
  out(topHelp());
  return 0;
}
