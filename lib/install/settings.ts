/**
 * Edits to a Claude Code settings file, as text in and text out. Every change
 * is a jsonc-parser edit at one path, so the rest of the file (other hooks,
 * permissions, unknown keys, key order, indentation, line endings) keeps its
 * bytes. Pure: the caller reads and writes the file.
 */
import {
  findNodeAtLocation,
  type FormattingOptions,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import { type DesiredEntry, type ParsedCommand, parseHookCommand } from "./entries.ts";

/** A settings file that tracegate will not edit (not strict JSON, or a wrong shape). */
export class SettingsError extends Error {
  override name = "SettingsError";
}

/** Containers install created, so uninstall can remove them again once empty. */
export interface Created {
  /** The top-level `hooks` object did not exist. */
  hooks: boolean;
  /** Event arrays that did not exist. */
  events: string[];
}

/** One tracegate handler found in a settings file. */
export interface FoundEntry {
  readonly event: string;
  readonly matcher: unknown;
  readonly timeout: unknown;
  readonly command: string;
  readonly parsed: ParsedCommand;
  /** Other handlers share its matcher group (install never does that). */
  readonly shared: boolean;
}

/**
 * What a harness's settings reader accepts beyond strict JSON: Claude Code
 * and Codex reject comments, Gemini strips `//` and block comments before it
 * parses. No harness accepts trailing commas.
 */
export interface SettingsDialect {
  readonly comments: boolean;
  /** Event arrays hold handlers directly, not matcher groups (Cursor's hooks.json). */
  readonly flat?: boolean;
}

/** Strict JSON, the default (Claude Code rejects comments and trailing commas). */
export const STRICT_JSON: SettingsDialect = { comments: false };
/** Internal re-parses of a text that already passed its dialect's check. */
const CHECKED: SettingsDialect = { comments: true };

/**
 * Parse a settings file's JSON (strict unless the dialect allows comments)
 * into a tree; an empty or blank text is an empty object.
 *
 * @example
 * ```ts
 * parseSettings('{"hooks": {}}').type; // "object"
 * ```
 */
export function parseSettings(text: string, dialect: SettingsDialect = STRICT_JSON): Node {
  const src = text.trim() === "" ? "{}" : text;
  const errors: ParseError[] = [];
  const root = parseTree(src, errors, { disallowComments: !dialect.comments, allowTrailingComma: false });
  if (errors.length > 0 || !root) {
    const e = errors[0];
    const where = e ? ` at ${lineCol(src, e.offset)}` : "";
    throw new SettingsError(`not valid JSON${where}${e ? ` (${printParseErrorCode(e.error)})` : ""}`);
  }
  if (root.type !== "object") throw new SettingsError("top level is not a JSON object");
  const dup = duplicateKey(root, src);
  if (dup) throw new SettingsError(dup);
  const hooks = findNodeAtLocation(root, ["hooks"]);
  if (hooks && hooks.type !== "object") throw new SettingsError(`"hooks" is not an object`);
  for (const prop of hooks?.children ?? []) {
    const v = prop.children?.[1];
    if (v && v.type !== "array") {
      throw new SettingsError(`"hooks.${prop.children?.[0]?.value}" is not an array`);
    }
  }
  return root;
}

/**
 * A key given twice in one object, at the top level or anywhere under
 * `hooks`: JSON readers disagree on which one counts (install would edit the
 * first, Claude Code reads the last), so such a file is refused.
 */
function duplicateKey(root: Node, src: string): string | null {
  const walk = (node: Node, path: string[], deep: boolean): string | null => {
    if (node.type === "array") {
      for (const [i, c] of (node.children ?? []).entries()) {
        const r = deep ? walk(c, [...path, String(i)], deep) : null;
        if (r) return r;
      }
      return null;
    }
    if (node.type !== "object") return null;
    const seen = new Map<string, Node>();
    for (const prop of node.children ?? []) {
      const key = prop.children?.[0]?.value as string;
      const first = seen.get(key);
      if (first) {
        const where = [...path, key].map((k) => JSON.stringify(k)).join(".");
        return `${where} appears twice (${lineCol(src, first.offset)} and ${lineCol(src, prop.offset)}); Claude Code reads only the last one, so tracegate will not edit this file: merge them into one and run the command again`;
      }
      seen.set(key, prop);
      const value = prop.children?.[1];
      // Below the top level only "hooks" matters to tracegate and to its hooks.
      if (value && (deep || key === "hooks")) {
        const r = walk(value, [...path, key], true);
        if (r) return r;
      }
    }
    return null;
  };
  return walk(root, [], false);
}

function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
}

/**
 * The file's own indentation and line ending, so inserted entries look like
 * their neighbours.
 *
 * @example
 * ```ts
 * detectFormatting('{\n\t"a": 1\n}').insertSpaces; // false
 * ```
 */
