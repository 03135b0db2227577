/**
 * `tracegate config [--json]`: every config key with its effective value and
 * where it came from (the user file, the environment, a repository file, or
 * the default); `tracegate config path` prints the user file's path.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "../runtime/builtins.ts";
import { DEFAULTS, DEFAULT_ORACLE_TIMEOUT_S, findRepoConfig, loadConfig } from "../config/load.ts";
import { configKeys } from "../config/keys.ts";
import { configPath } from "../config/paths.ts";
import { parseOptions } from "./args.ts";
import { COMMANDS } from "./commands.ts";
import { err, escapeControl, out } from "./print.ts";
import { colorEnabled, paint } from "./style.ts";

/** One row of `tracegate config`. */
export interface ConfigRow {
  readonly key: string;
  readonly value: unknown;
  readonly source: string;
}

type Json = Record<string, unknown>;

function at(obj: unknown, key: string): unknown {
  let v: unknown = obj;
  for (const part of key.split(".")) {
    if (!v || typeof v !== "object") return undefined;
    v = (v as Json)[part];
  }
  return v;
}

/** Keys whose values are secrets: `config` says they are set, never what they are. */
const SECRET_KEY = /(token|secret|password|passphrase|credential|private_key|access_key|api_key)[^.]*$/;

/**
 * A value as `config` shows it: secrets (an `oracle.token`, say) masked.
 *
 * @example
 * ```ts
 * shownValue("oracle.token", "s3cr3t"); // "(set, hidden)"
 * shownValue("gate.max_attempts", 3);   // 3
 * ```
 */
export function shownValue(key: string, value: unknown): unknown {
  return SECRET_KEY.test(key) && value !== null && value !== undefined ? "(set, hidden)" : value;
}

/** Defaults the loader applies that are not in DEFAULTS' shape. */
const EXTRA_DEFAULTS: Record<string, unknown> = {
  "oracle.timeout_s": DEFAULT_ORACLE_TIMEOUT_S,
  "oracle.on_error": "allow",
  task_id: "default",
};

/**
 * The rows, from the user file's parsed value (null when absent or invalid)
 * and the environment. Pure.
 */
export function configRows(
  user: Json | null,
  file: string,
  env: Readonly<Record<string, string | undefined>>,
  repo: { path: string; extra: readonly unknown[] } | null,
): ConfigRow[] {
  return configKeys().map((key) => {
    if (key === "task_id" && env.TRACEGATE_TASK_ID?.trim()) return { key, value: env.TRACEGATE_TASK_ID.trim(), source: "env TRACEGATE_TASK_ID" };
    const mine = at(user, key);
    if (mine !== undefined) return { key, value: shownValue(key, mine), source: file };
    if (key === "redact.extra" && repo && repo.extra.length) return { key, value: repo.extra, source: repo.path };
    const def = key in EXTRA_DEFAULTS ? EXTRA_DEFAULTS[key] : at(DEFAULTS, key);
    return { key, value: def === undefined ? null : def, source: def === undefined ? "not set" : "default" };
  });
}

/** `tracegate config [path] [--json]` */
export async function configCommand(argv: string[]): Promise<number> {
  const env = process.env;
  const file = configPath(env);
  if (argv[0] === "path") {
    out(`${file}\n`);
    return 0;
  }
  const { values } = parseArgs({ args: argv, options: parseOptions(COMMANDS.config!), strict: true });
  const config = await loadConfig(env, process.cwd());
  let user: Json | null = null;
  if (config.exists && config.errors.length === 0) {
    const { parse } = await import("jsonc-parser");
    user = parse(readFileSync(file, "utf8"), [], { allowTrailingComma: true }) as Json;
  }
  const repoPath = findRepoConfig(process.cwd());
  const rows = configRows(user, file, env, repoPath ? { path: repoPath, extra: config.redact.repo_extra } : null);
  if (values.json) {
    out(`${JSON.stringify({ path: file, exists: config.exists, errors: config.errors, values: rows }, null, 2)}\n`);
    return config.errors.length ? 1 : 0;
  }
  const p = paint(colorEnabled(1));
  out(`${p.bold("config file:")} ${escapeControl(file)} ${config.exists ? "" : "(not present: every value is a default)"}\n`);
  const width = Math.max(...rows.map((r) => r.key.length)) + 2;
  const shown = rows.map((r) => escapeControl(JSON.stringify(r.value) ?? "null"));
  const vwidth = Math.min(50, Math.max(...shown.map((s) => s.length))) + 2;
  rows.forEach((r, i) => {
    const src = r.source === "default" || r.source === "not set" ? p.dim(r.source) : escapeControl(r.source);
    out(`${r.key.padEnd(width)}${shown[i]!.padEnd(vwidth)}${src}\n`);
  });
  for (const e of config.errors) err(`tracegate: ${escapeControl(e)}\n`);
  if (config.errors.length) {
    err(`tracegate: while the config has errors the hooks use the defaults above and do not gate; fix ${file}\n`);
    return 1;
  }
  return 0;
}
