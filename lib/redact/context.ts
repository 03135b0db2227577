/**
 * The key/value context rule: `KEY=value` in env files and `export`, YAML,
 * JSON (raw or JSON-escaped), TOML, INI, properties, XML elements, HTTP-style
 * `Name: value` headers and CLI flags (`--password x`), where the key names a
 * secret. Runs at each occurrence of a term; the full key is recovered by
 * scanning a bounded distance either side, then classified (cached).
 */
import { containerFinding, decodeBase64Text } from "./decode.ts";
import { afterArnColon, chargeReading, classifyKey, headerNameUnder, isAsciiLetter, isEnvName, isWordUnit, madeUp, isKeyChar, keyText, lastLetters, type KeyClass, plausibleSecret, perKey, readingSpent, SPENT_VALUE_MAX, UnitSet } from "./keys.ts";
import type { Rule, ScanCtx } from "./types.ts";
import { GO_MYSQL_DSN } from "./rules/connection.ts";

const KEY_MAX = 96;
const VALUE_MAX = 4096;


// A bare value ends at whitespace, quotes, separators and escapes.
const BARE_STOP = new UnitSet(" \t\r\n\"'`;,<>(){}[]\\");
const COOKIE_HEADER = /^(?:set-)?cookie$/i;
/** `pwd` and `pw`: the working directory and a word elsewhere, a password as a query or form pair's key (`?user=bob&pw=…`). */
const PWD_KEY = /^pwd?$/i;
const QUERY_PASSWORD: KeyClass = { kind: "password", password: true };
/**
 * `pwd` as a key whose value is quoted (`{"user": "bob", "pwd": "x"}`, `pwd: 'x'`, `pwd = "x"`): a
 * password, unless the value is a directory (`"pwd": "/home/me"`, `"~/src"`, `"."`). Unquoted, the
 * working directory's name stays what it is (`PWD=/home/me`, `bash: pwd: command not found`).
 */
const QUOTED_PWD: KeyClass = { kind: "password", password: true };
/**
 * The class of `pwd` or `pw` alone, which classifyKey gives none: `pwd` names the working directory
 * (`PWD=/home/me`) and `pw` is a word, but a query or form pair's (`&pw=`, `?pwd=`, the key at `a`) is
 * a password, and so may a quoted value under `pwd` be (QUOTED_PWD).
 */
function shortPasswordKey(s: string, a: number, key: string): KeyClass | null {
  if (key.length > 3 || !PWD_KEY.test(key)) return null;
  const before = s.charCodeAt(a - 1);
  if (before === 38 || before === 63) return QUERY_PASSWORD;
  return key.length === 3 ? QUOTED_PWD : null;
}
/** What a quoted `pwd` value that names a directory looks like: a separator in it, or `.`, `~`, `$`, `%` first. */
const DIRECTORY_VALUE = /[/\\]|^[.~$%]/;
const DOCKER_CONFIG_KEY = /dockerconfigjson|dockercfg/i;
/** Whether the value at `start` follows YAML's `: ` (a tag is YAML's only there; `KEY=!x` is a value). */
function yamlTagged(s: string, start: number): boolean {
  const c = s.charCodeAt(start - 1);
  return (c === 32 || c === 9) && colonBefore(s, start);
}
/**
 * The YAML tags that stand where a value would be: Ansible's `!vault`, CloudFormation's intrinsic
 * functions, and the core types; the core ones (CORE_TAG) say the value is the literal after them.
 * Named, not any `!word`: `Password: !Xk9mQ2vL7pR4tW8z` in a log is a password with a `!`.
 */
