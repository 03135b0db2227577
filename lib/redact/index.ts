/**
 * Redaction: secrets out of every record before it touches disk.
 *
 * - `createRedactor(config).text(s)` returns `s` with secrets replaced by
 *   `[REDACTED:<kind>:<tag>]`, keeping a known prefix (`ghp_`) or key name.
 * - `createRedactor(config).value(v)` walks a JSON value (depth already bounded
 *   by the caller), redacting string leaves with their key as context and keys
 *   as text, and returns a new value; it never mutates `v` and never assigns
 *   `__proto__`.
 *
 * Rules (see engine.ts): prefix rules for 60+ token families, structural rules
 * (PEM, URL userinfo, headers, connection strings, Kubernetes Secrets, Docker
 * auths) and a key/value context rule whose placeholder/reference filters
 * apply to context rules only. Container values (Secret data, `.dockerconfigjson`,
 * `auths.*.auth`) are base64-decoded within a size budget and rescanned, so a
 * finding names what the plaintext holds (`github-pat` within `k8s-secret`). The tag is a keyed HMAC (fingerprint.ts), so the same secret gets
 * the same tag within a data dir and a guessed password cannot be confirmed.
 *
 * @example
 * ```ts
 * const r = createRedactor();
 * r.text("export GITHUB_TOKEN=ghp_" + "a1B2".repeat(9)); // "export GITHUB_TOKEN=ghp_[REDACTED:github-pat:3f9a]"
 * r.value({ password: "hunter2", input_tokens: 1234 }); // { password: "[REDACTED:password:…]", input_tokens: 1234 }
 * ```
 */
import { dataDir } from "../config/paths.ts";
import { pairList } from "./context.ts";
import { Copies } from "./copies.ts";
import { decodeBase64Text, DECODE_BUDGET, dockerAuthText } from "./decode.ts";
import { BUILTIN_RULES, type ExtraRule, innerScanner, render, renderTo, resolve, scan, type Segment } from "./engine.ts";
import { type FingerprintKey, keyedDigest, lazyKey, loadFingerprintKey, makeTagger } from "./fingerprint.ts";
import { classifyKey, plausibleSecret } from "./keys.ts";
import { allowMatcher, compileUserPattern, USER_KIND } from "./pattern.ts";
import { OUTPUT_KEYS, type Printed, printedByCall } from "./printed.ts";
import { publicValueKey } from "./rules/entropy.ts";
import { giveBackUnits, lendUnits } from "./runs.ts";
import type { Finding } from "./types.ts";

export { builtinKinds } from "./engine.ts";
export { loadFingerprintKey } from "./fingerprint.ts";
export { compileUserPattern } from "./pattern.ts";
export { OUTPUT_KEYS, printingCommandOf } from "./printed.ts";

export interface RedactConfig {
  /** User patterns (config `redact.extra`): regex source; group 1, if any, is the secret. */
  readonly extra?: readonly { readonly kind: string; readonly pattern: string }[];
  /**
   * User allowlist (config `redact.allow`), from the user-level config only:
   * a finding whose secret equals an entry, or fully matches it as a regex, is kept.
   */
  readonly allow?: readonly string[];
  /**
   * Repository-level patterns: these can only add rules. A repository config
   * has no way to set `allow` or remove a built-in rule.
   */
  readonly repoExtra?: readonly { readonly kind: string; readonly pattern: string }[];
  /** Fingerprint key (bytes, string or a lazy loader). Default: the data dir's `redact.key`. */
  readonly fingerprintKey?: FingerprintKey;
  /**
   * More aggressive unlabelled-entropy detection (`tracegate redact --strict`,
   * the export's second pass): lower floors, shorter tokens. More false
   * positives by design; the hook never sets it.
   */
  readonly strict?: boolean;
}

