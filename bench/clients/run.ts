/**
 * Wall time of one real-client session per client, offline against the
 * scripted model server: the `basic` capture scenario (two shell calls, a
 * final text, one refused stop, the final text after it), once with no hooks
 * at all and once with `tracegate install --harness NAME` (observer entries,
 * no gate), so the cost of tracegate's hooks on a real session shows beside
 * the client's own start-up. Figures are printed, not asserted.
 *
 *   bun bench/clients/run.ts                    # every client, 3 runs each
 *   bun bench/clients/run.ts --runs 5 codex gemini
 *
 * Needs `npm run build` (dist/tracegate) and the pinned clients (`npm ci`).
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { isKnownHarness } from "../../lib/harness/registry.ts";
import { makeWorld, TRACEGATE } from "../../test/e2e/support/claude.ts";
import { clientAvailable, clientEnv, prepare, runClient, type ClientName } from "../../test/e2e/support/clients.ts";
import { SCENARIOS } from "../../test/e2e/support/capture.ts";
import { startModelServer } from "../../test/e2e/support/model-server.ts";

const { values, positionals } = parseArgs({ args: process.argv.slice(2), options: { runs: { type: "string", default: "3" } }, allowPositionals: true });
const runs = Math.max(1, Number(values.runs));
const all: ClientName[] = ["codex", "gemini", "copilot", "opencode"];
const clients = (positionals.length ? positionals : all) as ClientName[];
// Every client tracegate has an adapter for (OpenCode's "hooks" are the plugin install writes).
const installable = new Set<ClientName>(all.filter((n) => isKnownHarness(n)));

/** One session; ms from spawn to exit. */
async function once(name: ClientName, hooks: boolean): Promise<number> {
  const sc = SCENARIOS.basic!;
  // Without the refusing recorder, the script's last turn is never asked for: the session ends after the final text.
  const model = await startModelServer(sc.script);
  const world = makeWorld({ settings: false });
  try {
    prepare(world, name, model.url);
    const env = { ...world.env, ...clientEnv(world, name, model.url) };
    if (hooks) {
      const r = spawnSync(TRACEGATE, ["install", "--harness", name, "--scope", "user"], { cwd: world.repo, env, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`install --harness ${name}: ${r.stderr}`);
    }
    const run = await runClient(world, name, { prompt: sc.prompt, modelUrl: model.url, env, timeoutMs: 180_000 });
    if (run.code !== 0) throw new Error(`${name} exited ${run.code}: ${run.stderr.slice(-1500)}`);
    return run.durationMs;
  } finally {
    await model.stop();
    world.cleanup();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(" ")}, ${runs} run(s) each, alternating bare/hooked`);
for (const name of clients) {
  if (!clientAvailable(name)) continue;
  const bare: number[] = [];
  const hooked: number[] = [];
  for (let i = 0; i < runs; i++) {
    bare.push(await once(name, false));
    if (installable.has(name)) hooked.push(await once(name, true));
  }
  const line = [`${name.padEnd(8)} bare ${fmt(median(bare))} (${bare.map(fmt).join(", ")})`];
  if (hooked.length) line.push(`with tracegate ${fmt(median(hooked))} (${hooked.map(fmt).join(", ")}), +${fmt(median(hooked) - median(bare))}`);
  console.log(line.join("  "));
}
