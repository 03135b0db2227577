/**
 * Output of a command that prints a secret: `printenv DB_PASSWORD`,
 * `echo "$OPENAI_API_KEY"`, `gh auth token`, `cat /run/secrets/db_password`,
 * `security find-generic-password -s x -w`, `pbpaste`. Agents run these to
 * check a credential is set, and the output has no label and often no shape
 * (a password is a word, an API key may be a UUID or 40 hex digits, which
 * the entropy rule keeps on purpose); but the command says what it is, so
 * every line of its output that is one token is the secret.
 *
 * Two places know the command: a tool call record (`input.command` beside
 * `output`, see index.ts) and a terminal transcript (`$ printenv X` and the
 * lines after it, see rules/printed.ts). This module is what both share: which
 * commands print a secret, and which output lines are one.
 *
 * The policy, in one place:
 * - a variable or file named for a secret (by keys.ts classifyKey, the same
 *   names the key/value rule reads) and printed by `echo`, `printf`,
 *   `printenv`, `cat`, `head`, `tail` and the like; files under
 *   `/run/secrets/` (Docker, Kubernetes) and named `*.key|*.token|*.secret`;
 * - the read commands of secret stores and the token printers of CLIs;
 * - commands that make a secret (`openssl rand`, `pwgen`, `rails secret`,
 *   `/dev/urandom`), at the token bar;
 * - the clipboard (`pbpaste`, `xclip -o`, `wl-paste`), at the token bar only:
 *   a clipboard holds anything.
 * A printed line counts when it is one token that keys.ts plausibleSecret
 * accepts as a value of such a key: placeholders, references, booleans,
 * `(none)`, `[default]`, `data:` and prose stay. A count (`echo ${#TOKEN}`,
 * `| wc -c`) is too short to count.
 */
import { classifyKey, type KeyClass, plausibleSecret } from "./keys.ts";
import { userinfoSecret } from "./rules/url-userinfo.ts";
import type { Finding } from "./types.ts";

/** What a command prints: its kind of secret, and whether a plain word can be one (a password) or only a token. */
export interface Printed {
  readonly kind: string;
  readonly password: boolean;
}

const STORE: Printed = { kind: "generic-secret", password: true };
/** A secret of no named kind at the token bar: the clipboard's, a generator's, a `*.key` file's. */
const TOKENS: Printed = { kind: "generic-secret", password: false };

/**
 * What a key's class says a printed value is: its kind, and whether a word counts.
 *
 * @example
 * ```ts
 * printedAs({ kind: "password", password: true }); // { kind: "password", password: true }
 * ```
 */
export function printedAs(cls: KeyClass): Printed;
export function printedAs(cls: KeyClass | null): Printed | undefined;
export function printedAs(cls: KeyClass | null): Printed | undefined {
  return cls ? { kind: cls.kind, password: cls.password } : undefined;
}

/**
 * Secret stores' read commands and CLIs' token printers, by the program and
 * then the rest of one simple command (no `|`, `;`, `&&`), lower-cased,
 * quotes removed. Keyed by program so that a hook's `npm test` is one Map
 * lookup and compiles no pattern.
 */
