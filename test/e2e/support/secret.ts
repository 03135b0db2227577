/**
 * The secret planted in e2e sessions: a GitHub personal access token with a
 * valid checksum (what the redactor's github-pat rule recognises), made up
 * here so no real credential is ever in the tree.
 */
import { base62, crc32 } from "../../../lib/redact/crc32.ts";

/**
 * A `ghp_` token that passes the checksum; the same value on every call.
 *
 * @example
 * ```ts
 * plantedSecret().startsWith("ghp_"); // true
 * ```
 */
export function plantedSecret(): string {
  const body = "e2eFAKEtokenPlantedBy1tracegate";
  return `ghp_${body.slice(0, 30)}${base62(crc32(body.slice(0, 30)), 6)}`;
}

/** The part of the planted token that must never reach disk (everything after the kept `ghp_` prefix). */
export function secretBody(): string {
  return plantedSecret().slice(4);
}
