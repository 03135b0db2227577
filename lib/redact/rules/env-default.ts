/**
 * The fallback of a secret-named environment read: the literal a program
 * uses when the variable is unset is that secret's value on every machine
 * that does not set it, and it is written in the source an agent reads and
 * edits. `os.getenv("DB_PASSWORD", "x")`, `os.environ.get("SECRET_KEY") or
 * "x"`, `process.env.API_TOKEN || "x"` (`??`, `import.meta.env`, `Bun.env`),
 * Laravel's `env('DB_PASSWORD', 'x')`, Ruby's `ENV.fetch("X", "x")` and
 * `ENV.fetch("X") { "x" }`, Rust's `env::var("X").unwrap_or("x")`, C#'s
 * `GetEnvironmentVariable("X") ?? "x"`, Kotlin's `?: "x"`, Java's
 * `System.getenv().getOrDefault("X", "x")`, python-decouple's `config("X",
 * default="x")`; and a template's `{{ db_password | default('x') }}`
 * (Jinja, Ansible, Helm's `| default "x"`).
 *
 * The variable's name decides, as a key's does (`os.getenv("PORT", "5432")`
 * and `process.env.HOST || "localhost"` stay), and the literal is judged as
 * a password's: a default is a value, never a reference. The shell's and
 * Spring's `${NAME:-x}` are the key/value rule's (context.ts).
 */
import { classifyKey, headerNameUnder, lastLetters, plausibleSecret } from "../keys.ts";
import { firstMatched, regexRule } from "../prefix.ts";
import type { Rule, ScanCtx } from "../types.ts";

/** A variable's name, quoted: group `n` single-quoted, `n + 1` double-quoted. */
const QUOTED_NAME = String.raw`(?:'([A-Za-z_][\w.:-]{0,95})'|"([A-Za-z_][\w.:-]{0,95})")`;
/** A string literal: group `n` single-quoted, `n + 1` double-quoted, `n + 2` a JS template without `${`. */
const LITERAL = String.raw`(?:'([^'\n\\]{1,1024})'|"([^"\n\\]{1,1024})"|\x60([^\x60\n\\$]{1,1024})\x60)`;

/**
 * A read at a keyword hit, name in groups 1-2 (quoted) or 3 (a member, `env.NAME`): a call or an
 * indexer whose receiver ends in `env`/`environ` (getenv, os.environ.get, ENV.fetch, Deno.env.get,
 * Laravel's and Django-environ's env, Elixir's get_env by its `env(`), Rust's env::var, .NET's
 * GetEnvironmentVariable.
 */
const READ = new RegExp(
  String.raw`(?:env(?:iron)?(?:\.(?:get|fetch|str))?[(\[]|env::var\(|environmentvariable\()[ \t]*${QUOTED_NAME}[ \t]*|env\.([A-Za-z_]\w{0,95})\b(?![(.])`,
  "iy",
);
/** After a call's name argument: the default as the next argument (`default=` named, in decouple and environs). */
const NEXT_ARG = new RegExp(String.raw`,[ \t]*(?:default[ \t]*=[ \t]*)?${LITERAL}`, "y");
/**
 * After the read is closed: an operator's fallback (`||`, `??`, `?:`, `or`), Ruby's fetch block, Rust's
 * `unwrap_or("x")` / `unwrap_or_else(|_| "x".into())`. Groups 1-3 the literal.
 */
const FALLBACK = new RegExp(
  String.raw`[ \t]*(?:(?:\|\||\?\?|\?:|or\b)[ \t]*|\{[ \t]*(?:\|[^|\n]{0,16}\|[ \t]*)?|\.unwrap_or(?:_else)?\([ \t]*(?:\|[^|\n]{0,8}\|[ \t]*)?(?:String::from\()?)${LITERAL}`,
  "y",
);

const CLOSERS = /[)\]]/y;

/** Whether `v` is a secret's value when it is the default of a variable named `name`. */
function defaultOfSecret(name: string, v: string): boolean {
  const cls = classifyKey(name);
  return cls !== null && !v.includes("://") && !headerNameUnder(name, v) && plausibleSecret(v, true, lastLetters(name), cls.strict);
}

function scanRead(ctx: ScanCtx, pos: number): void {
  const s = ctx.s;
  READ.lastIndex = pos;
  const r = READ.exec(s);
  if (!r) return;
  const name = r[1] ?? r[2] ?? r[3]!;
  // Most reads name a host, a port or a flag: the name first, before any further regex.
  if (classifyKey(name) === null) return;
  let at = READ.lastIndex;
  let m: RegExpExecArray | null = null;
  if (r[3] === undefined) {
    NEXT_ARG.lastIndex = at;
    m = NEXT_ARG.exec(s);
    if (!m) {
      CLOSERS.lastIndex = at;
      if (!CLOSERS.test(s)) return;
      at = CLOSERS.lastIndex;
    }
  }
  if (!m) {
    FALLBACK.lastIndex = at;
    m = FALLBACK.exec(s);
  }
  if (!m) return;
  const v = m[1] ?? m[2] ?? m[3]!;
  if (!defaultOfSecret(name, v)) return;
  // The literal closes the match (a quote after it).
  const end = m.index + m[0].length - 1;
  ctx.out.push({ from: pos, start: end - v.length, end, kind: classifyKey(name)!.kind, priority: 1 });
}

/** See the module comment. */
export const ENV_DEFAULT_RULES: readonly Rule[] = [
  {
    kinds: ["password"],
    // Elixir's `get_env(` is found by its `env(`.
    keywords: ["env(", "env[", "env.", "environ[", "environ.get(", "env::var(", "environmentvariable("],
    scan: scanRead,
    patterns: () => [READ, NEXT_ARG, FALLBACK].map((re) => ({ kind: "password", source: re.source, flags: re.flags })),
  },
  // Java: `System.getenv().getOrDefault("DB_PASSWORD", "x")`.
  regexRule("password", ["env().getordefault("], String.raw`(?<=get)env\(\)\.getOrDefault\([ \t]*${QUOTED_NAME}[ \t]*,[ \t]*${LITERAL}`, {
    priority: 1,
    group: firstMatched(3, 4, 5),
    accept: (v, m) => defaultOfSecret(m[1] ?? m[2]!, v),
  }),
  // python-decouple's `config("SECRET_KEY", default="x")`: only with `default=`, the one sign it reads a setting.
  regexRule("password", ["config("], String.raw`(?<![\w.])config\([ \t]*${QUOTED_NAME}[ \t]*,[ \t]*default[ \t]*=[ \t]*${LITERAL}`, {
    priority: 1,
    group: firstMatched(3, 4, 5),
    accept: (v, m) => defaultOfSecret(m[1] ?? m[2]!, v),
  }),
  // A template's default filter: `{{ db_password | default('x') }}`, Ansible's `{{ lookup('env', 'X') |
  // default('x') }}`, Helm's `{{ .Values.db.password | default "x" }}`. The name is read behind the `|`.
  regexRule(
    "password",
    ["| default", "|default"],
    String.raw`(?<=\{\{-?[ \t]{0,4}(?:lookup\([ \t]*['"]env['"][ \t]*,[ \t]*${QUOTED_NAME}[ \t]*\)|([A-Za-z_.][\w.]{0,95}))[ \t]{0,4})\|[ \t]{0,4}default(?:\([ \t]{0,4}|[ \t]{1,4})${LITERAL}`,
    {
      priority: 1,
      group: firstMatched(4, 5, 6),
      accept: (v, m) => defaultOfSecret(m[1] ?? m[2] ?? m[3]!, v),
    },
  ),
];