/** One finding as `--explain` reports it: where and what kind, never the value. */
export interface Found {
  /** JSON path of the string (`$.headers.Authorization`) for values; `$` for raw text. */
  readonly path: string;
  /** 1-based line and column of the secret inside that string. */
  readonly line: number;
  readonly column: number;
  readonly kind: string;
  /** The rule that found it: `prefix`, a structural rule (`pem`, `url-userinfo`…), `key-value`, `entropy`, `user`, `copy`, or `label` for a value its JSON key names. */
  readonly rule?: string;
  /** Length of the redacted span, in UTF-16 code units. */
  readonly length?: number;
  /** Whether an offline checksum verified the token. */
  readonly checksum: boolean;
  /**
   * Set when the secret was found by decoding a container value: `k8s-secret`
   * (Secret data/stringData), `docker-auth` (`auths.*.auth`) or
   * `dockerconfigjson`. `kind` is then what the plaintext held (`github-pat`).
   */
  readonly within?: string;
  /** Set when this is another copy of a secret a rule found elsewhere in the same call. */
  readonly copy?: true;
}

/**
 * Redacts text and JSON values. Every occurrence of every secret found in a
 * call is masked, wherever in the value it appears.
 */
export interface Redactor {
  text(s: string): string;
  value(v: unknown): unknown;
  /**
   * Like `text`, handing the output to `put` in the pieces it is made of
   * (engine.ts renderTo): for a writer that encodes as it goes, without the
   * whole output ever held as one string.
   */
  textTo?(s: string, put: (piece: string) => void): void;
  /** Like `text`/`value`, also listing what was found where (for `tracegate redact --explain`). */
  explainText?(s: string): { output: string; found: Found[] };
  explainValue?(v: unknown): { output: unknown; found: Found[] };
  /**
   * HMAC-SHA256 (hex) of `data` under the tags' key: what to keep instead of a
   * plain digest of text that may hold a secret (a long header's suffix, an
   * unparsed payload), so nobody without the key can test a guess against it.
   */
  digest(data: string): string;
  /**
   * A redactor whose calls share what they found, for a caller that redacts
   * one record in bounded pieces: each call masks copies of every secret any
   * earlier call found, and `maskCopies` catches copies in pieces redacted
   * before the secret was found.
   */
  scope?(): ScopedRedactor;
}

/**
 * See `Redactor.scope`.
 *
 * @example
 * ```ts
 * const s = redactor.scope!();
 * const parts = pieces.map((p: unknown) => s.value(p));
 * const record = s.maskCopies(parts); // no copy of any find left in any piece
 * ```
 */
export interface ScopedRedactor extends Redactor {
  /** Masks every copy of a secret found so far by this scope's calls in an already-redacted value. */
  maskCopies(v: unknown): unknown;
}

/** Problems in a redact config (patterns RE2 cannot compile, bad kinds); empty when fine. For `doctor` and config errors. */
export function checkRedactConfig(config: RedactConfig): string[] {
  const errs: string[] = [];
  for (const [where, list] of [["extra", config.extra], ["repoExtra", config.repoExtra]] as const) {
    for (const [i, x] of (list ?? []).entries()) {
      if (!USER_KIND.test(x.kind ?? "")) errs.push(`redact.${where}[${i}].kind must be lowercase letters, digits and dashes`);
      const c = compileUserPattern(x.kind, x.pattern);
      if (c.error) errs.push(`redact.${where}[${i}].pattern (kind "${x.kind}"): ${c.error}`);
    }
  }
  for (const [i, a] of (config.allow ?? []).entries()) {
    const c = compileUserPattern("allow", a);
    if (c.error) errs.push(`redact.allow[${i}]: ${c.error} (it still matches as a literal)`);
  }
  return errs;
}

function compileExtras(config: RedactConfig): ExtraRule[] {
  const out: ExtraRule[] = [];
  for (const x of [...(config.extra ?? []), ...(config.repoExtra ?? [])]) {
    // A pattern RE2 refuses is skipped (checkRedactConfig reports it); the hook must still write.
    const c = compileUserPattern(USER_KIND.test(x.kind) ? x.kind : "custom", x.pattern);
    if (c.pattern) out.push(c.pattern);
  }
  return out;
}

