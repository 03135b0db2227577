/**
 * bench/sync: `tracegate sync` to a loopback Ceph RGW against `rclone copy`
 * of the same session files to the same server, in one run; peak RSS of both;
 * then a no-op rerun over 10,000 synced sessions (warm journal, and cold:
 * journal deleted, state rebuilt from the bucket listing).
 *
 *   npm run build && bun bench/sync/run.ts [--sessions 1000] [--kb 200] [--noop 10000]
 *
 * Needs the RGW (.ci/setup.d/30-ceph-rgw.sh, or Debian's radosgw installed:
 * test/support/rgw.ts starts one), Debian's rclone, and /usr/bin/time for RSS.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { rgw } from "../../test/support/rgw.ts";
import { BINARY } from "../../test/support/tracegate.ts";

const { values } = parseArgs({ options: { sessions: { type: "string" }, kb: { type: "string" }, noop: { type: "string" } } });
const SESSIONS = Number(values.sessions ?? 1000);
const KB = Number(values.kb ?? 200);
const NOOP = Number(values.noop ?? 10000);

const server = await rgw();
if (!server) {
  console.error("bench/sync needs Ceph RGW: sudo bash .ci/setup.d/30-ceph-rgw.sh");
  process.exit(1);
}
const hasTime = existsSync("/usr/bin/time");
const hasRclone = spawnSync("sh", ["-c", "command -v rclone"]).status === 0;

/** Session files of realistic records (tool calls with varied output) up to ~kb each. */
function makeSessions(home: string, n: number, kb: number, tag: string): number {
  const dir = join(home, "sessions");
  mkdirSync(dir, { recursive: true });
  let total = 0;
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const words = ["build", "error", "src/lib/index.ts", "passed", "failed", "npm", "test", "const", "return", "function", "import", "diff", "--- a/", "+++ b/"];
  for (let s = 0; s < n; s++) {
    const id = `${tag}-${String(s).padStart(5, "0")}`;
    const lines: string[] = [JSON.stringify({ id: `${id}-0`, type: "session_start", session_id: id, harness: "claude", ts: new Date(Date.UTC(2026, 10, 1 + (s % 28), 9)).toISOString(), cwd: null, base_commit: null })];
    let bytes = lines[0]!.length + 1;
    for (let i = 1; bytes < kb * 1024; i++) {
      const out = Array.from({ length: 40 + Math.floor(rand() * 400) }, () => words[Math.floor(rand() * words.length)]).join(" ");
      const line = JSON.stringify({ id: `${id}-${i}`, type: "tool_call", session_id: id, harness: "claude", ts: "2026-11-01T09:00:01.000Z", tool_name: "Bash", tool_use_id: `t${i}`, input: { command: `npm test -- ${i}` }, output: { stdout: out, stderr: "" }, duration_ms: Math.floor(rand() * 5000), status: "ok" });
      lines.push(line);
      bytes += line.length + 1;
    }
    writeFileSync(join(dir, `${id}.jsonl`), `${lines.join("\n")}\n`);
    total += bytes;
  }
  return total;
}