const STORE_READS: ReadonlyMap<string, RegExp> = new Map([
  ["gh", /^auth token\b/],
  ["gcloud", /^(?:auth (?:application-default )?print-(?:access|identity)-token|secrets versions access)\b/],
  ["gsutil", /^auth (?:application-default )?print-(?:access|identity)-token\b/],
  // Two conditions as two lookaheads: `.*a.*b` backtracks over every `a` (quadratic in a hostile line).
  ["aws", /^(?:(?:ecr|ecr-public) get-login-password\b|codeartifact get-authorization-token\b.*--output text|secretsmanager get-secret-value\b.*--output text|ssm get-parameters? (?=.*--with-decryption\b)(?=.*--output text))/],
  ["az", /^(?:account get-access-token|keyvault secret show)\b.*(?:-o|--output) tsv/],
  ["heroku", /^auth:token\b/],
  ["fly", /^auth token\b/],
  ["flyctl", /^auth token\b/],
  ["doctl", /^auth token\b/],
  ["op", /^(?:read\b|item get\b.*--(?:fields|reveal)\b)/],
  ["pass", /^(?:show\b|-c\b)/],
  ["gopass", /^(?:show\b|-c\b)/],
  ["security", /^find-(?:generic|internet)-password\b.* -w\b/],
  ["secret-tool", /^lookup\b/],
  ["bw", /^get (?:password|totp|notes|item)\b/],
  ["lpass", /^show\b.*--password\b/],
  ["keyring", /^get\b/],
  ["vault", /^(?:kv get|read)\b.*-field\b/],
  ["kubectl", /^get secrets?\b.*(?:jsonpath|go-template)/],
  ["doppler", /^secrets get\b.*--plain\b/],
  ["infisical", /^secrets get\b.*--plain\b/],
  // A service's generated first password: Argo CD's, and Jenkins' file is a `cat` of a secret-named file.
  ["argocd", /^admin initial-password\b/],
]);
/**
 * Commands that make a secret and print it (`openssl rand -hex 32`, `pwgen -s 20 1`, `rails secret`,
 * `python3 -c "import secrets; print(secrets.token_hex())"`), by program: what must follow it. A
 * key an agent has just made is printed once, and its 64 hex digits are what the entropy rule keeps.
 */
const RANDOM_CODE = /(?:secrets\.token_|secrets\.choice|os\.urandom|randombytes|securerandom|random_bytes)/;
const GENERATORS: ReadonlyMap<string, RegExp> = new Map([
  ["openssl", /^rand\b/],
  ["pwgen", /^/],
  ["apg", /^/],
  ["makepasswd", /^/],
  ["wg", /^genkey\b/],
  ["gpg", /--gen-random\b/],
  ["rails", /^secret\b/],
  ["mix", /^phx\.gen\.secret\b/],
  ["php", /^artisan key:generate\b.*--show\b/],
  ["python", RANDOM_CODE],
  ["python3", RANDOM_CODE],
  ["node", RANDOM_CODE],
  ["ruby", RANDOM_CODE],
  ["perl", RANDOM_CODE],
]);

/** Interpreters an agent runs a one-liner with (`node -e …`, `python3 -c …`). */
const SCRIPT_RUNNERS = new Set(["node", "nodejs", "bun", "deno", "python", "python2", "python3", "ruby", "perl", "php"]);
/** How each reads an environment variable, up to its name (the command's quotes are already gone). */
const ENV_READ = String.raw`(?:process\.env(?:\.|\[)|Bun\.env(?:\.|\[)|Deno\.env\.get\(|os\.environ(?:\[|\.get\()|os\.getenv\(|ENV(?:\[|\.fetch\()|\$ENV\{|getenv\()\s*([A-Za-z_][A-Za-z0-9_]*)`;
/**
 * A one-liner that prints an environment variable: the variable read right
 * inside a print call (`console.log(process.env.DB_PASSWORD)`,
 * `print(os.environ[DB_PASSWORD])`, `puts ENV[API_KEY]`). A one-liner that
 * only uses one (`connect(password=os.environ[…]); print(ok)`) prints
 * something else.
 */
const PRINTED_ENV = new RegExp(String.raw`(?:console\.(?:log|info|error)|print|println|printf|puts|pp|p|echo|say|var_dump)\s*\(?\s*` + ENV_READ);
/** `node -p EXPR`: the expression is the variable. */
const EVALUATED_ENV = new RegExp(String.raw`(?:^|\s)` + ENV_READ);

