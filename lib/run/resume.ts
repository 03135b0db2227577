/**
 * How `tracegate run` resumes a harness's session with a new prompt: from
 * the command the user gave (the harness's own non-interactive command line)
 * to the same command continuing the recorded session with the gate's reason
 * as the next prompt. Pure: argv in, argv (and stdin) out.
 *
 * The forms, from each pinned client's `--help`:
 *
 * | harness | first run (the prompt) | resume |
 * |---|---|---|
 * | Claude Code | `claude -p [flags] PROMPT` (the last argument) | `claude --resume ID -p [flags] REASON` (`--resume ID` is `-c` pinned to the session) |
 * | Codex | `codex exec [flags] PROMPT` (the last argument) | `codex exec resume [flags] ID REASON` |
 * | Gemini | `gemini [flags] -p PROMPT` | `gemini --resume latest [flags] -p REASON` (Gemini resumes by `latest` or index) |
 * | Copilot | `copilot [flags] -p PROMPT` | `copilot --resume ID [flags] -p REASON` |
 * | OpenCode | `opencode run [flags]`, the prompt on stdin | `opencode run --session ID [flags]`, REASON on stdin |
 */

/** A command to run: argv, and what to write on its stdin (null: inherit the caller's). */
export interface Invocation {
  readonly argv: readonly string[];
  readonly stdin: string | null;
}

/** A command line tracegate cannot resume, with what to do about it. */
export class ResumeError extends Error {
  override name = "ResumeError";
}

type Resume = (argv: readonly string[], sessionId: string, reason: string) => Invocation;

/** Replace the value of `-p`/`--prompt` (or `--prompt=`); throws when there is none. */
function replacePromptFlag(argv: readonly string[], reason: string, harness: string): string[] {
  const out = [...argv];
  for (let i = 1; i < out.length; i++) {
    if ((out[i] === "-p" || out[i] === "--prompt") && i + 1 < out.length) {
      out[i + 1] = reason;
      return out;
    }
    if (out[i]!.startsWith("--prompt=")) {
      out[i] = `--prompt=${reason}`;
      return out;
    }
  }
  throw new ResumeError(`the ${harness} command has no -p PROMPT: give the prompt with -p (e.g. ${harness} --yolo -p "the task")`);
}

function lastIsPrompt(argv: readonly string[], harness: string, example: string): void {
  const last = argv.at(-1);
  if (argv.length < 2 || last === undefined || last.startsWith("-")) {
    throw new ResumeError(`the ${harness} command must end with the prompt (e.g. ${example})`);
  }
}

const RESUME: Readonly<Record<string, Resume>> = {
  claude(argv, id, reason) {
    lastIsPrompt(argv, "claude", 'claude -p --dangerously-skip-permissions "the task"');
    return { argv: [argv[0]!, "--resume", id, ...argv.slice(1, -1), reason], stdin: null };
  },
  codex(argv, id, reason) {
    lastIsPrompt(argv, "codex", 'codex exec --full-auto "the task"');
    if (argv[1] !== "exec") throw new ResumeError('the codex command must be `codex exec [flags] "the task"`');
    return { argv: [argv[0]!, "exec", "resume", ...argv.slice(2, -1), id, reason], stdin: null };
  },
  gemini(argv, _id, reason) {
    const out = replacePromptFlag(argv, reason, "gemini");
    return { argv: [out[0]!, "--resume", "latest", ...out.slice(1)], stdin: null };
  },
  copilot(argv, id, reason) {
    const out = replacePromptFlag(argv, reason, "copilot");
    return { argv: [out[0]!, "--resume", id, ...out.slice(1)], stdin: null };
  },
  opencode(argv, id, reason) {
    if (argv[1] !== "run") throw new ResumeError("the opencode command must be `opencode run [flags]` with the prompt on stdin");
    return { argv: [argv[0]!, "run", "--session", id, ...argv.slice(2)], stdin: `${reason}\n` };
  },
};

/** Whether `tracegate run` knows how to resume this harness. */
export function canResume(harness: string): boolean {
  return Object.hasOwn(RESUME, harness);
}

/** Harnesses `tracegate run` can drive. */
export const RESUMABLE: readonly string[] = Object.keys(RESUME);

/**
 * Check that a first command line can be resumed later (so a bad one fails before the harness runs).
 *
 * @example
 * ```ts
 * checkCommand("codex", ["codex", "exec", "task"]); // ok
 * ```
 */
export function checkCommand(harness: string, argv: readonly string[]): void {
  resumeCommand(harness, argv, "00000000-0000-0000-0000-000000000000", "x");
}

/**
 * The command that resumes session `sessionId` with `reason` as the next prompt.
 *
 * @example
 * ```ts
 * resumeCommand("codex", ["codex", "exec", "--full-auto", "fix it"], "0199…", "R").argv;
 * // ["codex", "exec", "resume", "--full-auto", "0199…", "R"]
 * ```
 */
export function resumeCommand(harness: string, argv: readonly string[], sessionId: string, reason: string): Invocation {
  const r = RESUME[harness];
  if (!r) throw new ResumeError(`tracegate run cannot resume ${harness} sessions (it can: ${RESUMABLE.join(", ")})`);
  if (argv.length === 0) throw new ResumeError("no command after --");
  return r(argv, sessionId, reason);
}
