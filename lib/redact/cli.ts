/**
 * `tracegate redact`: stdin to stdout with secrets replaced.
 *
 *   tracegate redact            raw text
 *   tracegate redact --json     JSON (or JSON Lines) in, JSON out, string leaves redacted with their keys as context
 *   tracegate redact --explain  what was found where (line:column +length), by kind and rule, never the values
 *   tracegate redact --strict   more aggressive entropy (unlabelled hex, shorter tokens): the export's second pass
 *
 * @example
 * ```sh
 * cat .env | tracegate redact
 * tracegate show S --json | tracegate redact --json --explain
 * ```
 */
import { fstatSync, readFileSync, statSync } from "node:fs";
import { parseArgs } from "../runtime/builtins.ts";
import { err, fail, out, stdoutPieces } from "../cli/print.ts";
import { checkRedactConfig, createRedactor, type Found, type RedactConfig } from "./index.ts";
import { loadFingerprintKey } from "./fingerprint.ts";
import { HUGE_PAGES_MIN_CHARS, oneShotPayload } from "./tiering.ts";
import { adviseHugePages } from "../runtime/pages.ts";
import { loadConfig } from "../config/load.ts";
import { dataDir } from "../config/paths.ts";

/**
 * The bytes the command will read, when every input is a regular file (its
 * arguments, or stdin redirected from one); undefined for a pipe, a terminal
 * or a file that cannot be read (whose error comes at the read).
 */
export function inputBytes(files: readonly string[]): number | undefined {
  try {
    if (files.length === 0) {
      const st = fstatSync(0);
      return st.isFile() ? st.size : undefined;
    }
    let n = 0;
    for (const f of files) n += statSync(f).size;
    return n;
  } catch {
    return undefined;
  }
}

const USAGE = "usage: tracegate redact [FILE...] [--json] [--explain] [--strict]   (stdin when no FILE)";

async function readStdin(): Promise<string> {
  // Bun's native reader is several times faster than a chunked stream on MBs of input.
  const bun = (globalThis as { Bun?: { stdin: { text(): Promise<string> } } }).Bun;
  if (bun) return bun.stdin.text();
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(typeof c === "string" ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

function describe(found: readonly Found[], json: boolean): string {
  if (found.length === 0) return "no secrets found\n";
  const lines = found.map((f) => {
    const span = f.length !== undefined ? `+${f.length}` : "";
    const where = json ? `${f.path}${f.line > 1 || f.column > 1 ? ` ${f.line}:${f.column}` : ""}${span ? ` ${span}` : ""}` : `${f.line}:${f.column}${span ? ` ${span}` : ""}`;
    return `${where}\t${f.kind}${f.rule ? `\trule ${f.rule}` : ""}${f.within ? `\t(decoded from ${f.within})` : ""}${f.copy ? "\t(copy of a secret found elsewhere)" : ""}${f.checksum ? "\t(checksum verified)" : ""}`;
  });
  const byKind = new Map<string, number>();
  for (const f of found) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + 1);
  const summary = [...byKind].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k, n]) => `${k} ${n}`).join(", ");
  return `${lines.join("\n")}\n${found.length} finding${found.length === 1 ? "" : "s"}: ${summary}\n`;
}

/** Parses JSON, or JSON Lines when the whole input is not one JSON value. */
function parseJsonInput(text: string): { values: unknown[]; lines: boolean } | { error: string } {
  try {
    return { values: [JSON.parse(text)], lines: false };
  } catch (e) {
    const rows = text.split("\n").filter((l) => l.trim() !== "");
    if (rows.length > 1) {
      const values: unknown[] = [];
      for (const [i, row] of rows.entries()) {
        try {
          values.push(JSON.parse(row));
        } catch (e2) {
          return { error: `line ${i + 1}: ${(e2 as Error).message}` };
        }
      }
      return { values, lines: true };
    }
    return { error: (e as Error).message };
  }
}

/**
 * The `redact` command. Exit 0 on success, 1 on bad input, 2 on bad usage.
 *
 * @example
 * ```ts
 * await redactCommand(["--json"]); // reads stdin, writes redacted JSON to stdout
 * ```
 */
