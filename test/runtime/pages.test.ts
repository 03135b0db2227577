/**
 * Huge-page advice (lib/runtime/pages.ts): the maps reader, the mode test,
 * and, in a child process so the runner's own heap is untouched, that memory
 * touched after the advice really comes in 2 MB pages and before it does not.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { asksForHugePages, cgroupMemoryFiles, HEADROOM_MIN_BYTES, HEAP_MAPPING_MIN_BYTES, heapMappings, memoryHeadroom } from "../../lib/runtime/pages.ts";
import { cleanup, postToolUse, recordsIn, ROOT, run, tempDir } from "../support/tracegate.ts";

/** A /proc/PID/smaps excerpt: each mapping's header, a field, and its VmFlags. */
const SMAPS = [
  ["00200000-01a39000 r--p 00000000 fe:00 2212110                            /usr/local/bin/tracegate", "rd mr mw me"],
  ["01a40000-0684a000 r-xp 01838000 fe:00 2212110                            /usr/local/bin/tracegate", "rd ex mr mw me"],
  ["06867000-06cb8000 rw-p 0665e000 fe:00 2212110                            /usr/local/bin/tracegate", "rd wr mr mw me ac"],
  ["07000000-17000000 rw-p 00000000 00:00 0                                  [heap]", "rd wr mr mw me ac"],
  ["30ac6c00000-30b06c00000 rw-p 00000000 00:00 0 ", "rd wr mr mw me ac nr"],
  ["7f4d00000000-7f4e00000000 rw-p 00000000 00:00 0", "rd wr mr mw me nr"],
  // JavaScriptCore's cage, marked MADV_NOHUGEPAGE by its owner, and one advised already.
  ["7f5000000000-7f5200000000 rw-p 00000000 00:00 0 ", "rd wr mr mw me nr nh"],
  ["7f5300000000-7f5310000000 rw-p 00000000 00:00 0 ", "rd wr mr mw me nr hg"],
  ["7f4e68adb000-7f4ea8adb000 rwxp 00000000 00:00 0 ", "rd wr ex mr mw me nr"],
  ["7f4e679ff000-7f4e67dff000 rw-p 00000000 00:00 0 ", "rd wr mr mw me ac"],
  ["7f4e60000000-7f4e64000000 rw-s 00000000 00:01 1234                       /memfd:shared (deleted)", "rd wr sh mr mw me ms"],
  ["7ffc1a2b0000-7ffc1a2d1000 rw-p 00000000 00:00 0                          [stack]", "rd wr mr mw me gd ac"],
]
  .map(([head, flags]) => `${head}\nRss:                   4 kB\nVmFlags: ${flags} \n`)
  .join("");

test("the heap's mappings: large, private, anonymous, read-write, and not marked by their owner", () => {
  expect(heapMappings(SMAPS)).toEqual([
    { start: 0x30ac6c00000n, length: 1n << 30n },
    { start: 0x7f4d00000000n, length: 4n << 30n },
  ]);
  // The 4 MB thread-sized mapping comes in only when the floor is lowered to it.
  expect(heapMappings(SMAPS, 4n << 20n).map((m) => m.length)).toEqual([1n << 30n, 4n << 30n, 4n << 20n]);
  expect(HEAP_MAPPING_MIN_BYTES).toBe(64n << 20n);
  expect(heapMappings("")).toEqual([]);
  // A header with no VmFlags after it (a truncated read) is not taken on trust.
  expect(heapMappings("30ac6c00000-30b06c00000 rw-p 00000000 00:00 0 \n")).toEqual([]);
});

test("huge pages are asked for only in madvise mode", () => {
  expect(asksForHugePages("always [madvise] never\n")).toBe(true);
  expect(asksForHugePages("[always] madvise never\n")).toBe(false);
  expect(asksForHugePages("always madvise [never]\n")).toBe(false);
  expect(asksForHugePages("")).toBe(false);
});

