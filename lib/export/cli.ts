/**
 * `tracegate export --format atif|chat-jsonl [--from URL] [--out PATH]
 *  [--only flip|all] [--public-key PEM] [--report FILE] [--scanner CMD]`
 *
 * The training set: sessions whose verified verdicts say the diff made the
 * task's tests pass. One session at a time is read, audited, rendered,
 * redacted again in strict mode and written to a temporary file beside the
 * destination, so memory stays flat in the number of sessions and nothing is
 * at the destination until the whole export, scanner included, has passed.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "../runtime/builtins.ts";
import { loadConfig } from "../config/load.ts";
import { dataDir } from "../config/paths.ts";
import { err, fail, out } from "../cli/print.ts";
import { readPublicKeyPem } from "../oracle/keys.ts";
import { redactConfigOf } from "../redact/configured.ts";
import { createRedactor, type Redactor } from "../redact/index.ts";
import { sessionFileName } from "../trace/store.ts";
import { openSource, type StoreSource } from "../source/index.ts";
import { analyzeSession, type SessionAnalysis } from "../gate/outcome.ts";
import { conversationOf, exclusionsOf, type Turn } from "./conversation.ts";
import { toAtif, toChat, type SessionMeta } from "./formats.ts";
import { selectionOf, type ExclusionReason, type Only } from "./select.ts";

export const EXPORT_USAGE = `usage: tracegate export --format atif|chat-jsonl [--out PATH] [--only flip|all]
                        [--public-key PEM|FILE] [--report FILE] [--scanner CMD] [--from URL]

  --format atif        one ATIF v1.4 trajectory per session, as DIR/<session>.json (--out DIR required)
  --format chat-jsonl  one line per session in the OpenAI chat fine-tuning shape (--out FILE, default stdout)
  --only flip          sessions whose verified verdicts end in PASS (default); all: every readable session
                       whose verdicts verify
  --public-key         the oracle's public key (PEM text or a file); default: oracle.public_key in the config
  --report FILE        a JSON report: every session with its reason, redaction and scanner counts
  --scanner CMD        a secret scanner run with the whole export on stdin (sh -c CMD); a non-zero exit
                       means findings and stops the export
`;

type Rec = Readonly<Record<string, unknown>>;

interface ReportEntry {
  readonly session_id: string;
  readonly exported: boolean;
  readonly reasons: readonly ExclusionReason[];
  readonly outcome: string;
  readonly problems?: readonly string[];
}

/** One session read from a store: where it came from and its bytes. */
export interface StoredSession {
  /** The session file's path (or object key); its name must match the session id. */
  readonly file: string;
  readonly bytes: Uint8Array;
}

/**
 * The sessions of a store (the data dir, or a synced store with `--from`),
 * read one at a time so memory stays flat in their number. In session-id
 * order: the same store gives the same bytes whether it is read locally or
 * from a bucket, whose listing order is not the data dir's mtime order.
 */
async function* storedSessions(source: StoreSource): AsyncGenerator<StoredSession> {
  const all = (await source.list()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const s of all) yield { file: s.label, bytes: await source.readBytes(s) };
}

/** Each PASS/FAIL verdict as exported: the signed payload, and whether the analysis counted it. */
function verdictsOf(a: SessionAnalysis): SessionMeta["verdicts"] {
  const counted = new Set(a.verified_lines);
  const list: SessionMeta["verdicts"][number][] = [];
  a.records.forEach((r, i) => {
    const v = r as unknown as Rec;
    if (v.type !== "oracle_verdict" || (v.verdict !== "PASS" && v.verdict !== "FAIL")) return;
    list.push({
      attempt: typeof v.attempt === "number" ? v.attempt : null,
      verdict: v.verdict as string,
      verified: counted.has(a.lines[i]!),
      decision: typeof v.decision === "string" ? v.decision : null,
      signed: v.signed ?? null,
    });
  });
  return list;
}

/** Redact every string of an exported value again; the number of secrets found is counted. */
function secondPass(redactor: Redactor, value: unknown): { value: unknown; found: number } {
  // createRedactor always explains; the interface only makes it optional for other redactors.
  const { output, found } = redactor.explainValue!(value);
  return { value: output, found: found.length };
}

function metaOf(sessionId: string, records: readonly Rec[], outcome: string, verdicts: SessionMeta["verdicts"], notes: readonly string[]): SessionMeta {
  const start = records.find((r) => r.type === "session_start");
  const verdict = records.find((r) => r.type === "oracle_verdict" && typeof r.task_id === "string");
  return {
    session_id: sessionId,
    harness: typeof records[0]?.harness === "string" ? (records[0].harness as string) : "unknown",
    model: typeof start?.model === "string" ? start.model : null,
    task_id: verdict ? (verdict.task_id as string) : null,
    base_commit: typeof start?.base_commit === "string" ? start.base_commit : null,
    outcome,
    verdicts,
    notes,
  };
}

