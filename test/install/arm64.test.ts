/**
 * The linux-arm64 release binary, run beyond the build machine's platform:
 * under qemu-user (Debian's qemu-user-static, with libc6-arm64-cross as the
 * sysroot), `--version`, one hook with real stdin and `redact`. The runtime
 * comes from the npm registry (`@oven/bun-linux-aarch64`), as `npm run
 * release` fetches it. Setup: .ci/setup.d/40-qemu.sh.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileBinary } from "../../build.ts";
import { runtimeFor, TARGETS } from "../../build/release.ts";

const SYSROOT = "/usr/aarch64-linux-gnu";
const qemu = spawnSync("sh", ["-c", "command -v qemu-aarch64-static"], { encoding: "utf8" }).stdout.trim();
const ready = qemu !== "" && existsSync(join(SYSROOT, "lib", "ld-linux-aarch64.so.1"));
let dir: string;
let bin: string;

beforeAll(async () => {
  if (!ready) return;
  dir = mkdtempSync(join(tmpdir(), "tg-arm64-"));
  bin = join(dir, "tracegate-linux-arm64");
  const t = TARGETS.find((x) => x.name === "linux-arm64")!;
  await compileBinary({ outfile: bin, target: t.bunTarget, executablePath: runtimeFor(t) });
}, 300_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function underQemu(args: string[], opts: { input?: string; env?: Record<string, string> } = {}) {
  return spawnSync(qemu, ["-L", SYSROOT, bin, ...args], {
    input: opts.input,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...opts.env },
    encoding: "utf8",
    timeout: 120_000,
  });
}

function skipLoudly(): boolean {
  if (ready) return false;
  console.warn("SKIPPED: qemu-aarch64-static or the arm64 libc is missing: run .ci/setup.d/40-qemu.sh (apt-get install qemu-user-static libc6-arm64-cross)");
  if (process.env.CI === "true") expect("qemu-user-static + libc6-arm64-cross").toBe("installed");
  return true;
}

test("the linux-arm64 binary is an aarch64 ELF and answers --version under qemu", () => {
  if (skipLoudly()) return;
  const head = readFileSync(bin).subarray(0, 20);
  expect(head.subarray(0, 4).toString("latin1")).toBe("\x7fELF");
  expect(head.readUInt16LE(18)).toBe(183); // EM_AARCH64
  const r = underQemu(["--version"]);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^tracegate \d+\.\d+\.\d+ \(/);
}, 120_000);

test("one hook under qemu: exit 0, silent, the record written", () => {
  if (skipLoudly()) return;
  const home = join(dir, "data");
  const payload = JSON.stringify({ session_id: "arm", hook_event_name: "UserPromptSubmit", prompt: "from arm64" });
  const r = underQemu(["user-prompt-submit"], { input: payload, env: { TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(dir, "none.jsonc") } });
  expect(r.status).toBe(0);
  expect(r.stdout).toBe("");
  expect(readdirSync(join(home, "sessions"))).toEqual(["arm.jsonl"]);
  const rec = JSON.parse(readFileSync(join(home, "sessions", "arm.jsonl"), "utf8"));
  // Emulated, the hook takes ~2.2 s of its ~2.5 s deadline: when it runs over, the observer rules
  // still hold (exit 0, silent) and the payload is kept whole as a budget cut, never lost.
  if (rec.type === "payload_cut") expect(rec).toMatchObject({ reason: "budget", session_id: "arm", head: payload });
  else expect(rec).toMatchObject({ type: "message", role: "user", text: "from arm64", session_id: "arm" });
}, 120_000);

test("redact under qemu", () => {
  if (skipLoudly()) return;
  const r = underQemu(["redact"], { input: "token ghp_0123456789abcdefghijABCDEFGHIJ012345 here\n", env: { TRACEGATE_HOME: join(dir, "data"), TRACEGATE_CONFIG: join(dir, "none.jsonc") } });
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^token \S*REDACTED:github-pat\S* here\n$/);
}, 120_000);
