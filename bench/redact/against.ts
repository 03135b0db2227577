/**
 * The redactor's speed against a revision, in one process: both lib/ trees
 * loaded side by side and their calls alternated, each pair's ratio taken
 * (a drift in the machine's speed moves both sides of a pair alike). On this
 * project's shared 2-core machines, runs in separate processes an hour apart
 * differ by more than most changes do; this is the figure to quote for one.
 *
 *   bun bench/redact/against.ts --against REV [--runs 16] [--file F] [--what text|value|scan|entropy]
 *
 * `text` and `scan` read the 5 MB mixed document (the corpus run.ts times; or
 * --file), `value` a PostToolUse-shaped record of it, `entropy` a scan with
 * the entropy rule alone. Output is compared first: a faster redactor that
 * redacts differently is not the same redactor.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { mixedDocument } from "./corpus.ts";
import { libAt } from "./rev.ts";

const { values: opt } = parseArgs({
  options: { against: { type: "string" }, runs: { type: "string", default: "16" }, file: { type: "string" }, what: { type: "string", default: "text" } },
});
if (!opt.against) {
  console.error("usage: bun bench/redact/against.ts --against REV [--runs 16] [--file F] [--what text|value|scan|entropy]");
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), "tg-redact-against-"));
const here = join(import.meta.dir, "../../lib");
const there = libAt(opt.against, dir);

type Side = { name: string; call: () => unknown };
async function side(name: string, lib: string): Promise<Side> {
  const { createRedactor } = await import(join(lib, "redact/index.ts"));
  const { scan } = await import(join(lib, "redact/engine.ts"));
  const { entropyRule } = await import(join(lib, "redact/rules/entropy.ts"));
  // A fresh redactor per call: its tag cache would otherwise carry the last call's tags over.
  const r = () => createRedactor({ fingerprintKey: "bench" });
  const calls: Record<string, () => unknown> = {
    text: () => r().text(doc),
    value: () => r().value({ hook_event_name: "PostToolUse", tool_name: "Bash", tool_response: { stdout: doc } }),
    scan: () => scan(doc).length,
    entropy: () => scan(doc, [entropyRule]).length,
  };
  const call = calls[opt.what!];
  if (!call) throw new Error(`--what: one of ${Object.keys(calls).join(", ")}`);
  return { name, call };
}

const doc = opt.file ? readFileSync(opt.file, "utf8") : mixedDocument();
const a = await side(`@${opt.against}`, there);
const b = await side("working tree", here);
const same = JSON.stringify(a.call()) === JSON.stringify(b.call());
console.log(`${opt.what} on ${(doc.length / 1048576).toFixed(2)} Mi characters: output ${same ? "identical" : "DIFFERS"}`);

const runs = Number(opt.runs);
const ta: number[] = [];
const tb: number[] = [];
for (let i = 0; i < runs; i++) {
  const order: [Side, number[]][] = i % 2 ? [[a, ta], [b, tb]] : [[b, tb], [a, ta]];
  for (const [s, t] of order) {
    Bun.gc(true);
    const t0 = performance.now();
    s.call();
    t.push(performance.now() - t0);
  }
}
const sorted = (v: number[]) => [...v].sort((x, y) => x - y);
const median = (v: number[]) => sorted(v)[v.length >> 1]!;
const ratios = tb.map((x, i) => x / ta[i]!);
console.log(`  ${a.name.padEnd(14)} median ${median(ta).toFixed(1)} ms, min ${sorted(ta)[0]!.toFixed(1)}`);
console.log(`  ${b.name.padEnd(14)} median ${median(tb).toFixed(1)} ms, min ${sorted(tb)[0]!.toFixed(1)}`);
console.log(`  working tree / @${opt.against}, pair by pair: median ${median(ratios).toFixed(3)} (${sorted(ratios)[0]!.toFixed(3)}-${sorted(ratios)[runs - 1]!.toFixed(3)})`);
rmSync(dir, { recursive: true, force: true });
if (!same) process.exit(1);
