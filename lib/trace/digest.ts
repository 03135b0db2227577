/**
 * sha256 through Bun's native hasher. The hook path avoids importing
 * `node:crypto`: measured on the compiled binary, that import alone costs
 * 20-35 ms of start-up, more than the rest of an observer's work.
 *
 * @example
 * ```ts
 * sha256Hex("abc"); // "ba7816bf..."
 * ```
 */
export function sha256Hex(data: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}

/** A random v4 UUID for record ids (the global Web Crypto, not node:crypto). */
export function newId(): string {
  return crypto.randomUUID();
}