export function detectFormatting(text: string): FormattingOptions {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const m = /^([ \t]+)\S/m.exec(text);
  if (m && m[1]!.startsWith("\t")) return { insertSpaces: false, tabSize: 1, eol };
  const size = m ? m[1]!.length : 2;
  return { insertSpaces: true, tabSize: Math.min(Math.max(size, 1), 8), eol };
}

function valueOf(node: Node | undefined): unknown {
  if (!node) return undefined;
  switch (node.type) {
    case "object": {
      const o: Record<string, unknown> = {};
      for (const p of node.children ?? []) o[p.children![0]!.value as string] = valueOf(p.children![1]);
      return o;
    }
    case "array":
      return (node.children ?? []).map(valueOf);
    default:
      return node.value;
  }
}

function eventNames(root: Node): string[] {
  const hooks = findNodeAtLocation(root, ["hooks"]);
  return (hooks?.children ?? []).map((p) => p.children![0]!.value as string);
}

function groups(root: Node, event: string): Node[] {
  return findNodeAtLocation(root, ["hooks", event])?.children ?? [];
}

/** The flat layout's handler is its own group. */
function handlersOf(group: Node, flat = false): Node[] {
  if (flat) return [group];
  const hs = group.type === "object" ? findNodeAtLocation(group, ["hooks"]) : undefined;
  return hs?.type === "array" ? (hs.children ?? []) : [];
}

function isOurs(handler: Node): ParsedCommand | null {
  if (handler.type !== "object") return null;
  return parseHookCommand(findNodeAtLocation(handler, ["command"])?.value);
}

/**
 * Every tracegate handler in a settings text.
 *
 * @example
 * ```ts
 * findEntries("{}"); // []
 * ```
 */
export function findEntries(text: string, dialect: SettingsDialect = STRICT_JSON): FoundEntry[] {
  const root = parseSettings(text, dialect);
  const found: FoundEntry[] = [];
  for (const event of eventNames(root)) {
    for (const g of groups(root, event)) {
      const hs = handlersOf(g, dialect.flat);
      for (const h of hs) {
        const parsed = isOurs(h);
        if (!parsed) continue;
        found.push({
          event,
          matcher: dialect.flat ? undefined : valueOf(findNodeAtLocation(g, ["matcher"])),
          timeout: valueOf(findNodeAtLocation(h, ["timeout"])),
          command: findNodeAtLocation(h, ["command"])!.value as string,
          parsed,
          shared: hs.length > 1,
        });
      }
    }
  }
  return found;
}

function lineIndent(text: string, offset: number): { indent: string; first: boolean } {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const head = text.slice(start, offset);
  const indent = /^[ \t]*/.exec(head)![0];
  return { indent, first: indent.length === head.length };
}

function unitOf(fmt: FormattingOptions): string {
  return fmt.insertSpaces ? " ".repeat(fmt.tabSize ?? 2) : "\t";
}

/**
 * Add `value` at `path` (a new property, or appended to an array), creating
 * missing objects on the way. The new text is laid out like its siblings and
 * no existing byte changes: jsonc-parser's own formatter re-lays whole lines
 * around an edit, which would reformat a neighbour written on one line.
 */
function insertAt(text: string, path: (string | number)[], value: unknown, fmt: FormattingOptions): string {
  const root = parseSettings(text, CHECKED);
  let i = path.length - 1;
  while (i > 0 && !findNodeAtLocation(root, path.slice(0, i))) i--;
  const parent = i === 0 ? root : findNodeAtLocation(root, path.slice(0, i))!;
  let v = value;
  for (let j = path.length - 1; j > i; j--) v = { [path[j] as string]: v };
  const unit = unitOf(fmt);
  const eol = fmt.eol ?? "\n";
  const kids = parent.children ?? [];
  const last = kids[kids.length - 1];
  const parentLine = lineIndent(text, parent.offset).indent;
  let ind = parentLine + unit;
  if (last) {
    const li = lineIndent(text, last.offset);
    if (li.first) ind = li.indent;
  }
  const json = JSON.stringify(v, null, unit).replaceAll("\n", eol + ind);
  const body = parent.type === "object" ? `${JSON.stringify(path[i])}: ${json}` : json;
  if (last) {
    const at = last.offset + last.length;
    return `${text.slice(0, at)},${eol}${ind}${body}${text.slice(at)}`;
  }
  const open = parent.offset + 1;
  const close = parent.offset + parent.length - 1;
  return `${text.slice(0, open)}${eol}${ind}${body}${eol}${parentLine}${text.slice(close)}`;
}

/** Remove the property or element at `path`, with the separator that joined it to a sibling. */
function removeAt(text: string, path: (string | number)[]): string {
  const root = parseSettings(text, CHECKED);
  const target = findNodeAtLocation(root, path);
  if (!target) return text;
  const item = target.parent?.type === "property" ? target.parent : target;
  const parent = item.parent!;
  const kids = parent.children ?? [];
  const k = kids.indexOf(item);
  if (kids.length === 1) {
    return text.slice(0, parent.offset + 1) + text.slice(parent.offset + parent.length - 1);
  }
  if (k > 0) {
    const prev = kids[k - 1]!;
    return text.slice(0, prev.offset + prev.length) + text.slice(item.offset + item.length);
  }
  return text.slice(0, item.offset) + text.slice(kids[1]!.offset);
}

