/**
 * Asks Linux to back the heap with 2 MB pages, for a process about to work
 * through a large payload.
 *
 * Why: a first touch of a 4 KB page is a page fault, and on a virtual machine
 * a fault is dear (here 11-14 µs: 64 MB touched page by page took 189 ms, and
 * 4 ms in 2 MB pages). A process that redacts 5 MB touches some 56 MB of heap,
 * about 14,000 faults, a third of its time. Linux hands out 2 MB pages only
 * where a process asked for them when transparent huge pages are in `madvise`
 * mode (the usual distribution default), and Bun's allocator reserves its heap
 * without asking. So such a process asks, with `madvise(MADV_HUGEPAGE)` over
 * every large private anonymous mapping it has that nobody marked (the
 * allocator's 1 GiB arena): memory touched from then on comes 2 MB at a time.
 *
 * The cost: about 3 ms to read `/proc/self/smaps` and load libc through
 * `bun:ffi`, and a larger peak RSS
 * (a 2 MB page is resident whole once touched: 101 -> 122-136 MB for 5 MB).
 * Output never depends on it; where anything is missing (not Linux, THP off or
 * `always`, no `bun:ffi`, no JIT for its trampoline) it does nothing, and under
 * a cgroup memory cap with less than HEADROOM_MIN_BYTES left it does nothing.
 */
import { readFileSync } from "node:fs";

/** `madvise` advice: back this range with transparent huge pages (linux/mman.h). */
const MADV_HUGEPAGE = 14;

/** Mappings smaller than this are thread stacks and libraries' data, not the heap. */
export const HEAP_MAPPING_MIN_BYTES = 64n << 20n;

/** One address range of the process. */
export interface Mapping {
  readonly start: bigint;
  readonly length: bigint;
}

/**
 * The private anonymous read-write mappings of at least `minBytes` in a
 * `/proc/PID/smaps` text that nobody has marked yet: where the allocators keep
 * the heap. A mapping whose owner said `MADV_NOHUGEPAGE` (VmFlags `nh`:
 * JavaScriptCore says it of the cage it reserves for array buffers) keeps
 * that choice; one already advised (`hg`) needs nothing.
 *
 * @example
 * ```ts
 * const smaps = "30ac6c00000-30b06c00000 rw-p 00000000 00:00 0 \nRss: 56000 kB\nVmFlags: rd wr mr mw me ac nr \n";
 * heapMappings(smaps); // [{ start: 0x30ac6c00000n, length: 1n << 30n }]
 * ```
 */
export function heapMappings(smaps: string, minBytes: bigint = HEAP_MAPPING_MIN_BYTES): Mapping[] {
  const found: Mapping[] = [];
  let pending: Mapping | undefined;
  for (const line of smaps.split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+) (\S+) (\S+) (\S+)\s*(.*)$/.exec(line);
    if (m) {
      pending = undefined;
      const start = BigInt(`0x${m[1]}`);
      const length = BigInt(`0x${m[2]}`) - start;
      // rw-p, offset 0, no device, inode 0, no name: anonymous and private ([heap] and [stack] have names).
      if (m[3] === "rw-p" && /^0+$/.test(m[4]!) && m[5] === "00:00" && m[6] === "0" && m[7] === "" && length >= minBytes) pending = { start, length };
    } else if (pending && line.startsWith("VmFlags:")) {
      const flags = line.slice(8).trim().split(/\s+/);
      if (!flags.includes("nh") && !flags.includes("hg")) found.push(pending);
      pending = undefined;
    }
  }
  return found;
}

/**
 * Whether a process must ask for huge pages to get them: the selected mode in
 * `/sys/kernel/mm/transparent_hugepage/enabled` is `madvise`.
 *
 * @example
 * ```ts
 * asksForHugePages("always [madvise] never\n"); // true
 * asksForHugePages("[always] madvise never\n"); // false: every mapping gets them already
 * ```
 */
export function asksForHugePages(enabled: string): boolean {
  return enabled.includes("[madvise]");
}

/**
 * Below this much memory left under the process's cgroup cap, no advice: 2 MB
 * pages make a large payload's peak RSS larger (measured +25 MB for a 5 MB
 * hook, +80 MB for a 60 MB one), and a hook killed for memory would fail its
 * harness's tool call, which costs more than any speed buys.
 */
export const HEADROOM_MIN_BYTES = 512 * 1024 * 1024;

