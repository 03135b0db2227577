/** Docker `auths.*.auth` values. */
import { containerFinding, dockerAuthText } from "../decode.ts";
import { push } from "./push.ts";
import type { Rule } from "../types.ts";

const DOCKER_AUTH = /\\?"auth\\?"[ \t]{0,8}:[ \t]{0,8}\\?"([A-Za-z0-9+/=]{4,65536})\\?"/dy;

/**
 * Docker `auths.*.auth` (`~/.docker/config.json`, `.dockercfg`, a decoded
 * `.dockerconfigjson`): base64 of `user:password`. Decoded; it counts only
 * when the plaintext has a user, a colon and a password, and the plaintext is
 * rescanned so a registry token (`ghp_…` for ghcr.io) reports its own kind.
 */
export const dockerAuthRule: Rule = {
  kinds: ["docker-auth"],
  keywords: ['"auth"', '\\"auth\\"'],
  scan(ctx, pos) {
    DOCKER_AUTH.lastIndex = pos;
    const m = DOCKER_AUTH.exec(ctx.s);
    if (!m) return;
    const plain = dockerAuthText(m[1]!);
    if (plain === undefined) return;
    const [a, b] = m.indices![1]!;
    const f = containerFinding(ctx, pos, a, b, plain, "docker-auth", "docker-auth");
    if (f) push(ctx, f);
  },
};
