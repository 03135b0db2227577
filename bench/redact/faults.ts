/**
 * The in-process pair of run.ts (`text()` against secretlint's
 * `executeOnFiles`, alternately, a full collection before each call) in a
 * process whose allocator keeps the memory it frees: run.ts starts it with
 * `MIMALLOC_PURGE_DELAY=-1`, read by Bun's allocator at start.
 *
 * Why: after each collection the allocator hands freed memory back to the
 * system, so every call faults its memory in afresh, and on this project's
 * virtual machine a 4 KB fault costs 11-14 us. secretlint's calls fault far
 * more than ours (on the 5 MB mixed document, ~170 of its ~300 ms), so the
 * plain in-process ratio measures this machine's faults as much as either
 * engine's work. This ratio is the engines' own work (bench/redact/README.md,
 * seventeenth session).
 *
 *   MIMALLOC_PURGE_DELAY=-1 bun bench/redact/faults.ts FILE [--runs N]
 */
import { parseArgs } from "node:util";
import { createRedactor } from "../../lib/redact/index.ts";
import { secretlintEngine } from "./secretlint.ts";

const { values: opt, positionals } = parseArgs({ options: { runs: { type: "string", default: "11" } }, allowPositionals: true });
const file = positionals[0];
if (!file) {
  console.error("usage: MIMALLOC_PURGE_DELAY=-1 bun bench/redact/faults.ts FILE [--runs N]");
  process.exit(2);
}
const text = await Bun.file(file).text();
const engine = await secretlintEngine();
createRedactor({ fingerprintKey: "bench" }).text(text);
await engine.executeOnFiles({ filePathList: [file] });
const ours: number[] = [];
const theirs: number[] = [];
for (let i = 0; i < Number(opt.runs); i++) {
  Bun.gc(true);
  let t0 = performance.now();
  createRedactor({ fingerprintKey: "bench" }).text(text);
  ours.push(performance.now() - t0);
  Bun.gc(true);
  t0 = performance.now();
  await engine.executeOnFiles({ filePathList: [file] });
  theirs.push(performance.now() - t0);
}
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const pairs = ours.map((x, i) => x / theirs[i]!).sort((a, b) => a - b);
const at = (q: number): string => pairs[Math.min(pairs.length - 1, Math.floor(q * pairs.length))]!.toFixed(2);
console.log(
  `in process, freed memory kept (MIMALLOC_PURGE_DELAY=${process.env.MIMALLOC_PURGE_DELAY ?? "unset"}): tracegate ${median(ours).toFixed(0)} ms, secretlint ${median(theirs).toFixed(0)} ms; pair by pair ${at(0.5)}x (quartiles ${at(0.25)}-${at(0.75)}, ${pairs.length} pairs)`,
);
