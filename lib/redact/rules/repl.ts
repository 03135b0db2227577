/**
 * A REPL that echoed a secret it was asked for: the prompt line reads a
 * secret-named setting, and the next line is its value.
 *
 *     >>> os.environ["DB_PASSWORD"]          In [3]: settings.SECRET_KEY
 *     'Tr0ub4dor&3horse'                     Out[3]: 'django-insecure-…'
 *
 *     irb(main):001> ENV["STRIPE_KEY"]       > process.env.API_TOKEN
 *     => "rk_live_…"                         'qA7xK2mP…'
 *
 * Python, IPython, irb, pry, a Rails console, iex, node, deno, jshell, scala
 * and R print a value this way; the echo has no label of its own, so the key
 * rules never see it. The expression must be nothing but a read (an access
 * chain ending in the name, `getenv("NAME")`, `ENV.fetch("NAME")`), perhaps
 * inside one print call: `>>> connect(password=os.environ["X"])` prints
 * something else. The name is judged as a key is (keys.ts classifyKey), the
 * value as a printed line is (printed.ts printedSecret): one token, and a
 * plain word only where the name says password.
 */
import { classifyKey } from "../keys.ts";
import { printedAs, printedSecret } from "../printed.ts";
import type { Rule, ScanCtx } from "../types.ts";
import { nextIndexOf, push } from "./push.ts";

/** The longest prompt line read, and the lines after it read for the echo. */
const LINE_MAX = 512;
const ECHO_LINES = 3;

/**
 * A REPL's prompt at a line's start: `>>>`, `In [3]:`, `irb(main):001:0>`,
 * `[1] pry(main)>`, `myapp(dev)>`, `iex(2)>`, `jshell>`, `scala>`, and
 * node's, deno's, R's and PHP's `>` (`php >`).
 */
const PROMPT = /^[ \t]*(?:>>>|In \[\d{1,6}\]:|(?:\[\d{1,6}\] )?[A-Za-z][\w.-]{0,40}\([\w:./-]{0,60}\)(?::\d{1,6}){0,2}[>*]|jshell>|scala>|php >|>)[ \t]+/;

