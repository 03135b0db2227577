import { err, out } from "./print.ts";

export const USAGE = `tracegate: records AI coding-agent sessions, redacts secrets, gates the stop on a signed test verdict.

Hook subcommands (read the event JSON on stdin; always exit 0):
  session-start | user-prompt-submit | pre-tool-use | post-tool-use |
  post-tool-use-failure | stop | subagent-stop | pre-compact | notification |
  session-end  [--harness claude]

User commands:
  sessions [--json]                 list sessions in the store
  show SESSION [--json]             a session's records
  verify [SESSION] [--public-key F] schema, verdict signatures and fields, replays, the hash chain
  redact [--json] [--explain]       stdin -> stdout, secrets replaced
  diff [--cwd DIR] [--base REV] [--stat]
  install [--scope user|project|local] [--gate] [--dry-run]
  uninstall [--scope ...] [--dry-run]
  doctor [--json]
  oracle keygen --out DIR
  oracle serve --repo DIR --test-cmd CMD --key FILE --token-file FILE [--protect GLOB]... [--port N]
  --version

Environment: TRACEGATE_HOME (data dir), TRACEGATE_CONFIG (config file),
CLAUDE_CONFIG_DIR (Claude Code settings dir), TRACEGATE_TASK_ID.
`;

export async function helpCommand(_argv: string[], problem?: string): Promise<number> {
  if (problem) {
    err(`tracegate: ${problem}\n\n${USAGE}`);
    return 2;
  }
  out(USAGE);
  return 0;
}
