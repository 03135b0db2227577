/**
 * What importing the redactor costs a compiled binary at start-up: three
 * entries built the way dist/tracegate is (`--compile --minify --bytecode`),
 * run alternately, medians of wall time per process.
 *
 *   empty     no imports (the process floor)
 *   builtins  imports node:fs, node:path, node:os only (every hook pays these
 *             anyway; in a compiled binary node:fs alone costs several ms)
 *   import    imports lib/redact/index.ts (module evaluation only)
 *   first     imports it and redacts one short clean record (what a hook pays)
 *   user-pattern  the same with one `redact.extra` pattern configured: loads
 *             and runs re2js (what a hook with user patterns pays)
 *
 *   bun bench/redact/startup.ts [--runs N] [--against REV]
 *
 * `--against REV` adds the same `import`/`first` entries built from
 * lib/ as committed at REV (rev.ts), run
 * interleaved with the working tree's: on a noisy machine only an A/B in one
 * run says whether a change helped.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { libAt } from "./rev.ts";

const { values: opt } = parseArgs({ options: { runs: { type: "string", default: "25" }, against: { type: "string" } } });
const RUNS = Number(opt.runs);
const root = join(import.meta.dir, "../..");
const bun = join(root, "node_modules/.bin/bun");
const lib = JSON.stringify(join(root, "lib/redact/index.ts"));
const dir = mkdtempSync(join(tmpdir(), "tg-redact-startup-"));

// The entries read an env var the bundler cannot see through, so nothing is
// tree-shaken away and nothing is printed.
const firstSrc = (libPath: string): string =>
  `import { createRedactor } from ${libPath};\nconst out = createRedactor({ fingerprintKey: "k" }).value({ session_id: "4b7d8f0e-8f7a-4c1e-9a7e-0c4f3b2a1d9e", tool_name: "Bash", tool_input: { command: "ls -la" }, tool_response: { stdout: "total 8\\ndrwxr-xr-x 2 dev dev 4096 Jan 1 10:00 src\\n" } });\nif (process.env.TG_NEVER === "1") console.log(out);\n`;
const entries: Record<string, string> = {
  empty: `if (process.env.TG_NEVER === "1") console.log("x");\n`,
  builtins: `import { readFileSync } from "node:fs";\nimport { join } from "node:path";\nimport { homedir } from "node:os";\nif (process.env.TG_NEVER === "1") console.log(readFileSync, join, homedir);\n`,
  import: `import * as R from ${lib};\nif (process.env.TG_NEVER === "1") console.log(R);\n`,
  first: firstSrc(lib),
  "user-pattern": firstSrc(lib).replace("createRedactor({ fingerprintKey: \"k\" })", "createRedactor({ fingerprintKey: \"k\", extra: [{ kind: \"acme-token\", pattern: \"acme_[A-Za-z0-9]{32}\" }] })"),
};

if (opt.against) {
  // The lib as committed at REV, beside the working tree's, for an A/B in one run.
  const rev = opt.against;
  const revLib = JSON.stringify(join(libAt(rev, dir), "redact/index.ts"));
  entries[`import@${rev.slice(0, 7)}`] = `import * as R from ${revLib};\nif (process.env.TG_NEVER === "1") console.log(R);\n`;
  entries[`first@${rev.slice(0, 7)}`] = firstSrc(revLib);
}

const bins: Record<string, string> = {};
for (const [name, src] of Object.entries(entries)) {
  const entry = join(dir, `${name.replace("@", "-")}.ts`);
  writeFileSync(entry, src);
  const out = join(dir, name.replace("@", "-"));
  const b = Bun.spawnSync([bun, "build", entry, "--compile", "--minify", "--bytecode", "--format=esm", "--outfile", out], { stdout: "pipe", stderr: "pipe" });
  if (b.exitCode !== 0) throw new Error(`build ${name}: ${b.stderr.toString()}`);
  bins[name] = out;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const times: Record<string, number[]> = Object.fromEntries(Object.keys(bins).map((k) => [k, []]));
const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(bins).map((k) => [k, []]));
for (const b of Object.values(bins)) Bun.spawnSync([b]); // page cache
for (let i = 0; i < RUNS; i++) {
  // Rotate the order each round so drift on a noisy machine hits all alike.
  const names = Object.keys(bins);
  const order = [...names.slice(i % names.length), ...names.slice(0, i % names.length)];
  for (const name of order) {
    const t0 = performance.now();
    const p = Bun.spawnSync([bins[name]!], { stdout: "ignore", stderr: "ignore", env: { ...process.env, TRACEGATE_HOME: dir } });
    const dt = performance.now() - t0;
    if (p.exitCode !== 0) throw new Error(`${name} exited ${p.exitCode}`);
    times[name]!.push(dt);
    // CPU time (user + system) is steadier than wall time on a loaded machine.
    cpu[name]!.push(Number(p.resourceUsage?.cpuTime.total ?? 0) / 1000);
  }
}
const base = median(times.builtins!);
const baseCpu = median(cpu.builtins!);
console.log(`compiled start-up, ${RUNS} alternating runs each, medians per process`);
for (const name of Object.keys(bins)) {
  const m = median(times[name]!);
  const c = median(cpu[name]!);
  console.log(`  ${name.padEnd(15)} wall ${m.toFixed(1).padStart(6)} ms (${(m - base >= 0 ? "+" : "") + (m - base).toFixed(1)} vs builtins)   cpu ${c.toFixed(1).padStart(6)} ms (${(c - baseCpu >= 0 ? "+" : "") + (c - baseCpu).toFixed(1)} vs builtins)`);
}
rmSync(dir, { recursive: true, force: true });
