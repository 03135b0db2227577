/**
 * Config: the user file (JSONC, `TRACEGATE_CONFIG` or the user config dir)
 * and an optional repository file `.tracegate.jsonc`, both validated with
 * ahead-of-time compiled ajv validators. Only the user file may set the
 * oracle, the task id, caps, or turn redaction off; the repository file may
 * only add redaction patterns, so a repository can neither redirect traces nor
 * weaken redaction. A file that fails validation is reported in `errors` and
 * contributes nothing: the hooks then collect without gating.
 */
import { existsSync } from "node:fs";
import { readTextBounded } from "../fs/safe-open.ts";
import { dirname, join } from "node:path";
import type { ParseError } from "jsonc-parser";
import type { Validate } from "../generated/validators.js";
import { configPath } from "./paths.ts";

export interface OracleConfig {
  readonly url: string;
  readonly public_key: string;
  readonly timeout_s: number;
  readonly on_error: "allow" | "block";
}

export interface RedactPattern {
  readonly kind: string;
  readonly pattern: string;
}

export interface Config {
  /** The user config file path (whether or not it exists). */
  readonly path: string;
  readonly exists: boolean;
  readonly oracle: OracleConfig | null;
  readonly gate: { readonly max_attempts: number; readonly enabled: boolean };
  readonly task_id: string | null;
  readonly caps: { readonly field_bytes: number; readonly record_bytes: number; readonly diff_bytes: number };
  readonly redact: {
    readonly enabled: boolean;
    readonly extra: readonly RedactPattern[];
    readonly allow: readonly string[];
    /** Patterns a repository added; they can only add rules. */
    readonly repo_extra: readonly RedactPattern[];
  };
  /** `tracegate sync`: the default store URL, and whether SessionEnd starts a background sync. */
  readonly sync: { readonly url: string | null; readonly on_session_end: boolean };
  /** Problems found; each names the file. Non-empty means "collect, do not gate". */
  readonly errors: readonly string[];
}

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_ORACLE_TIMEOUT_S = 40;
export const REPO_CONFIG_FILE = ".tracegate.jsonc";

export const DEFAULTS: Omit<Config, "path" | "exists" | "errors"> = {
  oracle: null,
  gate: { max_attempts: DEFAULT_MAX_ATTEMPTS, enabled: true },
  task_id: null,
  caps: { field_bytes: 256 * 1024, record_bytes: 2 * 1024 * 1024, diff_bytes: 50 * 1024 * 1024 },
  redact: { enabled: true, extra: [], allow: [], repo_extra: [] },
  sync: { url: null, on_session_end: false },
};

type Json = Record<string, any>;

/**
 * Parse and validate JSONC text; returns the value or the problems found.
 *
 * @example
 * ```ts
 * await parseConfigText('{ "task_id": "t" } // ok', "c.jsonc", "config");
 * ```
 */
export async function parseConfigText(
  text: string,
  file: string,
  which: "config" | "repo_config",
): Promise<{ value: Json | null; errors: string[] }> {
  // Imported here, not at the top: most hook runs have no config file and
  // should not pay for the parser and the validators at start-up.
  const [{ parse, printParseErrorCode }, validators] = await Promise.all([
    import("jsonc-parser"),
    import("../generated/validators.js"),
  ]);
  const validate: Validate = validators[which];
  const parseErrors: ParseError[] = [];
  const value = parse(text, parseErrors, { allowTrailingComma: true, disallowComments: false });
  if (parseErrors.length) {
    return {
      value: null,
      errors: parseErrors.map((e) => `${file}:${lineColumn(text, e.offset)}: ${printParseErrorCode(e.error)}; fix the JSONC syntax there`),
    };
  }
  if (!validate(value)) {
    const { describeSchemaError } = await import("./keys.ts");
    return { value: null, errors: (validate.errors ?? []).map((e) => `${file}: ${describeSchemaError(e)}`) };
  }
  const bad = checkPatterns(value?.redact?.extra ?? [], file);
  return bad.length ? { value: null, errors: bad } : { value, errors: [] };
}

/** `line:column` (1-based) of a character offset, for error messages a person can follow. */
export function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `${before.length}:${before.at(-1)!.length + 1}`;
}

