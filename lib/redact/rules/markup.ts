/**
 * Secrets laid out for a reader, where no `key=value` or `key: value`
 * stands: what an agent writes when it reports the credentials it set up,
 * and what some tools print.
 *
 * - Markdown's bold labels: `**Password:** X`, `- **DB password**: \`X\``.
 * - Markdown and box-drawn tables: a row whose cell names a secret holds it in
 *   the next cell (`| DB_PASSWORD | X |`), and a column whose header names one
 *   holds one in every row (`| Service | User | Password |`). A Markdown row is
 *   found by the line break before its `|`; a box row (`│`, which no ASCII
 *   keyword can open) by a secret word in a text that holds a box bar at all.
 * - Query output: MySQL's `+----+` tables, psql's (bars inside only) and its `\x` records, Vault's
 *   `Key   Value` listings, redis-cli's `1) "requirepass"` / `2) "X"` replies.
 * - Labels padded to a column, as Windows prints them: `netsh wlan show
 *   profile key=clear`'s `Key Content            : X`.
 * - XML that names a setting in one element and holds it in the next:
 *   Hadoop's and Hive's `<name>fs.s3a.secret.key</name><value>X</value>`,
 *   Java's properties XML `<entry key="password">X</entry>`, and `<param name="password">X</param>`
 *   (`<parameter>`, `<setting>`, `<property>` the same).
 *
 * Each value is judged as the key/value rule judges one under the same name:
 * a password's name lets a word count, another secret's only a token (but in
 * a settings file, which holds values and never references, a word counts
 * under any secret's name).
 */
import { isAName } from "../context.ts";
import { classifyKey, DERIVED_COLUMN, headerNameUnder, isEnvName, lastLetters, madeUp, PASSWORD_HASH, plausibleSecret } from "../keys.ts";
import { firstMatched, regexRule } from "../prefix.ts";
import type { Rule, ScanCtx } from "../types.ts";

/** A note where a value would be: `(see vault)`, `[in 1Password]`, `<ask ops>`. */
const NOTE = /^[([<{].*[)\]>}]$/;

/**
 * Whether `v` is a secret's value under a label or name `name`. `alone`: the value ends its line
 * or sits in a cell or code span of its own (prose goes on after a label: `**Password:** must be
 * 12 characters`), else a word must read as made up.
 */
function valueUnder(name: string, v: string, alone: boolean, settings = false): boolean {
  const cls = classifyKey(name);
  if (cls === null || NOTE.test(v) || headerNameUnder(name, v)) return false;
  // An environment name's value is a literal as on an env line (`| DB_PASSWORD | word |`), and so
  // is a settings file's (`settings`).
  const literal = cls.password || settings || (isEnvName(name) && !isAName(v, name));
  if (!plausibleSecret(v, literal, lastLetters(name), cls.strict)) return false;
  return alone || !literal || madeUp(v);
}

/** `**Label:** value`, `**Label**: value` (or `__`): the label in group 1, a code span's inside in 2, a bare value in 3. */
const BOLD_LABEL = String.raw`(?<=(?:\*\*|__)([A-Za-z][\w .'/-]{0,60}))(?::\*\*|\*\*:|:__|__:)[ \t]{1,4}(?:\x60([^\x60\n]{1,256})\x60|([^\s\x60*][^\s\x60]{0,255}?))(?=[ \t]*(?:\r?\n|$|[,;.]?[ \t]|[,;.]?$))`;

/** The box-drawing verticals tools print between cells (`│`, `┃`, `║`). */
const BOX_BARS = ["\u2502", "\u2503", "\u2551"];
const BOX_BAR_UNITS = new Set(BOX_BARS.map((b) => b.charCodeAt(0)));
/** A table's cell separator: Markdown's pipe or a box bar. */
const isBar = (c: number): boolean => c === 124 || (c > 127 && BOX_BAR_UNITS.has(c));
/**
 * A Markdown table's delimiter row (`|---|:--:|`), an ASCII table's rule (MySQL's `+----+-------+`,
 * psql's `----+-------`) or a box table's (`├────┼────┤`).
 */
