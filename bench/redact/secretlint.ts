/**
 * secretlint as the benchmarks run it, in one place: the recommended preset,
 * JSON output with secrets masked. run.ts and faults.ts time its engine in
 * process, and run.ts writes the same rules as the CLI's `.secretlintrc.json`.
 *
 * @example
 * ```ts
 * const engine = await secretlintEngine();
 * await engine.executeOnFiles({ filePathList: ["big.txt"] });
 * ```
 */

/** The rules every comparison runs: secretlint's recommended preset. */
export const SECRETLINT_CONFIG = { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend" }] };

export interface SecretlintEngine {
  executeOnFiles(o: { filePathList: string[] }): Promise<{ ok: boolean; output: string }>;
}

/** secretlint's engine with SECRETLINT_CONFIG (loads `@secretlint/node`; throws when it is not installed). */
export async function secretlintEngine(): Promise<SecretlintEngine> {
  const { createEngine } = (await import("@secretlint/node")) as { createEngine(o: unknown): Promise<SecretlintEngine> };
  return createEngine({ cwd: process.cwd(), formatter: "json", color: false, maskSecrets: true, configFileJSON: SECRETLINT_CONFIG });
}