/**
 * The user's patterns and allowlist, and the repository's added patterns,
 * as the hooks would use them. `redact.enabled: false` is ignored here: a
 * user who runs `tracegate redact` asked for redaction.
 */
async function userRedactConfig(): Promise<RedactConfig> {
  const config = await loadConfig(process.env, process.cwd());
  const rc: RedactConfig = { extra: config.redact.extra, allow: config.redact.allow, repoExtra: config.redact.repo_extra };
  for (const problem of [...config.errors, ...checkRedactConfig(rc)]) err(`tracegate: config: ${problem}\n`);
  return rc;
}

export async function redactCommand(argv: string[], config?: RedactConfig): Promise<number> {
  let opts: { json?: boolean; explain?: boolean; strict?: boolean; help?: boolean };
  let files: string[];
  try {
    ({ values: opts, positionals: files } = parseArgs({
      args: argv,
      options: { json: { type: "boolean" }, explain: { type: "boolean" }, strict: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: true,
    }));
  } catch (e) {
    return fail(`${(e as Error).message}\n${USAGE}`, 2);
  }
  if (opts.help) {
    out(`${USAGE}\n\nReads stdin and writes it to stdout with secrets replaced by [REDACTED:<kind>:<tag>].\n  --json     input is JSON (or JSON Lines); string values are redacted using their keys as context\n  --explain  list what was found where (line:column +length), by kind and rule, without the values (instead of the output)\n  --strict   more aggressive entropy detection (unlabelled hex, shorter tokens), for a second pass before sharing a trace\n`);
    return 0;
  }
  // Before the read, so the input's own pages come 2 MB at a time too (pages.ts), when the input may
  // be large: its size is known for files and a redirected file; a pipe's is not.
  const known = inputBytes(files);
  if (known === undefined || known >= HUGE_PAGES_MIN_CHARS) adviseHugePages();
  const inputs: { name: string; text: string }[] = [];
  if (files.length === 0) {
    try {
      inputs.push({ name: "stdin", text: await readStdin() });
    } catch (e) {
      return fail(`cannot read stdin: ${(e as Error).message}`);
    }
  }
  for (const f of files) {
    try {
      inputs.push({ name: f, text: readFileSync(f, "utf8") });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return fail(`cannot read ${f} (${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a directory" : (code ?? (e as Error).message)}); nothing was printed`);
    }
  }
  const redactor = createRedactor({ fingerprintKey: () => loadFingerprintKey(dataDir(process.env)), ...(config ?? (await userRedactConfig())), strict: opts.strict === true });
  // One command, one pass over its input, then exit: tiering.ts.
  oneShotPayload(inputs.reduce((n, i) => n + i.text.length, 0));
  for (const { name, text } of inputs) {
    const code = redactOne(text, name, files.length > 1, opts, redactor);
    if (code !== 0) return code;
  }
  return 0;
}

/** Redact one input (a file or stdin) to stdout; with several files, --explain names each. */
function redactOne(
  input: string,
  name: string,
  several: boolean,
  opts: { json?: boolean; explain?: boolean },
  redactor: ReturnType<typeof createRedactor>,
): number {
  if (several && opts.explain) out(`${name}:\n`);
  if (!opts.json) {
    if (opts.explain) out(describe(redactor.explainText!(input).found, false));
    else {
      const w = stdoutPieces();
      redactor.textTo!(input, w.put);
      w.end();
    }
    return 0;
  }
  const parsed = parseJsonInput(input);
  if ("error" in parsed) return fail(`--json: ${name} is not valid JSON (${parsed.error}); drop --json to redact it as text`);
  const found: Found[] = [];
  const outputs: string[] = [];
  try {
    for (const [i, v] of parsed.values.entries()) {
      if (opts.explain) {
        for (const f of redactor.explainValue!(v).found) found.push(parsed.lines ? { ...f, path: `line ${i + 1} ${f.path}` } : f);
      } else outputs.push(JSON.stringify(redactor.value(v), null, parsed.lines ? undefined : 2));
    }
  } catch (e) {
    // JSON.parse accepts nesting that JSON.stringify cannot walk back out.
    return fail(`--json: cannot process input (${(e as Error).message})`);
  }
  if (opts.explain) out(describe(found, true));
  else out(`${outputs.join("\n")}\n`);
  return 0;
}
