/**
 * The redactor a run should use, from the loaded config: user patterns and
 * allowlist, repository patterns as additions only, and tags keyed by the
 * data dir's `redact.key` so every hook writing one store tags a secret alike.
 * Only the user config can turn redaction off.
 *
 * @example
 * ```ts
 * const redactor = configuredRedactor(await loadConfig(process.env, cwd), dataDir(process.env));
 * ```
 */
import type { Config } from "../config/load.ts";
import { sha256Hex } from "../trace/digest.ts";
import { loadFingerprintKey } from "./fingerprint.ts";
import { createRedactor, type RedactConfig, type Redactor } from "./index.ts";

// Redaction off: text is kept as it is, so a digest of it hides nothing a key would protect.
const IDENTITY: Redactor = {
  digest: sha256Hex,
  text: (s) => s,
  value: (v) => v,
  explainText: (s) => ({ output: s, found: [] }),
  explainValue: (v) => ({ output: v, found: [] }),
};

/** The RedactConfig a Config asks for; null when the user turned redaction off. */
export function redactConfigOf(config: Config, home: string): RedactConfig | null {
  if (!config.redact.enabled) return null;
  return {
    extra: config.redact.extra,
    allow: config.redact.allow,
    repoExtra: config.redact.repo_extra,
    fingerprintKey: () => loadFingerprintKey(home),
  };
}

export function configuredRedactor(config: Config, home: string): Redactor {
  const rc = redactConfigOf(config, home);
  return rc ? createRedactor(rc) : IDENTITY;
}
