/**
 * Read stdin in chunks up to a cap, then keep draining and discarding so the
 * harness never sees a broken pipe. The payload never goes to argv or env.
 */
import { sha256Stream } from "../trace/digest.ts";

/** Beyond this the rest of stdin is drained and discarded and the record is marked cut. */
export const STDIN_CAP_BYTES = 64 * 1024 * 1024;

export interface StdinRead {
  /** The bytes kept (at most the cap). */
  readonly data: Uint8Array;
  /** Total bytes seen, kept or not. */
  readonly bytes: number;
  readonly cut: boolean;
  /** sha256 of every byte seen. */
  readonly sha256: string;
}

/**
 * Drain a byte stream completely, keeping the first `cap` bytes.
 *
 * @example
 * ```ts
 * const { data, cut } = await drain(Bun.stdin.stream());
 * ```
 */
export async function drain(stream: ReadableStream<Uint8Array>, cap = STDIN_CAP_BYTES): Promise<StdinRead> {
  const chunks: Uint8Array[] = [];
  const hash = sha256Stream();
  let kept = 0;
  let bytes = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!value) continue;
    bytes += value.length;
    hash.update(value);
    if (kept < cap) {
      const take = value.length <= cap - kept ? value : value.subarray(0, cap - kept);
      chunks.push(take);
      kept += take.length;
    }
  }
  const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, kept);
  return { data, bytes, cut: bytes > kept, sha256: hash.hex() };
}