/** Run the scanner over a file; resolves to its exit code and output. */
function runScanner(cmd: string, file: string): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    const child = spawn("/bin/sh", ["-c", cmd], {
      stdio: [openSync(file, "r"), "pipe", "pipe"],
      env: { ...process.env, TRACEGATE_INTERNAL: "1" },
    });
    let output = "";
    child.stdout?.on("data", (d) => (output += d));
    child.stderr?.on("data", (d) => (output += d));
    child.on("error", (e) => done({ code: 127, output: String(e.message) }));
    child.on("close", (code) => done({ code: code ?? 1, output }));
  });
}

export async function exportCommand(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        format: { type: "string" },
        out: { type: "string" },
        only: { type: "string", default: "flip" },
        "public-key": { type: "string" },
        report: { type: "string" },
        scanner: { type: "string" },
        from: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (e) {
    return fail(`${(e as Error).message}\n${EXPORT_USAGE}`, 2);
  }
  if (values.help) {
    out(EXPORT_USAGE);
    return 0;
  }
  const format = values.format;
  if (format !== "atif" && format !== "chat-jsonl") return fail(`--format must be atif or chat-jsonl\n${EXPORT_USAGE}`, 2);
  const only = values.only as Only;
  if (only !== "flip" && only !== "all") return fail(`--only must be flip or all, not "${values.only}"`, 2);
  if (format === "atif" && !values.out) return fail("--format atif writes one file per session: give --out DIR", 2);

  const config = await loadConfig(process.env, null);
  const keySpec = values["public-key"] ?? config.oracle?.public_key;
  if (!keySpec) {
    return fail(`export needs the oracle's public key to check verdicts: pass --public-key FILE or set oracle.public_key in ${config.path}`, 2);
  }
  let publicKey: string;
  try {
    // A --public-key path is the caller's (relative to the cwd); the config's is relative to the config file.
    const flag = values["public-key"];
    publicKey = readPublicKeyPem(flag && !flag.includes("-----BEGIN") ? resolve(flag) : keySpec, config.path);
  } catch (e) {
    return fail(`cannot read the public key ${keySpec}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 2);
  }
  const home = dataDir(process.env);
  let source: StoreSource;
  try {
    source = await openSource(values.from, home, process.env);
  } catch (e) {
    return fail(`cannot open ${values.from ?? home}: ${(e as Error).message}`, 2);
  }
  const rc = redactConfigOf(config, home) ?? {};
  // The second pass runs even when the user turned collection-time redaction off.
  const redactor = createRedactor({ ...rc, strict: true });

  const outPath = values.out ? resolve(values.out) : null;
  if (outPath && format === "atif" && existsSync(outPath) && readdirSync(outPath).length > 0) {
    return fail(`${outPath} is not empty: export into a new or empty directory`, 2);
  }
  const staging = outPath ? `${outPath}.partial-${process.pid}` : join(home, `.export-${process.pid}.partial`);
  rmSync(staging, { recursive: true, force: true });
  if (format === "atif") mkdirSync(staging, { recursive: true, mode: 0o700 });
  else mkdirSync(dirname(staging), { recursive: true });
  const chatFd = format === "chat-jsonl" ? openSync(staging, "wx", 0o600) : -1;

  const report: ReportEntry[] = [];
  let redactions = 0;
  let exported = 0;
  let read = 0;
  const tty = process.stderr.isTTY === true;
  // Signatures seen so far, across sessions: one signed verdict counted in two sessions is a replay.
  const signatures = new Map<string, string>();
  try {
    for await (const s of storedSessions(source)) {
      read++;
      if (tty) err(`\rexporting: ${read} sessions read, ${exported} exported`);
      const a = analyzeSession(s.bytes, { file: s.file, publicKey, seen: signatures });
      const sessionId = a.session_id ?? basename(s.file, ".jsonl");
      const recs = a.records as unknown as Rec[];
      const ex = exclusionsOf(recs);
      const tampered = a.outcome === "unverified" ? 0 : a.problems.length;
      const sel = selectionOf({ outcome: a.outcome, corrupt_lines: a.corrupt.length + tampered, excluded: ex.session }, only);
      report.push({
        session_id: sessionId,
        exported: sel.selected,
        reasons: sel.reasons,
        outcome: a.outcome,
        ...(a.problems.length || a.corrupt.length
          ? { problems: [...a.corrupt, ...a.problems].map((p) => `line ${p.line}: ${p.problem}`) }
          : {}),
      });
      if (!sel.selected) continue;
      const { turns } = conversationOf(recs);
      // The second pass covers everything the agent or a person wrote (the turns, annotation notes);
      // the verdicts' signatures and digests are evidence, public by design, and must stay verifiable.
      const clean = secondPass(redactor, { turns, notes: ex.notes }) as { value: { turns: Turn[]; notes: string[] }; found: number };
      redactions += clean.found;
      const meta = metaOf(sessionId, recs, a.outcome, verdictsOf(a), clean.value.notes);
      const rendered = format === "atif" ? toAtif(clean.value.turns, meta) : toChat(clean.value.turns, meta);
      if (format === "atif") {
        const fd = openSync(join(staging, sessionFileName(sessionId).replace(/\.jsonl$/, ".json")), "wx", 0o600);
        try {
          writeSync(fd, `${JSON.stringify(rendered, null, 2)}\n`);
        } finally {
          closeSync(fd);
        }
      } else {
        writeSync(chatFd, `${JSON.stringify(rendered)}\n`);
      }
      exported++;
    }
  } catch (e) {
    if (chatFd >= 0) closeSync(chatFd);
    rmSync(staging, { recursive: true, force: true });
    if (tty) err("\n");
    return fail(`export failed while reading ${source.label}: ${(e as Error).message}`);
  }
  if (chatFd >= 0) closeSync(chatFd);
  if (tty) err(`\rexporting: ${read} sessions read, ${exported} exported\n`);

  let scanner: { command: string; exit: number; findings: number } | null = null;
  if (values.scanner) {
    const target = format === "atif" ? concatFiles(staging) : staging;
    const r = await runScanner(values.scanner, target);
    if (format === "atif") rmSync(target, { force: true });
    scanner = { command: values.scanner, exit: r.code, findings: r.code === 0 ? 0 : Math.max(1, r.output.split("\n").filter((l) => l.trim()).length) };
    if (r.code !== 0) {
      rmSync(staging, { recursive: true, force: true });
      writeReport(values.report, format, only, report, redactions, scanner, false);
      return fail(`the scanner \`${values.scanner}\` reported findings (exit ${r.code}); nothing was exported:\n${r.output.slice(0, 4000)}`);
    }
  }

  if (outPath) {
    if (format === "atif" && existsSync(outPath)) rmSync(outPath, { recursive: true });
    renameSync(staging, outPath);
  } else {
    out(readFileSync(staging, "utf8"));
    rmSync(staging, { force: true });
  }
  writeReport(values.report, format, only, report, redactions, scanner, true);

  const excluded = report.filter((r) => !r.exported);
  const flagged = report.filter((r) => r.reasons.includes("unverified verdict"));
  const counts = new Map<string, number>();
  for (const r of excluded) counts.set(r.reasons[0] ?? "not selected", (counts.get(r.reasons[0] ?? "not selected") ?? 0) + 1);
  const summary = [...counts].map(([k, n]) => `${n} ${k}`).join(", ");
  err(`exported ${exported} of ${read} sessions${outPath ? ` to ${outPath}` : ""}${excluded.length ? `; excluded ${excluded.length} (${summary})` : ""}; second pass redacted ${redactions}\n`);
  if (flagged.length) {
    err(
      `WARNING: ${flagged.length} session${flagged.length === 1 ? " has verdicts" : "s have verdicts"} that do not verify under the oracle key: ` +
        `a host wrote a verdict the oracle did not give, or the key is wrong. Excluded: ${flagged.map((f) => f.session_id).join(", ")}\n`,
    );
  }
  return 0;
}

function concatFiles(dir: string): string {
  const target = `${dir}.scan`;
  const fd = openSync(target, "w", 0o600);
  try {
    for (const name of readdirSync(dir).sort()) writeSync(fd, readFileSync(join(dir, name)));
  } finally {
    closeSync(fd);
  }
  return target;
}

function writeReport(
  path: string | undefined,
  format: string,
  only: Only,
  sessions: readonly ReportEntry[],
  redactions: number,
  scanner: { command: string; exit: number; findings: number } | null,
  written: boolean,
): void {
  if (!path) return;
  const excluded = sessions.filter((s) => !s.exported);
  const report = {
    format,
    only,
    written,
    exported: sessions.filter((s) => s.exported).length,
    excluded: excluded.length,
    flagged: sessions.filter((s) => s.reasons.includes("unverified verdict")).map((s) => s.session_id),
    second_pass: { redacted: redactions },
    scanner,
    sessions,
  };
  const fd = openSync(resolve(path), "w", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(report, null, 2)}\n`);
  } finally {
    closeSync(fd);
  }
}