/** The clipboard's readers, by program: what must follow it (anything, for `pbpaste`). */
const CLIPBOARD_READS: ReadonlyMap<string, RegExp> = new Map([
  ["pbpaste", /^/],
  ["wl-paste", /^/],
  ["get-clipboard", /^/],
  ["xclip", /(?:^| )-o(?:ut)?\b/],
  ["xsel", /(?:^| )(?:-o|--output|-b|--clipboard)\b/],
]);

/** Words that run the command after them, and assignments before it (`sudo`, `env X=1`, `FOO=bar`). */
const WRAPPER = /^(?:sudo|env|command|builtin|exec|time|nohup|\w+=\S*)$/;
const READERS = new Set(["cat", "head", "tail", "less", "more", "bat", "batcat", "type", "get-content", "gc", "strings"]);
const ECHOES = new Set(["echo", "printf", "print", "write-output", "write-host"]);
/** `$NAME`, `${NAME}`, `${NAME:-…}`, `${NAME:0:8}`, PowerShell's `$env:NAME`; not `${#NAME}` (its length). */
const VARIABLE = /\$(?:env:)?\{?([A-Za-z_][A-Za-z0-9_]*)/g;
const SECRET_FILE_EXT = /\.(?:key|token|secret|secrets|pass|password|pwd)$/;

/**
 * What `command` prints when it prints a secret, or undefined. Each simple
 * command of a pipeline or list is read on its own: `echo $TOKEN | wc -c`
 * prints a count, which the line test then turns away.
 *
 * @example
 * ```ts
 * printedBy("printenv DB_PASSWORD")?.kind;      // "password"
 * printedBy('echo "key=${OPENAI_API_KEY:0:8}"'); // { kind: "api-key", password: false }
 * printedBy("cat token.ts");                     // undefined
 * ```
 */
export function printedBy(command: string, depth = 0): Printed | undefined {
  if (command.length > 4096) return undefined;
  let all: Printed | undefined;
  let others = false;
  for (const list of pipelines(command)) {
    // A pipeline prints a secret when a stage does (the stages after it are filters: `| base64 -d`, `| head -c 8`).
    let one: Printed | undefined;
    for (const stage of list) one ??= printedByOne(stage.trim(), depth);
    if (!one) {
      others ||= !SILENT.test(list.join("|").trim());
      continue;
    }
    // Several secrets printed (`printenv DB_PASSWORD; echo $API_KEY`): which line is which is not known, so
    // their kind only when they agree, and a word counts if any of them may be one.
    all = all === undefined ? one : { kind: all.kind === one.kind ? one.kind : STORE.kind, password: all.password || one.password };
  }
  // Beside a command that prints other things (`echo $DB_PASS && make`), a word may be any of its lines: tokens only.
  return all && others && all.password ? { kind: all.kind, password: false } : all;
}

/**
 * The pipelines of a command line, each as its stages: split at `;`, `&`,
 * `&&`, `||` and newlines, then at `|`, outside quotes
 * (`python3 -c 'import secrets; print(…)'` is one stage).
 */
function pipelines(command: string): string[][] {
  const out: string[][] = [];
  let stages: string[] = [];
  let at = 0;
  let quote = 0;
  for (let i = 0; i <= command.length; i++) {
    if (i >= command.length) {
      // The end, inside a quote left open too: the last stage is what remains.
      stages.push(command.slice(at));
      out.push(stages);
      break;
    }
    const c = command.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
      else if (c === 92 && quote === 34) i++;
      continue;
    }
    if (c === 39 || c === 34) quote = c;
    else if (c === 92) i++;
    else if (c === 124 && command.charCodeAt(i + 1) !== 124) {
      stages.push(command.slice(at, i));
      at = i + 1;
    } else if (c === 59 || c === 10 || c === 38 || c === 124) {
      stages.push(command.slice(at, i));
      out.push(stages);
      stages = [];
      // `&&` and `||`: both characters.
      if ((c === 38 || c === 124) && command.charCodeAt(i + 1) === c) i++;
      at = i + 1;
    }
  }
  return out;
}

