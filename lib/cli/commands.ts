/**
 * The one table of user commands and their options. main.ts dispatches from
 * it, `gateArgs` checks every argv against it before a command runs, and the
 * help texts are printed from it, so help cannot drift from what the parser
 * accepts: an option missing here is refused before any command sees it.
 *
 * To add an option to a command: add it here (with its help line) and read
 * it in the command's own parser. `test/cli/help.test.ts` checks both ends.
 */

/** A user command's entry point: argv after the command name, returns the exit code. */
export type Command = (argv: string[]) => Promise<number>;

/** One option, as `node:util` parseArgs takes it, plus its help text. */
export interface OptionSpec {
  readonly type: "boolean" | "string";
  readonly short?: string;
  /** Placeholder of the value in help (`N`, `DIR`); string options only. */
  readonly arg?: string;
  readonly multiple?: boolean;
  /** Shown without brackets in usage; the gate refuses a run without it. */
  readonly required?: boolean;
  readonly help: string;
}

/** One command or subcommand. */
export interface CommandSpec {
  /** Positional arguments as shown in usage, e.g. `SESSION` or `[FILE...]`. */
  readonly args?: string;
  /** Most positionals accepted (Infinity for `...`); 0 when absent. */
  readonly maxArgs?: number;
  readonly minArgs?: number;
  readonly summary: string;
  /** Extra help paragraphs (examples, notes). */
  readonly details?: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** For commands with subcommands (`oracle keygen`, `config path`). */
  readonly subcommands?: Readonly<Record<string, CommandSpec>>;
  /** Shown in the top-level list; false for aliases. */
  readonly listed?: boolean;
  readonly load?: () => Promise<Command>;
}

const json = (what: string): OptionSpec => ({ type: "boolean", help: `print ${what} as JSON` });
const session = "SESSION is a session id, any unique prefix of one, or `last` (the newest)";
const from: OptionSpec = {
  type: "string",
  arg: "URL",
  help: "read a synced store instead of the data dir: file:///DIR or s3://BUCKET[/PREFIX] (a prefix down to org/repo/YYYY/MM narrows the listing)",
};

