/**
 * A secret set by a call that names it, where the key/value rule sees no
 * `=` or `:`: `define('DB_PASSWORD', 'x')` (PHP), `os.Setenv("API_TOKEN",
 * "x")`, `os.environ.setdefault("SECRET_KEY", "x")`,
 * `[Environment]::SetEnvironmentVariable("DB_PASS", "x")`, fish's `set -x
 * NAME x` and csh's `setenv NAME x`, a Terraform variable's `default = "x"`,
 * PowerShell's `ConvertTo-SecureString "x" -AsPlainText`, a sensitive `terraform output -json`
 * value, a name and its value as two arguments (Dockerfile's `ENV NAME value`, `setx NAME value`,
 * `doppler secrets set NAME value`), a literal passed where a call's signature takes a password
 * (`HTTPBasicAuth("u", "x")`, `smtp.login(u, "x")`, JDBC's `getConnection(url, "u", "x")`, PHP's
 * `new PDO($dsn, "u", "x")`), and a `printf` whose format names what
 * it fills (`printf 'DB_PASSWORD=%s\n' x >> .env`). Only these setters: a quoted key
 * then a quoted value is also every translation call (`__('Password',
 * 'woocommerce')`), so the function has to say the pair is a setting.
 */
import { classifyKey, isAsciiLetter, isKeyChar, lastLetters, plausibleSecret } from "../keys.ts";
import { firstMatched, regexRule } from "../prefix.ts";
import type { Rule, ScanCtx } from "../types.ts";

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
  return cls !== null && plausibleSecret(v, literal || cls.password, lastLetters(name), cls.strict);
}

/** A positional argument before the password: a quoted string or a name (no groups). */
const CALL_ARG = String.raw`(?:"[^"\n]{0,256}"|'[^'\n]{0,256}'|[A-Za-z_][\w.]{0,64})`;

/** A literal password in code: six characters at least, since docs' examples pass `'pass'` and `'user'`. */
const codeLiteralPassword = (v: string): boolean => v.length >= 6 && plausibleSecret(v, true);
/** A literal typed into a field: a password, unless it is only Cypress's special keys (`{enter}`, `{selectall}{backspace}`). */
const typedPassword = (v: string): boolean => !KEY_SEQUENCE.test(v) && codeLiteralPassword(v);
const KEY_SEQUENCE = /^(?:\{[A-Za-z]+\})+$/;

/** A unit of a JSON (or HCL) string's inside: anything but a quote, a backslash or a line break, or an escape. */
const STRING_UNIT = String.raw`(?:[^"\\\n]|\\.)`;
/**
 * Fields of the same JSON object after a marker, then `"KEY": "X"` (X in group 1): up to `fields`
 * units that are no brace or quote, or strings of at most `strMax` (with `{}`, an empty object,
 * among them when `empty`). What an output marks as secret (`"sensitive": true`, `"SecureString"`,
 * a Key Vault secret's id) holds the value a few fields on.
 */
const laterValue = (key: string, fields: number, strMax: number, empty = false): string =>
  String.raw`(?:[^{}"]|"${STRING_UNIT}{0,${strMax}}"${empty ? String.raw`|\{\}` : ""}){0,${fields}}?"${key}"[ \t]*:[ \t]*"(${STRING_UNIT}{1,4096})"`;

/** The value of a name-then-value match: group 2 single-quoted, 3 double-quoted, 4 bare. */
const pairValue = firstMatched(2, 3, 4);

