/**
 * Config: the user file (JSONC, `TRACEGATE_CONFIG` or the user config dir)
 * and an optional repository file `.tracegate.jsonc`, both validated with
 * ahead-of-time compiled ajv validators. Only the user file may set the
 * oracle, the task id, caps, or turn redaction off; the repository file may
 * only add redaction patterns, so a repository can neither redirect traces nor
 * weaken redaction. A user file that fails validation is reported in `errors`
 * and contributes nothing: the hooks then collect without gating. A
 * repository file is read only from the root of a git repository, only when
 * it is a small regular file (see `readRepoConfigText`), and its problems go
 * to `repo_errors`: they drop its patterns and never touch the gate.
 */
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readFileSync, readSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readTextBounded } from "../fs/safe-open.ts";
import type { ParseError } from "jsonc-parser";
import type { Validate } from "../generated/validators.js";
import { configPath } from "./paths.ts";

export interface OracleConfig {
  readonly url: string;
  readonly public_key: string;
  /** Bearer token sent with every request (`oracle serve --token-file`). */
  readonly token?: string;
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
  /** Problems in the user config; each names the file. Non-empty means "collect, do not gate". */
  readonly errors: readonly string[];
  /**
   * Problems in the repository's `.tracegate.jsonc`: logged, and its patterns
   * dropped, but never a reason to stop gating (a repository must not be able
   * to switch the gate off by writing a bad file).
   */
  readonly repo_errors: readonly string[];
}

/** Default `gate.max_attempts`: oracle verdicts per turn before the gate lets the agent stop. The one default. */
export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_ORACLE_TIMEOUT_S = 40;
export const REPO_CONFIG_FILE = ".tracegate.jsonc";

/** Largest repository config read; anything bigger is refused unread. */
export const REPO_CONFIG_MAX_BYTES = 64 * 1024;

export const DEFAULTS: Omit<Config, "path" | "exists" | "errors" | "repo_errors"> = {
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
    return { value: null, errors: (validate.errors ?? []).map((e) => `${file}: ${describeSchemaError(e, which)}`) };
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

/**
 * The root of the git repository containing `cwd` (the nearest directory with
 * a `.git` that is a git dir holding HEAD, or a `gitdir:` file), or null. The
 * search stops at the first `.git` found, so a `.tracegate.jsonc` in a parent
 * directory of the repository, or anywhere above a non-repository, is never
 * seen; a `.git` owned by another user (not root) ends it with no repository.
 */
export function repoRootOf(cwd: string): string | null {
  let dir = resolve(cwd);
  const uid = typeof process.getuid === "function" ? process.getuid() : null;
  for (let i = 0; i < 256; i++) {
    const dotgit = join(dir, ".git");
    try {
      const st = lstatSync(dotgit);
      // Like git's safe.directory: a .git another user owns (planted in /tmp, say) makes no repository.
      if (uid !== null && st.uid !== uid && st.uid !== 0) return null;
      if (st.isDirectory() && existsSync(join(dotgit, "HEAD"))) return dir;
      if (st.isFile() && st.size < 4096 && readFileSync(dotgit, "utf8").startsWith("gitdir:")) return dir;
    } catch {
      // no .git here
    }
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
  return null;
}

/** `.tracegate.jsonc` at the root of the repository containing `cwd`; null outside a repository. */
export function findRepoConfig(cwd: string): string | null {
  const root = repoRootOf(cwd);
  return root ? join(root, REPO_CONFIG_FILE) : null;
}

/**
 * Read a repository config file without ever blocking or reading much: opened
 * non-blocking and without following a symlink, checked with fstat to be a
 * regular file of at most 64 KB owned by this user (or root) before a byte is
 * read. A FIFO, a device, a directory, a link or a huge file is refused.
 */
export function readRepoConfigText(path: string): { text: string | null; error?: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { text: null };
    return { text: null, error: `${path}: not read (${code === "ELOOP" ? "a symbolic link" : code ?? "error"}); it must be a regular file` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { text: null, error: `${path}: not read: not a regular file` };
    if (st.size > REPO_CONFIG_MAX_BYTES) return { text: null, error: `${path}: not read: ${st.size} bytes is over the ${REPO_CONFIG_MAX_BYTES}-byte limit` };
    const uid = typeof process.getuid === "function" ? process.getuid() : null;
    if (uid !== null && st.uid !== uid && st.uid !== 0) return { text: null, error: `${path}: not read: owned by uid ${st.uid}, not by this user` };
    const buf = Buffer.alloc(REPO_CONFIG_MAX_BYTES + 1);
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got <= 0) break;
      n += got;
    }
    if (n > REPO_CONFIG_MAX_BYTES) return { text: null, error: `${path}: not read: over the ${REPO_CONFIG_MAX_BYTES}-byte limit` };
    return { text: buf.subarray(0, n).toString("utf8") };
  } catch (e) {
    return { text: null, error: `${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? "error"})` };
  } finally {
    closeSync(fd);
  }
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
  const repoErrors: string[] = [];
  const repoPath = cwd ? findRepoConfig(cwd) : null;
  if (repoPath) {
    const repo = readRepoConfigText(repoPath);
    if (repo.error) repoErrors.push(repo.error);
    if (repo.text !== null) {
      const parsed = await parseConfigText(repo.text, repoPath, "repo_config");
      repoErrors.push(...parsed.errors);
      // Only patterns, and only added: nothing here reaches the oracle, the gate or the caps.
      repoExtra = parsed.value?.redact?.extra ?? [];
    }
  }
  const oracle: OracleConfig | null = u.oracle
    ? {
        url: u.oracle.url.replace(/\/+$/, ""),
        public_key: u.oracle.public_key,
        ...(typeof u.oracle.token === "string" ? { token: u.oracle.token } : {}),
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
    repo_errors: repoErrors,
  };
}
