/** Secrets passed on command lines: `curl -u`, `.netrc`, `mysql -p`, `redis-cli -a`, `docker login -p`, `--from-literal`. */
import { plausibleSecret } from "../keys.ts";
import { regexRule, type RegexRuleOpts } from "../prefix.ts";
import type { Rule } from "../types.ts";

const CLI_SPECS: readonly (readonly [string, readonly string[], string, RegexRuleOpts])[] = [
  // curl -u user:pass / --user user:pass / -u ":pass" / --user user:'pass' / --user "user":"pass"
  ["basic-auth", ["-u ", "--user ", "--user="], String.raw`(?<=\s|^)(?:-u|--user)[ =]{0,3}(?:\\?["'])?[^\s:"'\\]{0,256}(?:\\?["'])?:(?:\\?["'])?([^\s"'\\]{1,256})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }],
  // .netrc: machine h login u password p
  ["netrc-password", ["machine "], String.raw`machine[ \t]{1,10}\S{1,256}\s{1,10}login[ \t]{1,10}\S{1,256}\s{1,10}password[ \t]{1,10}(\S{1,256})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }],
  // mysql -pSECRET (no space: that is mysql's syntax for an inline password)
  ["mysql-password", [" -p"], String.raw`(?<=(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}) -p([^\s'"\\-][^\s'"\\]{2,127})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true), near: { words: ["mysql", "mariadb"], within: 200 + "mysqladmin".length },
  }],
  // redis-cli -a SECRET / --pass SECRET (valkey-cli, keydb-cli alike)
  ["password", [" -a ", " --pass "], String.raw`(?<=(?:redis|valkey|keydb)-cli\b[^\n]{0,200}) (?:-a|--pass)[ \t]{1,5}([^\s'"\\]{1,256})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true), near: { words: ["-cli"], within: 200 + "-cli".length },
  }],
  // docker login -p SECRET
  ["password", [" -p "], String.raw`(?<=docker\s{1,5}login\b[^\n]{0,200}) -p[ \t]{1,5}([^\s'"\\]{3,256})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true), near: { words: ["login"], within: 200 + "login".length },
  }],
  // kubectl create secret generic --from-literal=key=value
  ["k8s-secret", ["--from-literal="], String.raw`--from-literal=["']?[A-Za-z0-9_.-]{1,253}=([^\s"'\\]{1,4096})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }],
];

export const CLI_RULES: readonly Rule[] = CLI_SPECS.map(([kind, kws, src, o]) => regexRule(kind, kws, src, o));

/**
 * The same rules without their `near` shortcuts (RegexRuleOpts.near): what a
 * test holds the shortcuts to.
 *
 * @example
 * ```ts
 * plainCliRules().length === CLI_RULES.length; // true
 * ```
 */
export function plainCliRules(): Rule[] {
  return CLI_SPECS.map(([kind, kws, src, o]) => regexRule(kind, kws, src, { ...o, near: undefined }));
}
