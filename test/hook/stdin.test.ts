/**
 * The stdin reader's digest: taken only when asked (most payloads parse and
 * never need it), and still the sha256 of every byte seen, whichever side of
 * the lazy bound and the cap a payload falls.
 */
import { describe, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drain, LAZY_BYTES, readFileStdin, stdinProgress } from "../../lib/hook/stdin.ts";

const sha = (b: Uint8Array) => new Bun.CryptoHasher("sha256").update(b).digest("hex");

/** `n` bytes that differ from chunk to chunk (a digest that skipped or repeated one would show). */
function bytes(n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7 + (i >> 16)) & 255;
  return b;
}

function streamOf(b: Uint8Array, chunk: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= b.length) return c.close();
      // A copy per chunk, as a pipe hands them over.
      c.enqueue(b.slice(at, at + chunk));
      at += chunk;
    },
  });
}

describe("the stdin digest", () => {
  for (const [name, n] of [["1 KB", 1024], ["just under the lazy bound", LAZY_BYTES - 5], ["past the lazy bound", LAZY_BYTES + 3 * 65536 + 17]] as const) {
    test(`is every byte's sha256, ${name}, with and without a progress tracker`, async () => {
      const b = bytes(n);
      const alone = await drain(streamOf(b, 65536));
      expect(alone.bytes).toBe(n);
      expect(alone.sha256).toBe(sha(b));
      const progress = stdinProgress(1024);
      const tracked = await drain(streamOf(b, 65536), undefined, progress);
      expect(tracked.sha256).toBe(sha(b));
      expect(progress.sha256()).toBe(sha(b));
      expect(progress.headBytes).toBe(Math.min(1024, n));
    });
  }

  test("covers the bytes past the cap that were drained and dropped", async () => {
    const b = bytes(3 * 1024 * 1024);
    const r = await drain(streamOf(b, 65536), 1024 * 1024);
    expect(r.cut).toBe(true);
    expect(r.data.length).toBe(1024 * 1024);
    expect(r.sha256).toBe(sha(b));
  });

  test("asked mid-read (the deadline's record), is the digest of what was read so far", () => {
    const b = bytes(LAZY_BYTES + 200_000);
    for (const stop of [100_000, LAZY_BYTES + 100_000]) {
      const p = stdinProgress(64);
      for (let at = 0; at < stop; at += 50_000) p.update(b.slice(at, Math.min(stop, at + 50_000)));
      expect(p.bytes).toBe(stop);
      expect(p.sha256()).toBe(sha(b.subarray(0, stop)));
      expect(p.sha256()).toBe(sha(b.subarray(0, stop)));
    }
  });

  test("of a file given as stdin, on both sides of the lazy bound", () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-stdin-"));
    try {
      for (const n of [10_000, LAZY_BYTES + 1_500_000]) {
        const b = bytes(n);
        const path = join(dir, `in-${n}`);
        writeFileSync(path, b);
        const fd = openSync(path, "r");
        try {
          const r = readFileStdin(fd, performance.now() + 60_000);
          expect([r.bytes, r.cut, r.sha256]).toEqual([n, false, sha(b)]);
        } finally {
          closeSync(fd);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