/** A print call the read may sit in, up to the read. */
const PRINT_OPEN = /(?:print|println|console\.log|console\.info|puts|pp|p|IO\.puts|IO\.inspect|System\.out\.println|echo|var_dump|cat|say)(?:\(|[ \t]+)/y;
/** One step of an access chain, from a name on: `.name`, `::name`, `["name"]`, `[b"name"]`, `[:name]`. */
const STEP = /(?:\.|::)([A-Za-z_$][\w$]{0,100})|\[[ \t]*(?:b?'([^'\n]{1,100})'|b?"([^"\n]{1,100})"|:([A-Za-z_]\w{0,100}))[ \t]*\]/y;
/** A call that reads its first argument by name: `getenv("X")`, `.get('X')`, `.fetch(:X)`, `Sys.getenv("X")`, scala's `sys.env("X")`. */
const READ_CALL = /(?:get|fetch|env|getenv|get_env|Getenv|getProperty|GetEnvironmentVariable|getString)\([ \t]*(?:'([^'\n]{1,100})'|"([^"\n]{1,100})"|:([A-Za-z_]\w{0,100}))[ \t]*(?:,[^()\n]{0,100})?\)/y;
const NAME = /[A-Za-z_$][\w$]{0,100}/y;

/**
 * Where a REPL prints a value it echoes: `Out[3]: `, `=> `, and (group 1)
 * the heads after which a string may stand bare, jshell's `$1 ==> `, scala's
 * `res0: String = `, R's `[1] `.
 */
const RESULT_HEAD = /^[ \t]*(?:Out\[\d{1,6}\]:[ \t]*|#?=>[ \t]*|(\$\d{1,6} ==>[ \t]*|(?:val )?res\d{1,6}: [\w.[\]]{1,40} = |\[1\] ))?/;
/** What a REPL prints for no value. */
const NOTHING = new Set(["None", "nil", "null", "undefined", "NULL", "NA", "false", "true", "''", '""', ":ok"]);

/**
 * The name `expr` reads, when `expr` is nothing but a read, perhaps printed;
 * whether it was printed (bare) rather than echoed (quoted).
 *
 * @example
 * ```ts
 * readName('os.environ["DB_PASSWORD"]'); // { name: "DB_PASSWORD", printed: false }
 * readName("print(settings.SECRET_KEY)"); // { name: "SECRET_KEY", printed: true }
 * readName('connect(password=os.environ["X"])'); // undefined
 * ```
 */
export function readName(expr: string): { name: string; printed: boolean } | undefined {
  let i = 0;
  let printed = false;
  PRINT_OPEN.lastIndex = 0;
  if (PRINT_OPEN.exec(expr)) {
    printed = true;
    i = PRINT_OPEN.lastIndex;
  }
  // The head: a read call (`getenv("X")`) or a name (`os`, `ENV`, `settings`).
  READ_CALL.lastIndex = i;
  let m = READ_CALL.exec(expr);
  if (!m) {
    NAME.lastIndex = i;
    m = NAME.exec(expr);
    if (!m) return undefined;
  }
  let name = (m[1] ?? m[2] ?? m[3] ?? m[0])!;
  i = m.index + m[0].length;
  for (;;) {
    if (expr.charCodeAt(i) === 46) {
      READ_CALL.lastIndex = i + 1;
      m = READ_CALL.exec(expr);
      if (m) {
        name = (m[1] ?? m[2] ?? m[3])!;
        i = READ_CALL.lastIndex;
        continue;
      }
    }
    STEP.lastIndex = i;
    m = STEP.exec(expr);
    if (!m) break;
    name = (m[1] ?? m[2] ?? m[3] ?? m[4])!;
    i = STEP.lastIndex;
  }
  // Past the chain: the print call's close and a statement's end, nothing else.
  const rest = expr.slice(i).replace(printed ? /^[ \t]*\)?[ \t]*;?[ \t]*$/ : /^[ \t]*;?[ \t]*$/, "");
  return rest === "" ? { name, printed } : undefined;
}

/**
 * The line `[a, b)` around `pos`, when it is at most LINE_MAX long. Its end
 * comes from the scan's shared next-newline search and its start from at most
 * LINE_MAX units back, so a text of one long line with a prompt every few
 * characters is read once, not once per prompt.
 */
function lineAround(ctx: ScanCtx, pos: number): [number, number] | undefined {
  const s = ctx.s;
  const nl = nextIndexOf(ctx, "\n", pos);
  const b = nl < 0 ? s.length : nl;
  // Whatever this line holds, no later hit on it is read again.
  ctx.memo.repl = b;
  let a = pos;
  const lo = pos > LINE_MAX ? pos - LINE_MAX : 0;
  while (a > lo && s.charCodeAt(a - 1) !== 10) a--;
  if (a > 0 && s.charCodeAt(a - 1) !== 10) return undefined;
  return b - a > LINE_MAX ? undefined : [a, b];
}

function scanRepl(ctx: ScanCtx, pos: number): void {
  const s = ctx.s;
  if (pos < (ctx.memo.repl ?? 0)) return;
  const line = lineAround(ctx, pos);
  if (!line) return;
  const [a, b] = line;
  const text = s.slice(a, b).replace(/\r$/, "");
  const prompt = PROMPT.exec(text);
  if (!prompt) return;
  const read = readName(text.slice(prompt[0].length));
  const by = read && printedAs(classifyKey(read.name));
  if (!by || b >= s.length) return;
  // The echo: the first line after the prompt's that is not blank, unless a prompt comes first.
  for (let at = b + 1, n = 0; at < s.length && n < ECHO_LINES; n++) {
    let e = s.indexOf("\n", at);
    if (e < 0) e = s.length;
    if (e - at > LINE_MAX) return;
    const echo = s.slice(at, e).replace(/\r$/, "");
    if (echo.trim() === "") {
      at = e + 1;
      continue;
    }
    if (PROMPT.test(echo)) return;
    const head = RESULT_HEAD.exec(echo)!;
    let x = at + head[0].length;
    let y = at + echo.trimEnd().length;
    const q = s.charCodeAt(x) === 98 && (s.charCodeAt(x + 1) === 39 || s.charCodeAt(x + 1) === 34) ? x + 1 : x;
    const quote = s.charCodeAt(q);
    if ((quote === 39 || quote === 34) && y - q >= 3 && s.charCodeAt(y - 1) === quote) {
      x = q + 1;
      y--;
    } else if (!read.printed && head[1] === undefined) return;
    const value = s.slice(x, y);
    if (!NOTHING.has(value) && printedSecret(value, by)) push(ctx, { from: x, start: x, end: y, kind: by.kind, priority: 1 });
    return;
  }
}

/** See the module comment. */
export const replRule: Rule = {
  kinds: ["password", "generic-secret"],
  // The prompts, and for a bare `> ` (too common to key on) the reads node, deno and R make.
  keywords: [">>> ", "in [", "irb(", "pry(", "iex(", ")> ", "jshell> ", "scala> ", "php > ", "process.env", "deno.env", "bun.env", "sys.getenv"],
  scan: scanRepl,
};
