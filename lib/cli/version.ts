import { out } from "./print.ts";

declare const TRACEGATE_VERSION: string | undefined;
declare const TRACEGATE_COMMIT: string | undefined;

/** Version and commit, stamped in by build.ts; "dev" when run from source. */
export function versionInfo(): { version: string; commit: string } {
  return {
    version: typeof TRACEGATE_VERSION === "string" ? TRACEGATE_VERSION : "dev",
    commit: typeof TRACEGATE_COMMIT === "string" ? TRACEGATE_COMMIT : "unknown",
  };
}

export async function versionCommand(_argv: string[]): Promise<number> {
  const { version, commit } = versionInfo();
  out(`tracegate ${version} (${commit})\n`);
  return 0;
}