/** A conversion in a printf format (`%%` is a literal percent): flags, width, precision, letter. */
const CONVERSION = /%(?:%|[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?([a-zA-Z]))/g;
/**
 * The name format `f` writes right before `at`: `NAME=`, `NAME: `,
 * `NAME = `, `"NAME": "` (a quote may open the value), read backwards
 * (a regex anchored at the end tried every start before it).
 */
function nameBefore(f: string, at: number): string | undefined {
  let i = at;
  const quote = (): void => {
    if (i > 0 && (f.charCodeAt(i - 1) === 34 || f.charCodeAt(i - 1) === 39)) i--;
  };
  const spaces = (): void => {
    for (let n = 0; n < 3 && i > 0 && (f.charCodeAt(i - 1) === 32 || f.charCodeAt(i - 1) === 9); n++) i--;
  };
  quote();
  spaces();
  if (i === 0 || (f.charCodeAt(i - 1) !== 58 && f.charCodeAt(i - 1) !== 61)) return undefined;
  i--;
  spaces();
  quote();
  const end = i;
  while (i > 0 && end - i < 96 && isKeyChar(f.charCodeAt(i - 1))) i--;
  // A name opens with a letter or `_`.
  while (i < end && !(isAsciiLetter(f.charCodeAt(i)) || f.charCodeAt(i) === 95)) i++;
  return i < end ? f.slice(i, end) : undefined;
}
/** A printf argument: single-quoted, double-quoted (group 2) or bare (group 3); `$` makes it a reference. */
const PRINTF_ARG = /[ \t]{1,8}(?:'([^'\n]{0,4096})'|"([^"\n\\]{0,4096})"|([^\s'"\\;|&<>()]{1,4096}))/y;
const PRINTF_FORMAT = /printf[ \t]{1,5}(?:--[ \t]{1,5})?(?:'([^'\n]{1,512})'|"([^"\n]{1,512})")/y;

/**
 * `printf 'DB_PASSWORD=%s\n' 'x' >> .env`, `printf "user=%s\npassword=%s\n" bob x`: each `%s` a
 * secret-named key opens (`NAME=`, `NAME: `) takes the argument in its place, which is then judged
 * as a password is (a literal written into a settings file). A quoted key/value rule sees only `%s`.
 */
function scanPrintf(ctx: ScanCtx, pos: number): void {
  const s = ctx.s;
  // A `printf ` inside the arguments of one read already: each argument is read once.
  if (pos < (ctx.memo.printf ?? 0)) return;
  PRINTF_FORMAT.lastIndex = pos;
  const f = PRINTF_FORMAT.exec(s);
  if (!f) return;
  const format = f[1] ?? f[2]!;
  // The argument each named conversion takes, by its place among the format's conversions.
  const named: (string | undefined)[] = [];
  let conversions = 0;
  for (const c of format.matchAll(CONVERSION)) {
    if (c[1] === undefined) continue; // `%%`
    const name = c[1] === "s" || c[1] === "b" || c[1] === "q" ? nameBefore(format, c.index) : undefined;
    if (name !== undefined) named[conversions] = name;
    conversions++;
  }
  if (named.length === 0) return;
  let at = PRINTF_FORMAT.lastIndex;
  // Only as far as the last named conversion's argument.
  for (let k = 0; k < named.length; k++) {
    PRINTF_ARG.lastIndex = at;
    const a = PRINTF_ARG.exec(s);
    if (!a) break;
    at = PRINTF_ARG.lastIndex;
    ctx.memo.printf = at;
    const name = named[k];
    const value = a[1] ?? a[2] ?? a[3]!;
    // `"$TOKEN"`, `$(cat f)`: a reference, not the secret.
    if (name === undefined || value.includes("$") || !plausibleUnder(name, value, true)) continue;
    const end = a[3] !== undefined ? at : at - 1;
    ctx.out.push({ from: pos, start: end - value.length, end, kind: classifyKey(name)!.kind, priority: 1 });
  }
}