const DELIMITER_ROW = /^[ \t]*(?:[|+]?[ \t]*:?-{3,}:?[ \t]*(?:[|+][ \t]*:?-{3,}:?[ \t]*)*[|+]?|[├╞╟┝┠┣╠][─━═┼┿╂╋╪╫╬┬┴ ]{2,}[┤╡╢┥┨┫╣])[ \t]*\r?$/;
const ROW_MAX = 2048;
/** The longest name or header cell read (classifyKey's longest key, and its padding). */
const CELL_MAX = 128;

/** `s[a..b)` without the spaces and tabs at its ends. */
function trimmed(s: string, a: number, b: number): [number, number] {
  while (a < b && (s.charCodeAt(a) === 32 || s.charCodeAt(a) === 9)) a++;
  while (b > a && (s.charCodeAt(b - 1) === 32 || s.charCodeAt(b - 1) === 9)) b--;
  return [a, b];
}

/** A table row's cells as [start, end) spans, trimmed, between its bars; undefined for a line that is no row. */
function cellsOf(s: string, from: number, to: number): [number, number][] | undefined {
  let i = from;
  while (i < to && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i++;
  if (i >= to || !isBar(s.charCodeAt(i))) return undefined;
  const cells: [number, number][] = [];
  let a = i + 1;
  for (let j = i + 1; j < to; j++) {
    if (!isBar(s.charCodeAt(j)) || s.charCodeAt(j - 1) === 92) continue;
    cells.push(trimmed(s, a, j));
    a = j + 1;
  }
  return cells.length >= 2 ? cells : undefined;
}

/** A cell's text without the code span or bold around it. */
function cellText(s: string, [a, b]: [number, number]): [number, number] {
  if (b - a >= 2 && s.charCodeAt(a) === 96 && s.charCodeAt(b - 1) === 96) return [a + 1, b - 1];
  if (b - a >= 4 && s.startsWith("**", a) && s.startsWith("**", b - 2)) return [a + 2, b - 2];
  return [a, b];
}

/**
 * The line around `at`: [start, end) without its line break; undefined for a line longer than
 * ROW_MAX (no table row), read no further than that either way, so a megabyte-long line costs
 * each hit in it a bounded walk.
 */
function lineAt(s: string, at: number): [number, number] | undefined {
  let a = at;
  const lo = Math.max(0, at - ROW_MAX);
  while (a > lo && s.charCodeAt(a - 1) !== 10) a--;
  if (a > 0 && s.charCodeAt(a - 1) !== 10) return undefined;
  let b = at;
  const hi = Math.min(s.length, a + ROW_MAX);
  while (b < hi && s.charCodeAt(b) !== 10) b++;
  if (b < s.length && s.charCodeAt(b) !== 10) return undefined;
  if (b > a && s.charCodeAt(b - 1) === 13) b--;
  return [a, b];
}

function pushValue(ctx: ScanCtx, from: number, [a, b]: [number, number], kind: string): void {
  ctx.out.push({ from, start: a, end: b, kind, priority: 2 });
}

/**
 * A table row (`line`): each cell that names a secret is either a header (the next line is the
 * delimiter row: every row below holds a value in its column) or a name whose value is the next
 * cell. Each row is read once (memo).
 */
function readRow(ctx: ScanCtx, line: [number, number]): void {
  const s = ctx.s;
  ctx.memo.tableTo = line[1];
  const cells = cellsOf(s, line[0], line[1]);
  if (!cells) return;
  const named: [number, string, string][] = [];
  for (let c = 0; c < cells.length; c++) {
    const [a, b] = cellText(s, cells[c]!);
    const name = s.slice(a, b);
    const cls = b - a <= 96 ? classifyKey(name) : null;
    if (cls !== null) named.push([c, name, cls.kind]);
  }
  if (named.length === 0) return;
  const next = line[1] + (s.charCodeAt(line[1]) === 13 ? 2 : 1);
  const delim = next < s.length ? lineAt(s, next) : undefined;
  if (delim && DELIMITER_ROW.test(s.slice(delim[0], delim[1])) && !underHeader(s, line[0])) {
    // A header: the rows below, to the table's end (a box table's rules between rows are skipped).
    for (let r = delim[1] + 1; r < s.length; ) {
      const row = lineAt(s, r);
      if (!row) break;
      const rc = cellsOf(s, row[0], row[1]);
      if (!rc) break;
      if (!DELIMITER_ROW.test(s.slice(row[0], row[1]))) {
        for (const [c, name, kind] of named) {
          const cell = rc[c];
          if (!cell) continue;
          const v = cellText(s, cell);
          if (v[1] > v[0] && valueUnder(name, s.slice(v[0], v[1]), true)) pushValue(ctx, row[0], v, kind);
        }
      }
      ctx.memo.tableTo = row[1];
      r = row[1] + 1;
    }
    return;
  }
  // Name cells, each value in the cell after it: pairs from the left (`| NAME | value |`, or two
  // pairs a row), so a diagram's row of labels (`│ username │ password │ host │`) holds none.
  for (const [c, name, kind] of named) {
    if (c % 2 !== 0) continue;
    const cell = cells[c + 1];
    if (!cell) continue;
    const v = cellText(s, cell);
    if (v[1] > v[0] && valueUnder(name, s.slice(v[0], v[1]), true)) pushValue(ctx, line[0], v, kind);
  }
}

/**
 * Whether the row starting at `rowStart` sits under a header already: a MySQL table's rule right
 * above it with a row above that (`| Field | Value |`, `+---+`, then this row). Its own rule below
 * is then the table's bottom border (`| password | X |` as the last row), not a header's delimiter.
 */
function underHeader(s: string, rowStart: number): boolean {
  if (rowStart < 2) return false;
  const rule = lineAt(s, rowStart - 2);
  if (!rule || !RULE_LINE.test(s.slice(rule[0], rule[1]))) return false;
  if (rule[0] < 2) return false;
  const above = lineAt(s, rule[0] - 2);
  return above !== undefined && cellsOf(s, above[0], above[1]) !== undefined;
}
/** An ASCII table's rule (`+----+-------+`): the line MySQL draws above, under the header and below a table. */
const RULE_LINE = /^[ \t]*\+-{3,}(?:\+-{3,})*\+[ \t]*\r?$/;

/**
 * The line around `at` for a reader that remembers how far it read under memo key `to`; for a line
 * longer than a row, undefined, and the memo moves to its end: every later position in it is in a
 * line too long as well, so a long line's hits cost one walk, not one each.
 */
function lineOrSkip(ctx: ScanCtx, at: number, to: string): [number, number] | undefined {
  const line = lineAt(ctx.s, at);
  if (line) return line;
  const nl = ctx.s.indexOf("\n", at);
  ctx.memo[to] = nl < 0 ? ctx.s.length : nl;
  return undefined;
}

/** The row at `at` (a line's start or a position in it), unless read already; a line longer than a row is skipped whole. */
function rowAt(ctx: ScanCtx, at: number): void {
  if (at < (ctx.memo.tableTo ?? 0)) return;
  const line = lineOrSkip(ctx, at, "tableTo");
  if (line) readRow(ctx, line);
}

/**
 * A Markdown row opens its line with `|`, or one space and `|`: the keyword engine finds the line
 * break before it. Deeper indentation (a table in a list) is not read: `\n  ` opened a third of
 * the keyword engine's candidate positions on the mixed document.
 */
const ROW_OPENERS = ["\n|", "\n |"];
const FIRST_ROW = /^ ?\|/;

/** Markdown rows: the opener hits (and the text's first line), in order. */
function scanMarkdownRows(ctx: ScanCtx, hits: ReadonlyMap<string, readonly number[]>): void {
  const starts: number[] = FIRST_ROW.test(ctx.s) ? [0] : [];
  for (const kw of ROW_OPENERS) for (const p of hits.get(kw) ?? NONE) starts.push(p + 1);
  if (starts.length === 0) return;
  starts.sort((a, b) => a - b);
  for (const a of starts) rowAt(ctx, a);
}
const NONE: readonly number[] = [];

/** Whether `s` holds a box-drawing vertical at all (a Latin-1 string cannot: no search then). */
const hasBoxBar = (s: string): boolean => BOX_BARS.some((b) => s.includes(b));

/**
 * Box-drawn rows (`│ DB_PASSWORD │ x │`, which no ASCII keyword can open): at a secret word's hit,
 * in a text that has a box bar at all, when a bar stands a cell's width before it.
 */
function scanBoxRow(ctx: ScanCtx, pos: number): void {
  if ((ctx.memo.box ??= hasBoxBar(ctx.s) ? 1 : 0) === 0 || pos < (ctx.memo.tableTo ?? 0)) return;
  const u = ctx.units;
  let b = pos - 1;
  const lo = Math.max(0, pos - CELL_MAX);
  while (b >= lo && u[b] !== 10 && !isBar(u[b]!)) b--;
  if (b < lo || u[b] === 10) return;
  rowAt(ctx, pos);
}

/** A query result's cell under column or name `name`: a secret's value, but not a stored hash or what a password made (`password_hash`). */
const cellUnder = (name: string, v: string): boolean => !DERIVED_COLUMN.test(name) && !PASSWORD_HASH.test(v) && valueUnder(name, v, true);

/** A row's name cell and value cell (a settings table's, a `\x` record's line): the value when the name names a secret. */
function pairCells(ctx: ScanCtx, from: number, [a, b]: [number, number], v: [number, number]): void {
  const name = ctx.s.slice(a, b);
  const cls = b - a <= 96 ? classifyKey(name) : null;
  if (cls !== null && v[1] > v[0] && cellUnder(name, ctx.s.slice(v[0], v[1]))) pushValue(ctx, from, v, cls.kind);
}

/** A line's cells split at its bars, whether or not bars open and close it (psql's ` id | email `); undefined for fewer than two. */
function splitCells(s: string, from: number, to: number): [number, number][] | undefined {
  const cells: [number, number][] = [];
  let a = from;
  for (let j = from; j <= to; j++) {
    if (j < to && (s.charCodeAt(j) !== 124 || s.charCodeAt(j - 1) === 92)) continue;
    cells.push(trimmed(s, a, j));
    a = j + 1;
  }
  // Outer bars (`| a | b |`) leave an empty cell at either end.
  if (cells.length > 0 && cells[0]![0] === cells[0]![1]) cells.shift();
  if (cells.length > 0 && cells[cells.length - 1]![0] === cells[cells.length - 1]![1]) cells.pop();
  return cells.length >= 2 ? cells : undefined;
}

/**
 * psql's aligned output (` id | email | password`, then `----+-------+----------`, then the rows,
 * bars inside only): at a hit in the rule line, the line above is the header; each column it
 * names a secret in holds one in every row below, to the first line with another count of cells
 * (`(1 row)`, a blank line). Each table is read once (memo).
 */
function scanPsqlTable(ctx: ScanCtx, pos: number): void {
  const s = ctx.s;
  if (pos < (ctx.memo.psqlTo ?? 0)) return;
  const rule = lineOrSkip(ctx, pos, "psqlTo");
  if (!rule) return;
  ctx.memo.psqlTo = rule[1];
  if (rule[0] < 2 || !DELIMITER_ROW.test(s.slice(rule[0], rule[1]))) return;
  const header = lineAt(s, rule[0] - 1);
  if (!header) return;
  const cols = splitCells(s, header[0], header[1]);
  if (!cols) return;
  const named: [number, string, string][] = [];
  // A settings table (`SELECT name, value FROM settings`): each row's name labels its value.
  let nameCol = -1;
  let valueCol = -1;
  for (let c = 0; c < cols.length; c++) {
    const [a, b] = cols[c]!;
    const title = s.slice(a, b);
    if (NAME_HEADER.test(title)) nameCol = c;
    else if (VALUE_HEADER.test(title)) valueCol = c;
    const cls = b - a <= 96 ? classifyKey(title) : null;
    if (cls !== null) named.push([c, title, cls.kind]);
  }
  const pairs = nameCol >= 0 && valueCol >= 0;
  if (named.length === 0 && !pairs) return;
  for (let r = rule[1] + 1; r < s.length; ) {
    const row = lineAt(s, r);
    if (!row) break;
    const rc = splitCells(s, row[0], row[1]);
    if (!rc || rc.length !== cols.length) break;
    for (const [c, name, kind] of named) {
      const v = rc[c]!;
      if (v[1] > v[0] && cellUnder(name, s.slice(v[0], v[1]))) pushValue(ctx, row[0], v, kind);
    }
    if (pairs) pairCells(ctx, row[0], rc[nameCol]!, rc[valueCol]!);
    ctx.memo.psqlTo = row[1];
    r = row[1] + 1;
  }
}

/**
 * psql's expanded display (`\x`): `-[ RECORD 1 ]--+------` then one `name | value` line per
 * column. A line whose name names a secret holds it, to the record's end.
 */
function scanPsqlRecord(ctx: ScanCtx, pos: number): void {
  const s = ctx.s;
  if (pos < (ctx.memo.recordTo ?? 0)) return;
  const head = lineOrSkip(ctx, pos, "recordTo");
  if (!head) return;
  ctx.memo.recordTo = head[1];
  for (let r = head[1] + 1; r < s.length; ) {
    const row = lineAt(s, r);
    if (!row) break;
    const rc = splitCells(s, row[0], row[1]);
    if (!rc || rc.length !== 2) break;
    pairCells(ctx, row[0], rc[0]!, rc[1]!);
    r = row[1] + 1;
  }
}

/** A settings table's name and value columns. */
const NAME_HEADER = /^(?:name|key|setting|variable(?:_name)?|parameter)$/i;
const VALUE_HEADER = /^(?:value|setting_value)$/i;

/**
 * Vault's `Key   Value` listing (`vault kv get`, `vault read`) and PowerShell's `Name   Value` table
 * (`Get-ChildItem env:`): the header and its dashes, then `name   value` lines.
 */
const KEY_VALUE_HEAD = /(?:^|\n)[ \t]*(?:Key|Name)[ \t]{2,}Value[ \t]*\r?\n[ \t]*-{3,4}[ \t]{2,}-{5}[ \t]*\r?\n/y;
const KEY_VALUE_LINE = /[ \t]*(\S{1,96})[ \t]{2,}(\S(?:[^\n]{0,1022}\S)?)[ \t]*\r?(?:\n|$)/y;

/** Each `name   value` line below a Key/Value or Name/Value header, to the first line of another shape: a value judged under its name. */
function scanKeyValueListing(ctx: ScanCtx, pos: number): void {
  const s = ctx.s;
  // Inside a listing read already (its lines are read once, whatever dashes they hold).
  if (pos < (ctx.memo.listingTo ?? 0)) return;
  // The hit is in the dashes under the header (`---  -----`: `name` and `key` open too many
  // positions as keywords); the header is the line above.
  let dashes = pos;
  while (dashes > 0 && s.charCodeAt(dashes - 1) !== 10 && pos - dashes < 16) dashes--;
  if (dashes < 2 || s.charCodeAt(dashes - 1) !== 10) return;
  let header = dashes - 1;
  while (header > 0 && s.charCodeAt(header - 1) !== 10 && dashes - header < 256) header--;
  KEY_VALUE_HEAD.lastIndex = header > 0 ? header - 1 : 0;
  if (!KEY_VALUE_HEAD.test(s)) return;
  let r = KEY_VALUE_HEAD.lastIndex;
  for (let lines = 0; lines < 4096 && r < s.length; lines++) {
    KEY_VALUE_LINE.lastIndex = r;
    const m = KEY_VALUE_LINE.exec(s);
    if (!m) break;
    const name = m[1]!;
    const v = m[2]!;
    const cls = classifyKey(name);
    if (cls !== null && valueUnder(name, v, true)) {
      const start = m.index + m[0].indexOf(v, m[1]!.length + (m[0].length - m[0].trimStart().length));
      pushValue(ctx, m.index, [start, start + v.length], cls.kind);
    }
    r = KEY_VALUE_LINE.lastIndex;
  }
  ctx.memo.listingTo = r;
}

/** What the two table rules (Markdown rows, box rows) share. */
const TABLE_RULE = {
  kinds: ["password", "generic-secret", "api-key"],
  patterns: () => [{ kind: "password", source: DELIMITER_ROW.source, flags: "" }],
} as const;

/** See the module comment. */
export const MARKUP_RULES: readonly Rule[] = [
  regexRule("password", [":**", "**:", ":__", "__:"], BOLD_LABEL, {
    priority: 2,
    group: firstMatched(2, 3),
    accept: (v, m) => valueUnder(m[1]!.trim(), v, m[2] !== undefined || /^[ \t]*(?:\r?\n|$)/.test(m.input.slice(m.index + m[0].length, m.index + m[0].length + 4))),
  }),
  {
    ...TABLE_RULE,
    keywords: ROW_OPENERS,
    scan() {
      // Everything happens in scanHits.
    },
    scanHits: scanMarkdownRows,
  },
  { ...TABLE_RULE, keywords: ["pass", "pwd", "psk", "secret", "token", "key", "credential"], scan: scanBoxRow },
  { ...TABLE_RULE, keywords: ["-+-"], scan: scanPsqlTable },
  { ...TABLE_RULE, keywords: ["-[ record "], scan: scanPsqlRecord },
  { ...TABLE_RULE, keywords: ["---  "], scan: scanKeyValueListing },
  // redis-cli's numbered replies: `CONFIG GET requirepass` prints `1) "requirepass"` then `2) "X"`.
  regexRule(
    "password",
    ['1) "'],
    String.raw`1\) "([A-Za-z_][\w.-]{0,95})"\r?\n2\) "([^"\n]{1,1024})"`,
    { priority: 2, group: 2, accept: (v, m) => valueUnder(m[1]!, v, true, true) },
  ),
  // Windows' padded labels: `netsh wlan show profile name=X key=clear` prints `Key Content            : X`;
  // other tools print `Password : X` with the one space.
  regexRule(
    "password",
    ["key content ", "password  ", "passphrase  ", "password :", "passphrase :"],
    String.raw`(?<=(?:^|\n)[ \t]{0,8})(?:Key Content|Password|Passphrase)[ \t]{1,40}:[ \t]{1,8}([^\s][^\n]{0,255}?)[ \t]*(?=\r?\n|$)`,
    { priority: 2, accept: (v) => !NOTE.test(v) && plausibleSecret(v, true) },
  ),
  // Nomad's and Consul's `acl token create`: `Secret ID    = X`, `SecretID:         X` (a listing's label,
  // its value aligned with the others' past the key/value rule's eight spaces). A token's characters only:
  // Go's `SecretID:   target.SecretID,` is a field set from another.
  regexRule(
    "generic-secret",
    ["secret id ", "secretid:"],
    String.raw`(?<=(?:^|\n)[ \t]{0,8})Secret ?ID(?:[ \t]{1,40}=|:)[ \t]{1,40}([A-Za-z0-9+/=_-]{8,256})(?=[ \t]*(?:\r?\n|$))`,
    { priority: 2, accept: (v) => plausibleSecret(v, true) },
  ),
  // Hadoop/Hive/Spark `*-site.xml`: `<name>fs.s3a.secret.key</name>` then `<value>X</value>`.
  regexRule(
    "password",
    ["</name>"],
    String.raw`(?<=<name>[ \t]{0,4}([A-Za-z_][\w.:-]{0,127})[ \t]{0,4})</name>\s{0,64}<value>[ \t]{0,4}([^<\s][^<\n]{0,1023}?)[ \t]{0,4}</value>`,
    { priority: 2, group: 2, accept: (v, m) => valueUnder(m[1]!, v, true, true) },
  ),
  // Java's properties XML, `<entry key="password">X</entry>`; and an element named by its attribute,
  // `<param name="password">X</param>` (applets, Struts, log4j), `<parameter name=…>`, `<setting name=…>`
  // (.NET's user settings), `<property name=…>X</property>`.
  regexRule(
    "password",
    ["<entry ", "<param ", "<parameter ", "<setting ", "<property "],
    String.raw`<(entry|param|parameter|setting|property)[ \t]{1,4}(?:key|name)="([A-Za-z_][\w.:-]{0,127})"[ \t]*>([^<\s][^<\n]{0,1023}?)</\1>`,
    { priority: 2, group: 3, accept: (v, m) => valueUnder(m[2]!, v, true, true) },
  ),
];