/** Commands that print nothing of their own (`cd app && printenv DB_PASSWORD`). */
const SILENT = /^(?:$|(?:cd|export|unset|set|source|\.|true|:|test|\[\[?|sleep|mkdir|touch|chmod|cp|mv|rm|ln)(?:\s|$)|\w+=\S*$)/;

function printedByOne(part: string, depth = 0): Printed | undefined {
  if (part === "") return undefined;
  // Bytes from the kernel's generator, however they are cut and encoded (`head -c 32 /dev/urandom | base64`).
  if (part.includes("/dev/urandom") || part.includes("/dev/random")) return TOKENS;
  const words = part.replace(/["'`]/g, "").split(/\s+/);
  let i = 0;
  while (i < words.length - 1 && WRAPPER.test(words[i]!)) i++;
  const verb = (words[i] ?? "").replace(/^.*[/\\]/, "").toLowerCase();
  const args = words.slice(i + 1);
  if (ECHOES.has(verb)) {
    for (const m of args.join(" ").matchAll(VARIABLE)) {
      const named = printedAs(classifyKey(m[1]!));
      if (named) return named;
    }
    return undefined;
  }
  // printenv NAME, and macOS's `launchctl getenv NAME` (the launchd environment's variable).
  if (verb === "printenv" || (verb === "launchctl" && args[0] === "getenv")) {
    for (const a of verb === "printenv" ? args : args.slice(1)) {
      const named = printedAs(classifyKey(a));
      if (named) return named;
    }
    return undefined;
  }
  if (READERS.has(verb)) {
    for (const a of args) if (!a.startsWith("-")) {
      const file = secretFile(a);
      if (file) return file;
    }
    return undefined;
  }
  // A command run elsewhere (`docker exec db printenv X`, `ssh prod 'echo $X'`, `doppler run -- printenv X`):
  // what it prints is what the inner command prints.
  const inner = depth < 2 ? innerCommand(verb, args) : undefined;
  if (inner !== undefined) return printedBy(inner, depth + 1);
  // A tool that prints one named setting (`terraform output -raw db_password`, `jq -r .password`): the name says what it is.
  const setting = SETTING_PRINTERS.get(verb)?.(args);
  if (setting !== undefined) return printedAs(classifyKey(setting));
  if (SCRIPT_RUNNERS.has(verb)) {
    const code = args.join(" ");
    // `node -p process.env.X` prints the expression; any runner prints what its print call is given.
    const read = PRINTED_ENV.exec(code) ?? (args.some((a) => a === "-p" || a === "--print") ? EVALUATED_ENV.exec(code) : null);
    const named = read ? printedAs(classifyKey(read[1]!)) : undefined;
    if (named) return named;
  }
  const rest = args.join(" ").toLowerCase();
  const store = STORE_READS.get(verb);
  if (store) return store.test(rest) ? STORE : undefined;
  const generator = GENERATORS.get(verb);
  if (generator) return generator.test(rest) ? TOKENS : undefined;
  const clipboard = CLIPBOARD_READS.get(verb);
  return clipboard?.test(rest) ? TOKENS : undefined;
}

/** The arguments after flags: a flag in `valued` takes the next word as its value (`-e X=1`, `-i key`), any other stands alone. */
function afterFlags(args: readonly string[], from: number, valued: ReadonlySet<string>): number {
  let i = from;
  while (i < args.length && args[i]!.startsWith("-") && args[i] !== "--") i += valued.has(args[i]!) ? 2 : 1;
  return i;
}
const DOCKER_VALUED = new Set(["-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys", "--index"]);
const SSH_VALUED = new Set(["-p", "-i", "-l", "-o", "-F", "-J", "-L", "-R", "-D", "-b", "-c", "-E", "-m", "-O", "-Q", "-S", "-W", "-w", "-e", "-B", "-I"]);
const HEROKU_VALUED = new Set(["-a", "--app", "-r", "--remote", "-s", "--size", "-e", "--env", "--type"]);
/** Runners that start a command with secrets in its environment, the command after `--` (`doppler run -- printenv X`). */
const ENV_RUNNERS = new Set(["doppler", "op", "infisical", "aws-vault", "dotenv", "dotenvx", "envchain", "railway", "chamber", "teller", "sops", "vals", "with-contenv"]);

/**
 * The command `verb args…` runs somewhere else, as one line, or undefined:
 * a container's (`docker exec [flags] NAME cmd`, `docker compose exec SVC
 * cmd`, `kubectl exec POD -- cmd`), a host's over ssh, a Fly machine's
 * (`fly ssh console -C cmd`), a Heroku dyno's (`heroku run cmd`), or one a
 * runner starts with secrets in its environment (`doppler run -- cmd`).
 */
function innerCommand(verb: string, args: readonly string[]): string | undefined {
  const rest = (i: number): string | undefined => (i < args.length ? args.slice(i).join(" ") : undefined);
  switch (verb) {
    case "docker":
    case "podman":
    case "nerdctl":
    case "finch":
    case "docker-compose": {
      const at = args[0] === "exec" ? 1 : (args[0] === "compose" || args[0] === "container") && args[1] === "exec" ? 2 : -1;
      if (at < 0) return undefined;
      // Past the flags, the container or service, then its command.
      return rest(afterFlags(args, at, DOCKER_VALUED) + 1);
    }
    case "kubectl":
    case "oc": {
      const dash = args.indexOf("--");
      return args[0] === "exec" && dash > 0 ? rest(dash + 1) : undefined;
    }
    case "ssh":
      return rest(afterFlags(args, 0, SSH_VALUED) + 1);
    case "fly":
    case "flyctl": {
      const c = args[0] === "ssh" && args[1] === "console" ? args.findIndex((a) => a === "-C" || a === "--command") : -1;
      return c > 0 ? rest(c + 1) : undefined;
    }
    case "heroku":
      return args[0] === "run" ? rest(afterFlags(args, 1, HEROKU_VALUED)) : undefined;
    default: {
      if (!ENV_RUNNERS.has(verb)) return undefined;
      const dash = args.indexOf("--");
      return dash >= 0 ? rest(dash + 1) : undefined;
    }
  }
}

/**
 * The last name of a jq/yq path (`.database.password`, `.[0].token`, `.auth["token"]`, its quotes
 * already gone), when the filter is a path and nothing else.
 */
function pathName(filter: string): string | undefined {
  return /^(?:\.[A-Za-z_$][\w$-]*|\.?\[[^\]]+\])+$/.test(filter) ? /([A-Za-z_$][\w$-]*)\]?$/.exec(filter)?.[1] : undefined;
}

/** The first argument that is no flag, from `from`. */
const firstPlain = (args: readonly string[], from = 0): string | undefined => args.slice(from).find((a) => !a.startsWith("-"));

/**
 * Tools that print the value of one setting they are given the name of, by
 * program: the name, from the arguments, or undefined. What the name says
 * (classifyKey) says what the value is, as a variable's name does for `printenv`.
 */
type SettingName = (args: readonly string[]) => string | undefined;
const outputName: SettingName = (a) => (a[0] === "output" ? firstPlain(a, 1) : undefined);
/** `npm config get //registry.npmjs.org/:_authToken`: the name after the registry. */
const npmConfigName: SettingName = (a) => (a[0] === "config" && a[1] === "get" ? firstPlain(a, 2)?.replace(/^.*:/, "") : undefined);
const jqPathName: SettingName = (a) => pathName(firstPlain(a) ?? "");
const SETTING_PRINTERS: ReadonlyMap<string, SettingName> = new Map<string, SettingName>([
  ["terraform", outputName],
  ["tofu", outputName],
  // `pulumi config get NAME`, and `pulumi stack output NAME --show-secrets` (without the flag a secret prints as `[secret]`).
  ["pulumi", (a) => (a[0] === "config" && a[1] === "get" ? firstPlain(a, 2) : a[0] === "stack" && a[1] === "output" ? firstPlain(a, 2) : undefined)],
  // Segment's chamber: `chamber read SERVICE KEY` (its `-q` prints the value alone).
  ["chamber", (a) => (a[0] === "read" ? a.slice(1).filter((x) => !x.startsWith("-"))[1] : undefined)],
  ["heroku", (a) => (a[0] === "config:get" ? firstPlain(a, 1) : undefined)],
  ["netlify", (a) => (a[0] === "env:get" ? firstPlain(a, 1) : undefined)],
  // `git config user.password` reads; `git config user.password x` sets.
  ["git", (a) => {
    if (a[0] !== "config") return undefined;
    const plain = a.slice(1).filter((x) => !x.startsWith("-"));
    return plain.length === 1 ? plain[0] : undefined;
  }],
  ["npm", npmConfigName],
  ["pnpm", npmConfigName],
  ["yarn", (a) => (a[0] === "config" && a[1] === "get" ? firstPlain(a, 2) : undefined)],
  ["aws", (a) => (a[0] === "configure" && a[1] === "get" ? firstPlain(a, 2) : undefined)],
  ["jq", jqPathName],
  ["gojq", jqPathName],
  ["jaq", jqPathName],
  ["yq", (a) => pathName(firstPlain(a[0] === "e" || a[0] === "eval" ? a.slice(1) : a) ?? "")],
]);

/** A file whose name says it holds one secret: `/run/secrets/db`, `api_token.txt`, `.vault-token`, `deploy.key`. */
function secretFile(path: string): Printed | undefined {
  const base = path.replace(/^.*[/\\]/, "");
  // A mounted secret holds the secret and nothing else, whatever its name: a word counts.
  if (/(?:^|\/)(?:var\/)?run\/secrets\//.test(path)) return { kind: classifyKey(base)?.kind ?? STORE.kind, password: true };
  const name = base.replace(/\.txt$/, "");
  if (SECRET_FILE_EXT.test(name)) return printedAs(classifyKey(name.replace(SECRET_FILE_EXT, ""))) ?? TOKENS;
  return /\./.test(name.slice(1)) ? undefined : printedAs(classifyKey(name));
}

/**
 * Whether one printed line (spaces trimmed) is the secret: one token that
 * plausibleSecret accepts at the command's bar, not a bracketed word or a
 * YAML key.
 *
 * @example
 * ```ts
 * printedSecret("hunter2", { kind: "password", password: true }); // true
 * printedSecret("(none)", { kind: "password", password: true });  // false
 * ```
 */
export function printedSecret(line: string, by: Printed): boolean {
  if (/\s/.test(line) || ENCLOSED.test(line) || line.endsWith(":")) return false;
  // A URL with its credentials (`cat ~/.git-credentials`): when the userinfo rule takes the password
  // or token in it, it keeps the scheme, user and host, which a whole-line find would swallow.
  const u = URL_WITH_USERINFO.exec(line);
  if (u && userinfoSecret(u[1]!)) return false;
  return plausibleSecret(line, by.password);
}
/** A bracketed or tagged word (`<none>`, `[PASSWORD]`, `(redacted)`): a note where a value would be. */
export const ENCLOSED = /^[[(<{].*[\])>}]$/;
const URL_WITH_USERINFO = /^[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\/([^\s/?#@]{1,512})@[^\s/?#@]/;

/**
 * Findings for every output line in `s[from..to)` that printedSecret takes
 * (at most MAX_LINES of them, the length a command printing secrets has).
 *
 * @example
 * ```ts
 * const out: Parameters<typeof printedLines>[4] = [];
 * printedLines("s3cr3t-Pass\n", 0, 12, { kind: "password", password: true }, out);
 * [out[0]!.start, out[0]!.end]; // [0, 11]
 * ```
 */
export function printedLines(s: string, from: number, to: number, by: Printed, out: Finding[]): void {
  let lines = 0;
  for (let a = from; a < to && lines < MAX_LINES; lines++) {
    let b = s.indexOf("\n", a);
    if (b < 0 || b > to) b = to;
    let x = a;
    let y = b;
    while (x < y && isBlank(s.charCodeAt(x))) x++;
    // Gemini CLI's llmContent opens the output with `Output: ` on its first line.
    if (s.startsWith("Output: ", x)) x += 8;
    while (y > x && isBlank(s.charCodeAt(y - 1))) y--;
    // A JSON string (`terraform output db_password`, `jq .password`): the secret is inside its quotes.
    if (y - x >= 3 && s.charCodeAt(x) === 34 && s.charCodeAt(y - 1) === 34 && s.indexOf('"', x + 1) === y - 1) {
      x++;
      y--;
    }
    if (y > x && printedSecret(s.slice(x, y), by)) out.push({ from: x, start: x, end: y, kind: by.kind, priority: 1 });
    a = b + 1;
  }
}

/** Output lines read after one command: `printenv A B C`, `op item get --fields` print a few. */
export const MAX_LINES = 64;

const isBlank = (c: number): boolean => c === 32 || c === 9 || c === 13;

/** Where a tool call holds its command (`input.command`: Claude, Codex, Gemini, Copilot, OpenCode, Cursor; raw payloads' `tool_input`, `toolArgs`, `args`). */
const INPUT_KEYS = ["input", "tool_input", "toolArgs", "toolInput", "args", "arguments"] as const;
/** Where a tool call holds what its command printed. */
export const OUTPUT_KEYS: ReadonlySet<string> = new Set(["output", "tool_response", "tool_output", "toolResult", "stdout", "result", "response", "error", "aggregated_output", "formatted_output", "llmContent", "returnDisplay"]);

/**
 * What the command of a tool call object prints, when it prints a secret:
 * the object holds the command (`command`/`cmd`, or one of INPUT_KEYS
 * holding it) and its output under OUTPUT_KEYS.
 *
 * @example
 * ```ts
 * printedByCall({ input: { command: "printenv DB_PASSWORD" }, output: "hunter2\n" })?.kind; // "password"
 * printedByCall({ input: { command: "ls" }, output: "a\n" }); // undefined
 * ```
 */
export function printedByCall(o: Record<string, unknown>): Printed | undefined {
  const command = callCommand(o);
  return command === undefined ? undefined : printedBy(command);
}

/**
 * The command of tool call object `o` when it prints a secret, as one line:
 * what a caller that redacts the output apart from its call (in pieces)
 * hands back beside each piece.
 *
 * @example
 * ```ts
 * printingCommandOf({ input: { command: ["sh", "-c", "gh auth token"] } }); // "gh auth token"
 * ```
 */
export function printingCommandOf(o: Record<string, unknown>): string | undefined {
  const command = callCommand(o);
  return command !== undefined && printedBy(command) ? command : undefined;
}

function callCommand(o: Record<string, unknown>): string | undefined {
  let command = commandText(o);
  for (let i = 0; command === undefined && i < INPUT_KEYS.length; i++) {
    const x = o[INPUT_KEYS[i]!];
    if (x !== null && typeof x === "object" && !Array.isArray(x)) command = commandText(x as Record<string, unknown>);
  }
  return command;
}

/** A `command`/`cmd` as one line: a string, or an argv (`["bash", "-lc", "printenv X"]` is its script). */
function commandText(o: Record<string, unknown>): string | undefined {
  const c = o.command ?? o.cmd;
  if (typeof c === "string") return c;
  if (!Array.isArray(c) || !c.every((w) => typeof w === "string")) return undefined;
  const argv = c as string[];
  return argv.length === 3 && /^-\w*c$/.test(argv[1]!) ? argv[2] : argv.join(" ");
}
