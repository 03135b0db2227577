/**
 * The argument gate every user command passes through before it runs: help
 * on `--help`/`-h`, unknown commands and options refused with the nearest
 * valid one, positional counts checked, all against the command table.
 */
import { parseArgs } from "../runtime/builtins.ts";
import { ALIASES, type Command, COMMANDS, type CommandSpec, HELP_OPTION, lookup } from "./commands.ts";
import { commandHelp, usageLine } from "./help.ts";
import { err, fail, out } from "./print.ts";
import { nearest } from "./suggest.ts";

/** What main.ts does next: run a command with its argv, or exit with a code. */
export type Gate = { run: Command; argv: string[] } | { exit: number };

/** Report an unknown command with the nearest one; exit code 2. */
export function unknownCommand(name: string): number {
  const guess = nearest(name, [...Object.keys(COMMANDS), ...Object.keys(ALIASES)]);
  return fail(
    `unknown command "${name}"${guess ? `; did you mean \`tracegate ${guess}\`?` : ""}\nrun \`tracegate --help\` for the list of commands`,
    2,
  );
}

/** parseArgs' option table for a spec, with --help added. */
export function parseOptions(spec: CommandSpec) {
  const options: Record<string, { type: "boolean" | "string"; short?: string; multiple?: boolean }> = {};
  for (const [name, o] of Object.entries({ ...spec.options, help: HELP_OPTION })) {
    options[name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  }
  return options;
}

function helpWanted(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === "--") return false;
    if (a === "--help" || a === "-h") return true;
  }
  return false;
}

function explain(e: Error, path: string[], spec: CommandSpec): string {
  const code = (e as NodeJS.ErrnoException).code;
  const cmd = `tracegate ${path.join(" ")}`;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const opt = /'([^']+)'/.exec(e.message)?.[1] ?? "?";
    const guess = nearest(opt.replace(/^-+/, "").replace(/=.*/, ""), Object.keys(spec.options));
    return `\`${cmd}\` has no option ${opt}${guess ? `; did you mean --${guess}?` : ""}`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const opt = /'(--?[a-z-]+)/.exec(e.message)?.[1] ?? "";
    const o = spec.options[opt.replace(/^-+/, "")];
    if (o?.type === "string") return `${opt} needs a value: ${opt} ${o.arg ?? "VALUE"}`;
    return `${opt} takes no value`;
  }
  return e.message;
}

/**
 * Check argv (everything after `tracegate`) against the table.
 *
 * @example
 * ```ts
 * await gateArgs(["show", "--help"]); // prints show's help; { exit: 0 }
 * await gateArgs(["show", "abc"]);    // { run: showCommand, argv: ["abc"] }
 * ```
 */
export async function gateArgs(argv: readonly string[]): Promise<Gate> {
  const found = lookup(argv);
  if (!found) return { exit: unknownCommand(argv[0] ?? "") };
  const { path, spec } = found;
  const top = COMMANDS[path[0]!]!;
  const rest = argv.slice(path.length);
  const usage = `usage: ${usageLine(path, spec)}\nrun \`tracegate ${path.join(" ")} --help\` for more`;
  if (path[0] !== "help" && helpWanted(rest)) {
    out(commandHelp(path, spec));
    return { exit: 0 };
  }
  if (spec.subcommands && path.length === 1 && rest[0] !== undefined && !rest[0].startsWith("-")) {
    const guess = nearest(rest[0], Object.keys(spec.subcommands));
    return {
      exit: fail(`unknown ${path[0]} command "${rest[0]}"${guess ? `; did you mean \`tracegate ${path[0]} ${guess}\`?` : ""}\n${commandHelp(path, spec)}`, 2),
    };
  }
  if (spec.subcommands && path.length === 1 && Object.keys(spec.options).length === 0) {
    err(commandHelp(path, spec));
    return { exit: fail(`${path[0]} needs a command: ${Object.keys(spec.subcommands).join(", ")}`, 2) };
  }
  let positionals: string[];
  let values: Record<string, unknown>;
  try {
    ({ positionals, values } = parseArgs({ args: [...rest], options: parseOptions(spec), strict: true, allowPositionals: true }));
  } catch (e) {
    return { exit: fail(`${explain(e as Error, path, spec)}\n${usage}`, 2) };
  }
  const max = spec.maxArgs ?? 0;
  const min = spec.minArgs ?? 0;
  if (positionals.length > max) {
    const extra = positionals[max]!;
    return { exit: fail(`unexpected argument "${extra}"${max === 0 ? ` (\`tracegate ${path.join(" ")}\` takes none)` : ""}\n${usage}`, 2) };
  }
  if (positionals.length < min) return { exit: fail(`missing ${spec.args}\n${usage}`, 2) };
  const missing = Object.entries(spec.options).filter(([n, o]) => o.required && values[n] === undefined);
  if (missing.length) {
    const words = missing.map(([n, o]) => `--${n} ${o.arg ?? "VALUE"}`).join(" ");
    return { exit: fail(`\`tracegate ${path.join(" ")}\` needs ${words}\n${usage}`, 2) };
  }
  return { run: await top.load!(), argv: argv.slice(1) };
}
