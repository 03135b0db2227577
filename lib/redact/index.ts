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
import { decodeBase64Text, DECODE_BUDGET, dockerAuthText } from "./decode.ts";
import { BUILTIN_RULES, type ExtraRule, innerScanner, KINDS, render, resolve, scan, type Segment } from "./engine.ts";
import { type FingerprintKey, loadFingerprintKey, makeTagger } from "./fingerprint.ts";
import { classifyKey, plausibleSecret } from "./keys.ts";
import { allowMatcher, compileUserPattern, USER_KIND } from "./pattern.ts";

export { KINDS } from "./engine.ts";
export { loadFingerprintKey } from "./fingerprint.ts";
export { compileUserPattern } from "./pattern.ts";

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
}

/** One finding as `--explain` reports it: where and what kind, never the value. */
export interface Found {
  /** JSON path of the string (`$.headers.Authorization`) for values; `$` for raw text. */
  readonly path: string;
  /** 1-based line and column of the secret inside that string. */
  readonly line: number;
  readonly column: number;
  readonly kind: string;
  /** Whether an offline checksum verified the token. */
  readonly checksum: boolean;
  /**
   * Set when the secret was found by decoding a container value: `k8s-secret`
   * (Secret data/stringData), `docker-auth` (`auths.*.auth`) or
   * `dockerconfigjson`. `kind` is then what the plaintext held (`github-pat`).
   */
  readonly within?: string;
}

export interface Redactor {
  text(s: string): string;
  value(v: unknown): unknown;
  /** Like `text`/`value`, also listing what was found where (for `tracegate redact --explain`). */
  explainText?(s: string): { output: string; found: Found[] };
  explainValue?(v: unknown): { output: unknown; found: Found[] };
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
  const tag = makeTagger(config.fingerprintKey);

  const segmentsOf = (s: string, budget: { left: number }): Segment[] => {
    const segs = resolve(scan(s, BUILTIN_RULES, extras, { budget }));
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

  const redactString = (s: string, path: string, found: Found[] | undefined, budget: { left: number }, key?: string, forced?: string): string => {
    const container = s.length > 0 ? containerKind(s, key, forced, budget) : undefined;
    const segs = container ? [] : segmentsOf(s, budget);
    let kind = container?.kind;
    if (!kind && key !== undefined && s.length > 0) {
      const cls = classifyKey(key);
      // The key labels the whole value a secret, unless a rule already covers
      // all of it (then keep the rule's kind and kept prefix).
      if (cls && !(cls.kind === "connection-string" && s.includes("://")) && plausibleSecret(s, cls.password, key, cls.strict)) {
        const covered = segs.reduce((n, g) => n + (g.end - g.start), 0);
        const keptPrefix = segs.length === 1 ? segs[0]!.start : 0;
        if (!(segs.length === 1 && segs[0]!.end === s.length && keptPrefix <= 24 && covered + keptPrefix === s.length)) kind = cls.kind;
      }
    }
    if (kind && !(allowed && allowed(s))) {
      found?.push(container?.within ? { path, line: 1, column: 1, kind, checksum: false, within: container.within } : { path, line: 1, column: 1, kind, checksum: false });
      return `[REDACTED:${kind}:${tag(s)}]`;
    }
    if (found && segs.length > 0) {
      const at = lineCols(s, segs.map((g) => g.start));
      segs.forEach((g, i) => found.push(g.within ? { path, ...at[i]!, kind: g.kind, checksum: g.checksum === true, within: g.within } : { path, ...at[i]!, kind: g.kind, checksum: g.checksum === true }));
    }
    return render(s, segs, tag);
  };

  const walk = (v: unknown, key: string | undefined, path: string, depth: number, found: Found[] | undefined, forced: string | undefined, budget: { left: number }): unknown => {
    if (typeof v === "string") return redactString(v, path, found, budget, key, forced);
    if (v === null || typeof v !== "object") return v;
    if (depth > DEPTH_GUARD) {
      // Beyond any real payload: keep the text, redacted, rather than recurse further.
      let text: string;
      try {
        text = JSON.stringify(v) ?? "";
      } catch {
        return "[REDACTED:too-deep:0000]";
      }
      return redactString(text, path, found, budget);
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, key, `${path}[${i}]`, depth + 1, found, forced, budget));
    const obj = v as Record<string, unknown>;
    // Kubernetes Secret: every value under data/stringData is secret, whatever it looks like.
    const k8s = obj.kind === "Secret" && (isPlainObject(obj.data) || isPlainObject(obj.stringData));
    // {"name": "DB_PASSWORD", "value": "…"} (container env, ECS, GitHub Actions): the name labels the value.
    const nameKey = typeof obj.name === "string" ? obj.name : typeof obj.Name === "string" ? obj.Name : typeof obj.key === "string" ? obj.key : undefined;
    const entries: [string, unknown][] = [];
    for (const k of Object.keys(obj)) {
      const x = obj[k];
      const childPath = `${path}${/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`}`;
      let childKey = k;
      let childForced = forced;
      if (k8s && (k === "data" || k === "stringData")) childForced = k === "data" ? K8S_DATA : K8S_STRING;
      if (nameKey !== undefined && (k === "value" || k === "Value") && classifyKey(nameKey)) childKey = nameKey;
      const rk = redactString(k, `${path}{key}`, found, budget);
      entries.push([rk, walk(x, childKey, childPath, depth + 1, found, childForced, budget)]);
    }
    // Object.fromEntries defines own properties: a "__proto__" key stays data, never a prototype.
    return Object.fromEntries(entries);
  };

  // One decode budget per call: rescans of decoded values stay bounded however
  // many containers a record holds.
  const budget = () => ({ left: DECODE_BUDGET });
  return {
    text: (s) => redactString(s, "$", undefined, budget()),
    value: (v) => walk(v, undefined, "$", 0, undefined, undefined, budget()),
    explainText(s) {
      const found: Found[] = [];
      return { output: redactString(s, "$", found, budget()), found };
    },
    explainValue(v) {
      const found: Found[] = [];
      return { output: walk(v, undefined, "$", 0, found, undefined, budget()), found };
    },
  };
}

/**
 * The redactor with no user config; tags keyed by the data dir's `redact.key`
 * (read or created on the first finding, so a clean record costs no I/O).
 */
export const defaultRedactor: Redactor = createRedactor({
  fingerprintKey: () => loadFingerprintKey(dataDir(process.env)),
});

void KINDS;
