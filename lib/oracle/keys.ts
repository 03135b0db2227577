/**
 * Reading `oracle.public_key` from the config: either the PEM text itself or
 * a path to a PEM file. A relative path is taken relative to the config
 * file's directory, so the hook (whose cwd is whatever project Claude Code
 * runs in), `verify` and `doctor` all read the same file.
 *
 * @example
 * ```ts
 * import { readPublicKeyPem } from "./keys.ts";
 * readPublicKeyPem("oracle.pub", "/home/me/.config/tracegate/config.jsonc");
 * // contents of /home/me/.config/tracegate/oracle.pub
 * ```
 */
import { readTextBounded } from "../fs/safe-open.ts";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** Where a `public_key` path points; null when the value is PEM text. */
export function publicKeyPath(spec: string, configPath: string): string | null {
  if (spec.includes("-----BEGIN")) return null;
  if (spec === "~" || spec.startsWith("~/")) return join(homedir(), spec.slice(1));
  return isAbsolute(spec) ? spec : resolve(dirname(configPath), spec);
}

/** The PEM text of `oracle.public_key`. Throws when the file cannot be read. */
export function readPublicKeyPem(spec: string, configPath: string): string {
  const path = publicKeyPath(spec, configPath);
  // Bounded and never a FIFO: a public key is a few hundred bytes.
  return path === null ? spec : readTextBounded(path, 64 * 1024);
}