test("the cgroup's memory cap: v1's memory controller, else v2's files, from the group up to the root; no cap when unlimited", () => {
  // A hybrid host: v1 controllers and the v2 line; the memory controller is v1's.
  const hybrid = "9:name=systemd:/\n4:memory:/process_api/efaf53\n1:cpu:/\n0::/\n";
  expect(cgroupMemoryFiles(hybrid)).toEqual([
    { limit: "/sys/fs/cgroup/memory/process_api/efaf53/memory.limit_in_bytes", usage: "/sys/fs/cgroup/memory/process_api/efaf53/memory.usage_in_bytes" },
    { limit: "/sys/fs/cgroup/memory/process_api/memory.limit_in_bytes", usage: "/sys/fs/cgroup/memory/process_api/memory.usage_in_bytes" },
    { limit: "/sys/fs/cgroup/memory/memory.limit_in_bytes", usage: "/sys/fs/cgroup/memory/memory.usage_in_bytes" },
  ]);
  // v2: a session scope under a user slice, whose cap binds the scope too; then the root.
  expect(cgroupMemoryFiles("0::/user.slice/session-2.scope\n")).toEqual([
    { limit: "/sys/fs/cgroup/user.slice/session-2.scope/memory.max", usage: "/sys/fs/cgroup/user.slice/session-2.scope/memory.current" },
    { limit: "/sys/fs/cgroup/user.slice/memory.max", usage: "/sys/fs/cgroup/user.slice/memory.current" },
    { limit: "/sys/fs/cgroup/memory.max", usage: "/sys/fs/cgroup/memory.current" },
  ]);
  // A container's own namespace: its cgroup is the root, and its cap is there.
  expect(cgroupMemoryFiles("0::/\n")).toEqual([{ limit: "/sys/fs/cgroup/memory.max", usage: "/sys/fs/cgroup/memory.current" }]);
  expect(cgroupMemoryFiles("4:memory:/\n")).toEqual([{ limit: "/sys/fs/cgroup/memory/memory.limit_in_bytes", usage: "/sys/fs/cgroup/memory/memory.usage_in_bytes" }]);
  expect(cgroupMemoryFiles("")).toEqual([]);
  expect(memoryHeadroom("1073741824\n", "805306368\n")).toBe(256 * 1024 * 1024);
  expect(memoryHeadroom("max\n", "805306368\n")).toBeUndefined();
  expect(memoryHeadroom("9223372036854771712\n", "589901824\n")).toBeUndefined();
  expect(memoryHeadroom("", "1")).toBe(-1); // an empty limit reads as 0: capped at nothing, so no advice
  expect(HEADROOM_MIN_BYTES).toBe(512 * 1024 * 1024);
});

/** Runs pages.ts in a child: optionally advise, then touch 48 MB of heap; reports how much of it came in huge pages. */
function touched(advise: boolean): { advised: number; hugeKb: number } {
  const script = `
    import { adviseHugePages } from ${JSON.stringify(join(ROOT, "lib/runtime/pages.ts"))};
    import { readFileSync } from "node:fs";
    const huge = () => Number(/AnonHugePages:\\s+(\\d+)/.exec(readFileSync("/proc/self/smaps_rollup", "utf8"))[1]);
    const advised = ${advise} ? adviseHugePages() : 0;
    const before = huge();
    const bytes = new Uint8Array(48 << 20);
    bytes.fill(1);
    const parts = [];
    for (let i = 0; i < 4000; i++) parts.push("x".repeat(2000) + i);
    const joined = parts.join("|");
    console.log(JSON.stringify({ advised, hugeKb: huge() - before, keep: bytes[7] + joined.length }));
  `;
  const p = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT });
  if (p.exitCode !== 0) throw new Error(p.stderr.toString());
  return JSON.parse(p.stdout.toString());
}

const mode = (() => {
  try {
    return readFileSync("/sys/kernel/mm/transparent_hugepage/enabled", "utf8");
  } catch {
    return "";
  }
})();

test("memory touched after the advice comes in 2 MB pages, and without it in 4 KB pages", () => {
  if (process.platform !== "linux" || !asksForHugePages(mode)) {
    console.warn(`SKIPPED: transparent huge pages are not in madvise mode here (${JSON.stringify(mode.trim())}): nothing to advise`);
    expect(touched(true).advised).toBe(0);
    return;
  }
  const without = touched(false);
  const withAdvice = touched(true);
  expect(without.advised).toBe(0);
  expect(without.hugeKb).toBe(0);
  expect(withAdvice.advised).toBeGreaterThan(0);
  // Most of the 48 MB (and the strings) in 2 MB pages; a page the kernel could not find whole stays small.
  expect(withAdvice.hugeKb).toBeGreaterThanOrEqual(32 * 1024);
});

