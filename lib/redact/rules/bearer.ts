/** A bare `Bearer <token>` anywhere. */
import { plausibleSecret } from "../keys.ts";
import { LB, regexRule } from "../prefix.ts";

export const bearerRule = regexRule("bearer-token", ["bearer"], LB + String.raw`[Bb]earer[ \t]{1,5}([A-Za-z0-9._~+/=-]{16,4096})`, {
  priority: 2,
  accept: (v) => plausibleSecret(v, false),
});
