/**
 * The redactor's speed against a revision, each in a process of its own:
 * the two `lib/` trees never share a heap, a JIT or a kept buffer, and the
 * processes alternate, so a drift in the machine's speed moves both sides.
 * Each process imports one tree, makes the 5 MB mixed document (or reads
 * --file), and prints the median of --calls warm `text()` calls after two
 * unmeasured ones; the figure per revision is the median over --rounds
 * processes, and the ratio is taken round by round.
 *
 *   bun bench/redact/apart.ts --against REV [--rounds 6] [--calls 9] [--file F]
 *
 * Why a second tool beside against.ts: in one process the two trees share
 * the collector and the JIT, and on this project's shared machines its
 * pairs ranged 0.7-1.4 for a single build; twice it gave a change the wrong
 * sign (bench/redact/README.md, seventh session). Believe a few per cent
 * only when both agree.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { libAt } from "./rev.ts";

const CHILD = "--child";

if (process.argv[2] === CHILD) {
  // One side: import its tree, time warm calls, print the median in ms.
  const [, , , lib, calls, file] = process.argv;
  const { createRedactor } = await import(join(lib!, "redact/index.ts"));
  const doc = file ? await Bun.file(file).text() : (await import("./corpus.ts")).mixedDocument();
  const times: number[] = [];
  for (let i = 0; i < Number(calls) + 2; i++) {
    Bun.gc(true);
    const t0 = performance.now();
    createRedactor({ fingerprintKey: "bench" }).text(doc);
    if (i >= 2) times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`${times[times.length >> 1]!.toFixed(2)} ${times[0]!.toFixed(2)}`);
  process.exit(0);
}

const { values: opt } = parseArgs({
  options: { against: { type: "string" }, rounds: { type: "string", default: "6" }, calls: { type: "string", default: "9" }, file: { type: "string" } },
});
if (!opt.against) {
  console.error("usage: bun bench/redact/apart.ts --against REV [--rounds 6] [--calls 9] [--file F]");
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), "tg-redact-apart-"));
const sides = [
  { name: `@${opt.against}`, lib: libAt(opt.against, dir), ms: [] as number[], min: [] as number[] },
  { name: "working tree", lib: join(import.meta.dir, "../../lib"), ms: [] as number[], min: [] as number[] },
];
/** One process's median and fastest warm call, in ms. */
const once = (lib: string): [number, number] => {
  const p = Bun.spawnSync([process.execPath, import.meta.path, CHILD, lib, opt.calls!, opt.file ?? ""], { stderr: "inherit" });
  if (p.exitCode !== 0) throw new Error(`a timing process for ${lib} failed`);
  const [median, min] = p.stdout.toString().trim().split(" ").map(Number);
  return [median!, min!];
};
try {
  for (let r = 0; r < Number(opt.rounds); r++) {
    for (const s of r % 2 ? sides : [...sides].reverse()) {
      const [median, min] = once(s.lib);
      s.ms.push(median);
      s.min.push(min);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const median = (v: readonly number[]): number => [...v].sort((a, b) => a - b)[v.length >> 1]!;
// Each process's fastest call as well as its median: this machine runs some calls (and some
// processes) a third slower than others, and the fastest call of a process is what a change moves
// most plainly (eleventh session: medians 0.78-1.31 round by round where the minima agreed).
for (const [what, key] of [["median call", "ms"], ["fastest call", "min"]] as const) {
  for (const s of sides) console.log(`  ${what.padEnd(12)} ${s.name.padEnd(14)} median ${median(s[key]).toFixed(1)} ms  (processes: ${s[key].map((x) => x.toFixed(0)).join(", ")})`);
  const ratios = sides[1]![key].map((x, i) => x / sides[0]![key][i]!);
  const sorted = [...ratios].sort((a, b) => a - b);
  console.log(`  ${what.padEnd(12)} working tree / @${opt.against}, round by round: median ${median(ratios).toFixed(3)} (${sorted[0]!.toFixed(3)}-${sorted[sorted.length - 1]!.toFixed(3)})`);
}
