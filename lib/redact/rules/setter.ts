/**
 * A secret set by a call that names it, where the key/value rule sees no
 * `=` or `:`: `define('DB_PASSWORD', 'x')` (PHP), `os.Setenv("API_TOKEN",
 * "x")`, `os.environ.setdefault("SECRET_KEY", "x")`,
 * `[Environment]::SetEnvironmentVariable("DB_PASS", "x")`, fish's `set -x
 * NAME x` and csh's `setenv NAME x`, a Terraform variable's `default = "x"`,
 * and PowerShell's `ConvertTo-SecureString "x" -AsPlainText`. Only these setters: a quoted key
 * then a quoted value is also every translation call (`__('Password',
 * 'woocommerce')`), so the function has to say the pair is a setting.
 */
import { classifyKey, plausibleSecret } from "../keys.ts";
import { regexRule } from "../prefix.ts";
import type { Rule } from "../types.ts";

/** A quoted literal: group `n` holds a single-quoted one's inside, `n + 1` a double-quoted one's. */
const literal = (max: number): string => String.raw`(?:'([^'\n\\]{1,${max}})'|"([^"\n\\]{1,${max}})")`;

/** A quoted literal (groups `n`, `n + 1`) or a bare word (`n + 2`) up to the end of the command. */
const literalOrWord = (max: number): string => String.raw`(?:${literal(max)}|([^\s'"\\;|&$]{1,${max}})(?=[ \t]*(?:$|[\r\n;|&#])))`;

/**
 * Whether `v` is a plausible value of a variable or setting named `name` (which must name a secret);
 * `literal` judges it as a password's whatever the name (a value written where it is declared).
 */
function plausibleUnder(name: string, v: string, literal = false): boolean {
  const cls = classifyKey(name);
  return cls !== null && plausibleSecret(v, literal || cls.password, name.split(/[^A-Za-z]+/).pop(), cls.strict);
}

/** See the module comment. */
export const SETTER_RULES: readonly Rule[] = [
  regexRule(
    "password",
    ["define(", "setenv(", "setdefault(", "setenvironmentvariable(", "putenv("],
    String.raw`(?:define|setenv|setdefault|SetEnvironmentVariable|putenv)\([ \t]{0,4}${literal(96)}[ \t]{0,4},[ \t]{0,4}${literal(4096)}`,
    {
      priority: 1,
      flags: "i",
      group: (m) => (m[3] !== undefined ? 3 : 4),
      accept: (v, m) => plausibleUnder(m[1] ?? m[2] ?? "", v),
    },
  ),
  // fish's `set -x NAME value` (-gx, -Ux…) and csh's `setenv NAME value`: a variable set with a space, not `=`.
  regexRule(
    "password",
    ["set -", "setenv "],
    String.raw`(?<![\w-])(?:setenv|set(?:[ \t]{1,4}-[a-zA-Z]{1,4}){1,3})[ \t]{1,4}([A-Za-z_][A-Za-z0-9_]{0,95})[ \t]{1,4}${literalOrWord(4096)}`,
    {
      priority: 1,
      group: (m) => (m[2] !== undefined ? 2 : m[3] !== undefined ? 3 : 4),
      accept: (v, m) => plausibleUnder(m[1]!, v),
    },
  ),
  // Terraform/OpenTofu: `variable "db_password" { … default = "x" }`: the block's name says what its default is,
  // a literal written where the variable is declared (a word counts, as it would on an env line).
  regexRule(
    "password",
    ["variable "],
    String.raw`variable[ \t]{1,4}"([A-Za-z_][\w-]{0,95})"[ \t]{0,4}\{[^{}]{0,600}?\bdefault[ \t]{0,8}=[ \t]{0,8}"([^"\n\\]{1,4096})"`,
    {
      priority: 1,
      group: 2,
      accept: (v, m) => plausibleUnder(m[1]!, v, true),
    },
  ),
  regexRule("password", ["convertto-securestring"], String.raw`ConvertTo-SecureString[ \t]{1,5}(?:-String[ \t]{1,5})?${literal(1024)}`, {
    priority: 2,
    flags: "i",
    group: (m) => (m[1] !== undefined ? 1 : 2),
    accept: (v) => plausibleSecret(v, true),
  }),
];