/**
 * Remove tracegate's handlers under one event: a group holding only ours goes
 * whole, a group shared with another tool's handler loses only ours.
 */
function removeOurs(text: string, event: string, flat = false): string {
  let cur = text;
  const gs = groups(parseSettings(cur, CHECKED), event);
  for (let gi = gs.length - 1; gi >= 0; gi--) {
    const hs = handlersOf(gs[gi]!, flat);
    const ours = hs.map((h, i) => (isOurs(h) ? i : -1)).filter((i) => i >= 0);
    if (ours.length === 0) continue;
    if (ours.length === hs.length) {
      cur = removeAt(cur, ["hooks", event, gi]);
    } else {
      for (const hi of ours.reverse()) cur = removeAt(cur, ["hooks", event, gi, "hooks", hi]);
    }
  }
  return cur;
}

function sameGroup(node: Node, want: DesiredEntry["group"]): boolean {
  return JSON.stringify(canon(valueOf(node))) === JSON.stringify(canon(want));
}

function canon(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/**
 * Bring a settings text to "tracegate registered as `desired`": events already
 * right are left alone (so a second install changes nothing), stale tracegate
 * handlers (another path, old timeout, gate vs observe) are replaced, and new
 * groups are appended after any existing ones.
 *
 * @example
 * ```ts
 * const r = planInstall("{}", desiredEntries("/x/tracegate", { gate: false }));
 * r.created; // { hooks: true, events: ["SessionStart", ...] }
 * planInstall(r.text, desiredEntries("/x/tracegate", { gate: false })).text === r.text; // true
 * ```
 */
export function planInstall(
  text: string,
  desired: readonly DesiredEntry[],
  dialect: SettingsDialect = STRICT_JSON,
): { text: string; created: Created } {
  let cur = text.trim() === "" ? "{}\n" : text;
  const fmt = detectFormatting(text);
  const root = parseSettings(cur, dialect);
  const created: Created = { hooks: !findNodeAtLocation(root, ["hooks"]), events: [] };
  const wanted = new Map(desired.map((d) => [d.event, d]));
  const present = new Set(eventNames(root));
  const flat = dialect.flat === true;
  // Events where a tracegate handler sits but none is wanted any more.
  for (const e of findEntries(cur, { ...CHECKED, flat })) {
    if (!wanted.has(e.event)) cur = removeOurs(cur, e.event, flat);
  }
  for (const d of desired) {
    const tree = parseSettings(cur, CHECKED);
    const gs = groups(tree, d.event);
    const oursIdx = gs.filter((g) => handlersOf(g, flat).some((h) => isOurs(h)));
    if (oursIdx.length === 1 && sameGroup(oursIdx[0]!, d.group)) continue;
    cur = removeOurs(cur, d.event, flat);
    if (!present.has(d.event)) {
      created.events.push(d.event);
      cur = insertAt(cur, ["hooks", d.event], [d.group], fmt);
    } else {
      cur = insertAt(cur, ["hooks", d.event, groups(parseSettings(cur, CHECKED), d.event).length], d.group, fmt);
    }
  }
  return { text: cur, created };
}

/**
 * Remove every tracegate handler, then the containers install created that
 * are now empty. With no record of what install created, an event array or
 * `hooks` object left empty by the removal goes too.
 *
 * @example
 * ```ts
 * const before = '{"model": "x"}';
 * const { text, created } = planInstall(before, desiredEntries("/x/tracegate", { gate: true }));
 * JSON.parse(planUninstall(text, created)); // { model: "x" }
 * ```
 */
export function planUninstall(text: string, created?: Created, dialect: SettingsDialect = STRICT_JSON): string {
  let cur = text;
  const root = parseSettings(cur, dialect);
  let removedAny = false;
  const flat = dialect.flat === true;
  for (const event of eventNames(root)) {
    if (!groups(parseSettings(cur, CHECKED), event).some((g) => handlersOf(g, flat).some((h) => isOurs(h)))) continue;
    removedAny = true;
    cur = removeOurs(cur, event, flat);
    const empty = groups(parseSettings(cur, CHECKED), event).length === 0;
    if (empty && (!created || created.events.includes(event))) cur = removeAt(cur, ["hooks", event]);
  }
  const hooks = findNodeAtLocation(parseSettings(cur, CHECKED), ["hooks"]);
  if (removedAny && hooks && (hooks.children ?? []).length === 0 && (created ? created.hooks : true)) {
    cur = removeAt(cur, ["hooks"]);
  }
  return cur;
}