/** Every user command, in the order help lists them. */
export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  sessions: {
    summary: "list sessions in the store, newest first",
    options: {
      json: json("one summary per line"),
      limit: { type: "string", arg: "N", help: "show at most N sessions (default: 20 on a terminal, all when piped)" },
      harness: { type: "string", arg: "NAME", help: "only sessions recorded from this harness (claude, codex, ...)" },
      outcome: { type: "string", arg: "OUTCOME", help: "only sessions with this outcome: flip, no_flip, cap, no_oracle, unverified" },
      since: { type: "string", arg: "WHEN", help: "only sessions active since WHEN: an age (30m, 2h, 7d) or a date (2026-11-30)" },
      from,
    },
    load: async () => (await import("./sessions.ts")).sessionsCommand,
  },
  show: {
    args: "SESSION",
    minArgs: 1,
    maxArgs: 1,
    summary: "a session's records, one readable line each",
    details: session,
    options: { json: { type: "boolean", help: "the full records, one JSON object per line" }, from },
    load: async () => (await import("./show.ts")).showCommand,
  },
  tail: {
    args: "[SESSION]",
    maxArgs: 1,
    summary: "follow records as they are appended (all sessions, new ones too, unless SESSION is given)",
    details: `${session}. Stop with Ctrl-C.`,
    options: { json: { type: "boolean", help: "the full records, one JSON object per line" } },
    load: async () => (await import("./tail.ts")).tailCommand,
  },
  verify: {
    args: "[SESSION]",
    maxArgs: 1,
    summary: "validate records against the schema, check verdict signatures and fields, replays and the hash chain",
    details: `${session}. Without SESSION, every session is checked. Every problem is reported with file and line; any problem exits 1.`,
    options: {
      json: json("the findings"),
      from,
      "public-key": { type: "string", arg: "FILE", help: "the oracle's public key to trust (default: oracle.public_key from the config, which the agent can edit)" },
    },
    load: async () => (await import("./verify.ts")).verifyCommand,
  },
  run: {
    args: "-- CMD...",
    maxArgs: Infinity,
    summary: "run a harness's non-interactive command, ask the oracle when it exits, resume it on FAIL",
    details:
      "For a harness that cannot refuse a stop, or a CI job. Install the hooks first (without --gate: run is\n" +
      "the gate). Exit 0 on a flip, 1 when the oracle never passed within gate.max_attempts, 2 for usage or\n" +
      "set-up errors. The harness's stdout and stderr pass through; Ctrl-C and SIGTERM reach it.",
    options: {
      harness: { type: "string", arg: "NAME", required: true, help: "claude, codex, gemini, copilot or opencode: how to find its session and resume it" },
      task: { type: "string", arg: "ID", help: "the task id sent to the oracle (default: TRACEGATE_TASK_ID, else the config's task_id)" },
    },
    load: async () => (await import("../run/run.ts")).runCommand,
  },
  export: {
    summary: "verified flips as a training set: ATIF trajectories or chat JSONL, after a strict second redaction pass",
    details:
      "Only sessions whose verdicts verify under the oracle key are exported (default: those that flipped);\n" +
      "every other session is listed in --report with its reason. --scanner CMD gets the whole export on\n" +
      "stdin; a non-zero exit means findings and nothing is written.",
    options: {
      format: { type: "string", arg: "atif|chat-jsonl", required: true, help: "atif: one ATIF v1.4 trajectory per session in --out DIR; chat-jsonl: one line per session" },
      out: { type: "string", arg: "PATH", help: "the directory (atif, required) or file (chat-jsonl, default stdout)" },
      only: { type: "string", arg: "flip|all", help: "flip (default): sessions that flipped; all: every readable session whose verdicts verify" },
      "public-key": { type: "string", arg: "FILE", help: "the oracle's public key (PEM text or a file); default: oracle.public_key" },
      report: { type: "string", arg: "FILE", help: "a JSON report: every session with its reason, the second pass and scanner counts" },
      scanner: { type: "string", arg: "CMD", help: "a secret scanner run as sh -c CMD with the export on stdin; findings stop the export" },
      from: { ...from, help: "read a synced store instead of the data dir: file:///DIR or s3://BUCKET[/PREFIX]" },
    },
    load: async () => (await import("../export/cli.ts")).exportCommand,
  },
  annotate: {
    args: "SESSION",
    minArgs: 1,
    maxArgs: 1,
    summary: "a correction, as a new record: exclude a session (or one record) from exports, or add a note",
    details: session,
    options: {
      record: { type: "string", arg: "ID", help: "the record the annotation is about (its id); default: the whole session" },
      exclude: { type: "boolean", help: "leave it out of every export" },
      note: { type: "string", arg: "TEXT", help: "a note; exports carry it in their metadata" },
    },
    load: async () => (await import("./annotate.ts")).annotateCommand,
  },
  sync: {
    summary: "upload sessions to an append-only store (file:///DIR or s3://BUCKET[/PREFIX]); never overwrites",
    details:
      "The destination is --to, else the config's sync.url. S3 endpoint, region and credentials come from\n" +
      "the standard AWS variables (AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, ..., AWS_PROFILE).\n" +
      "Exit 0 when everything is in the store, 1 on any error or conflict, 2 for usage.",
    options: {
      to: { type: "string", arg: "URL", help: "the store: file:///DIR or s3://BUCKET[/PREFIX] (default: sync.url)" },
      session: { type: "string", arg: "SESSION", help: "only this session" },
      "dry-run": { type: "boolean", help: "say what would be uploaded, upload nothing" },
      json: json("a summary (uploaded, skipped, bytes, conflicts, errors)"),
      "session-file": { type: "string", arg: "FILE", help: "internal: the session file a SessionEnd hook hands its background sync" },
      "after-session-end": { type: "boolean", help: "internal: set by the SessionEnd hook's background sync" },
    },
    load: async () => (await import("../sync/cli.ts")).syncCommand,
  },
  redact: {
    args: "[FILE...]",
    maxArgs: Infinity,
    summary: "FILEs (or stdin) -> stdout, secrets replaced",
    options: {
      json: { type: "boolean", help: "input is JSON (or JSON Lines); values are redacted with their keys as context" },
      explain: { type: "boolean", help: "list what was found where (line:column +length), by kind and rule, never the values (instead of the output)" },
      strict: { type: "boolean", help: "more aggressive entropy detection (unlabelled hex, shorter tokens), for a second pass before sharing" },
    },
    load: async () => (await import("../redact/cli.ts")).redactCommand,
  },
  diff: {
    summary: "the patch of the working tree (new files included) against a commit, without git",
    options: {
      cwd: { type: "string", arg: "DIR", help: "the repository (default: the current directory)" },
      base: { type: "string", arg: "REV", help: "the commit to diff against (default HEAD)" },
      session: { type: "string", arg: "SESSION", help: "diff against that session's base commit (and its cwd unless --cwd)" },
      stat: { type: "boolean", help: "a git-style summary instead of the patch" },
    },
    load: async () => (await import("./diff.ts")).diffSessionCommand,
  },
  install: {
    summary: "register the hooks in a harness's hook config (Claude Code settings by default)",
    options: {
      harness: { type: "string", arg: "NAME", help: "claude (default), codex, gemini, copilot, opencode or cursor: whose hook config to edit" },
      scope: { type: "string", arg: "user|project|local", help: "which settings file (default user: $CLAUDE_CONFIG_DIR/settings.json)" },
      gate: { type: "boolean", help: "gate Stop on the oracle (otherwise Stop is only recorded)" },
      "dry-run": { type: "boolean", help: "print the change as a diff, write nothing" },
      bin: { type: "string", arg: "PATH", help: "the binary the entries run (default: this one; project scope: `tracegate` from PATH)" },
    },
    load: async () => (await import("../install/cli.ts")).installCommand,
  },
  uninstall: {
    summary: "remove tracegate's own entries from a harness's hook config (Claude Code by default)",
    options: {
      harness: { type: "string", arg: "NAME", help: "claude (default), codex, gemini, copilot, opencode or cursor: whose hook config to edit" },
      scope: { type: "string", arg: "user|project|local", help: "which settings file (default user)" },
      all: { type: "boolean", help: "every scope" },
      "dry-run": { type: "boolean", help: "print the change as a diff, write nothing" },
      purge: { type: "boolean", help: "every scope, then delete the data dir too (every recorded session)" },
    },
    load: async () => (await import("../install/cli.ts")).uninstallCommand,
  },
  doctor: {
    summary: "what is installed, where, and what is wrong (exit 0 healthy, 1 problems, 2 not installed)",
    options: {
      json: json("the report"),
      harness: { type: "string", arg: "NAME", help: "only this harness's hook config (claude, codex, gemini, copilot, opencode, cursor)" },
    },
    load: async () => (await import("../install/cli.ts")).doctorCommand,
  },
  prune: {
    summary: "delete sessions older than an age from the data dir",
    details:
      "A session's age is the time of its last record. When sync is configured (sync.url), a session\n" +
      "that cannot be shown to be synced is never deleted.",
    options: {
      "older-than": { type: "string", arg: "AGE", required: true, help: "30d, 12h, 90m, 2w" },
      "dry-run": { type: "boolean", help: "list what would be deleted, delete nothing" },
    },
    load: async () => (await import("./prune.ts")).pruneCommand,
  },
  config: {
    summary: "the effective configuration and where each value came from",
    options: { json: json("the effective values and their sources") },
    subcommands: {
      path: { summary: "print the user config file's path", options: {} },
    },
    load: async () => (await import("./config.ts")).configCommand,
  },
  oracle: {
    summary: "the reference oracle: key pairs and the verdict server",
    options: {},
    subcommands: {
      keygen: {
        summary: "write an Ed25519 key pair, oracle.key (private, 0600) and oracle.pub, and a bearer token, oracle.token (0600)",
        options: {
          out: { type: "string", arg: "DIR", required: true, help: "where to write the key pair" },
          force: { type: "boolean", help: "replace an existing key pair" },
        },
      },
      serve: {
        summary: "serve signed PASS/FAIL verdicts for diffs against --repo",
        options: {
          repo: { type: "string", arg: "DIR", required: true, help: "the task's git repository" },
          "test-cmd": { type: "string", arg: "CMD", required: true, help: "the test command (PASS iff it exits 0)" },
          key: { type: "string", arg: "FILE", required: true, help: "the private key (oracle.key from keygen)" },
          "token-file": { type: "string", arg: "FILE", help: "the bearer token clients send as oracle.token (oracle.token from keygen; or TRACEGATE_ORACLE_TOKEN)" },
          protect: { type: "string", arg: "GLOB", multiple: true, help: "paths restored from the base commit after the diff is applied (the task's tests); repeatable" },
          "no-sandbox": { type: "boolean", help: "run test commands without bubblewrap, with the oracle's own privileges (printed on every job)" },
          "allow-net": { type: "boolean", help: "let test commands use the host's network (default: none)" },
          "sandbox-ro": { type: "string", arg: "DIR", multiple: true, help: "a host directory mounted read-only in the sandbox (a toolchain outside /usr); repeatable" },
          cpu: { type: "string", arg: "S", help: "CPU seconds per test command (default 600)" },
          memory: { type: "string", arg: "MB", help: "address space per test process in MiB (default 8192)" },
          procs: { type: "string", arg: "N", help: "processes and threads the test command may have at once (default 1024): a fork bomb stops there" },
          "max-attempts": { type: "string", arg: "N", help: "accepted requests per (task, session) (default 25)" },
          "keep-jobs": { type: "string", arg: "N", help: "finished jobs kept for polling (default 1000)" },
          "keep-bytes": { type: "string", arg: "N", help: "bytes of finished answers kept (default 16777216)" },
          port: { type: "string", arg: "N", help: "port to listen on (default 8700; 0 picks a free one)" },
          host: { type: "string", arg: "ADDR", help: "address to bind (default 127.0.0.1)" },
          "tests-list": { type: "string", arg: "CMD", help: "command listing the tests; its output names tests_hash" },
          timeout: { type: "string", arg: "S", help: "test command time limit in seconds (default 600)" },
          "max-diff-bytes": { type: "string", arg: "N", help: "largest diff accepted (default 52428800)" },
          queue: { type: "string", arg: "N", help: "jobs that may wait (default 16)" },
          jobs: { type: "string", arg: "N", help: "jobs run at once (default 1)" },
          wait: { type: "string", arg: "S", help: "seconds to wait for a verdict before answering 202 (default 10)" },
          verbose: { type: "boolean", help: "log each job's test output on this host's stderr (never sent to the agent)" },
        },
      },
    },
    load: async () => (await import("../oracle/cli.ts")).oracleCommand,
  },
  view: {
    summary: "a local page to look at sessions, live as hooks record them (127.0.0.1 only, with an access token)",
    details:
      "Prints the page's URL with a fresh access token. Viewing the data dir, it writes a discovery\n" +
      "record there so hooks forward their records to it, but only after it proves it holds the record's token.",
    options: {
      port: { type: "string", arg: "N", help: "port on 127.0.0.1 (default 0: a free one)" },
      from,
      open: { type: "boolean", help: "also open the URL in the desktop's browser" },
    },
    load: async () => (await import("../view/cli.ts")).viewCommand,
  },
  version: {
    summary: "print the version and commit (also --version)",
    options: {},
    load: async () => (await import("./version.ts")).versionCommand,
  },
  help: {
    args: "[COMMAND]",
    maxArgs: 2,
    summary: "this text, or one command's help (also --help, -h)",
    options: {},
    load: async () => (await import("./help.ts")).helpCommand,
  },
};

/** Names that reach a command under another spelling. */
export const ALIASES: Readonly<Record<string, string>> = {
  "--version": "version",
  "-V": "version",
  "--help": "help",
  "-h": "help",
};

/** Options every command takes. */
export const HELP_OPTION: OptionSpec = { type: "boolean", short: "h", help: "show this help" };

/**
 * The spec for a command path such as `["oracle", "serve"]`, and how many
 * words of argv named it.
 *
 * @example
 * ```ts
 * lookup(["oracle", "serve", "--repo", "."]); // { spec: <serve>, path: ["oracle", "serve"] }
 * ```
 */
export function lookup(argv: readonly string[]): { spec: CommandSpec; path: string[] } | null {
  const name = ALIASES[argv[0] ?? ""] ?? argv[0];
  const top = name !== undefined ? COMMANDS[name] : undefined;
  if (!top || name === undefined) return null;
  const sub = argv[1];
  if (top.subcommands && sub !== undefined && top.subcommands[sub]) {
    return { spec: top.subcommands[sub]!, path: [name, sub] };
  }
  return { spec: top, path: [name] };
}
