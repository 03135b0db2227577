/**
 * The config's key names, read from its JSON Schema (the one list of what
 * the config may contain), for "did you mean" and for `tracegate config`.
 */
import { nearest } from "../cli/suggest.ts";
import schema from "../../schema/config.schema.json" with { type: "json" };
import repoSchema from "../../schema/repo-config.schema.json" with { type: "json" };

interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
}

/**
 * Every settable key, dotted: `oracle.url`, `gate.max_attempts`, `redact.extra`.
 *
 * @example
 * ```ts
 * configKeys().includes("oracle.timeout_s"); // true
 * ```
 */
export function configKeys(node: SchemaNode = schema as SchemaNode, prefix = ""): string[] {
  const keys: string[] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    if (name === "$schema") continue;
    const key = prefix ? `${prefix}.${name}` : name;
    if (child.properties) keys.push(...configKeys(child, key));
    else keys.push(key);
  }
  return keys;
}

/** One ajv error, as generated validators report it. */
export interface SchemaError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly message?: string;
  readonly params: Record<string, unknown>;
}

/**
 * A validation error as a sentence that names the key and, for an unknown
 * key, the nearest valid one. In a repository config (`which` is
 * `repo_config`) the valid keys are its own (only `redact.extra`): a user
 * setting there is named as one, never "corrected" to another user setting
 * the repository may not set either.
 *
 * @example
 * ```ts
 * describeSchemaError({ instancePath: "", keyword: "additionalProperties", params: { additionalProperty: "timeout" } });
 * // 'unknown key "timeout"; did you mean "oracle.timeout_s"?'
 * describeSchemaError({ instancePath: "", keyword: "additionalProperties", params: { additionalProperty: "oracle" } }, "repo_config");
 * // '"oracle" cannot be set in a repository config, which may only add "redact.extra" patterns; set it in your user config'
 * ```
 */
export function describeSchemaError(e: SchemaError, which: "config" | "repo_config" = "config"): string {
  const at = e.instancePath.split("/").filter(Boolean).join(".");
  if (e.keyword === "additionalProperties" && typeof e.params.additionalProperty === "string") {
    const key = at ? `${at}.${e.params.additionalProperty}` : e.params.additionalProperty;
    if (which === "repo_config") {
      const repoKeys = configKeys(repoSchema as SchemaNode);
      const userKey = configKeys().some((k) => k === key || k.startsWith(`${key}.`));
      return userKey
        ? `"${key}" cannot be set in a repository config, which may only add ${repoKeys.map((k) => `"${k}"`).join(", ")} patterns; set it in your user config`
        : `unknown key "${key}"; a repository config may only set ${repoKeys.map((k) => `"${k}"`).join(", ")}`;
    }
    const guess = nearestKey(e.params.additionalProperty, at);
    return `unknown key "${key}"${guess ? `; did you mean "${guess}"?` : `; valid keys: ${configKeys().join(", ")}`}`;
  }
  return `${at ? `"${at}"` : "the top level"} ${e.message ?? e.keyword}`;
}

function nearestKey(word: string, under: string): string | null {
  const all = configKeys();
  // Prefer keys in the same section, then anywhere.
  const local = under ? all.filter((k) => k.startsWith(`${under}.`)) : [];
  return nearest(word, local) ?? nearest(word, all);
}