/** See the module comment. */
export const SETTER_RULES: readonly Rule[] = [
  { kinds: ["password"], keywords: ["printf "], scan: scanPrintf, patterns: () => [{ kind: "password", source: PRINTF_FORMAT.source, flags: "y" }, { kind: "password", source: PRINTF_ARG.source, flags: "y" }] },
  regexRule(
    "password",
    ["define(", "setenv(", "setdefault(", "setenvironmentvariable(", "putenv("],
    String.raw`(?:define|setenv|setdefault|SetEnvironmentVariable|putenv)\([ \t]{0,4}${literal(96)}[ \t]{0,4},[ \t]{0,4}${literal(4096)}`,
    {
      priority: 1,
      flags: "i",
      group: firstMatched(3, 4),
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
      group: pairValue,
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
  // `terraform output -json`: an output marked sensitive holds its value under `value`, whatever its name says.
  regexRule(
    "generic-secret",
    ['"sensitive": true', '"sensitive":true'],
    String.raw`"sensitive"[ \t]*:[ \t]*true[ \t]*,${laterValue("value", 120, 64)}`,
    { priority: 2, accept: (v) => plausibleSecret(v, true) },
  ),
  // Postfix's `sasl_passwd`: `[smtp.example.com]:587 user@example.com:X` (the relay in brackets, its port, then user:password).
  regexRule(
    "password",
    ["]:587 ", "]:465 ", "]:25 ", "]:2525 "],
    String.raw`(?<=(?:^|\n)[ \t]{0,8}\[[A-Za-z0-9.-]{1,253})\]:\d{1,5}[ \t]{1,8}[^\s:]{1,128}:(\S{1,256})(?=[ \t]*(?:\r?\n|$))`,
    { priority: 2, accept: (v) => plausibleSecret(v, true) },
  ),
  // AWS SSM's `get-parameter` output: a SecureString parameter's `Value`, whatever its name.
  regexRule(
    "generic-secret",
    ['"securestring"'],
    String.raw`"SecureString"[ \t]*,${laterValue("Value", 40, 256)}`,
    { priority: 2, accept: (v) => plausibleSecret(v, true) },
  ),
  // `az keyvault secret show`: a Key Vault secret's `value` (its `id` names the vault's secrets), whatever its name.
  regexRule(
    "generic-secret",
    [".vault.azure.net/secrets/"],
    String.raw`\.vault\.azure\.net/secrets/[^"\s]{1,256}"${laterValue("value", 60, 256, true)}`,
    { priority: 2, accept: (v) => plausibleSecret(v, true) },
  ),
  // `terraform plan`'s change to an attribute not marked sensitive, `~ password = "old" -> "new"`: the new
  // value is the key's as much as the old one (which the key/value rule reads). Found at the arrow.
  regexRule(
    "password",
    ['" -> "'],
    String.raw`(?<=(?:^|\n)[ \t]{0,40}[~+-]?[ \t]{0,4}"?([A-Za-z_][\w-]{0,95})"?[ \t]{0,40}=[ \t]{0,4}"${STRING_UNIT}{0,4096})"[ \t]->[ \t]"(${STRING_UNIT}{1,4096})"`,
    { priority: 1, group: 2, accept: (v, m) => plausibleUnder(m[1]!, v, true) },
  ),
  // PHP's var_dump of an array, the value on the line after its key: `["password"]=>` then `string(12) "X"`.
  regexRule(
    "password",
    ['"]=>'],
    String.raw`(?<=\["([A-Za-z_][\w.-]{0,95}))"\]=>\s{0,64}string\(\d{1,7}\)[ \t]"([^"\n]{1,4096})"`,
    { priority: 1, group: 2, accept: (v, m) => plausibleUnder(m[1]!, v, true) },
  ),
  // A tool's own config setter, name then value: `aws configure set aws_secret_access_key X`, `npm config set
  // //registry/:_authToken X`, `yarn config set npmAuthToken X`, `git config --global user.password X`.
  regexRule(
    "password",
    ["aws configure", "npm config", "pnpm config", "yarn config", "git config "],
    String.raw`\b(?:aws[ \t]{1,4}configure[ \t]{1,4}set|(?:npm|pnpm|yarn)[ \t]{1,4}config[ \t]{1,4}set|git[ \t]{1,4}config)(?:[ \t]{1,4}--[\w-]{1,20}(?:=[^\s'"]{1,200}|[ \t]{1,4}(?!-)[^\s'"]{1,200}(?=[ \t]{1,4}[\w/.:@-]{1,200}[ \t]))?)*[ \t]{1,4}((?:[\w.@-]|//[^\s:'"]{1,200}/:)[\w.:@/-]{0,199})[ \t]{1,4}(?:'([^'\n\\]{1,4096})'|"([^"\n\\]{1,4096})"|([^\s'"\\;|&$]{1,4096})(?=[\s;|&#]|$))`,
    {
      priority: 1,
      group: pairValue,
      accept: (v, m) => plausibleUnder(m[1]!.replace(/^.*[/:.]/, ""), v, true),
    },
  ),
  // A name then its value as two arguments, where the key/value rule sees no `=`: Dockerfile's legacy
  // `ENV NAME value` (the rest of the line), Windows' `setx NAME value`, `netlify env:set NAME value`,
  // `doppler secrets set NAME value`, `dotnet user-secrets set "Db:Password" value`, WP-CLI's `wp config set
  // DB_PASSWORD value`, PowerShell's `Set-Variable -Name DbPassword -Value x` (and `Set-Item -Path
  // Env:DB_PASSWORD -Value x`, the environment's drive) and `gh variable set
  // NAME --body value` (a variable, not a secret, by GitHub's design: only its name can say so).
  // Apache's `SetEnv NAME value` reads the same way.
  regexRule("password", ["env "], String.raw`(?:(?<=(?:^|\n)[ \t]{0,8})ENV|(?<=(?:^|\n)[ \t]{0,8}Set)Env)[ \t]{1,4}([A-Za-z_][A-Za-z0-9_]{0,95})[ \t]{1,4}(?:${literal(4096)}|([^\s'"\\$][^\n\\$]{0,4095}?))[ \t]*(?=\r?\n|$)`, {
    priority: 1,
    group: pairValue,
    accept: (v, m) => plausibleUnder(m[1]!, v, true),
  }),
  regexRule(
    "password",
    ["setx ", "env:set ", "secrets set ", "user-secrets set ", "config set "],
    String.raw`(?:(?<![\w-])setx|(?<=\bnetlify[ \t]{1,4})env:set|(?<=\bdoppler[ \t]{1,4})secrets[ \t]{1,4}set|(?<=\bdotnet[ \t]{1,4})user-secrets[ \t]{1,4}set|(?<=\bwp[ \t]{1,4})config[ \t]{1,4}set)[ \t]{1,4}"?([A-Za-z_][\w:.-]{0,95})"?[ \t]{1,4}${literalOrWord(4096)}`,
    { priority: 1, flags: "i", group: pairValue, accept: (v, m) => plausibleUnder(m[1]!, v, true) },
  ),
  regexRule(
    "password",
    ["set-variable ", "new-variable ", "set-item ", "new-item "],
    String.raw`(?:(?:Set|New)-Variable(?:[ \t]{1,4}-Name)?[ \t]{1,4}['"]?|(?:Set|New)-Item(?:[ \t]{1,4}-Path)?[ \t]{1,4}['"]?Env:)([A-Za-z_]\w{0,95})['"]?(?:[ \t]{1,4}-Value)?[ \t]{1,4}${literalOrWord(4096)}`,
    { priority: 1, flags: "i", group: pairValue, accept: (v, m) => plausibleUnder(m[1]!, v, true) },
  ),
  regexRule(
    "password",
    ["variable set"],
    String.raw`(?<=\bgh[ \t]{1,5})variable[ \t]{1,5}set[ \t]{1,5}([A-Za-z_]\w{0,95})[^\n]{0,200}?[ \t](?:--body|-b)(?:[ \t]{1,5}|=)(?:${literal(4096)}|([^\s'"\\$-][^\s'"\\]{0,4095}))`,
    { priority: 1, group: pairValue, accept: (v, m) => plausibleUnder(m[1]!, v, true) },
  ),
  // Calls whose signature says which argument is a password, given as a literal in code (scripts, tests):
  // requests' `auth=("u", "x")`, `HTTPBasicAuth("u", "x")`, smtplib/ftplib/imaplib's `.login("u", "x")`,
  // Django's `set_password("x")` and `create_user`/`create_superuser("u", "e", "x")`.
  regexRule(
    "password",
    ["basicauth(", "digestauth(", "auth=(", "auth = (", ".login("],
    String.raw`(?:(?<=(?:^|[^\w])(?:HTTP)?)(?:Basic|Digest)Auth\(|(?<![\w.])auth[ \t]?=[ \t]?\(|\.login\()[ \t]*${CALL_ARG}[ \t]*,[ \t]*${literal(1024)}[ \t]*[,)]`,
    { priority: 2, group: firstMatched(1, 2), accept: codeLiteralPassword },
  ),
  // A builder's or a bean's password given as a literal: Testcontainers' `.withPassword("x")`,
  // `dataSource.setPassword("x")`, a builder's `.password("x")`, Ruby's FactoryBot `password { "x" }`.
  regexRule(
    "password",
    ["password(", "password {", "password{"],
    String.raw`(?:(?<=\.(?:[wW]ith|[sS]et)?)[pP]assword\(|(?<=(?:^|\n)[ \t]{0,16})password(?:_confirmation)?[ \t]?\{)[ \t]*${literal(1024)}[ \t]*[)}]`,
    // A reader's prompt is no password (npm's `readUserInfo.password('New password: ')`): padded, or ending as a question or label does.
    { priority: 2, group: firstMatched(1, 2), accept: (v) => v.trim() === v && !/[:?]$/.test(v) && codeLiteralPassword(v) },
  ),
  // Credential objects built from a user and a password: .NET's `new NetworkCredential("u", "x")`, Apache
  // HttpClient's `UsernamePasswordCredentials`, Spring Security's `UsernamePasswordAuthenticationToken`,
  // Java's `PasswordAuthentication("u", "x".toCharArray())`.
  regexRule(
    "password",
    ["credential(", "credentials(", "authenticationtoken(", "passwordauthentication("],
    String.raw`(?:(?<=\bNetwork)Credential|(?<=\bUsernamePassword)(?:Credentials|AuthenticationToken)|(?<![\w.])PasswordAuthentication)\([ \t]*${CALL_ARG}[ \t]*,[ \t]*${literal(1024)}(?:\.toCharArray\(\))?[ \t]*[,)]`,
    { priority: 2, group: firstMatched(1, 2), accept: codeLiteralPassword },
  ),
  // A browser test filling a password field (Playwright, Puppeteer, Cypress, Selenium, WebdriverIO,
  // Testing Library): the target names the field, then the literal typed into it. Target first,
  // `page.fill('#password', 'x')`, `userEvent.type(screen.getByLabelText(/password/i), 'x')`; or the
  // call ends a chain whose locator names it on the same statement, `page.getByLabel('Password').fill('x')`,
  // `cy.get('#password').type('x')`, `find_element(By.ID, "password").send_keys("x")`.
  regexRule(
    "password",
    [".fill(", ".type("],
    String.raw`\.(?:fill|type)\((?=[^,;\n]{0,160}?(?:pass|pwd))[^,;\n]{1,160}?,[ \t]*${literal(1024)}[ \t]*[,)]`,
    { priority: 2, flags: "i", group: firstMatched(1, 2), accept: typedPassword },
  ),
  regexRule(
    "password",
    [".fill(", ".type(", ".send_keys(", ".sendkeys(", ".setvalue(", ".presssequentially(", ".typetext("],
    String.raw`(?<=(?:pass|pwd)[^;\n]{0,160})\.(?:fill|type|send_keys|sendKeys|setValue|pressSequentially|typeText)\([ \t]*${literal(1024)}[ \t]*[,)]`,
    { priority: 2, flags: "i", group: firstMatched(1, 2), accept: typedPassword },
  ),
  // A test's or script's own login helper given a user and a password: `login('admin', 'x')`,
  // `loginAs("admin", "x")`, `signIn('a@b.c', 'x')`, `log_in(…)` (`.login(` is the method rule's above).
  // Found at `n('`/`s('` (rare three characters; `log` and `sig` open too many positions), the name read behind.
  regexRule(
    "password",
    ["n('", 'n("', "s('", 's("'],
    String.raw`(?:(?<=(?<![\w$.])(?:log|sign)_?i)n|(?<=(?<![\w$.])log_?in_?a)s)\([ \t]*${CALL_ARG}[ \t]*,[ \t]*${literal(1024)}[ \t]*[,)]`,
    { priority: 2, flags: "i", group: firstMatched(1, 2), accept: codeLiteralPassword },
  ),
  regexRule(
    "password",
    ["set_password(", "create_user(", "create_superuser("],
    String.raw`(?:(?<=\.)set_password\(|(?<!\w)create_(?:super)?user\([ \t]*${CALL_ARG}[ \t]*,[ \t]*${CALL_ARG}[ \t]*,)[ \t]*${literal(1024)}[ \t]*[,)]`,
    { priority: 2, group: firstMatched(1, 2), accept: codeLiteralPassword },
  ),
  // A literal hashed as a password: its plaintext is the argument. Laravel's `bcrypt('x')` and
  // `Hash::make('x')`, Django's `make_password('x')`, PHP's `password_hash('x', …)`, Werkzeug's
  // `generate_password_hash('x')`, Node's `bcrypt.hash('x', 10)`/`hashSync`, Python's
  // `bcrypt.hashpw(b'x', …)`, `argon2.hash('x')`. Found at keywords whose first three characters
  // are rare or already open a keyword (`::m`, `pas`, `bcr`, `n2.`), the rest read behind.
  regexRule(
    "password",
    ["bcrypt", "::make(", "password(", "password_hash(", "n2.hash("],
    String.raw`(?:(?<![\w$])bcrypt(?:js)?(?:\.(?:hash(?:Sync)?|hashpw))?\(|(?<=\bHash)::make\(|(?<=\bmake_)password\(|password_hash\(|(?<=\bargo)n2\.hash\()[ \t]*b?${literal(1024)}[ \t]*[,)]`,
    { priority: 2, group: firstMatched(1, 2), accept: codeLiteralPassword },
  ),
  // JDBC's `DriverManager.getConnection(url, "u", "x")`, PHP's `new PDO($dsn, 'u', 'x')`, `new mysqli('h', 'u', 'x')`,
  // `mysqli_connect('h', 'u', 'x')`: the third argument.
  regexRule(
    "password",
    ["tconnection(", "pdo(", "mysqli(", "mysqli_connect(", "mysql_connect("],
    String.raw`(?:(?<=DriverManager\.ge)tConnection|(?<=new[ \t]{1,4}\\?)(?:PDO|mysqli)|mysqli?_connect)\([ \t]*\$?${CALL_ARG}[ \t]*,[ \t]*\$?${CALL_ARG}[ \t]*,[ \t]*${literal(1024)}[ \t]*[,)]`,
    { priority: 2, group: firstMatched(1, 2), accept: codeLiteralPassword },
  ),
  // A settings object's setter, key then value: Java's `System.setProperty("db.password", "x")`,
  // `props.put("password", "x")`, ConfigParser's `config.set("database", "password", "x")` (a section
  // first), PHP's `ini_set('mysql.default_password', 'x')`.
  regexRule(
    "password",
    [".setproperty(", ".put(", ".set(", "ini_set("],
    String.raw`(?:\.(?:setProperty|put|set)|(?<![\w$])ini_set)\([ \t]*(?:(?:"[^"\n]{1,96}"|'[^'\n]{1,96}')[ \t]*,[ \t]*(?=["'][^"'\n]{1,96}["'][ \t]*,))?${literal(96)}[ \t]*,[ \t]*${literal(4096)}[ \t]*\)`,
    { priority: 1, group: firstMatched(3, 4), accept: (v, m) => plausibleUnder(m[1] ?? m[2]!, v) },
  ),
  // `pulumi config set --secret NAME x` (or `--secret` last): the flag says it is a secret, whatever its name.
  regexRule(
    "password",
    ["config set "],
    String.raw`(?<=\bpulumi[ \t]{1,4})config[ \t]{1,4}set(?=[^\n]{0,300}?[ \t]--secret\b)(?:[ \t]{1,4}(?:--secret|--plaintext|--path|(?:--stack|-s|--cwd|-C|--config-file)(?:=|[ \t]{1,4})[^\s-]\S{0,199}))*[ \t]{1,4}([A-Za-z_][\w:.-]{0,95})[ \t]{1,4}(?:${literal(4096)}|([^\s'"\\;|&$-][^\s'"\\;|&$]{0,4095}))`,
    { priority: 1, group: firstMatched(2, 3, 4), accept: (v) => plausibleSecret(v, true) },
  ),
  regexRule("password", ["convertto-securestring"], String.raw`ConvertTo-SecureString[ \t]{1,5}(?:-String[ \t]{1,5})?${literal(1024)}`, {
    priority: 2,
    flags: "i",
    group: firstMatched(1, 2),
    accept: (v) => plausibleSecret(v, true),
  }),
];
