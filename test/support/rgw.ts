/**
 * A real S3 server for the sync tests: Ceph RGW on 127.0.0.1. CI starts one
 * (.ci/setup.d/30-ceph-rgw.sh) and writes /tmp/tracegate-rgw/s3.json; outside
 * CI, when Debian's radosgw is installed, the first test file that needs it
 * starts a private cluster in a temp dir (ephemeral ports) and stops it when
 * the test file that started it ends. Each caller gets its own fresh bucket.
 */
import { afterAll } from "bun:test";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { S3Settings } from "../../lib/sync/aws.ts";
import { EMPTY_SHA256, signS3 } from "../../lib/sync/sigv4.ts";
import { ROOT } from "./tracegate.ts";

export interface Rgw {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  /** The env a `tracegate sync` child needs for this server. */
  env(): Record<string, string>;
  settings(): S3Settings;
  /** A new, empty bucket. */
  bucket(): Promise<string>;
}

export const RGW_INFO = process.env.TRACEGATE_RGW_INFO ?? "/tmp/tracegate-rgw/s3.json";
const UP = join(ROOT, "test", "support", "ceph-rgw", "up.sh");
const DOWN = join(ROOT, "test", "support", "ceph-rgw", "down.sh");

async function reachable(endpoint: string): Promise<boolean> {
  try {
    const r = await fetch(`${endpoint}/`, { signal: AbortSignal.timeout(3000) });
    await r.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

function make(info: { endpoint: string; access_key_id: string; secret_access_key: string; region: string }): Rgw {
  const settings = (): S3Settings => ({
    endpoint: info.endpoint,
    pathStyle: true,
    region: info.region,
    accessKeyId: info.access_key_id,
    secretAccessKey: info.secret_access_key,
    sessionToken: null,
  });
  let n = 0;
  return {
    endpoint: info.endpoint,
    accessKeyId: info.access_key_id,
    secretAccessKey: info.secret_access_key,
    region: info.region,
    settings,
    env: () => ({
      AWS_ENDPOINT_URL: info.endpoint,
      AWS_ACCESS_KEY_ID: info.access_key_id,
      AWS_SECRET_ACCESS_KEY: info.secret_access_key,
      AWS_REGION: info.region,
    }),
    async bucket() {
      const name = `t-${process.pid}-${Date.now().toString(36)}-${n++}`;
      const { url, headers } = signS3(settings(), "PUT", name, "", {}, {}, EMPTY_SHA256);
      const r = await fetch(url, { method: "PUT", headers });
      const text = await r.text();
      if (!r.ok) throw new Error(`CreateBucket ${name}: HTTP ${r.status} ${text.slice(0, 200)}`);
      return name;
    },
  };
}

let started: Promise<Rgw | null> | null = null;
let why = "";

async function start(): Promise<Rgw | null> {
  if (existsSync(RGW_INFO)) {
    try {
      const info = JSON.parse(readFileSync(RGW_INFO, "utf8"));
      if (await reachable(info.endpoint)) return make(info);
      why = `${RGW_INFO} names ${info.endpoint}, which does not answer`;
    } catch (e) {
      why = `${RGW_INFO} is unreadable (${(e as Error).message})`;
    }
  }
  if (spawnSync("sh", ["-c", "command -v radosgw && command -v ceph-mon && command -v ceph-osd && command -v python3"]).status !== 0) {
    why ||= "Debian's radosgw, ceph-mon, ceph-osd are not installed";
    return null;
  }
  const dir = mkdtempSync(join(tmpdir(), "tg-rgw-"));
  try {
    execFileSync(UP, [join(dir, "c")], { stdio: ["ignore", "pipe", "pipe"], timeout: 300_000 });
  } catch (e) {
    why = `starting RGW failed: ${String((e as { stderr?: Buffer }).stderr ?? e).slice(-500)}`;
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  // Stopped after the test file that started it (bun test fires no process "exit" for us);
  // a later file starts its own.
  afterAll(() => {
    spawnSync(DOWN, [join(dir, "c")], { env: { ...process.env, KILL: "1" } });
    rmSync(dir, { recursive: true, force: true });
    started = null;
  });
  return make(JSON.parse(readFileSync(join(dir, "c", "s3.json"), "utf8")));
}

/**
 * The shared RGW, or null after a loud warning (and an error under CI=true,
 * where the setup script must have started it).
 */
export async function rgw(): Promise<Rgw | null> {
  started ??= start();
  const r = await started;
  if (!r) {
    const msg = `Ceph RGW unavailable (${why}); S3 sync tests are SKIPPED. Get it with: sudo bash .ci/setup.d/30-ceph-rgw.sh`;
    if (process.env.CI === "true") throw new Error(msg);
    console.warn(`\n*** ${msg}\n`);
  }
  return r;
}
