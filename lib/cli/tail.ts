/**
 * `tracegate tail [SESSION] [--json]`: follow records as hooks append them.
 * Without SESSION every session is followed, including ones that start after
 * tail did. Polls file sizes (portable, and appends are whole lines written
 * by one write() each); only complete lines are printed.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "../runtime/builtins.ts";
import { dataDir } from "../config/paths.ts";
import type { TraceRecord } from "../trace/record.ts";
import { listSessionFiles } from "../trace/store.ts";
import { parseOptions } from "./args.ts";
import { COMMANDS } from "./commands.ts";
import { err, escapeControl, fail, out } from "./print.ts";
import { resolveSession } from "./resolve.ts";
import { formatLine } from "./show.ts";
import { configuredPublicKey } from "./sessions.ts";
import { storedVerdictProblem } from "../gate/outcome.ts";
import { colorEnabled, isTerminal, paint } from "./style.ts";

interface Cursor {
  offset: number;
  rest: string;
}

/** How often the store is looked at. */
const POLL_MS = 200;
/** Records of the followed session printed before following, like `tail`'s 10 lines. */
const BACKLOG = 10;

function readFrom(path: string, offset: number): { text: string; end: number } {
  const size = statSync(path).size;
  if (size <= offset) return { text: "", end: size < offset ? 0 : offset };
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(size - offset);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    return { text: buf.subarray(0, got).toString("utf8"), end: offset + got };
  } finally {
    closeSync(fd);
  }
}

/** `tracegate tail [SESSION] [--json]`: runs until interrupted; exit 0. */
export async function tailCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: parseOptions(COMMANDS.tail!), strict: true, allowPositionals: true });
  const home = dataDir(process.env);
  const only = positionals[0] === undefined ? null : resolveSession(home, positionals[0]);
  if (only && "error" in only) return fail(only.error);
  const tty = isTerminal(1);
  const p = paint(colorEnabled(1));
  const cursors = new Map<string, Cursor>();
  // A verdict line is checked on its own (signature, stated fields, session): the stored
  // `verified` flag is the agent's to write. Replays and the chain need the whole file (`show`).
  const publicKey = await configuredPublicKey();
  const counts = (r: TraceRecord): boolean | undefined => {
    if (r.type !== "oracle_verdict") return undefined;
    return storedVerdictProblem(r as unknown as Record<string, unknown>, publicKey) === null;
  };
  const emit = (file: string, line: string) => {
    if (values.json) return out(`${line}\n`);
    let r: TraceRecord;
    try {
      r = JSON.parse(line);
    } catch {
      return err(`tracegate: ${file}: corrupt line skipped\n`);
    }
    const who = only ? "" : `${p.cyan(escapeControl(basename(file, ".jsonl").slice(0, 12)))}  `;
    out(`${who}${formatLine(r, tty, p, counts(r))}\n`);
  };
  const files = (): string[] => (only && !("error" in only) ? [only.path] : listSessionFiles(home).map((f) => f.path));
  // Start at the end of what exists (a backlog of the one session followed);
  // files that appear later are read from their start.
  for (const f of files()) {
    const { text, end } = readFrom(f, 0);
    cursors.set(f, { offset: end, rest: "" });
    if (only) for (const line of text.split("\n").filter(Boolean).slice(-BACKLOG)) emit(f, line);
  }
  if (!only) err(`tracegate: following ${home}/sessions (Ctrl-C to stop)\n`);
  let stopped = false;
  const stop = () => {
    stopped = true;
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  while (!stopped) {
    for (const f of files()) {
      const c = cursors.get(f) ?? { offset: 0, rest: "" };
      cursors.set(f, c);
      let chunk;
      try {
        chunk = readFrom(f, c.offset);
      } catch {
        continue; // pruned or unreadable meanwhile
      }
      if (chunk.end < c.offset) c.rest = "";
      c.offset = chunk.end;
      const lines = (c.rest + chunk.text).split("\n");
      c.rest = lines.pop() ?? "";
      for (const line of lines) if (line) emit(f, line);
    }
    await Bun.sleep(POLL_MS);
  }
  return 0;
}