/**
 * Whether a user pattern can backtrack super-linearly: a quantified group
 * that itself contains a quantifier (star height above one, as in `(a+)+`),
 * or a backreference. Bun's regex engine backtracks, and a hook stuck inside
 * one synchronous match cannot be stopped by its own deadline timer, so such
 * patterns are refused rather than run on every tool call.
 *
 * @example
 * ```ts
 * unsafePattern("acme_[A-Za-z0-9]{32}"); // false
 * unsafePattern("(a+)+$");               // true
 * ```
 */
export function unsafePattern(source: string): boolean {
  if (/\\[1-9]|\\k</.test(source)) return true;
  const stack: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") stack.push(false);
    else if (c === ")") {
      const hadQuantifier = stack.pop() ?? false;
      const next = source[i + 1];
      const quantified = next === "*" || next === "+" || next === "?" || next === "{";
      if (hadQuantifier && quantified && next !== "?") return true;
      if (stack.length && (hadQuantifier || quantified)) stack[stack.length - 1] = true;
    } else if ((c === "*" || c === "+" || c === "{") && stack.length) stack[stack.length - 1] = true;
  }
  return false;
}

function checkPatterns(extra: RedactPattern[], file: string): string[] {
  const errors: string[] = [];
  for (const p of extra) {
    try {
      new RegExp(p.pattern, "g");
    } catch {
      errors.push(`${file}: redact.extra pattern for "${p.kind}" is not a valid regular expression`);
      continue;
    }
    if (unsafePattern(p.pattern)) {
      errors.push(`${file}: redact.extra pattern for "${p.kind}" nests quantifiers or uses a backreference; rewrite it with bounded, unnested quantifiers`);
    }
  }
  return errors;
}

/** A config file is a few KB; a larger one (or a FIFO, a device) is refused unread. */
const CONFIG_MAX_BYTES = 1024 * 1024;

function readText(path: string): { text: string | null; error?: string } {
  try {
    return { text: readTextBounded(path, CONFIG_MAX_BYTES) };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { text: null };
    return { text: null, error: `${path}: cannot read (${code ?? "error"})` };
  }
}

/** The nearest `.tracegate.jsonc` from `cwd` up to the repository root. */
export function findRepoConfig(cwd: string): string | null {
  let dir = cwd;
  for (let i = 0; i < 64; i++) {
    const candidate = join(dir, REPO_CONFIG_FILE);
    if (existsSync(candidate)) return candidate;
    if (existsSync(join(dir, ".git"))) return null;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
  return null;
}

/**
 * Load the effective config for a hook or command run.
 *
 * @example
 * ```ts
 * const cfg = await loadConfig(process.env, "/repo");
 * if (cfg.oracle && cfg.errors.length === 0) { ... }
 * ```
 */
export async function loadConfig(env: Readonly<Record<string, string | undefined>>, cwd?: string | null): Promise<Config> {
  const path = configPath(env);
  const errors: string[] = [];
  const user = readText(path);
  if (user.error) errors.push(user.error);
  let u: Json = {};
  if (user.text !== null) {
    const parsed = await parseConfigText(user.text, path, "config");
    errors.push(...parsed.errors);
    if (parsed.value) u = parsed.value;
  }
  let repoExtra: RedactPattern[] = [];
  const repoPath = cwd ? findRepoConfig(cwd) : null;
  if (repoPath) {
    const repo = readText(repoPath);
    if (repo.error) errors.push(repo.error);
    if (repo.text !== null) {
      const parsed = await parseConfigText(repo.text, repoPath, "repo_config");
      errors.push(...parsed.errors);
      repoExtra = parsed.value?.redact?.extra ?? [];
    }
  }
  const oracle: OracleConfig | null = u.oracle
    ? {
        url: u.oracle.url.replace(/\/+$/, ""),
        public_key: u.oracle.public_key,
        timeout_s: u.oracle.timeout_s ?? DEFAULT_ORACLE_TIMEOUT_S,
        on_error: u.oracle.on_error ?? "allow",
      }
    : null;
  return {
    path,
    exists: user.text !== null,
    oracle,
    gate: { ...DEFAULTS.gate, ...u.gate },
    task_id: u.task_id ?? null,
    caps: { ...DEFAULTS.caps, ...u.caps },
    sync: { url: u.sync?.url ?? null, on_session_end: u.sync?.on_session_end ?? false },
    redact: {
      enabled: u.redact?.enabled ?? true,
      extra: u.redact?.extra ?? [],
      allow: u.redact?.allow ?? [],
      repo_extra: repoExtra,
    },
    errors,
  };
}