function compileAllow(allow: readonly string[] | undefined): ((secret: string) => boolean) | undefined {
  if (!allow || allow.length === 0) return undefined;
  const exact = new Set(allow);
  const res = allow.map(allowMatcher).filter((m) => m !== undefined);
  return (secret) => exact.has(secret) || res.some((r) => r(secret));
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** 1-based line/column of each (ascending) offset, in one pass over `s`. */
function lineCols(s: string, offsets: readonly number[]): { line: number; column: number }[] {
  const out: { line: number; column: number }[] = [];
  let line = 1;
  let lastNl = -1;
  let i = s.indexOf("\n");
  for (const at of offsets) {
    while (i !== -1 && i < at) {
      line++;
      lastNl = i;
      i = s.indexOf("\n", i + 1);
    }
    out.push({ line, column: at - lastNl });
  }
  return out;
}

const DEPTH_GUARD = 256;

/** How a value walk forces a Secret's values: `data` is base64, `stringData` plain. */
const K8S_DATA = "k8s-secret:data";
const K8S_STRING = "k8s-secret:stringData";
const DOCKER_CONFIG_KEY = /dockerconfigjson|dockercfg/i;
/** From this length a string's code units are kept between the passes (below it, making them again is cheaper than holding them). */
const KEEP_UNITS = 4096;

/**
 * Builds a redactor. Cheap: rules are module-level and their regexes compile
 * on first use; only user patterns compile here.
 *
 * @example
 * ```ts
 * const r = createRedactor({ extra: [{ kind: "acme-token", pattern: "acme_[A-Za-z0-9]{32}" }] });
 * r.text("acme_" + "x1".repeat(16)); // "[REDACTED:acme-token:…]"
 * ```
 */
export function createRedactor(config: RedactConfig = {}): Redactor {
  const extras = compileExtras(config);
  const allowed = compileAllow(config.allow);
  const key = lazyKey(config.fingerprintKey);
  const tag = makeTagger(key);
  const digest = (data: string): string => keyedDigest(key(), data);
  const strict = config.strict === true;

  const segmentsOf = (s: string, budget: { left: number }, units: Uint16Array | undefined, printed: Printed | undefined, also?: readonly Finding[]): Segment[] => {
    const found = scan(s, BUILTIN_RULES, extras, { budget, strict, units, printed });
    const segs = resolve(also === undefined ? found : found.concat(also));
    return allowed ? segs.filter((g) => !allowed(s.slice(g.start, g.end))) : segs;
  };

  /**
   * A value the walk knows is a container (a Secret's data, a Docker auth, a
   * `.dockerconfigjson`): its kind from the decoded plaintext. Secret values
   * are redacted whatever the plaintext holds; the others only when they decode.
   */
  const containerKind = (s: string, key: string | undefined, forced: string | undefined, budget: { left: number }): { kind: string; within?: string } | undefined => {
    const inner = (plain: string | undefined) => (plain === undefined ? undefined : innerScanner(BUILTIN_RULES, extras, 0, budget)?.(plain));
    if (forced === K8S_DATA || forced === K8S_STRING) {
      const i = inner(forced === K8S_DATA ? decodeBase64Text(s) : s);
      return i ? { kind: i.kind, within: "k8s-secret" } : { kind: "k8s-secret" };
    }
    if (forced) return { kind: forced };
    if (key === "auth") {
      const plain = dockerAuthText(s);
      if (plain !== undefined) {
        const i = inner(plain);
        return i ? { kind: i.kind, within: "docker-auth" } : { kind: "docker-auth" };
      }
    }
    if (key !== undefined && DOCKER_CONFIG_KEY.test(key)) {
      const i = inner(decodeBase64Text(s));
      if (i) return { kind: i.kind, within: "dockerconfigjson" };
    }
    return undefined;
  };

  /** What pass 1 decided for one string: redact all of it, or these segments. */
  interface Plan {
    readonly whole?: { readonly kind: string; readonly within?: string };
    readonly segs: readonly Segment[];
    /** The string's code units, kept from pass 1 for the copy search of pass 2 (long strings only). */
    readonly units?: Uint16Array;
  }
  const NO_SEGS: Plan = { segs: [] };

  /**
   * Pass 1 for one string: find its secrets and remember each for the copy
   * pass. A long string's code units are lent (runs.ts) for both passes: the
   * plan holds them until the call gives them back, and a plan that will not
   * read them again, or a pass that throws, gives them back here.
   */
  const planString = (s: string, call: Call, key?: string, forced?: Forced, also?: readonly Finding[]): Plan => {
    if (s.length === 0) return NO_SEGS;
    const container = containerKind(s, key, typeof forced === "string" ? forced : undefined, call);
    const units = !container && s.length >= KEEP_UNITS ? lendUnits(s) : undefined;
    try {
      const plan = planWith(s, call, key, forced, container, units, also);
      if (plan.units === undefined) giveBackUnits(units);
      return plan;
    } catch (e) {
      giveBackUnits(units);
      throw e;
    }
  };
  const planWith = (s: string, call: Call, key: string | undefined, forced: Forced | undefined, container: Plan["whole"], units: Uint16Array | undefined, also: readonly Finding[] | undefined): Plan => {
    let segs = container ? [] : segmentsOf(s, call, units, typeof forced === "object" ? forced : undefined, also);
    // A value under a key that names a signature, hash, id or name (`"signature": "<base64>"`):
    // the unlabelled-entropy rule does not get to call the whole value a secret.
    if (key !== undefined && segs.length > 0 && publicValueKey(key)) segs = segs.filter((g) => g.rule !== "entropy" || g.end - g.start < s.trim().length);
    let whole: Plan["whole"] = container;
    if (!whole && key !== undefined) {
      const cls = classifyKey(key);
      // The key labels the whole value a secret, unless a rule already covers
      // all of it (then keep the rule's kind and kept prefix).
      // A connection URL, or `name=value;` pairs in which the rules found the secret: the rest of it stays.
      const readAsPairs = cls?.kind === "connection-string" && (s.includes("://") || (segs.length > 0 && pairList(s)));
      if (cls && !readAsPairs && plausibleSecret(s, cls.password, key, cls.strict)) {
        const covered = segs.reduce((n, g) => n + (g.end - g.start), 0);
        const keptPrefix = segs.length === 1 ? segs[0]!.start : 0;
        if (!(segs.length === 1 && segs[0]!.end === s.length && keptPrefix <= 24 && covered + keptPrefix === s.length)) whole = { kind: cls.kind };
      }
    }
    if (whole && !(allowed && allowed(s))) {
      call.copies.add(s, { kind: whole.kind, tag: tag(s) });
      return { whole, segs: [] };
    }
    for (const g of segs) {
      const secret = g.of ?? s.slice(g.start, g.end);
      call.copies.add(secret, { kind: g.kind, tag: tag(secret) });
    }
    // A piece of a secret the text shows in pieces (a hex dump) is tagged by the whole secret.
    if (segs.some((g) => g.of !== undefined)) segs = segs.map((g) => (g.of === undefined ? g : { ...g, tag: tag(g.of) }));
    return segs.length === 0 && units === undefined ? NO_SEGS : { segs, units };
  };

  /**
   * Pass 2 for one string: its own segments plus every copy of a secret found
   * anywhere in the call, listed for `--explain`; or, for a string redacted
   * whole, its replacement.
   */
  const finalSegments = (s: string, plan: Plan, path: string, call: Call): readonly Segment[] | string => {
    const found = call.found;
    if (plan.whole) {
      const f: Found = { path, line: 1, column: 1, kind: plan.whole.kind, rule: plan.whole.within ? "decoded" : "label", length: s.length, checksum: false };
      found?.push(plan.whole.within ? { ...f, within: plan.whole.within } : f);
      return `[REDACTED:${plan.whole.kind}:${tag(s)}]`;
    }
    const segs = withCopies(s, plan.segs, call.copies, plan.units);
    if (found && segs.length > 0) {
      const at = lineCols(s, segs.map((g) => g.start));
      segs.forEach((g, i) => {
        // A copy carries the original's tag; so does a piece of a secret shown in pieces (Segment.of), which is no copy.
        const copy = g.tag !== undefined && g.of === undefined;
        const f: Found = { path, ...at[i]!, kind: g.kind, rule: copy ? "copy" : g.rule, length: g.end - g.start, checksum: g.checksum === true };
        found.push(g.within ? { ...f, within: g.within } : copy ? { ...f, copy: true } : f);
      });
    }
    return segs;
  };
  const renderString = (s: string, plan: Plan, path: string, call: Call): string => {
    const segs = finalSegments(s, plan, path, call);
    return typeof segs === "string" ? segs : render(s, segs, tag);
  };

  /**
   * One traversal for both passes: `onString` sees every string (keys
   * included) in the same order each time; with `build` false nothing is
   * allocated and the result is undefined.
   */
  const visit = (v: unknown, key: string | undefined, path: string, depth: number, forced: Forced | undefined, build: boolean, onString: (s: string, path: string, key?: string, forced?: Forced, list?: readonly unknown[], place?: number) => string, list?: readonly unknown[], place?: number): unknown => {
    if (typeof v === "string") return onString(v, path, key, forced, list, place);
    if (v === null || typeof v !== "object") return v;
    if (depth > DEPTH_GUARD) {
      // Beyond any real payload: keep the text, redacted, rather than recurse further.
      let text: string;
      try {
        text = JSON.stringify(v) ?? "";
      } catch {
        return "[REDACTED:too-deep:0000]";
      }
      return onString(text, path);
    }
    if (Array.isArray(v)) {
      if (!build) {
        // An array's strings are told which array they sit in, and where (argument lists, argvFinds).
        for (let i = 0; i < v.length; i++) visit(v[i], key, path, depth + 1, forced, false, onString, v, i);
        return undefined;
      }
      return v.map((x, i) => visit(x, key, `${path}[${i}]`, depth + 1, forced, true, onString));
    }
    const obj = v as Record<string, unknown>;
    // Kubernetes Secret: every value under data/stringData is secret, whatever it looks like.
    const k8s = obj.kind === "Secret" && (isPlainObject(obj.data) || isPlainObject(obj.stringData));
    // {"name": "DB_PASSWORD", "value": "…"} (container env, ECS, GitHub Actions): the name labels the value.
    const nameKey = typeof obj.name === "string" ? obj.name : typeof obj.Name === "string" ? obj.Name : typeof obj.key === "string" ? obj.key : undefined;
    // A tool call whose command prints a secret (`printenv DB_PASSWORD`): its output's one-token lines are it.
    const printed = forced === undefined ? printedByCall(obj) : undefined;
    const entries: [string, unknown][] = [];
    for (const k of Object.keys(obj)) {
      const x = obj[k];
      const childPath = build ? `${path}${/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`}` : path;
      let childKey = k;
      let childForced = forced;
      if (k8s && (k === "data" || k === "stringData")) childForced = k === "data" ? K8S_DATA : K8S_STRING;
      else if (printed && OUTPUT_KEYS.has(k)) childForced = printed;
      if (nameKey !== undefined && (k === "value" || k === "Value") && classifyKey(nameKey)) childKey = nameKey;
      const rk = onString(k, `${path}{key}`);
      const rv = visit(x, childKey, childPath, depth + 1, childForced, build, onString);
      if (build) entries.push([rk, rv]);
    }
    // Object.fromEntries defines own properties: a "__proto__" key stays data, never a prototype.
    return build ? Object.fromEntries(entries) : undefined;
  };

  /**
   * What a scan of each argument list in `v` joined as a command line finds,
   * as each element's share: `["--password", "X"]`, `["mysql", "-u", "root",
   * "-pX"]`, an MCP server's `"args": ["-y", "pkg", "--api-key", "X"]` hold a
   * flag in one element and its value in the next, or the command that gives a
   * flag its meaning elsewhere in the list. A find across elements is cut at
   * their borders, each part masked where it is. The lists are scanned as one
   * text, blank lines between them: a record of thousands of short lists pays
   * one scan, not thousands (each scan has a fixed cost; 65,000 two-element
   * lists took 80x a build log of their size one by one).
   */
  const argvFinds = (v: unknown, call: Call): Map<readonly unknown[], (Finding[] | undefined)[]> | undefined => {
    // The lists, found by the walk both passes take: an array is judged at its first element.
    const lists: (readonly string[])[] = [];
    let count = 0;
    let chars = 0;
    visit(v, undefined, "$", 0, undefined, false, (s, _path, _key, _forced, list, place) => {
      if (place === 0 && chars <= ARGV_RECORD_MAX_CHARS && isArgv(list!)) {
        lists.push(list);
        count += list.length;
        for (const e of list) chars += e.length + 1;
      }
      return s;
    });
    if (lists.length === 0) return undefined;
    // The joined text, and each element's start in it, its list and its place in the list.
    const parts: string[] = [];
    const starts = new Int32Array(count);
    const listOf = new Int32Array(count);
    const placeIn = new Int32Array(count);
    let at = 0;
    let e = 0;
    lists.forEach((l, li) => {
      if (li > 0) (parts.push(ARGV_GAP), (at += ARGV_GAP.length));
      l.forEach((x, i) => {
        if (i > 0) (parts.push(" "), at++);
        parts.push(x);
        starts[e] = at;
        placeIn[e] = i;
        listOf[e++] = li;
        at += x.length;
      });
    });
    let out: Map<readonly unknown[], (Finding[] | undefined)[]> | undefined;
    for (const g of segmentsOf(parts.join(""), call, undefined, undefined)) {
      // The last element starting at or before the find, then each one it runs into.
      let lo = 0;
      let hi = count - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= g.start) lo = mid;
        else hi = mid - 1;
      }
      for (let x = lo; x < count && starts[x]! < g.end; x++) {
        const list = lists[listOf[x]!]!;
        const index = placeIn[x]!;
        const item = list[index]!;
        const a = Math.max(g.start, starts[x]!) - starts[x]!;
        const b = Math.min(g.end, starts[x]! + item.length) - starts[x]!;
        if (b <= a) continue;
        out ??= new Map();
        let shares = out.get(list);
        if (shares === undefined) out.set(list, (shares = new Array<Finding[]>(list.length)));
        (shares[index] ??= []).push({ from: a, start: a, end: b, kind: g.kind, priority: ARGV_PRIORITY, rule: g.rule });
      }
    }
    return out;
  };

  const redactValue = (v: unknown, call: Call): unknown => {
    const plans: Plan[] = [];
    try {
      const argvs = argvFinds(v, call);
      visit(v, undefined, "$", 0, undefined, false, (s, _path, key, forced, list, place) => {
        plans.push(planString(s, call, key, forced, list && argvs?.get(list)?.[place!]));
        return s;
      });
      let i = 0;
      return visit(v, undefined, "$", 0, undefined, true, (s, path) => renderString(s, plans[i++]!, path, call));
    } finally {
      for (const p of plans) giveBackUnits(p.units);
    }
  };
  const redactText = (s: string, call: Call): string => {
    let plan: Plan | undefined;
    try {
      plan = planString(s, call);
      return renderString(s, plan, "$", call);
    } finally {
      giveBackUnits(plan?.units);
    }
  };
  const redactTextTo = (s: string, call: Call, put: (piece: string) => void): void => {
    let plan: Plan | undefined;
    try {
      plan = planString(s, call);
      const segs = finalSegments(s, plan, "$", call);
      if (typeof segs === "string") put(segs);
      else renderTo(s, segs, tag, put);
    } finally {
      giveBackUnits(plan?.units);
    }
  };

  // One decode budget per call: rescans of decoded values stay bounded however
  // many containers a record holds.
  const newCall = (found?: Found[], copies = new Copies()): Call => ({ left: DECODE_BUDGET, found, copies });
  const redactor = (shared?: Copies): Redactor => ({
    digest,
    text: (s) => redactText(s, newCall(undefined, shared)),
    textTo: (s, put) => redactTextTo(s, newCall(undefined, shared), put),
    value: (v) => redactValue(v, newCall(undefined, shared)),
    explainText(s) {
      const found: Found[] = [];
      return { output: redactText(s, newCall(found, shared)), found };
    },
    explainValue(v) {
      const found: Found[] = [];
      return { output: redactValue(v, newCall(found, shared)), found };
    },
  });
  return {
    ...redactor(),
    scope(): ScopedRedactor {
      const copies = new Copies();
      return {
        ...redactor(copies),
        maskCopies: (v) => (copies.size === 0 ? v : visit(v, undefined, "$", 0, undefined, true, (s) => copies.mask(s))),
      };
    },
  };
}

/** Bounds of an argument list read joined: a command line's, not a document's lines in an array. */
const ARGV_MAX_ITEMS = 512;
const ARGV_MAX_CHARS = 1 << 16;
/** Past this many characters of argument lists in one record, the rest are read element by element only. */
const ARGV_RECORD_MAX_CHARS = 1 << 20;
/** Between lists in the joined text: blank lines, so no rule reads one list's end and the next one's start as one line or a label and its value. */
const ARGV_GAP = "\n\n\n";
/** What a joined list's find counts for in its element: a structural rule's weight, so the element's own rules' finds merge with it. */
const ARGV_PRIORITY = 2;

/**
 * Whether `v` is an argument list (`["mysql", "-u", "root"]`, not lines of a
 * document): 2 to ARGV_MAX_ITEMS strings, one of them a flag (`-x`,
 * `--name`), ARGV_MAX_CHARS in all.
 */
function isArgv(v: readonly unknown[]): v is readonly string[] {
  if (v.length < 2 || v.length > ARGV_MAX_ITEMS) return false;
  let chars = 0;
  let flag = false;
  for (const x of v) {
    if (typeof x !== "string") return false;
    chars += x.length + 1;
    if (chars > ARGV_MAX_CHARS) return false;
    if (x.length >= 2 && x.charCodeAt(0) === 45) flag = true;
  }
  return flag;
}

/** What a walk knows of a subtree from above it: a container kind (K8S_DATA…) or the command that printed it. */
type Forced = string | Printed;

/** Per-call state: the decode budget, the explain list, the secrets found so far. */
interface Call {
  left: number;
  readonly found: Found[] | undefined;
  readonly copies: Copies;
}

/**
 * `segs` plus a segment for every copy of a known secret that no segment
 * already covers, in order. A copy carries the original's tag.
 */
function withCopies(s: string, segs0: readonly Segment[], copies: Copies, units: Uint16Array | undefined): readonly Segment[] {
  if (copies.size === 0) return segs0;
  // A token the entropy rule found that is a copy of a secret a stronger rule named elsewhere: that name.
  const segs = segs0.map((g) => {
    if (g.kind !== "high-entropy-token" && g.kind !== "labelled-token") return g;
    const k = copies.lookup(s.slice(g.start, g.end));
    return k && k.kind !== g.kind ? { ...g, kind: k.kind } : g;
  });
  const spans = copies.find(s, units);
  if (spans.length === 0) return segs;
  // Both lists are sorted and non-overlapping; where a copy meets a segment of this
  // string's own, the two become one segment over both, so no part of either stays in clear.
  const out: Segment[] = [];
  const put = (g: Segment): void => {
    const last = out[out.length - 1];
    if (last === undefined || g.start >= last.end) out.push(g);
    else if (g.end > last.end) out[out.length - 1] = joined(last, g);
  };
  let j = 0;
  for (const [a, b, k] of spans) {
    while (j < segs.length && segs[j]!.start <= a) put(segs[j++]!);
    put({ start: a, end: b, kind: k.kind, tag: k.tag });
  }
  while (j < segs.length) put(segs[j++]!);
  return out;
}

/**
 * Two overlapping segments, `a` starting first, as one. The one that covers
 * both keeps its kind and tag (a copy inside the own find is that find; a
 * piece inside a copy is the copy, rendered with the original's tag); a
 * partial overlap is tagged by the text it now covers.
 */
function joined(a: Segment, b: Segment): Segment {
  if (b.start === a.start && b.end >= a.end) return b;
  return { start: a.start, end: Math.max(a.end, b.end), kind: b.tag !== undefined ? b.kind : a.kind, rule: a.rule ?? b.rule };
}

/**
 * The redactor with no user config; tags keyed by the data dir's `redact.key`
 * (read or created on the first finding, so a clean record costs no I/O).
 */
export const defaultRedactor: Redactor = createRedactor({
  fingerprintKey: () => loadFingerprintKey(dataDir(process.env)),
});

