/**
 * `tracegate export` over many sessions: wall time and peak memory of the
 * compiled binary exporting N sessions to ATIF and to chat JSONL.
 *
 *   bun bench/export/run.ts                  # 1,000 sessions, 3 runs each
 *   bun bench/export/run.ts --sessions 5000 --runs 5
 *   bun bench/export/run.ts --from s3://bucket/prefix   # read a synced store instead (needs sync)
 *
 * The sessions are written through the store's own append path, each a
 * prompt, 8 tool calls with 2 KB of output, a FAIL then a PASS signed by a
 * fresh Ed25519 key, so the audit verifies real signatures on every run.
 * Peak RSS comes from /usr/bin/time -f %M. Memory should stay flat as N grows:
 * run it at two sizes to see (the figures go in the README).
 */
import { spawnSync } from "node:child_process";
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { signVerdict, sha256Hex } from "../../lib/oracle/verdict.ts";
import { chainStart, lineHash, splitLines } from "../../lib/trace/chain.ts";
import { appendRecords, sessionPath } from "../../lib/trace/store.ts";
import type { TraceRecord } from "../../lib/trace/record.ts";

const ROOT = resolve(import.meta.dir, "../..");
const BINARY = join(ROOT, "dist", "tracegate");
const { values: opts } = parseArgs({
  options: {
    sessions: { type: "string", default: "1000" },
    runs: { type: "string", default: "3" },
    from: { type: "string" },
  },
});
const N = Number(opts.sessions);
const RUNS = Number(opts.runs);

const dir = mkdtempSync(join(tmpdir(), "tg-bench-export-"));
const home = join(dir, "data");
const { privateKey, publicKey } = generateKeyPairSync("ed25519");
const priv = privateKey.export({ type: "pkcs8", format: "pem" }) as string;
const pubFile = join(dir, "oracle.pub");
writeFileSync(pubFile, publicKey.export({ type: "spki", format: "pem" }) as string);
const configPath = join(dir, "config.jsonc");
writeFileSync(configPath, JSON.stringify({ oracle: { url: "http://127.0.0.1:9", public_key: pubFile } }));

function generate(): number {
  const t0 = performance.now();
  const base = "b".repeat(40);
  for (let s = 0; s < N; s++) {
    const sid = randomUUID();
    const ts = new Date(Date.UTC(2026, 10, 1) + s * 60_000).toISOString();
    const r = (type: string, fields: Record<string, unknown>) =>
      ({ id: randomUUID(), type, session_id: sid, harness: "claude", ts, ...fields }) as unknown as TraceRecord;
    // The chain head a Stop would send: the hash of the session file's last line so far.
    const head = () => {
      const path = sessionPath(home, sid);
      if (!existsSync(path)) return chainStart(sid);
      const lines = splitLines(readFileSync(path));
      return lineHash(lines[lines.length - 2]!);
    };
    const records: TraceRecord[] = [
      r("session_start", { cwd: "/work/repo", base_commit: base, model: "claude-test" }),
      r("message", { role: "user", text: `task ${s}: make the tests pass` }),
    ];
    for (let t = 0; t < 8; t++) {
      records.push(r("tool_call", {
        tool_name: "Bash", tool_use_id: `toolu_${s}_${t}`, input: { command: `run step ${t}` },
        output: { stdout: `line of output ${t} `.repeat(100), stderr: "" }, duration_ms: 40, status: "ok",
      }));
    }
    appendRecords(home, records);
    for (const [attempt, verdict] of [[1, "FAIL"], [2, "PASS"]] as const) {
      const diff_sha256 = sha256Hex(`diff ${s} ${attempt}`);
      appendRecords(home, [r("message", { role: "assistant", text: `done ${attempt}` })]);
      const chain_head = head();
      const signed = signVerdict({ task_id: "bench", session_id: sid, base_commit: base, diff_sha256, attempt, verdict, tests_hash: "t", chain_head }, priv);
      appendRecords(home, [r("oracle_verdict", {
        attempt, verdict, tests_hash: "t", signed, verified: true, decision: verdict === "PASS" ? "allow" : "block",
        task_id: "bench", diff_sha256, chain_head,
      })]);
    }
    appendRecords(home, [r("session_end", { reason: "exit", outcome: "flip" })]);
  }
  return performance.now() - t0;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function timeExport(format: string): { ms: number[]; rssMb: number[] } {
  const ms: number[] = [];
  const rssMb: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const out = join(dir, `out-${format}-${i}`);
    const args = ["export", "--format", format, "--out", out, ...(opts.from ? ["--from", opts.from] : [])];
    const t0 = performance.now();
    const p = spawnSync("/usr/bin/time", ["-f", "%M", BINARY, ...args], {
      env: { PATH: process.env.PATH, TRACEGATE_HOME: home, TRACEGATE_CONFIG: configPath, HOME: dir },
      encoding: "utf8",
    });
    ms.push(performance.now() - t0);
    if (p.status !== 0) throw new Error(`export failed: ${p.stderr}`);
    rssMb.push(Number(p.stderr.trim().split("\n").at(-1)) / 1024);
    rmSync(out, { recursive: true, force: true });
  }
  return { ms, rssMb };
}

try {
  mkdirSync(home, { recursive: true });
  const genMs = generate();
  const probe = spawnSync(BINARY, ["export", "--format", "chat-jsonl", "--out", join(dir, "probe.jsonl"), "--report", join(dir, "probe.json")], {
    env: { PATH: process.env.PATH, TRACEGATE_HOME: home, TRACEGATE_CONFIG: configPath, HOME: dir },
    encoding: "utf8",
  });
  // Guard the figures: they only mean something if every generated session is a verified flip.
  const exported = JSON.parse(readFileSync(join(dir, "probe.json"), "utf8")).exported;
  if (probe.status !== 0 || exported !== N) throw new Error(`expected ${N} verified flips, export found ${exported}: ${probe.stderr}`);
  console.log(`generated ${N} sessions in ${(genMs / 1000).toFixed(1)} s; load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  for (const format of ["atif", "chat-jsonl"]) {
    const { ms, rssMb } = timeExport(format);
    console.log(
      `${format.padEnd(10)} ${N} sessions: median ${(median(ms) / 1000).toFixed(2)} s (min ${(Math.min(...ms) / 1000).toFixed(2)}, max ${(Math.max(...ms) / 1000).toFixed(2)}), ` +
        `${(N / (median(ms) / 1000)).toFixed(0)} sessions/s, peak RSS median ${median(rssMb).toFixed(0)} MB`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
