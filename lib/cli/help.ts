import { err, out } from "./print.ts";

export const USAGE = `tracegate: records AI coding-agent sessions, redacts secrets, gates the stop on a signed test verdict.

Hook subcommands (read the event JSON on stdin; always exit 0):
  session-start | user-prompt-submit | pre-tool-use | post-tool-use |
  post-tool-use-failure | stop | subagent-stop | pre-compact | notification |
  session-end | event --event=NAME  [--harness claude|codex|gemini|copilot|opencode|cursor]

User commands:
  sessions [--json]                 list sessions in the store
  show SESSION [--json]             a session's records
  verify [SESSION]                  validate records against the schema, check verdict signatures
  redact [--json] [--explain]       stdin -> stdout, secrets replaced
  diff [--cwd DIR] [--base REV] [--stat]
  install [--harness NAME] [--scope user|project|local] [--gate] [--dry-run]
  uninstall [--harness NAME] [--scope ... | --all] [--dry-run]
  doctor [--harness NAME] [--json]
  run --harness NAME [--task ID] -- CMD...  run a harness, gate it from outside, resume on FAIL
  oracle keygen --out DIR
  oracle serve --repo DIR --test-cmd CMD --key FILE [--port N]
  --version

Environment: TRACEGATE_HOME (data dir), TRACEGATE_CONFIG (config file),
CLAUDE_CONFIG_DIR (Claude Code settings dir), CODEX_HOME, COPILOT_HOME, TRACEGATE_TASK_ID.
`;

export async function helpCommand(_argv: string[], problem?: string): Promise<number> {
  if (problem) {
    err(`tracegate: ${problem}\n\n${USAGE}`);
    return 2;
  }
  out(USAGE);
  return 0;
}