/** Wall ms and peak RSS (KB) of a command. */
function measure(cmd: string[], env: Record<string, string>): { ms: number; rssKb: number | null; code: number | null; out: string; err: string } {
  const argv = hasTime ? ["/usr/bin/time", "-f", "%M", ...cmd] : cmd;
  const t0 = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { env: { PATH: process.env.PATH!, ...env }, encoding: "utf8", maxBuffer: 64 << 20 });
  const ms = performance.now() - t0;
  let err = r.stderr ?? "";
  let rssKb: number | null = null;
  if (hasTime) {
    const lines = err.trimEnd().split("\n");
    rssKb = Number(lines.pop());
    err = lines.join("\n");
  }
  return { ms, rssKb, code: r.status, out: r.stdout ?? "", err };
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mem = (kb: number | null) => (kb === null ? "n/a" : `${(kb / 1024).toFixed(0)} MB`);
const root = join(tmpdir(), `tg-bench-sync-${process.pid}`);
rmSync(root, { recursive: true, force: true });
mkdirSync(root, { recursive: true });
try {
  const home = join(root, "home");
  const total = makeSessions(home, SESSIONS, KB, "s");
  console.log(`# bench/sync: ${SESSIONS} sessions, ${(total / 1e6).toFixed(0)} MB, RGW at ${server.endpoint}`);
  const env = { ...server.env(), TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(root, "none.jsonc"), HOME: root };
  const b1 = await server.bucket();
  const t = measure([BINARY, "sync", "--to", `s3://${b1}/bench`, "--json"], env);
  if (t.code !== 0) throw new Error(`tracegate sync failed: ${t.err}`);
  const summary = JSON.parse(t.out);
  console.log(`tracegate sync        ${fmt(t.ms)}  peak RSS ${mem(t.rssKb)}  ${summary.uploaded} segments, ${(summary.bytes / 1e6).toFixed(0)} MB (${((summary.bytes / 1e6) / (t.ms / 1000)).toFixed(1)} MB/s)`);
  if (hasRclone) {
    const b2 = await server.bucket();
    const rcEnv = {
      HOME: root,
      RCLONE_CONFIG_RGW_TYPE: "s3",
      RCLONE_CONFIG_RGW_PROVIDER: "Ceph",
      RCLONE_CONFIG_RGW_ENDPOINT: server.endpoint,
      RCLONE_CONFIG_RGW_ACCESS_KEY_ID: server.accessKeyId,
      RCLONE_CONFIG_RGW_SECRET_ACCESS_KEY: server.secretAccessKey,
      RCLONE_CONFIG_RGW_REGION: server.region,
    };
    const r = measure(["rclone", "copy", "--config", "/dev/null", join(home, "sessions"), `rgw:${b2}/bench`], rcEnv);
    if (r.code !== 0) throw new Error(`rclone failed: ${r.err.slice(-500)}`);
    console.log(`rclone copy           ${fmt(r.ms)}  peak RSS ${mem(r.rssKb)}  (default --transfers 4)`);
    const r8 = measure(["rclone", "copy", "--config", "/dev/null", "--transfers", "8", join(home, "sessions"), `rgw:${await server.bucket()}/bench`], rcEnv);
    console.log(`rclone copy -j8       ${fmt(r8.ms)}  peak RSS ${mem(r8.rssKb)}  (--transfers 8, tracegate's concurrency)`);
    console.log(`ratio tracegate/rclone ${(t.ms / r.ms).toFixed(2)} (target <= 1)`);
  } else console.log("rclone: not installed (apt-get install rclone), comparison skipped");
  const again = measure([BINARY, "sync", "--to", `s3://${b1}/bench`, "--json"], env);
  console.log(`no-op rerun (${SESSIONS})     ${fmt(again.ms)}  uploaded ${JSON.parse(again.out).uploaded}`);

  // The no-op rerun over 10,000 synced sessions.
  const home2 = join(root, "home2");
  makeSessions(home2, NOOP, 2, "n");
  const env2 = { ...env, TRACEGATE_HOME: home2 };
  const b3 = await server.bucket();
  const first = measure([BINARY, "sync", "--to", `s3://${b3}/noop`, "--json"], env2);
  if (first.code !== 0) throw new Error(`sync of ${NOOP} failed: ${first.err}`);
  console.log(`first sync (${NOOP} x 2 KB) ${fmt(first.ms)}  peak RSS ${mem(first.rssKb)}`);
  const warm = measure([BINARY, "sync", "--to", `s3://${b3}/noop`, "--json"], env2);
  console.log(`no-op rerun (${NOOP}, journal) ${fmt(warm.ms)}  peak RSS ${mem(warm.rssKb)}  uploaded ${JSON.parse(warm.out).uploaded} (target < 2 s)`);
  rmSync(join(home2, "sync"), { recursive: true, force: true });
  const cold = measure([BINARY, "sync", "--to", `s3://${b3}/noop`, "--json"], env2);
  const c = JSON.parse(cold.out);
  console.log(`no-op rerun (${NOOP}, journal deleted: listing + MD5 check) ${fmt(cold.ms)}  peak RSS ${mem(cold.rssKb)}  uploaded ${c.uploaded} skipped ${c.skipped}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
