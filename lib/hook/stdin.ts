/**
 * Read stdin in chunks up to a cap, then keep draining and discarding so the
 * harness never sees a broken pipe. The payload never goes to argv or env.
 */
import { fstatSync, readSync } from "node:fs";
import { isatty } from "../runtime/builtins.ts";

/** Beyond this the rest of stdin is drained and discarded and the record is marked cut. */
export const STDIN_CAP_BYTES = 64 * 1024 * 1024;

/**
 * Most payloads parse, and then their digest is never read: it names only a
 * payload kept as a head (payload_cut) or a read the deadline cut short. So
 * the first LAZY_BYTES are held by reference (the read keeps them anyway) and
 * hashed only when asked; past that, bytes are hashed as they come, which
 * bounds what a late ask (the deadline's own record) can cost. Hashing every
 * payload, twice, cost a 5 MB hook 10-20 ms.
 */
export const LAZY_BYTES = 8 * 1024 * 1024;

interface Digest {
  update(chunk: Uint8Array): void;
  /** The digest of every chunk so far; once taken, later chunks are not in it (the process is ending). */
  hex(): string;
  /**
   * The read is over and `data` holds the bytes read from the start (or a
   * prefix of them): hold the pending bytes through it, not through the
   * chunks, which can then be freed (a 5 MB payload held twice otherwise).
   */
  settle(data: Uint8Array): void;
}

function lazyDigest(): Digest {
  const hash = new Bun.CryptoHasher("sha256");
  let pending: Uint8Array[] | null = [];
  let pendingBytes = 0;
  let hex: string | undefined;
  const flush = (): void => {
    for (const c of pending ?? []) hash.update(c);
    pending = null;
  };
  return {
    update(chunk) {
      if (hex !== undefined) return;
      if (pending && pendingBytes + chunk.length <= LAZY_BYTES) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        return;
      }
      flush();
      hash.update(chunk);
    },
    hex() {
      if (hex === undefined) {
        flush();
        hex = hash.digest("hex");
      }
      return hex;
    },
    settle(data) {
      if (pending && data.length >= pendingBytes) pending = [data.subarray(0, pendingBytes)];
    },
  };
}

/** What has been read so far, for a record written when the deadline cuts the read short. */
export interface StdinProgress {
  bytes: number;
  /** The first bytes read (up to `headCap`). */
  readonly head: Uint8Array[];
  headBytes: number;
  readonly headCap: number;
  /** sha256 of every byte read so far. */
  sha256(): string;
}

/** A fresh progress tracker keeping the first `headCap` bytes. */
export function stdinProgress(headCap: number): StdinProgress & Pick<Digest, "update" | "settle"> {
  const digest = lazyDigest();
  const p = {
    bytes: 0,
    head: [] as Uint8Array[],
    headBytes: 0,
    headCap,
    sha256: () => digest.hex(),
    settle: (data: Uint8Array) => digest.settle(data),
    update(chunk: Uint8Array) {
      p.bytes += chunk.length;
      digest.update(chunk);
      if (p.headBytes < headCap) {
        const take = chunk.subarray(0, headCap - p.headBytes);
        p.head.push(take);
        p.headBytes += take.length;
      }
    },
  };
  return p;
}

/** What a read reports its chunks to: stdinProgress. */
type Tracker = Pick<StdinProgress, "sha256"> & Pick<Digest, "update" | "settle">;

export interface StdinRead {
  /** The bytes kept (at most the cap). */
  readonly data: Uint8Array;
  /** Total bytes seen, kept or not. */
  readonly bytes: number;
  readonly cut: boolean;
  /** sha256 of every byte seen (computed when first read). */
  readonly sha256: string;
}

/** A read's result, its digest taken only when someone reads `sha256`. */
function readResult(data: Uint8Array, bytes: number, cut: boolean, digest: { hex(): string }): StdinRead {
  return {
    data,
    bytes,
    cut,
    get sha256() {
      return digest.hex();
    },
  };
}

/**
 * Drain a byte stream completely, keeping the first `cap` bytes.
 *
 * @example
 * ```ts
 * const { data, cut } = await drain(Bun.stdin.stream());
 * ```
 */
export async function drain(
  stream: ReadableStream<Uint8Array>,
  cap = STDIN_CAP_BYTES,
  progress?: Tracker,
): Promise<StdinRead> {
  const chunks: Uint8Array[] = [];
  // One digest: the progress tracker's when there is one.
  const own = progress ? undefined : lazyDigest();
  const digest = own ?? { hex: () => progress!.sha256(), settle: (data: Uint8Array) => progress!.settle(data) };
  let kept = 0;
  let bytes = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!value) continue;
    bytes += value.length;
    own?.update(value);
    progress?.update(value);
    if (kept < cap) {
      const take = value.length <= cap - kept ? value : value.subarray(0, cap - kept);
      chunks.push(take);
      kept += take.length;
    }
  }
  const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, kept);
  digest.settle(data);
  return readResult(data, bytes, bytes > kept, digest);
}

const CHUNK = 1024 * 1024;

/**
 * Read a file or device given as stdin (`< file`, `< /dev/zero`) in chunks,
 * up to the cap and only until `deadline` (performance.now() ms): nobody
 * writes to it, so there is nothing to drain, and `/dev/zero` never ends.
 * Bun's stdin stream reads such a descriptor in one blocking loop that the
 * hard timer cannot interrupt.
 */
export function readFileStdin(fd: number, deadline: number, cap = STDIN_CAP_BYTES): StdinRead {
  const chunks: Uint8Array[] = [];
  const digest = lazyDigest();
  let bytes = 0;
  let more = true;
  while (bytes <= cap && performance.now() < deadline) {
    const buf = Buffer.allocUnsafe(CHUNK);
    const n = readSync(fd, buf, 0, CHUNK, null);
    if (n === 0) {
      more = false;
      break;
    }
    const got = buf.subarray(0, n);
    digest.update(got);
    chunks.push(got);
    bytes += n;
  }
  const all = Buffer.concat(chunks, bytes);
  digest.settle(all);
  const data = all.length > cap ? all.subarray(0, cap) : all;
  return readResult(data, bytes, more || bytes > cap, digest);
}

/**
 * The hook's stdin, whatever it is: a pipe (the harness) is drained through
 * the event loop so the deadline timer keeps running; a regular file or a
 * device is read with readFileStdin.
 *
 * @example
 * ```ts
 * const input = await readStdin(2_100);
 * ```
 */
export async function readStdin(deadline: number, progress?: Tracker): Promise<StdinRead> {
  let fileLike = false;
  try {
    const st = fstatSync(0);
    fileLike = st.isFile() || st.isCharacterDevice() || st.isBlockDevice();
    // A terminal is a character device that waits for the user: treat it as a stream.
    if (st.isCharacterDevice() && isatty(0)) fileLike = false;
  } catch {
    // no stdin at all: the stream below ends at once
  }
  return fileLike ? readFileStdin(0, deadline) : drain(Bun.stdin.stream(), STDIN_CAP_BYTES, progress);
}