const YAML_TAG = /^(?:!vault|!(?:Ref|GetAtt|Sub|Join|Select|Split|If|Equals|Not|And|Or|Condition|ImportValue|FindInMap|Base64|Cidr|GetAZs|Transform)|!!(?:str|binary|int|float|bool|null|map|seq|set|omap|timestamp))$/;
const CORE_TAG = /^!!(?:str|binary)$/;
/** A capitalised word and nothing else: a sentence's first word (SENTENCE_GOES_ON). */
const SENTENCE_WORD = /^[A-Z][a-z]{1,15}$/;
/** More words after the value on its line: a space, then a lower-case word. */
const SENTENCE_GOES_ON = /^[ \t]{1,2}[a-z]{1,}(?:[ \t]|[.,!?]?$)/;
/** Whether a label's colon (past spaces) stands right before `at`. */
function colonBefore(s: string, at: number): boolean {
  let i = at - 1;
  while (i > 0 && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i--;
  return s.charCodeAt(i) === 58;
}
/**
 * `name=value;` pairs, two or more (an ADO.NET, ODBC, libpq-with-semicolons or Azure Storage
 * connection string); a value may end in base64's padding (`AccountKey=…==`).
 */
const PAIR_LIST = /^[ \t]*(?:[A-Za-z][\w .-]{0,40}=[^;=\n]*={0,2};[ \t]*){1,40}[A-Za-z][\w .-]{0,40}=[^;=\n]*={0,2};?[ \t]*$/;

/**
 * Whether `value` is a list of `name=value;` pairs: under a connection string's key its pairs are
 * read as pairs (`Password=`, `Pwd=`, `AccountKey=` go; the server, database and endpoint stay).
 *
 * @example
 * ```ts
 * pairList("Server=db;Database=app;Password=x;"); // true
 * pairList("DefaultEndpointsProtocol=https;AccountName=a;AccountKey=QUJD==;EndpointSuffix=core.windows.net"); // true
 * pairList("postgres://app:x@db/app"); // false
 * ```
 */
export const pairList = (value: string): boolean => value.includes(";") && PAIR_LIST.test(value);

/** Longest bare pair list read to its line's end (a connection string is far shorter). */
const PAIRS_MAX = 1024;

/** Whether the rest of the line from `at` is a pair list (pairList), its reading charged to the key/value rule's budget. */
function barePairList(ctx: ScanCtx, s: string, at: number): boolean {
  // The line's end looked for within PAIRS_MAX only: a search to the end of a long line from every hit on it was quadratic.
  const lim = Math.min(s.length, at + PAIRS_MAX);
  // Hits on one long line share the stretch already known to hold no line break.
  let e = Math.max(at, Math.min(lim, ctx.memo.pairsNoBreak ?? 0));
  while (e < lim && ctx.units[e] !== 10) e++;
  ctx.memo.pairsNoBreak = e;
  if (e > at && ctx.units[e - 1] === 13) e--;
  chargeReading(ctx, "kvRead", e - at);
  return pairList(s.slice(at, e));
}
/** A YAML block scalar's header: literal or folded, a chomping indicator, an indentation digit. */
const BLOCK_HEADER = /[|>](?:[-+]?[1-9]?|[1-9][-+])(?=[ \t\r]*\n)/y;

/**
 * The one line of a YAML block scalar whose header ends at `at` (spaces, then the line's end), under
 * the key at `keyStart`: `[start, end]` of its text (indentation and trailing spaces off) when the
 * line is indented past the key's line and the next is not (or is blank, or the text ends); else
 * undefined.
 */
function oneLineBlock(s: string, at: number, keyStart: number): [number, number] | undefined {
  let i = at;
  while (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9 || s.charCodeAt(i) === 13) i++;
  if (s.charCodeAt(i) !== 10) return undefined;
  let keyLine = keyStart;
  while (keyLine > 0 && s.charCodeAt(keyLine - 1) !== 10) keyLine--;
  let keyIndent = 0;
  while (s.charCodeAt(keyLine + keyIndent) === 32) keyIndent++;
  const from = i + 1;
  let start = from;
  while (s.charCodeAt(start) === 32) start++;
  if (start - from <= keyIndent) return undefined;
  let end = start;
  while (end < s.length && end - start < VALUE_MAX && s.charCodeAt(end) !== 10 && s.charCodeAt(end) !== 13) end++;
  let next = end;
  while (s.charCodeAt(next) === 13) next++;
  if (next < s.length) {
    // The next line: blank (the block's end, or a blank line inside it: a one-line value either way
    // when nothing indented follows), or indented no further than the key (the block has ended).
    let j = next + 1;
    let indent = 0;
    while (s.charCodeAt(j + indent) === 32) indent++;
    const c = s.charCodeAt(j + indent);
    if (indent > keyIndent && c !== 10 && c !== 13 && j + indent < s.length) return undefined;
  }
  while (end > start && (s.charCodeAt(end - 1) === 32 || s.charCodeAt(end - 1) === 9)) end--;
  return end > start ? [start, end] : undefined;
}
const TYPE_WORD = /^(?:str|string|String|bytes|SecretStr|SecretString|Optional\[str\]|Option|int|Secret)$/;
/** `${NAME:default}` or `${NAME:-default}`, the whole value: the default in group 1. */
const DEFAULT_AFTER_REF = /\$\{[A-Za-z_][\w.-]{0,95}:-?([^{}$\s][^{}\n]{0,4095})\}(?=["'`\s;,]|$)/y;
/** TYPE_WORD's longest word (`Optional[str]`): a longer value skips the regex. */
const TYPE_WORD_LONGEST = 13;
const isUpper = (c: number): boolean => c >= 65 && c <= 90;

/** A declared type before `=` (`String`, `&str`, `&'static str`, `Option<String>`, `string`, `str?`). */
const TYPE_BEFORE_LITERAL = /[ \t]*(?:&(?:'static[ \t]+)?)?[A-Za-z_][\w.:]{0,40}(?:<[\w.:&' ]{1,40}>)?\??[ \t]*=[ \t]*/y;
/**
 * A wrapper a literal is handed to, then its quote: Rust's `String::from(`, `Some(`, pydantic's
 * `SecretStr(`, Go's `[]byte(`, `Buffer.from(`; or a hashing call under a password key (`password:
 * await hash('x', 10)`, `bcrypt.hashSync(`, `make_password(`): the literal is the password's plaintext.
 */
const LITERAL_WRAPPER = /(?:Some\()?(?:(?:String::from|(?:SecretString|SecretBox|Secret)::(?:new|from)|Secret(?:Str|Bytes)|\[\]byte|Buffer\.from|new[ \t]+String|(?:await[ \t]+)?(?:[\w$]{1,40}\.)?(?:hash(?:Sync|pw)?|bcrypt|make_password|generate_password_hash|password_hash))\()?[ \t]*(?=["'])/y;
/** A Python string's prefix before its quote: bytes, f-string (read only with no `{` after it); a raw string is a regex's. */
const STRING_PREFIX = /[bBfF](?=["'])/y;

/**
 * How many units lie between a separator and the literal it assigns: a declaration's type (after `:`
 * only), then a wrapper call, then a string prefix (or C#'s verbatim `@`); `format` when the prefix is an f-string's (a
 * `{` after it is interpolation, and the caller reads no literal then).
 */
function literalLead(s: string, i: number, typed: boolean): { skip: number; format: boolean } {
  let at = i;
  const c0 = s.charCodeAt(at);
  // C#'s verbatim string (`@"x"`): its `@` is the lead.
  if (c0 === 64 && s.charCodeAt(at + 1) === 34) return VERBATIM_LEAD;
  // Every lead opens with a letter, `&` (a reference type) or `[` (Go's `[]byte`), and its first word
  // ends in a call's `(`, a space, a type's `<` `?` `'` or `]`, `=`, or a prefix's quote: most values
  // are a literal already, or a word or token that ends otherwise, and stop here.
  if (!isAsciiLetter(c0) && c0 !== 38 && c0 !== 91) return NO_LEAD;
  let k = at + 1;
  const lim = Math.min(s.length, at + 64);
  while (k < lim && isPathUnit(s.charCodeAt(k))) k++;
  const stop = s.charCodeAt(k);
  if (stop !== 40 && stop !== 32 && stop !== 9 && stop !== 60 && stop !== 63 && stop !== 39 && stop !== 93 && stop !== 61 && stop !== 34) return NO_LEAD;
  if (typed && typeThenEquals(s, at)) {
    TYPE_BEFORE_LITERAL.lastIndex = at;
    if (TYPE_BEFORE_LITERAL.test(s)) at = TYPE_BEFORE_LITERAL.lastIndex;
  }
  if (callAhead(s, at)) {
    LITERAL_WRAPPER.lastIndex = at;
    if (LITERAL_WRAPPER.test(s)) at = LITERAL_WRAPPER.lastIndex;
  }
  let format = false;
  const p = s.charCodeAt(at) | 32;
  if (p === 98 || p === 102) {
    STRING_PREFIX.lastIndex = at;
    if (STRING_PREFIX.test(s)) {
      format = p === 102;
      at = STRING_PREFIX.lastIndex;
    }
  }
  // Only a lead that ends at a quote is one: `password: str = Field(…)` and `password: String =
  // getPassword()` are read as before.
  const q = s.charCodeAt(at);
  return at > i && (q === 34 || q === 39) ? { skip: at - i, format } : NO_LEAD;
}
const NO_LEAD = { skip: 0, format: false };
const VERBATIM_LEAD = { skip: 1, format: false };

/** `[A-Za-z0-9_.:]`: a name's or a path's units (`String::from`, `bcrypt.hash`, `std::string::String`). */
const isPathUnit = (c: number): boolean => isWordUnit(c) || c === 46 || c === 58;

/**
 * Whether a call's `(` ends the name at `i` (`String::from(`, `[]byte(`, `new String(`, `await
 * bcrypt.hash(`): TYPE_BEFORE_LITERAL's test before its regex, read to the first word's end.
 */
function callAhead(s: string, i: number): boolean {
  let k = i;
  if (s.charCodeAt(k) === 91 && s.charCodeAt(k + 1) === 93) k += 2;
  const lim = Math.min(s.length, i + 48);
  const from = k;
  while (k < lim && isPathUnit(s.charCodeAt(k))) k++;
  if (s.charCodeAt(k) === 40) return k > i;
  // `new String(`, `await hash(`: one keyword, spaces, then the call's name.
  if (k - from === 3 ? !s.startsWith("new", from) : k - from !== 5 || !s.startsWith("await", from)) return false;
  while (s.charCodeAt(k) === 32 || s.charCodeAt(k) === 9) k++;
  const name = k;
  while (k < lim && isPathUnit(s.charCodeAt(k))) k++;
  return k > name && s.charCodeAt(k) === 40;
}

/**
 * Whether a declared type then `=` opens at `i` (`String =`, `&str =`, `&'static str =`,
 * `Option<String> =`, `str? =`): TYPE_BEFORE_LITERAL's test before its regex, read to the type's end.
 */
function typeThenEquals(s: string, i: number): boolean {
  let k = i;
  if (s.charCodeAt(k) === 38) {
    k++;
    if (s.startsWith("'static", k)) k += 7;
    while (s.charCodeAt(k) === 32) k++;
  }
  const lim = Math.min(s.length, k + 64);
  const from = k;
  let angle = 0;
  for (; k < lim; k++) {
    const c = s.charCodeAt(k);
    if (isPathUnit(c) || c === 63 || c === 38) continue;
    if (c === 60) angle++;
    else if (c === 62 && angle > 0) angle--;
    else if (!(angle > 0 && (c === 32 || c === 44 || c === 39))) break;
  }
  if (k === from) return false;
  while (s.charCodeAt(k) === 32 || s.charCodeAt(k) === 9) k++;
  return s.charCodeAt(k) === 61 && s.charCodeAt(k + 1) !== 61;
}

/** Whether a `{` follows `i` on its line. */
function braceOnLine(s: string, i: number): boolean {
  const brace = s.indexOf("{", i);
  if (brace < 0) return false;
  const nl = s.indexOf("\n", i);
  return nl < 0 || brace < nl;
}

/** Parses what follows a key: separator, optional quotes, the value (at most `max` characters). */
function valueAfter(s: string, keyStart: number, keyEnd: number, max = VALUE_MAX): { start: number; end: number; flag: boolean; bare?: boolean } | undefined {
  let i = keyEnd;
  const n = s.length;
  const opener = s[keyStart - 1];
  let closed = false;
  // Closing quote of the key: `"key"`, `'key'`, JSON-escaped `\"key\"`.
  if (s[i] === '"' || s[i] === "'") {
    i++;
    closed = true;
    // An indexer's key being assigned: `os.environ["DB_PASSWORD"] = "x"`, PHP's `$db['default']['password'] = 'x';`.
    if (s[i] === "]" && s[keyStart - 2] === "[") i++;
  } else if (s[i] === "\\" && (s[i + 1] === '"' || s[i + 1] === "'")) i += 2;
  else if (s[i] === "]" && s[keyStart - 1] === "[") i++; // os.environ["KEY"] style is a reference; ["key"] in TOML tables is not a value
  let sp = 0;
  while (i < n && (s[i] === " " || s[i] === "\t") && sp < 8) {
    i++;
    sp++;
  }
  const c = s[i];
  const sepAt = i;
  let flag = false;
  let xml = false;
  if (c === "=" && s[i + 1] === ">") i += 2;
  else if (c === ":" && s[i + 1] === "=") i += 2;
  else if (c === "?" && s[i + 1] === "=" && sp > 0) i += 2; // make's `NAME ?= value`
  else if (c === "=" && s[i + 1] === "=") i += 2; // `password == "x"`: still a literal
  else if ((c === "|" || c === "?") && s[i + 1] === c && s[i + 2] === "=") i += 3; // `DB_PASSWORD ||= "x"`, `??=`: a default
  else if (c === "=" || c === ":") i += 1;
  else if (c === "-" && sp > 0 && QUOTED_AFTER_DASH.test(s.slice(i + 1, i + 7))) i += 1; // `token - 'value'`
  else if (c === "<" && s[i + 1] === "-" && sp > 0 && QUOTED_AFTER_ARROW.test(s.slice(i + 2, i + 8))) i += 2; // R's `password <- "x"`
  else if (c === ">" && s[keyStart - 1] === "<") {
    i += 1; // <password>x</password>
    xml = true;
  }
  else if (sp > 0 && s[keyStart - 1] === "-") flag = true; // --password x
  else return undefined;
  if (c === ":" && s[i] === "/" && s[i + 1] === "/") return undefined; // a URL scheme, not a key
  // `'Password:'` is a prompt string, not a key: its own quote closes right after the separator.
  if (!closed && (opener === "'" || opener === '"') && s[i] === opener) return undefined;
  sp = 0;
  while (i < n && (s[i] === " " || s[i] === "\t") && sp < 8) {
    i++;
    sp++;
  }
  if (i >= n) return undefined;
  // A declaration's type between the name and its literal (`password: String = "x"`, Rust's `PASSWORD:
  // &str = "x"`), a wrapper a literal is handed to (`String::from("x")`, `SecretStr("x")`, `[]byte("x")`),
  // or a Python string's prefix (`b"x"`, `f"x"`): the literal is the value.
  if (c === ":" || c === "=") {
    const at = i;
    const kind = literalLead(s, i, c === ":");
    i += kind.skip;
    if (kind.format && braceOnLine(s, i)) i = at;
  }
  let q = s[i];
  let qlen = 1;
  // A triple-quoted string (`'''x'''`, `"""x"""`): its inside, up to the closing three.
  if ((q === '"' || q === "'") && s[i + 1] === q && s[i + 2] === q && s[i + 3] !== q) {
    q = q.repeat(3);
    qlen = 3;
  }
  if (q === "\\" && (s[i + 1] === '"' || s[i + 1] === "'")) {
    q = "\\" + s[i + 1];
    qlen = 2;
  }
  if (q === '"' || q === "'" || q === "`" || qlen > 1) {
    const start = i + qlen;
    const lim = Math.min(n, start + max);
    let j = start;
    while (j < lim) {
      const ch = s[j]!;
      if (ch === "\n") break;
      if (qlen === 1 && ch === "\\" ) {
        j += 2;
        continue;
      }
      if (qlen === 1 ? ch === q : s.startsWith(q!, j)) break;
      j++;
    }
    return { start, end: Math.min(j, lim), flag };
  }
  const urlParam = s[keyStart - 1] === "?" || s[keyStart - 1] === "&";
  const start = i;
  const lim = Math.min(n, start + max);
  let j = start;
  while (j < lim) {
    const cc = s.charCodeAt(j);
    // A query parameter ends at `&`. A `#` would open the URL's fragment, but a secret's parameter holds
    // it as typed (`?user=app&password=Zq7#wKx9` in a curl line, a JDBC URL), so it does not end one.
    if (BARE_STOP.has(cc) || (urlParam && cc === 38)) break;
    j++;
  }
  if (xml && !s.startsWith("</", j)) return undefined;
  // `KEY=value` opening a line (an env file, `export`, INI): a symbol inside the word does not end
  // the value (`KEY=4nXYKv]mHD…`, `PASSWORD=usrpS@d>p`). Code keeps the narrow end and the checks
  // after it: a call or indexer (`password=request.form[…]`, `token=get(…)`), a name closed by
  // `,` `)` `]` `}` (`request_token=request.key):`), or a stop that ends the word (`password=None,`,
  // `token = (…`: Python keyword arguments and tuples are indented `key=value` lines too).
  if (j > start && j + 1 < lim && c === "=" && s[sepAt + 1] !== "=" && s[sepAt + 1] !== ">" && !BARE_WORD_STOP.has(s.charCodeAt(j)) && !BARE_WORD_STOP.has(s.charCodeAt(j + 1)) && assignmentLine(s, keyStart)) {
    let k = j;
    while (k < lim && !BARE_WORD_STOP.has(s.charCodeAt(k))) k++;
    const closesName = CLOSERS.has(s.charCodeAt(j)) && NAME.test(s.slice(start, j));
    if (!closesName && !CODE_HEAD.test(s.slice(start, k))) j = k;
  }
  return { start, end: j, flag, bare: !xml };
}

/** The value that starts after spaces at `i` (after a YAML tag): quoted to its quote on the line, or bare to BARE_STOP. */
function valueAt(s: string, i: number, max: number): { start: number; end: number; flag: boolean; bare?: boolean } | undefined {
  while (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9) i++;
  const q = s.charCodeAt(i);
  if (q === 34 || q === 39) {
    let j = i + 1;
    while (j < s.length && j - i <= max && s.charCodeAt(j) !== q && s.charCodeAt(j) !== 10) j++;
    return s.charCodeAt(j) === q && j > i + 1 ? { start: i + 1, end: j, flag: false } : undefined;
  }
  let j = i;
  while (j < s.length && j - i < max && !BARE_STOP.has(s.charCodeAt(j))) j++;
  return j > i ? { start: i, end: j, flag: false, bare: true } : undefined;
}

/**
 * What valueAfter needs after a key, tested without reading the value: past
 * the key's closing quote (`"`, `'`, `\"`, `]`) and up to 8 spaces, one of
 * `=` `:` `-` `>` (the separators it parses). A flag's space separator is
 * flagBefore's; labelledValue's `name: KEY … value:` is labelSeparatorBefore's.
 */
function separatorAfter(s: string, b: number): boolean {
  let i = b;
  const c0 = s.charCodeAt(i);
  if (c0 === 34 || c0 === 39 || c0 === 93) {
    i++;
    // `["key"] =`: the indexer's bracket after the key's quote (valueAfter reads it the same way).
    if (c0 !== 93 && s.charCodeAt(i) === 93) i++;
  } else if (c0 === 92) i += 2;
  for (let sp = 0; sp < 8 && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9); sp++) i++;
  const c = s.charCodeAt(i);
  return c === 61 || c === 58 || c === 45 || c === 62 || (c === 60 && s.charCodeAt(i + 1) === 45) || (c === 63 && s.charCodeAt(i + 1) === 61 && i > b) || ((c === 124 || c === 63) && s.charCodeAt(i + 1) === c && s.charCodeAt(i + 2) === 61);
}

/**
 * Whether the key ending at `b` is followed by `:` or `=` and a quote (an escaped one too): a quoted
 * `pwd` value's (QUOTED_PWD) test before any value is read, so `Pwd=Pwd=…` reads nothing.
 */
function quotedValueAfter(s: string, b: number): boolean {
  let i = b;
  const c0 = s.charCodeAt(i);
  if (c0 === 34 || c0 === 39) i++;
  else if (c0 === 92) i += 2;
  for (let sp = 0; sp < 8 && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9); sp++) i++;
  const c = s.charCodeAt(i);
  if (c !== 61 && c !== 58) return false;
  i++;
  for (let sp = 0; sp < 8 && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9); sp++) i++;
  const q = s.charCodeAt(i) === 92 ? s.charCodeAt(i + 1) : s.charCodeAt(i);
  return q === 34 || q === 39;
}

/** `--password x`: a dash before the key (as valueAfter is called with it, or with the dashes stripped). */
const flagBefore = (s: string, a: number, keyStart: number): boolean => s.charCodeAt(a - 1) === 45 || (keyStart > a && s.charCodeAt(keyStart - 1) === 45);

/** What LABEL_BEFORE needs right before the key: `:` or `=`, up to 4 spaces, an optional (escaped) quote. */
function labelSeparatorBefore(s: string, a: number): boolean {
  let i = a - 1;
  const q = s.charCodeAt(i);
  if (q === 34 || q === 39) i -= s.charCodeAt(i - 1) === 92 ? 2 : 1;
  for (let sp = 0; sp < 4 && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9); sp++) i--;
  const c = s.charCodeAt(i);
  return c === 58 || c === 61;
}

/** A Makefile's assignments after a name: `NAME ?= value`, `NAME := value` (make reads the rest of the line as it is). */
const MAKE_ASSIGN = /^[ \t]{1,8}[?:]=/;

/**
 * Whether the key `s[keyStart..b)` opens an environment or make assignment:
 * `NAME=value` (after `export`, `ENV`, a compose list's `- `), `NAME ?= value`,
 * `NAME := value`.
 */
function envAssignment(s: string, key: string, keyStart: number, b: number): boolean {
  const c = s.charCodeAt(b);
  return (c === 61 || ((c === 32 || c === 9) && MAKE_ASSIGN.test(s.slice(b, b + 12)))) && isEnvName(key) && assignmentLine(s, keyStart);
}

/**
 * Whether an environment value is a name, not a secret, even under a name
 * that says secret: a variable's (`GITHUB_TOKEN`), its own key's
 * (`API_KEY=api_key`, `JWT_SECRET=jwt-secret`), or a secret object's, a
 * dashed or underscored name ending in what it holds (`K8S_SECRET=db-credentials`,
 * `TLS_SECRET=prod-tls`, `my-app-secret`).
 *
 * @example
 * ```ts
 * isAName("GITHUB_TOKEN", "TOKEN_VAR"); // true
 * isAName("jwt-secret", "JWT_SECRET");  // true
 * isAName("db-credentials", "K8S_SECRET"); // true
 * isAName("supersecretjwtkey", "JWT_SECRET"); // false
 * ```
 */
export function isAName(value: string, key: string): boolean {
  const c = value.charCodeAt(0);
  if (isUpper(c) && /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value)) return true;
  if (c >= 97 && c <= 122 && SECRET_OBJECT_NAME.test(value)) return true;
  return sameBareName(value, key);
}
/**
 * Whether `x` and `y` have one bareName, compared unit by unit for ASCII
 * (each bareName lower-cased a copy and rewrote it by regex: a microsecond a
 * call); past ASCII, by bareName itself (lower-casing `K`, the Kelvin sign, makes a `k`).
 */
function sameBareName(x: string, y: string): boolean {
  let i = nextNameUnit(x, 0);
  let j = nextNameUnit(y, 0);
  for (;;) {
    if (i < 0 || j < 0) return bareName(x) === bareName(y);
    // Every unit read so far is ASCII: the names are equal this far and differ here, or one has ended.
    if (i === x.length || j === y.length) return i === x.length && j === y.length;
    if (NAME_UNIT[x.charCodeAt(i)] !== NAME_UNIT[y.charCodeAt(j)]) return false;
    i = nextNameUnit(x, i + 1);
    j = nextNameUnit(y, j + 1);
  }
}
/** Where the next unit bareName keeps in `s` is, from `i`: `s.length` past the last, -1 at a unit past ASCII first. */
function nextNameUnit(s: string, i: number): number {
  for (; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u >= 128) return -1;
    if (NAME_UNIT[u] !== 0) return i;
  }
  return i;
}
/** An ASCII letter or digit as bareName keeps it (lower case), 0 for what it drops. */
const NAME_UNIT = new Uint8Array(128);
for (let c = 48; c <= 57; c++) NAME_UNIT[c] = c;
for (let c = 97; c <= 122; c++) NAME_UNIT[c] = NAME_UNIT[c - 32] = c;
/** A name's letters and digits, lower case (`DB-Password` and `db_password` are one name). */
const bareName = (x: string): string => x.toLowerCase().replace(NOT_NAME_UNITS, "");
const NOT_NAME_UNITS = /[^a-z0-9]+/g;
const SECRET_OBJECT_NAME = /^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*[-_](?:secrets?|credentials?|creds|tls|certs?|keys?|tokens?|passwords?)$/;

const CLOSERS = new UnitSet(",)]}");
// An identifier or member path (`self.consumer.secret`, `resource_owner_key`).
const NAME = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;

// After a dash separator only a quoted value counts: a bare one is arithmetic or prose.
const QUOTED_AFTER_DASH = /^[ \t]{1,4}["'`]/;
/** R's assignment arrow: a quoted literal after it (`password <- "x"`); Go's `token <- ch` and Haskell's `pw <- getLine` send or bind names. */
const QUOTED_AFTER_ARROW = /^[ \t]{1,4}["']/;
// What ends a bare value that opens a line: whitespace, quotes, escapes and `;`.
const BARE_WORD_STOP = new UnitSet(" \t\r\n\"'`;\\");
// An identifier or member path followed by an indexer or a call.
const CODE_HEAD = /^[A-Za-z_$][\w$.]*[[(]/;
// A YAML list's `- ` too: compose's `environment:` lists `- NAME=value`.
const ASSIGNMENT_HEAD = /^[ \t]*(?:export[ \t]+|set[ \t]+|ENV[ \t]+|-[ \t]+)?$/;

/**
 * The line number a file reader puts before each line: `cat -n`'s `     3\t`,
 * the Read tool's `     3→`. What follows it is the line as the file has it,
 * so the rules that ask where a line starts ask after it.
 */
const GUTTER_SOURCE = String.raw`[ \t]{0,8}\d{1,7}(?:\t|→|[ \t]?[|│][ \t]?)`;
const GUTTER = new RegExp(GUTTER_SOURCE, "y");
const GUTTER_MAX = 16;
/** Where line `lineStart`'s text starts past a line-number gutter, if it has one. */
function gutterEnd(s: string, lineStart: number): number {
  // A gutter opens with spaces, tabs or its digits: most lines open with neither, and skip the regex.
  const c = s.charCodeAt(lineStart);
  if (c === 32 || c === 9 || (c >= 48 && c <= 57)) {
    GUTTER.lastIndex = lineStart;
    if (GUTTER.test(s)) return GUTTER.lastIndex;
  }
  return lineStart;
}

/**
 * Where line `lineStart`'s own text starts: past a line-number gutter and a
 * diff's marker, if it has them. Read alone, a line's marker is guessed from
 * what follows it; inside a hunk (inHunk) it is its first character.
 */
function pastGutter(s: string, lineStart: number): number {
  let at = gutterEnd(s, lineStart);
  // A unified diff's marker (`git diff`, `git log -p`): `+` before an added line (not `+++ b/…`), `-`
  // before a removed one that opens with a name (`-DB_PASSWORD=…`) or with its indentation (`-  password:
  // …`, `-\tpassword := …`); `- item` (one space: YAML's and Markdown's list) and `--flag` are not one.
  const m = s.charCodeAt(at);
  const next = s.charCodeAt(at + 1);
  if ((m === 43 && next !== 43 && next !== 10) || (m === 45 && (isAsciiLetter(next) || next === 95 || next === 9 || (next === 32 && s.charCodeAt(at + 2) === 32)))) at++;
  return at;
}
/** A line above, as the file has it (its gutter, if any, left out). */
const lineText = (s: string, start: number, end: number): string => s.slice(pastGutter(s, start), end);

/** A hunk's line, as the file has it: its gutter, if any, and its marker (` `, `+`, `-`) left out. */
function hunkLineText(s: string, start: number, end: number): string {
  const at = gutterEnd(s, start);
  return s.slice(isDiffMarker(s.charCodeAt(at)) ? at + 1 : at, end);
}
const isDiffMarker = (c: number): boolean => c === 32 || c === 43 || c === 45;

/**
 * Whether line `lineStart` is inside a unified diff's hunk: every line from
 * it up to a hunk header (`@@ -3,6 +3,7 @@`) opens with a diff's marker (` `,
 * `+`, `-`, or `\` before `\ No newline at end of file`), within
 * HUNK_LINES_MAX lines. The last line judged is remembered in `memo`: a walk
 * that reaches it has its answer, so the keys of one hunk read it once.
 */
function inHunk(s: string, lineStart: number, memo: ScanCtx["memo"]): boolean {
  let start = lineStart;
  let verdict = false;
  for (let seen = 0; seen < HUNK_LINES_MAX; seen++) {
    if (start === memo.hunkLine) {
      verdict = memo.hunkYes === 1;
      break;
    }
    const at = gutterEnd(s, start);
    const c = s.charCodeAt(at);
    if (c === 64) {
      verdict = HUNK_HEADER.test(s.slice(at, at + 8));
      break;
    }
    if (!isDiffMarker(c) && c !== 92) break;
    if (start === 0) break;
    start = s.lastIndexOf("\n", start - 2) + 1;
  }
  memo.hunkLine = lineStart;
  memo.hunkYes = verdict ? 1 : 0;
  return verdict;
}
/** How far up inHunk looks for a hunk's header: a longer hunk's keys are read as lines alone are. */
const HUNK_LINES_MAX = 512;

/**
 * The start of the line `at` is on, if it is within `max` characters before
 * it, else -1: an unbounded lastIndexOf per hit read a long line back to its
 * start at every key on it.
 */
function nearLineStart(s: string, at: number, max: number): number {
  let nl = at - 1;
  const lim = Math.max(0, at - max);
  while (nl >= lim && s.charCodeAt(nl) !== 10) nl--;
  return nl < lim && lim > 0 ? -1 : nl + 1;
}

/** Whether the key at `keyStart` opens its line (after a gutter, indentation and `export`/`set`/`ENV`). */
function assignmentLine(s: string, keyStart: number): boolean {
  const lineStart = nearLineStart(s, keyStart, 17 + GUTTER_MAX);
  if (lineStart < 0) return false;
  const from = pastGutter(s, lineStart);
  return from <= keyStart && keyStart - from <= 16 && ASSIGNMENT_HEAD.test(s.slice(from, keyStart));
}

/** The start of the line the key at `keyStart` is the first thing on (past a gutter), or -1 when something comes before it. */
function lineOpenedBy(s: string, keyStart: number): number {
  const lineStart = nearLineStart(s, keyStart, GUTTER_MAX + 1);
  return lineStart >= 0 && pastGutter(s, lineStart) === keyStart ? lineStart : -1;
}

/**
 * Whether the bare value at `s[keyStart..valueEnd)` is a YAML block
 * mapping's `key: value` line: the key opens its line (after indentation and
 * a list's `- `), `: ` follows it, the value ends the line (but for a `#`
 * comment), and the lines above are YAML too: the parent (the nearest line
 * indented less) is a `key:` with nothing after it, and the siblings between
 * are entries, not code. A Python class body, a TypeScript interface, a
 * GraphQL type or an object literal opens with `class X:`, `{` or `(`, and
 * those keep `password: HashedPassword` a type or a reference.
 */
function yamlValueLine(ctx: ScanCtx, keyStart: number, keyEnd: number, valueEnd: number): boolean {
  const s = ctx.s;
  if (s.charCodeAt(keyEnd) !== 58 || (s.charCodeAt(keyEnd + 1) !== 32 && s.charCodeAt(keyEnd + 1) !== 9)) return false;
  if (!endsLine(s, valueEnd, true)) return false;
  const lineStart = nearLineStart(s, keyStart, YAML_INDENT_MAX + GUTTER_MAX + 1);
  if (lineStart < 0) return false;
  // Inside a hunk every line's first character is its marker, a context line's space included.
  const diff = isDiffMarker(s.charCodeAt(gutterEnd(s, lineStart))) && inHunk(s, lineStart, ctx.memo);
  const from = diff ? gutterEnd(s, lineStart) + 1 : pastGutter(s, lineStart);
  if (from > keyStart) return false;
  const head = YAML_HEAD.exec(s.slice(from, keyStart));
  if (!head) return false;
  // The column the block's keys start at (a list item's dash, when the key follows one).
  let indent = head[1]!.length;
  const judged = { line: lineStart, indent };
  const verdict = walkUp(s, lineStart, (line, start) => {
    // A shell prompt's line (`$ sops -d secrets.yaml`): the output begins below it, as at the text's start.
    if (PROMPT_LINE.test(line)) return true;
    // A hunk's header: the file's lines above are not shown, but the header names the section the
    // hunk is in (git's function context): a YAML parent (`@@ -3,6 +3,6 @@ services:`), code
    // (`@@ … @@ const config = {`), or nothing (the file's start or a section git found no name for).
    if (diff && HUNK_HEADER.test(line)) {
      const heading = HUNK_HEADING.exec(line)?.[1] ?? "";
      return heading === "" || YAML_PARENT.test(heading);
    }
    const m = YAML_LINE.exec(line);
    if (!m) return undefined; // blank or a comment
    const at = m[1]!.length;
    // `- name: x` over `  password: …`: the list item this mapping is, a sibling; its list's level is the dash's.
    if (m[2] !== undefined && at + 2 === indent) {
      if (!YAML_ENTRY.test(line)) return false;
      indent = at;
      return undefined;
    }
    if (at > indent) return undefined; // inside a sibling's block
    if (at < indent) return YAML_PARENT.test(line);
    if (!YAML_ENTRY.test(line)) return false;
    // A sibling already judged a YAML value at this indentation: the lines above it are the same.
    return start === ctx.memo.yamlLine && indent === ctx.memo.yamlIndent ? true : undefined;
  }, diff);
  // No parent: a top-level mapping, when nothing above it was code.
  return yamlJudged(ctx, judged, verdict === true || verdict === TOP);
}

/** walkUp's answers when its visitor gave none: it read to the text's start, or gave up reading. */
const TOP = "top";
const FAR = "far";

/**
 * The lines above line `lineStart`, nearest first, each as the file has it
 * (lineText) with its start, to `visit` until it says true or false; TOP
 * when the text's start is reached first, FAR past WALK_LINES_MAX lines or
 * at a line longer than WALK_LINE_MAX (what a file of settings never has).
 */
function walkUp(s: string, lineStart: number, visit: (line: string, start: number) => boolean | undefined, hunk = false): boolean | typeof TOP | typeof FAR {
  let end = lineStart - 1;
  for (let seen = 0; end > 0; seen++) {
    if (seen >= WALK_LINES_MAX) return FAR;
    const start = s.lastIndexOf("\n", end - 1) + 1;
    if (end - start > WALK_LINE_MAX) return FAR;
    const verdict = visit(hunk ? hunkLineText(s, start, end) : lineText(s, start, end), start);
    if (verdict !== undefined) return verdict;
    end = start - 1;
  }
  return TOP;
}

/** Whether only spaces (or, with `comment`, a ` #` comment) stand between `at` and the end of its line. */
function endsLine(s: string, at: number, comment = false): boolean {
  let e = at;
  while (s.charCodeAt(e) === 32 || s.charCodeAt(e) === 9) e++;
  const c = s.charCodeAt(e);
  return e >= s.length || c === 10 || c === 13 || (comment && c === 35 && e > at);
}

/** Remembers a line yamlValueLine found a YAML value on, so the next sibling stops there: a block of N passwords reads N lines, not N x 32. */
function yamlJudged(ctx: ScanCtx, judged: { line: number; indent: number }, yes: boolean): boolean {
  if (yes) {
    ctx.memo.yamlLine = judged.line;
    ctx.memo.yamlIndent = judged.indent;
  }
  return yes;
}

/**
 * Whether the bare value at `s[keyStart..valueEnd)` is a Java-style
 * properties line, `spring.datasource.password=CorrectHorseBattery`: a
 * dotted lower-case key opening its line unindented, `=` right after it,
 * the value ending the line. Code assigns a member from a variable there
 * (`self.password = password`, `e.password=t`), which is indented, spaced,
 * ends in `;`, starts with `this`/`self` or a one-letter name, or is
 * camelCase; a value that opens with a capital or holds `_` is no variable's name.
 */
function propertiesLine(s: string, keyStart: number, keyEnd: number, value: string, valueEnd: number): boolean {
  const lineStart = s.charCodeAt(keyEnd) === 61 ? lineOpenedBy(s, keyStart) : -1;
  if (lineStart < 0 || !/^[A-Z]|_/.test(value) || !endsLine(s, valueEnd)) return false;
  const key = s.slice(keyStart, keyEnd);
  if (PROPERTIES_KEY.test(key)) return true;
  // A camelCase key (`ossrhPassword`, `sonatypePassword`: what gradle.properties holds credentials
  // under) or a snake_case one (hostapd.conf's `wpa_passphrase`) reads as a variable in code, so it
  // counts only in a block of such lines: the nearest line above or below with anything on it is an
  // unindented `key=value` too.
  return (CAMEL_KEY.test(key) || SNAKE_KEY.test(key)) && (PROPERTY_PAIR.test(lineText(s, ...lineAbove(s, lineStart))) || PROPERTY_PAIR.test(lineText(s, ...lineBelow(s, valueEnd))));
}
/** `ossrhPassword`, `signingKeyPassword`: lower-case, then capitalised words. */
const CAMEL_KEY = /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/;
/** `wpa_passphrase`, `db_password`: lower-case words joined by `_` (hostapd.conf, a shell script's assignments). */
const SNAKE_KEY = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;
/** A properties file's line: an unindented key, `=` right after it, a value or nothing. */
const PROPERTY_PAIR = /^[A-Za-z][\w.-]{0,95}=(?:[^\s=]|\r?$)/;
/** The nearest line above the one starting at `lineStart` that holds something but a comment (its start and end), or an empty span. */
function lineAbove(s: string, lineStart: number): [number, number] {
  let end = lineStart - 1;
  for (let k = 0; k < 8 && end > 0; k++) {
    const start = s.lastIndexOf("\n", end - 1) + 1;
    if (!BLANK_OR_COMMENT.test(lineText(s, start, end))) return [start, end];
    end = start - 1;
  }
  return [0, 0];
}
/** The nearest line below the one ending at or after `at` that holds something but a comment, or an empty span. */
function lineBelow(s: string, at: number): [number, number] {
  let start = s.indexOf("\n", at) + 1;
  for (let k = 0; k < 8 && start > 0 && start < s.length; k++) {
    let end = s.indexOf("\n", start);
    if (end < 0) end = s.length;
    if (!BLANK_OR_COMMENT.test(lineText(s, start, end))) return [start, end];
    start = end + 1;
  }
  return [0, 0];
}
/** A blank line or a properties comment (`#`, `!`). */
const BLANK_OR_COMMENT = /^[ \t]*(?:[#!].*)?\r?$/;
/**
 * Whether the bare value at `s[keyStart..valueEnd)` is an INI file's, as
 * `~/.my.cnf`, `php.ini`, `.pypirc` and `odbc.ini` write it: `key = value`
 * unindented, ending its line, under a `[section]` header with nothing but
 * `key = value` lines, comments and blank lines between. Code has no section
 * headers; a `[section]` line above `password = hashed_password` is an INI's.
 */
function iniLine(s: string, keyStart: number, valueEnd: number, memo: ScanCtx["memo"]): boolean {
  const lineStart = lineOpenedBy(s, keyStart);
  if (lineStart < 0 || !endsLine(s, valueEnd)) return false;
  // Up to the section's header, or to the last line found in a section: a block of N settings reads N lines, not N x 32.
  const known = memo.iniLine;
  const yes = walkUp(s, lineStart, (line, start) => (start === known || INI_SECTION.test(line) ? true : INI_OTHER.test(line) ? undefined : false)) === true;
  if (yes) memo.iniLine = lineStart;
  return yes;
}
/** `[client]`, `[distutils]`, `[ODBC Data Sources]`. */
const INI_SECTION = /^\[[\w .:-]{1,64}\]\r?$/;
/** What an INI section holds besides its header: `key = value`, `key=value`, a comment, a blank line. */
const INI_OTHER = /^(?:[ \t]*(?:[;#].*)?|[\w.-]{1,96}[ \t]*[=:].*)\r?$/;

/** A properties key: dotted lower-case segments, the first a word of two or more that is not a code receiver. */
const PROPERTIES_KEY = /^(?!(?:this|self|cls|window|document|globalThis|module|exports|process|os|sys)\.)[a-z][a-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+$/;

/** Indentation, then a list item's dash, before a YAML key. */
const YAML_HEAD = /^([ \t]*)(?:- )?$/;
const YAML_INDENT_MAX = 64;
/** How far up walkUp reads: lines, and the longest line it reads whole. */
const WALK_LINES_MAX = 32;
const WALK_LINE_MAX = 256;
/** A line with something on it (its indentation in group 1) that is not a comment. */
const YAML_LINE = /^([ \t]*)(- )?[^\s#]/;
/** A unified diff's hunk header, `@@ -3,6 +3,7 @@ section` (`@@@` in a merge's combined diff). */
const HUNK_HEADER = /^@@@? -\d/;
/** What a hunk header says after its ranges: the section it is in. */
const HUNK_HEADING = /^@@@? [-+\d, ]+ @@@? ?(.*?)\r?$/;
/** A shell prompt and its command: `$ cmd`, `user@host:~/app$ cmd`. */
const PROMPT_LINE = /^(?:\$|[\w.-]{1,64}@[\w.-]{1,64}(?::[^\s$#]{0,200})?[$#%])[ \t]/;
/** A mapping key with nothing after it: what a block of `key: value` lines hangs under. */
const YAML_PARENT = /^[ \t]*(?:- )?(?:[\w.$-]+|"[^"]*"|'[^']*'):[ \t]*(?:#.*)?\r?$/;
/** A sibling entry: `key: value` or `- item`, not code (a trailing `,` `;` `{` `(` or `)`). */
const YAML_ENTRY = /^[ \t]*(?:- .*|(?:- )?(?:[\w.$-]+|"[^"]*"|'[^']*'):(?:[ \t].*)?)(?<![,;{(\[)])\r?$/;
/**
 * The bare words only a YAML line makes a value: a plain name (`CorrectHorseBattery`,
 * `correct_horse_battery`), which in code is a reference. Anything else is judged as it was
 * (an alias `*name`, a tag `!vault`, a member path `PropTypes.string` stay what they are).
 */
const BARE_NAME = /^[A-Za-z_][\w$]*$/;
/** The same for an environment name's value, which may hold dashes (`signing-key-dev`). */
const ENV_WORD = /^[A-Za-z_][\w-]*$/;

const LABEL_BEFORE = /(?:^|[\s{,<(])(?:\\?["'])?(?:name|key|parameter_?key)(?:\\?["'])?[ \t]{0,4}[:=][ \t]{0,4}(?:\\?["'])?$/i;
// What separates two fields of one element: spaces, a comma, a line break (the next line may carry a
// reader's line number, GUTTER_SOURCE), an escaped one.
const FIELD_GAP = String.raw`(?:[ \t]{1,8}|[ \t]{0,4},?[ \t]{0,4}\r?\n(?:${GUTTER_SOURCE})?[ \t]{0,40}|[ \t]{0,4},?[ \t]{0,4}(?:\\[nrt]){1,2}[ \t]{0,40}|[ \t]{0,4},[ \t]{0,8})`;
// Up to three fields of a scalar (or an empty `{}`/`[]`) between the name and its value (Azure's
// `"slotSetting": false`, `"tags": {}`; SSM's `"Type": "SecureString"`), each closed by its gap.
const OTHER_FIELD = String.raw`(?:\\?["'])?[A-Za-z_][\w-]{0,31}(?:\\?["'])?[ \t]{0,4}[:=][ \t]{0,4}(?:\\?"[^"\\\n]{0,64}\\?"|'[^'\n]{0,64}'|true|false|null|-?\d[\d.]{0,15}|\{\}|\[\])`;
const VALUE_AFTER = new RegExp(
  String.raw`(?:\\?["'])?${FIELD_GAP}(?:${OTHER_FIELD}${FIELD_GAP}){0,3}?(?:\\?["'])?(?:parameter_?)?value(?:\\?["'])?[ \t]{0,4}[:=]`,
  "iy",
);

/**
 * The value a label names: the key sits in a `name`/`key` field and the
 * secret in the `value` field right after it (same element, or next line).
 */
function labelledValue(s: string, a: number, b: number, max: number): { start: number; end: number; flag: boolean } | undefined {
  if (!LABEL_BEFORE.test(s.slice(Math.max(0, a - 24), a))) return undefined;
  VALUE_AFTER.lastIndex = b;
  const m = VALUE_AFTER.exec(s);
  if (!m) return undefined;
  const sep = VALUE_AFTER.lastIndex - 1;
  // Parse as if `value` were the key and the separator followed it directly; a quote right before the
  // separator closes `"value"` (read from it, `"value":"X"` is no prompt string `'Password:'`).
  const q = s.charCodeAt(sep - 1);
  const at = q === 34 || q === 39 ? sep - 1 : sep;
  return valueAfter(s, at, at, max);
}

/**
 * Finds the value of a secret-named key around a keyword hit.
 *
 * @example
 * ```ts
 * // `DB_PASSWORD=hunter2` -> finding over `hunter2`, kind "password"
 * ```
 */
function scanKeyValue(ctx: ScanCtx, pos: number): void {
  if (pos < (ctx.memo.kv ?? 0)) return;
  const { s } = ctx;
  // Past its reading budget (readingSpent) the rule reads short values and weighs none: each is masked as found.
  const spent = readingSpent(ctx, "kvRead");
  const max = spent ? SPENT_VALUE_MAX : VALUE_MAX;
  let a = pos;
  while (a > 0 && pos - a < KEY_MAX && isKeyChar(s.charCodeAt(a - 1))) a--;
  let b = pos;
  while (b < s.length && b - pos < KEY_MAX && isKeyChar(s.charCodeAt(b))) b++;
  ctx.memo.kv = b;
  // Our own tag (`[REDACTED:password:1a2b]`) is not a key: redacting twice changes nothing.
  if (a >= 10 && s.charCodeAt(a - 1) === 58 && s.startsWith("[REDACTED:", a - 10)) return;
  // `scheme://user:pass@` is URL userinfo (its own rule keeps the host).
  if (a >= 3 && s.charCodeAt(a - 1) === 47 && s.startsWith("://", a - 3)) return;
  // A segment of an ARN or URN (`arn:aws:secretsmanager:…:secret:prod/api`): a name, not a key.
  if (afterArnColon(s, a, 200)) return;
  // `--db-password`, `.password`, `-Dpassword`: strip flag dashes and dots for naming only.
  let keyStart = a;
  while (keyStart < b && (s[keyStart] === "-" || s[keyStart] === ".")) keyStart++;
  // Most hits are words in prose and names in code with no separator after them and no label
  // before: ruled out before the key is sliced and classified (half the hits in dense output).
  if (!separatorAfter(s, b) && !flagBefore(s, a, keyStart) && !labelSeparatorBefore(s, a)) return;
  const key = keyText(s, ctx.units, keyStart, b);
  const cls = classifyKey(key) ?? shortPasswordKey(s, a, key);
  if (!cls || (cls === QUOTED_PWD && !quotedValueAfter(s, b))) return;
  // `Cookie:` / `Set-Cookie:` hold name=value pairs: the cookie rule reads each.
  if (key.length >= 6 && key.length <= 10 && COOKIE_HEADER.test(key)) return;
  // `\"key\"` inside JSON-escaped text: the char before the key is a quote, maybe escaped.
  let v = valueAfter(s, keyStart === a ? a : keyStart, b, max);
  if (!v && keyStart !== a) v = valueAfter(s, a, b, max);
  // The key is itself a value naming the next one: `<add key="ApiKey" value="…"/>`,
  // `- name: API_TOKEN\n  value: …`, `{"name": "API_TOKEN", "value": "…"}`.
  let labelled = false;
  if (!v) {
    v = labelledValue(s, a, b, max);
    labelled = v !== undefined;
  }
  if (!v) return;
  if (cls === QUOTED_PWD && (v.bare === true || v.flag || labelled || DIRECTORY_VALUE.test(s.slice(v.start, v.end)))) return;
  if (v.flag && keyStart === a) return; // whitespace separator only after a dash flag
  // `--ask-vault-pass --stdin-name x`: a flag after a flag is the next flag, not its value.
  if (v.flag && s.charCodeAt(v.start) === 45) return;
  let value = s.slice(v.start, v.end);
  // `password: str = "x"` (annotated assignment): look past the type.
  if (value.length <= TYPE_WORD_LONGEST && TYPE_WORD.test(value)) {
    const rest = /^[ \t]{0,4}=[ \t]{0,4}/.exec(s.slice(v.end, v.end + 16));
    if (!rest) return;
    const again = valueAfter(s, v.end + rest[0].length - 1, v.end + rest[0].length - 1, max);
    if (!again) return;
    v = again;
    value = s.slice(v.start, v.end);
  }
  // A YAML tag where the value would be: `password: !vault |` (an encrypted block follows),
  // CloudFormation's `!Ref DbPassword`, `!GetAtt Secret.Value`, `!Sub "{{resolve:…}}"` (references).
  // Only a core type tag (`!!str X`) says the value is what follows it.
  if (v.bare && value.charCodeAt(0) === 33 && yamlTagged(s, v.start) && YAML_TAG.test(value)) {
    const tagged = CORE_TAG.test(value) ? valueAt(s, v.end, max) : undefined;
    if (!tagged) return;
    v = tagged;
    value = s.slice(v.start, v.end);
  }
  // A YAML block scalar's header where the value would be (`password: |`, `DB_PASSWORD: >-`): a block of
  // one line under it is the value, judged as a quoted one (a longer block is a key's or a cert's, whose
  // own rules read it).
  // (`>` stops a bare value: the header is read from the text.)
  const h0 = s.charCodeAt(v.start);
  if (v.bare && (h0 === 124 || h0 === 62) && yamlTagged(s, v.start)) {
    BLOCK_HEADER.lastIndex = v.start;
    if (!BLOCK_HEADER.test(s)) return;
    const line = oneLineBlock(s, BLOCK_HEADER.lastIndex, keyStart);
    if (!line) return;
    v = { start: line[0], end: line[1], flag: false };
    value = s.slice(v.start, v.end);
  }
  // A reference with a default (Spring's `${DB_PASSWORD:word}`, the shell's `${DB_PASSWORD:-word}`): the
  // default is a literal written where the setting is, judged as a quoted value is.
  if (s.charCodeAt(v.start) === 36 && s.charCodeAt(v.start + 1) === 123) {
    DEFAULT_AFTER_REF.lastIndex = v.start;
    const d = DEFAULT_AFTER_REF.exec(s);
    if (d) {
      const from = v.start + d[0].length - d[1]!.length - 1;
      v = { start: from, end: from + d[1]!.length, flag: v.flag };
      value = d[1]!;
    }
  }
  // Hits inside this value are skipped, unless the value nests pairs of its own
  // (`connectionString="Server=…;Password=…"`): those keys get their turn.
  ctx.memo.kv = value.includes("=") || value.includes(":") ? b : Math.max(b, v.end);
  chargeReading(ctx, "kvRead", value.length);
  // A header's name under a key that says it holds one (`API_KEY_HEADER=X-Api-Key`): what is sent, not the secret.
  if (headerNameUnder(key, value)) return;
  // A bare value followed by an indexer or call (`password := match[1]`, `token = get(x)`): code.
  if (v.bare && (s[v.end] === "[" || s[v.end] === "(")) return;
  // A connection URL: the userinfo rule redacts only the password and keeps the host.
  if (value.includes("://") && /^[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\//.test(value) && cls.kind !== "webhook-url") return;
  // So is Go's MySQL DSN, `user:password@tcp(host)/db` (connection.ts).
  if (value.includes("@") && GO_MYSQL_DSN.test(value)) return;
  // And an ADO.NET or ODBC string under a connection string's key (`ConnectionString =
  // "Server=db;Database=app;Trusted_Connection=True;"`): its pairs are read as pairs (`Password=`,
  // `Pwd=`, `AccountKey=` go, the server and database stay), and with none that names a secret
  // nothing in it is one.
  // A bare value stops at the first `;`: the pairs are the rest of its line (read up to PAIRS_MAX, and charged).
  if (cls.kind === "connection-string" && (pairList(value) || (v.bare && s.charCodeAt(v.end) === 59 && barePairList(ctx, s, v.start)))) return;
  // A bare word is a reference in code (`password = userPassword`), but in an env file it is the
  // value itself (`DB_PASSWORD=CorrectHorseBattery`): an environment name opening its line, `=` right
  // after it, is judged as a quoted value is.
  // The same in a YAML file (`password: CorrectHorseBattery` under `database:`), where lines of
  // code (`password: hashedPassword,` in an object literal, a class body's annotation) keep it a name
  // (yamlValueLine), in a properties file (`db.password=CorrectHorseBattery`, propertiesLine) and in
  // an INI section (`[client]` over `password = CorrectHorseBattery`, iniLine).
  // And so it is on a command line: a flag's value (`--password word`, `--password=word`,
  // `-Ddb.password=word`, `-var db_password=word` after a flag), a URL query's or form body's
  // (`&password=word`), a Windows switch's (`/pass:word`): the shell passes the word as it is.
  // The bare test only adds reasons to turn a value away, so these are asked only of a bare value
  // it turned away (most values pass or fail on what they are, and their line is never read).
  // The key's own name for a value (`dict_spec['api_password'] = 'api_password'`, `token: TOKEN`): a placeholder.
  if (sameBareName(value, key)) return;
  const lastWord = lastWordOf(key);
  if (!spent && !plausibleSecret(value, cls.password, lastWord, cls.strict, v.bare === true)) {
    // Shorter than every bar below (`password=%s`, `token=$1`): no second look.
    if (value.length < 4) return;
    // An environment line (`JWT_SECRET=supersecretjwtkey` in a `.env`, after `export`, in a compose
    // list), quoted or not: a shell reads the value as it is, and under a name that says secret,
    // token or key it is one, a word or not (what a `cat .env` in a transcript leaks). Judged as a
    // password is, but for a value that names a variable (`TOKEN_VAR=GITHUB_TOKEN`) or its key.
    // A quoted value a password key's bar turned away stays turned away; another key's gets a second
    // look on an environment line only. These run for every value turned away: the cheap tests first.
    // So is a value on an INI or TOML file's line (`[server]` over `jwt_secret = word` or
    // `api_key = "word"`): a settings file holds values, not references to them.
    const settings = !cls.password && !isEnvName(key) && iniLine(s, keyStart, v.bare === true ? v.end : v.end + 1, ctx.memo);
    if (v.bare !== true && (cls.password || !(settings || envAssignment(s, key, keyStart, b)))) return;
    // An HTTP header's value (`X-Auth-Token: word`, `curl -H "X-Api-Key: word"`) is what the client
    // sends: a word there is the credential itself.
    const header = v.bare === true && !cls.password && headerLine(s, key, keyStart, b, v.end);
    const literal = v.bare !== true || settings || header || envAssignment(s, key, keyStart, b) || commandLineValue(s, a, keyStart, v.flag);
    if (literal) {
      // An environment name's literal (an env line, `docker run -e NAME=word`, `-DNAME=word`), a
      // settings file's and a header's are judged as a password's.
      if (!plausibleSecret(value, cls.password || ((settings || header || isEnvName(key)) && !isAName(value, key)), lastWord, cls.strict)) return;
    } else {
      // A password key's, or an environment name's (a compose `environment:` mapping, `docker run -e
      // JWT_SECRET=word`): other keys' values must look like tokens, which a bare word never does.
      const word = cls.password ? BARE_NAME.test(value) : ENV_WORD.test(value) && isEnvName(key) && !isAName(value, key);
      if (!(word && plausibleSecret(value, true, lastWord, cls.strict) && namedLiteral(ctx, key, keyStart, b, v, value, labelled))) return;
    }
  }
  // A capitalised word opening a sentence after a label (`Password: Must be at least 8 characters`,
  // `Password: Enter your password`): a form's text, not a value.
  if (v.bare && SENTENCE_WORD.test(value) && colonBefore(s, v.start) && SENTENCE_GOES_ON.test(s.slice(v.end, v.end + 24))) return;
  // `.dockerconfigjson` / `.dockercfg`: base64 of a whole Docker config; its auths say what it holds.
  const docker = DOCKER_CONFIG_KEY.test(key) ? decodeBase64Text(value) : undefined;
  const f = docker !== undefined ? containerFinding(ctx, a, v.start, v.end, docker, "dockerconfigjson", undefined) : undefined;
  ctx.out.push(f ?? { from: a, start: v.start, end: v.end, kind: cls.kind, priority: 1 });
}

/**
 * A key's last word, lower case, as plausibleSecret compares values with it:
 * kept per key, which keyText made one string per distinct key (a handful
 * in a whole record), where a slice and a lower-casing per hit were two
 * strings each.
 */
const lastWordOf = perKey((key) => lastLetters(key).toLowerCase(), 4096);

/**
 * Whether `key: value` is an HTTP header: a dashed header name (`X-Auth-Token`,
 * `Private-Token`, `Ocp-Apim-Subscription-Key`) opening its line or a curl/httpie
 * header argument (`-H "…`, `--header '…`), `: ` after it, and the value ending
 * the line or the argument's quote.
 *
 * @example
 * ```ts
 * headerLine("X-Auth-Token: word\n", "X-Auth-Token", 0, 12, 18); // true
 * headerLine("x_auth_token: word", "x_auth_token", 0, 12, 18);    // false: no dash
 * ```
 */
export function headerLine(s: string, key: string, keyStart: number, b: number, valueEnd: number): boolean {
  if (!HEADER_NAME_KEY.test(key) || s.charCodeAt(b) !== 58 || s.charCodeAt(b + 1) !== 32) return false;
  const q = s.charCodeAt(keyStart - 1);
  if (q === 34 || q === 39) {
    // Inside a quoted argument: the flag before the quote, and the quote after the value.
    return s.charCodeAt(valueEnd) === q && HEADER_FLAG.test(s.slice(Math.max(0, keyStart - 12), keyStart - 1));
  }
  return lineOpenedBy(s, keyStart) >= 0 && endsLine(s, valueEnd);
}
/** A header name: words of letters and digits joined by dashes, the first a letter. */
const HEADER_NAME_KEY = /^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+$/;
/** curl's, httpie's and wget's header flags, as the text before the argument's quote ends. */
const HEADER_FLAG = /(?:^|\s)(?:-H|--header|--headers)[ \t=]?$/;

/**
 * Whether the key at `a` (its name from `keyStart`) is a command line's or
 * a URL's: a flag (`--password`, `-Ddb.password`), a flag's argument
 * (`-var db_password=…`, `--set auth.password=…`), a query or form pair
 * (`?…&password=…`), a Windows switch (`/pass:…`). Code has none of these
 * before a name.
 */
function commandLineValue(s: string, a: number, keyStart: number, flag: boolean): boolean {
  if (flag || keyStart > a) return true;
  const before = a > 0 ? s.charCodeAt(a - 1) : 10;
  if (before === 38 || before === 63 || (before === 47 && s.charCodeAt(a - 2) === 32)) return true;
  if (FLAG_BEFORE.test(s.slice(Math.max(0, a - 48), a))) return true;
  // `vault kv put secret/db password=word`, `op item create … password=word`: a secret store's
  // own `key=value` arguments, where the value is what gets stored; `vault login -method=userpass
  // username=app password=word`: the credentials it logs in with.
  const lineStart = nearLineStart(s, a, STORE_LINE_MAX);
  return lineStart >= 0 && SECRET_STORE_PAIRS.test(s.slice(lineStart, a));
}
/** A flag word, then the space (or `=`) before its argument, maybe a quote: `-var `, `-e `, `--set `, `-d "`, `--data-urlencode '`. */
const FLAG_BEFORE = /(?:^|[ \t])--?[A-Za-z][\w-]{0,40}(?:[ \t]{1,4}|=)["']?$/;
/** The commands whose `key=value` arguments are secrets (stored, or a login's), then anything up to the pair's space. */
const SECRET_STORE_PAIRS = /\b(?:vault[ \t]{1,5}(?:kv[ \t]{1,5}(?:put|patch)|write|login)|op[ \t]{1,5}item[ \t]{1,5}(?:create|edit)|bw[ \t]{1,5}create)\b[^\n]*[ \t]["']?$/;
const STORE_LINE_MAX = 512;

/**
 * Whether a password key's bare name-shaped value (`CorrectHorseBattery`)
 * is the literal, not a reference: what its line is says so. A YAML line
 * (the key's own, or a `- name: KEY` pair's `value:` line), an environment
 * pair anywhere on a line (`docker run -e DB_PASSWORD=word`, a `docker
 * inspect` Env string, systemd's `Environment=`), a properties or INI line.
 */
function namedLiteral(ctx: ScanCtx, key: string, keyStart: number, keyEnd: number, v: { start: number; end: number }, value: string, labelled: boolean): boolean {
  const s = ctx.s;
  if (labelled) {
    // `- name: DB_PASSWORD` then `value: word`: the value key's line must be YAML.
    let sep = v.start - 1;
    while (sep > 0 && (s.charCodeAt(sep) === 32 || s.charCodeAt(sep) === 9 || s.charCodeAt(sep) === 34 || s.charCodeAt(sep) === 39)) sep--;
    return s.charCodeAt(sep) === 58 && /^value$/i.test(s.slice(sep - 5, sep)) && yamlValueLine(ctx, sep - 5, sep, v.end);
  }
  const sep = s.charCodeAt(keyEnd);
  if (grepSettingsLine(s, keyStart, keyEnd, v.end)) return true;
  if (commentValue(s, keyStart, v.end, value)) return true;
  if (pairsLineValue(s, key, keyStart, v.end, value)) return true;
  if ((sep === 58 || sep === 61) && proseLabelValue(s, key, keyStart, keyEnd, v.end, value)) return true;
  if (sep === 58) return yamlValueLine(ctx, keyStart, keyEnd, v.end);
  if (sep === 61 && (envPair(s, key, keyStart, keyEnd, v.end) || propertiesLine(s, keyStart, keyEnd, value, v.end))) return true;
  // An INI file spaces its `=` as often as not.
  return iniLine(s, keyStart, v.end, ctx.memo);
}

/**
 * A password key in a comment, its value ending the line or the comment: `# admin password: Word`,
 * `// password = Word`, `<!-- password: Word -->`, `ssh-copy-id bob@host  # password: Word`. A
 * comment is written for people, so its word is the password, not a variable's name. A comment also
 * describes (`# password: encrypted`, `# password: required`), so the word must read as made up: a
 * digit or a capital inside it.
 */
function commentValue(s: string, keyStart: number, valueEnd: number, value: string): boolean {
  if (!madeUp(value)) return false;
  const lineStart = nearLineStart(s, keyStart, COMMENT_PREFIX_MAX);
  if (lineStart < 0 || !COMMENT_BEFORE.test(s.slice(lineStart, keyStart))) return false;
  let e = valueEnd;
  while (s.charCodeAt(e) === 32 || s.charCodeAt(e) === 9) e++;
  return endsLine(s, e) || s.startsWith("-->", e) || s.startsWith("*/", e);
}
/**
 * A password key's pair after another pair on its line, outside any bracket: `login: admin, password:
 * Word` (what a tool or an agent prints), `user=admin password=Word` (logfmt, a shell's environment
 * prefix, a command's `key=value` arguments). Code writes two pairs on a line only inside an object
 * literal or a call's parentheses, so no bracket may be open before the key; and on a line of an object
 * literal written without its braces (`  login: admin, password: userPassword,`) the value is a
 * camelCase name, which a password is not taken to be. The value must read as made up (a digit or an
 * inner capital), as a comment's must, and end its pair.
 */
function pairsLineValue(s: string, key: string, keyStart: number, valueEnd: number, value: string): boolean {
  if (!wordPassword(value, key) || (valueEnd < s.length && !PAIR_END.has(s.charCodeAt(valueEnd)))) return false;
  const lineStart = nearLineStart(s, keyStart, PAIRS_PREFIX_MAX);
  if (lineStart < 0) return false;
  const head = s.slice(lineStart, keyStart);
  if (!PAIR_BEFORE.test(head)) return false;
  let open = 0;
  for (let i = 0; i < head.length; i++) {
    const c = head.charCodeAt(i);
    if (c === 40 || c === 91 || c === 123) open++;
    else if ((c === 41 || c === 93 || c === 125) && open > 0) open--;
  }
  return open === 0;
}
/**
 * A password key a few words of prose label, its value ending the line: `Generated password: Word`,
 * `Your password: Word`, `✓ Initial admin password: Word (change it after first login)`, a log line's
 * `INFO: connecting with password=Word`: what a tool prints and an agent reports. A declaration reads the same (`private readonly password: SecretString`),
 * so no word before the key may be one of code's, and the value must read as made up and be no
 * camelCase name.
 */
function proseLabelValue(s: string, key: string, keyStart: number, keyEnd: number, valueEnd: number, value: string): boolean {
  // `password: Word`, or a log line's `password=Word`.
  const gap = s.charCodeAt(keyEnd + 1);
  if ((s.charCodeAt(keyEnd) === 58 && gap !== 32 && gap !== 9) || !wordPassword(value, key)) return false;
  let e = valueEnd;
  while (s.charCodeAt(e) === 32 || s.charCodeAt(e) === 9) e++;
  if (!endsLine(s, e) && !(e > valueEnd && s.charCodeAt(e) === 40)) return false;
  const lineStart = nearLineStart(s, keyStart, PROSE_HEAD_MAX);
  if (lineStart < 0) return false;
  const head = s.slice(lineStart, keyStart);
  return PROSE_HEAD.test(head) && !CODE_WORD.test(head);
}
/** Up to three symbols (a bullet, a check mark), then one to six words (a log level's `INFO:` among them), each with a space after it. */
const PROSE_HEAD = /^[ \t]*[^\w\s]{0,3}[ \t]*(?:[A-Za-z][A-Za-z'\u2019-]*:?[ \t]){1,6}$/;
/** The words a declaration opens with, in the languages whose fields and parameters read `name: Type`. */
const CODE_WORD = /\b(?:private|public|protected|internal|readonly|static|let|const|var|val|def|export|declare|abstract|override|final|func|fn|pub|mut|type|interface|param|arg|inout|lateinit|open|return|yield|await|assert)\b/i;
const PROSE_HEAD_MAX = 120;

/** A pair right before the key: a key, `:` or `=`, a value with no space or bracket, then `,` `;` `|` or spaces. */
const PAIR_BEFORE = /(?:^|[\s,;|])[A-Za-z][\w.-]{0,40}[ \t]?[:=][ \t]{0,2}[^\s,;:=(){}\[\]"'`]{1,200}(?:[ \t]*[,;|][ \t]*|[ \t]+)$/;
/**
 * Whether a password key's bare word reads as the password itself where its line is no settings
 * file's: made up (a digit or an inner capital), and no name (`userPassword`, `PasswordFormat`,
 * `DB_PASSWORD`: a camelCase word, a password's own noun, a constant).
 *
 * @example
 * ```ts
 * wordPassword("Zq7wintersun", "password"); // true
 * wordPassword("userPassword", "password"); // false
 * ```
 */
export const wordPassword = (value: string, key: string): boolean => madeUp(value) && !CAMEL_NAME.test(value) && !PASSWORD_NOUN.test(value) && !isAName(value, key);
/** `userPassword`, `newPass1`: a lower-case word, then a capital. */
const CAMEL_NAME = /^[a-z]+[A-Z]/;
const PASSWORD_NOUN = /pass|pwd/i;
const PAIRS_PREFIX_MAX = 240;
/** What may follow a pair's value: the line's end, the next pair's separator, a space. */
const PAIR_END = new UnitSet(" \t\r\n,;");

/** A comment's opener at its line's start, or after code and a space (`x = 1  # …`), then its words. */
const COMMENT_BEFORE = /^(?:[ \t]*(?:#+|\/\/+|--|;+|<!--|\/\*+|\*|REM)|[^\n]*?[ \t](?:#|\/\/))(?:[ \t][^\n]*)?[ \t]$|^[ \t]*(?:#|\/\/|<!--|\/\*)$/;
const COMMENT_PREFIX_MAX = 160;

/**
 * A line of `grep` output (`config/database.yml:12:  password: word`,
 * `my.cnf-3-password = word`) from a settings file, named by its extension:
 * grep has dropped the lines that would say what the file is, but its name
 * still does. The key opens the file's line (after indentation), a YAML
 * file's with `:`, an INI, properties or TOML file's with `=`, and the value ends it.
 */
function grepSettingsLine(s: string, keyStart: number, keyEnd: number, valueEnd: number): boolean {
  const lineStart = nearLineStart(s, keyStart, GREP_PREFIX_MAX + YAML_INDENT_MAX);
  if (lineStart < 0) return false;
  GREP_PREFIX.lastIndex = lineStart;
  const m = GREP_PREFIX.exec(s);
  if (!m || GREP_PREFIX.lastIndex > keyStart || !/^[ \t]*$/.test(s.slice(GREP_PREFIX.lastIndex, keyStart))) return false;
  const ext = m[1]!.toLowerCase();
  let sep = keyEnd;
  while (s.charCodeAt(sep) === 32 || s.charCodeAt(sep) === 9) sep++;
  const yaml = ext === "yml" || ext === "yaml";
  if (yaml ? sep !== keyEnd || s.charCodeAt(sep) !== 58 : !SETTINGS_EXT.has(ext) || s.charCodeAt(sep) !== 61) return false;
  return endsLine(s, valueEnd, yaml);
}

/** grep's `path:N:` (or `path:`, `path-N-` for a context line) before a line, the path's extension in group 1. */
const GREP_PREFIX = /[^\s:]{0,240}\.([A-Za-z]{2,10})(?::\d{1,7}:|-\d{1,7}-|:)/y;
const GREP_PREFIX_MAX = 256;
/** Files whose lines are `key = value` settings. */
const SETTINGS_EXT = new Set(["ini", "cnf", "cfg", "conf", "properties", "toml", "env"]);

/**
 * `NAME=word` with an environment variable's name, `=` right after it and a
 * word right after that, anywhere on its line: how shells, `docker run -e`,
 * `kubectl set env`, `heroku config:set`, `docker inspect`'s Env strings and
 * systemd's `Environment=` all write one. Code spaces its assignments and
 * names its variables otherwise; a name after `.` (`config.DB_PASSWORD=x`)
 * is a member's.
 */
function envPair(s: string, key: string, keyStart: number, keyEnd: number, valueEnd: number): boolean {
  if (!isEnvName(key) || s.charCodeAt(keyEnd + 1) === 61 || s.charCodeAt(keyEnd + 1) === 32) return false;
  const before = keyStart > 0 ? s.charCodeAt(keyStart - 1) : 10;
  const after = valueEnd < s.length ? s.charCodeAt(valueEnd) : 10;
  return ENV_BEFORE.has(before) && ENV_AFTER.has(after);
}
// A backtick too: Markdown's inline code around an env line (`` `DB_PASSWORD=word` ``).
const ENV_BEFORE = new UnitSet(" \t\r\n\"'([,=;&|:{-\x60");
const ENV_AFTER = new UnitSet(" \t\r\n\"',;)]}&|\x60");

/** Terms whose occurrence triggers the key/value rule (lowercase). */
export const CONTEXT_KEYWORDS: readonly string[] = [
  "pass", "pwd", "pw=", "_pw", "-pw", "psk", "token", "secret", "auth", "key", "credential", "creds", "cookie", "session", "dsn", "jwt",
  "otp", "salt", "connection", "conn_", "connstr", "database", "db_", "webhook", "dockercfg", "dockerconfigjson",
];

/** The key/value context rule. */
export const contextRule: Rule = {
  kinds: ["password", "generic-secret", "api-key", "auth-credential", "session-cookie", "connection-string", "webhook-url", "aws-secret-access-key", "aws-session-token", "npm-auth", "gcp-private-key-id", "vault-secret-id"],
  keywords: CONTEXT_KEYWORDS,
  scan: scanKeyValue,
};