// Where bun:ffi cannot load (here: the JIT off, which its trampolines need), the advice throws
// inside and nothing changes: same bytes out, exit 0, nothing on stderr, the record written.
describe("the compiled binary where the advice cannot be given", () => {
  const token = "ghp_R8fK2mQ9xL4vN7pT3wY6zB1cD5eH0jA8sU2i";
  const noJit = { BUN_JSC_useJIT: "0" };

  test("redact prints the same redacted bytes with and without the JIT", async () => {
    const home = tempDir();
    try {
      const input = `export GITHUB_TOKEN=${token}\n${"build step ok\n".repeat(50_000)}`;
      const [normal, without] = await Promise.all([run(["redact"], { stdin: input, env: { TRACEGATE_HOME: home } }), run(["redact"], { stdin: input, env: { TRACEGATE_HOME: home, ...noJit } })]);
      for (const r of [normal, without]) {
        expect(r.code).toBe(0);
        expect(r.stderr).toBe("");
      }
      const out = new TextDecoder().decode(normal.stdout);
      expect(out).not.toContain(token);
      expect(out).toContain("[REDACTED:github-pat:");
      expect(Buffer.from(without.stdout).equals(Buffer.from(normal.stdout))).toBe(true);
    } finally {
      cleanup(home);
    }
  });

  test("a hook past the advice's threshold records its payload, exit 0, stdout empty", async () => {
    const home = tempDir();
    try {
      const stdout = `${token}\n${"x".repeat(700 * 1024)}\n`;
      const r = await run(["post-tool-use"], { stdin: postToolUse("s-pages", { tool_response: { stdout, stderr: "", interrupted: false, isImage: false } }), env: { TRACEGATE_HOME: home, ...noJit } });
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBe(0);
      const records = recordsIn(home);
      expect(records.length).toBe(1);
      const text = JSON.stringify(records[0]);
      expect(text).not.toContain(token);
      expect(text).toContain("[REDACTED:github-pat:");
      expect(existsSync(join(home, "errors.log"))).toBe(false);
    } finally {
      cleanup(home);
    }
  });
});

// A real cap: a memory cgroup of its own with 300 MB, and a group inside it with no cap of its own
// (a container's or a user slice's cap binds the groups under it); the child moved in before it starts.
test("under a cgroup memory cap with little headroom, its own or a parent's, no advice is given; outside it, it is", () => {
  if (process.platform !== "linux" || !asksForHugePages(mode)) {
    console.warn(`SKIPPED: transparent huge pages are not in madvise mode here (${JSON.stringify(mode.trim())})`);
    return;
  }
  const v1 = cgroupMemoryFiles(readFileSync("/proc/self/cgroup", "utf8"))[0]?.limit.endsWith("memory.limit_in_bytes");
  const parent = v1 ? `/sys/fs/cgroup/memory/tracegate-test-${process.pid}` : `/sys/fs/cgroup/tracegate-test-${process.pid}`;
  const inner = join(parent, "inner");
  try {
    mkdirSync(parent);
    writeFileSync(join(parent, v1 ? "memory.limit_in_bytes" : "memory.max"), String(300 * 1024 * 1024));
    // v2 hands the memory controller to the groups below only when asked.
    if (!v1) writeFileSync(join(parent, "cgroup.subtree_control"), "+memory");
    mkdirSync(inner);
  } catch (e) {
    try {
      rmdirSync(parent);
    } catch {
      // never made
    }
    console.warn(`SKIPPED: cannot make a memory cgroup here (${(e as Error).message}): the cap's guard is checked by the unit tests above only`);
    return;
  }
  try {
    const script = `import { adviseHugePages } from ${JSON.stringify(join(ROOT, "lib/runtime/pages.ts"))}; console.log(adviseHugePages());`;
    const within = (dir: string) => Bun.spawnSync(["sh", "-c", `echo $$ > ${dir}/cgroup.procs && exec "$0" -e "$1"`, process.execPath, script], { cwd: ROOT });
    for (const dir of [parent, inner]) {
      const r = within(dir);
      expect(r.stderr.toString()).toBe("");
      expect(`${dir}: ${r.stdout.toString().trim()}`).toBe(`${dir}: 0`);
    }
    const outside = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT });
    expect(Number(outside.stdout.toString().trim())).toBeGreaterThan(0);
  } finally {
    for (const dir of [inner, parent]) {
      try {
        rmdirSync(dir);
      } catch {
        // a process still in it: the kernel frees the group when it leaves
      }
    }
  }
});
