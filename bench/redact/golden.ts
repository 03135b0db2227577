/**
 * Output fingerprints of the redactor on the speed benches' documents: a
 * speed change must leave every one of them as it was. Each line is a
 * sha256 of what one call returned (a fresh redactor per call, key "bench"):
 * `text()`, `value()` of a hook record, `--explain`'s finds and `--strict` on
 * the 5 MB mixed document; `value()` of a hook-shaped 5 MB build log; `text()`
 * on 5 MB of real files.
 *
 *   bun bench/redact/golden.ts                 # this tree's fingerprints
 *   bun bench/redact/golden.ts --against REV   # and REV's, side by side; exit 1 when any differs
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildLog, mixedDocument, realFiles } from "./corpus.ts";
import { libAt } from "./rev.ts";

const { values: opt } = parseArgs({ options: { against: { type: "string" } } });

type Make = (c: { fingerprintKey: string; strict?: boolean }) => {
  text(s: string): string;
  value(v: unknown): unknown;
  explainText?(s: string): { found: unknown[] };
};

const mixed = mixedDocument();
const log = buildLog(5 * 1024 * 1024);
const real = realFiles(5 * 1024 * 1024);
const hook = (stdout: string) => ({ hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "npm test 2>&1" }, tool_response: { stdout, stderr: "" } });

const CALLS: [string, (make: Make) => unknown][] = [
  ["mixed text()", (make) => make({ fingerprintKey: "bench" }).text(mixed)],
  ["mixed value()", (make) => make({ fingerprintKey: "bench" }).value(hook(mixed))],
  ["mixed explain", (make) => make({ fingerprintKey: "bench" }).explainText!(mixed).found],
  ["mixed strict", (make) => make({ fingerprintKey: "bench", strict: true }).text(mixed)],
  ["build log value()", (make) => make({ fingerprintKey: "bench" }).value(hook(log))],
  ["real files text()", (make) => make({ fingerprintKey: "bench" }).text(real)],
];

const sha = (v: unknown): string => createHash("sha256").update(typeof v === "string" ? v : JSON.stringify(v)).digest("hex").slice(0, 16);

async function fingerprints(lib: string): Promise<string[]> {
  const { createRedactor } = (await import(join(lib, "redact/index.ts"))) as { createRedactor: Make };
  return CALLS.map(([, call]) => sha(call(createRedactor)));
}

const here = await fingerprints(join(import.meta.dir, "../../lib"));
let there: string[] | undefined;
if (opt.against) {
  const dir = mkdtempSync(join(tmpdir(), "tg-redact-golden-"));
  try {
    there = await fingerprints(libAt(opt.against, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
let differ = 0;
CALLS.forEach(([name], i) => {
  const same = there === undefined || there[i] === here[i];
  if (!same) differ++;
  console.log(`${name.padEnd(20)} ${here[i]}${there ? `  @${opt.against} ${there[i]}${same ? "" : "  DIFFERS"}` : ""}`);
});
if (there) console.log(differ === 0 ? "every output identical" : `${differ} of ${CALLS.length} outputs differ`);
process.exit(differ === 0 ? 0 : 1);