/**
 * The files that hold the memory cap and use of the cgroup `/proc/self/cgroup`
 * names and of each group above it, the group's own first: a cap set on a
 * parent (a container's, a user slice's) binds its children too. v1's memory
 * controller when there is one, else v2's files.
 *
 * @example
 * ```ts
 * cgroupMemoryFiles("0::/a/b\n").map((f) => f.limit); // [".../a/b/memory.max", ".../a/memory.max", "/sys/fs/cgroup/memory.max"]
 * ```
 */
export function cgroupMemoryFiles(cgroup: string): { limit: string; usage: string }[] {
  let v2: string | undefined;
  let v1: string | undefined;
  for (const line of cgroup.split("\n")) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    if (m[2]!.split(",").includes("memory")) v1 = m[3]!;
    else if (m[1] === "0" && m[2] === "") v2 = m[3]!;
  }
  const path = v1 ?? v2;
  if (path === undefined) return [];
  const files: { limit: string; usage: string }[] = [];
  // From the group up to the root. The host's v2 root has no memory.max (its read fails and is
  // skipped); a container's own root, in a cgroup namespace, has its cap there.
  for (let p = path.replace(/\/+$/, ""); ; p = p.slice(0, p.lastIndexOf("/"))) {
    files.push(v1 !== undefined ? { limit: `/sys/fs/cgroup/memory${p}/memory.limit_in_bytes`, usage: `/sys/fs/cgroup/memory${p}/memory.usage_in_bytes` } : { limit: `/sys/fs/cgroup${p}/memory.max`, usage: `/sys/fs/cgroup${p}/memory.current` });
    if (p === "") break;
  }
  return files;
}

/**
 * Bytes left under a cgroup's memory cap, from its limit and usage files'
 * text; undefined when there is no cap (v2's `max`, v1's near-2^63) or the
 * text is not a number.
 *
 * @example
 * ```ts
 * memoryHeadroom("1073741824\n", "805306368\n"); // 268435456
 * memoryHeadroom("max\n", "805306368\n"); // undefined
 * ```
 */
export function memoryHeadroom(limit: string, usage: string): number | undefined {
  const cap = Number(limit.trim());
  const used = Number(usage.trim());
  if (!Number.isFinite(cap) || !Number.isFinite(used) || cap >= 2 ** 60) return undefined;
  return cap - used;
}

/** The least headroom under the caps of this process's cgroup and the groups above it, or undefined when none is capped or readable. */
function cgroupHeadroom(): number | undefined {
  let least: number | undefined;
  for (const { limit, usage } of cgroupMemoryFiles(readFileSync("/proc/self/cgroup", "latin1"))) {
    try {
      const room = memoryHeadroom(readFileSync(limit, "latin1"), readFileSync(usage, "latin1"));
      if (room !== undefined && (least === undefined || room < least)) least = room;
    } catch {
      // a level this process cannot read: the others still count
    }
  }
  return least;
}

let advised: number | undefined;

/**
 * Advises huge pages over the heap's mappings, once per process. Returns how
 * many mappings were advised (0 when nothing applied).
 *
 * @example
 * ```ts
 * adviseHugePages(); // 1 or more on Linux in madvise mode (the allocator's arena); 0 elsewhere
 * ```
 */
export function adviseHugePages(): number {
  if (advised !== undefined) return advised;
  advised = 0;
  if (process.platform !== "linux") return advised;
  try {
    if (!asksForHugePages(readFileSync("/sys/kernel/mm/transparent_hugepage/enabled", "latin1"))) return advised;
    const room = cgroupHeadroom();
    if (room !== undefined && room < HEADROOM_MIN_BYTES) return advised;
    const heap = heapMappings(readFileSync("/proc/self/smaps", "latin1"));
    if (heap.length === 0) return advised;
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    // By soname: the loader hands back the libc this process already runs on and searches no
    // path, so LD_LIBRARY_PATH cannot put another library here.
    const libc = dlopen("libc.so.6", { madvise: { args: [FFIType.u64, FFIType.u64, FFIType.i32], returns: FFIType.i32 } });
    try {
      for (const { start, length } of heap) if (libc.symbols.madvise(start, length, MADV_HUGEPAGE) === 0) advised++;
    } finally {
      libc.close();
    }
  } catch {
    // Advice only: any platform that cannot take it runs as before.
  }
  return advised;
}
