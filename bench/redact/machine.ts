/**
 * False positives on this machine's own files: configuration under /etc,
 * the Python libraries and the documentation Debian installs, as an agent
 * would `cat` them. Nobody on the team wrote them and they change with the
 * machine, so the figure is a second opinion next to external.ts's
 * real-code set (JS/TS/Go/Python sources with docs excluded), not a target.
 * A changed file is not always a false positive: /etc holds real client
 * secrets (Chromium's API keys) and docs hold example passwords
 * (`<password>proxypass</password>`); `--list` prints each find to judge.
 *
 *   bun bench/redact/machine.ts [--list] [--against REV] [--max N]
 *
 * `--against REV` also redacts every file with lib/ at REV and prints the
 * lines whose output differs: what a change to the rules does to real text.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { createRedactor } from "../../lib/redact/index.ts";
import { walkFiles } from "./files.ts";
import { libAt } from "./rev.ts";

const { values: opt } = parseArgs({ options: { list: { type: "boolean" }, against: { type: "string" }, max: { type: "string", default: "20000" } } });
const MAX = Number(opt.max);
const ROOTS = ["/etc", "/usr/share/doc", "/usr/lib/python3", "/usr/lib/python3.11", "/usr/lib/python3.12", "/usr/share/perl5", "/usr/lib/node_modules"];
// Text people and agents read: configs, scripts, sources, docs. Compressed docs and binaries are skipped.
const TEXT = /\.(?:py|sh|conf|cfg|ini|env|ya?ml|toml|pl|pm|js|md|txt|json|xml|properties)$|^[^.]+$/;
const SIZE_MAX = 300_000;

const files: string[] = [];
for (const root of ROOTS) walkFiles(root, (p, size) => size <= SIZE_MAX && TEXT.test(basename(p)), files, MAX);

const here = createRedactor({ fingerprintKey: "bench" });
let other: ReturnType<typeof createRedactor> | undefined;
let tmp: string | undefined;
if (opt.against) {
  tmp = mkdtempSync(join(tmpdir(), "tg-machine-"));
  const lib = libAt(opt.against, tmp);
  other = (await import(join(lib, "redact/index.ts"))).createRedactor({ fingerprintKey: "bench" });
}

let read = 0;
let bytes = 0;
let changed = 0;
let differs = 0;
const byRule = new Map<string, number>();
const started = performance.now();
for (const f of files) {
  let text: string;
  try {
    text = readFileSync(f, "utf8");
  } catch {
    continue;
  }
  if (text.includes("\u0000")) continue;
  read++;
  bytes += text.length;
  const { output, found } = here.explainText!(text);
  if (output !== text) {
    changed++;
    const lines = text.split("\n");
    for (const k of new Set(found.map((x) => `${x.kind}/${x.rule}`))) byRule.set(k, (byRule.get(k) ?? 0) + 1);
    if (opt.list) for (const x of found.slice(0, 3)) console.log(`${f}:${x.line}\t${x.kind}/${x.rule}\t${lines[x.line - 1]!.trim().slice(0, 140)}`);
  }
  if (other) {
    const before = other.text(text);
    if (before !== output) {
      differs++;
      const a = before.split("\n");
      const b = output.split("\n");
      let shown = 0;
      for (let i = 0; i < Math.min(a.length, b.length) && shown < 3; i++) {
        if (a[i] === b[i]) continue;
        shown++;
        console.log(`${f}:${i + 1}\n  @${opt.against}  ${a[i]!.slice(0, 160)}\n  now     ${b[i]!.slice(0, 160)}`);
      }
    }
  }
}
if (tmp) rmSync(tmp, { recursive: true, force: true });

console.log(`\n${read} files (${(bytes / 1e6).toFixed(1)} MB) from ${ROOTS.join(" ")}, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`changed by redaction: ${changed} (${((changed / Math.max(1, read)) * 100).toFixed(2)}%)`);
for (const [k, n] of [...byRule].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(5)}  ${k}`);
if (other) console.log(`output differs from @${opt.against}: ${differs} files`);
