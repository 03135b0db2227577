/**
 * Redaction: the floor the write path relies on until the full engine lands.
 * The contract (kept by the engine that replaces this file):
 *
 * - `createRedactor(config).text(s)` returns `s` with secrets replaced by
 *   `[REDACTED:<kind>:<tag>]`, keeping a known prefix or key name.
 * - `createRedactor(config).value(v)` walks a JSON value (depth already bounded
 *   by the caller), redacting string leaves with their key as context, and
 *   returns a new value; it never mutates `v` and never assigns `__proto__`.
 *
 * @example
 * ```ts
 * const r = createRedactor();
 * r.text("export GITHUB_TOKEN=ghp_" + "a".repeat(36)); // secret replaced
 * ```
 */
import { createHash } from "node:crypto";

export interface RedactConfig {
  readonly extra?: readonly { readonly kind: string; readonly pattern: string }[];
  readonly allow?: readonly string[];
}

export interface Redactor {
  text(s: string): string;
  value(v: unknown): unknown;
}

function tag(kind: string, secret: string): string {
  return `[REDACTED:${kind}:${createHash("sha256").update(secret).digest("hex").slice(0, 4)}]`;
}

interface Rule {
  readonly kind: string;
  readonly re: RegExp;
  /** Index of the capture group holding the secret; the rest of the match is kept. */
  readonly group: number;
}

const FLOOR: readonly Rule[] = [
  { kind: "private-key", re: /(-----BEGIN[A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----)([\s\S]{1,16384}?)(?=-----END|$)/g, group: 2 },
  { kind: "aws-access-key-id", re: /\b((?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})\b/g, group: 1 },
  { kind: "github-token", re: /\b((?:gh[pousr]_[A-Za-z0-9_.-]{36,600})|(?:github_pat_[A-Za-z0-9_]{82}))/g, group: 1 },
  { kind: "bearer", re: /(\b[Bb]earer\s{1,10})([A-Za-z0-9._~+/=-]{8,4096})/g, group: 2 },
  {
    kind: "secret-assignment",
    re: /(\b[A-Za-z0-9_.-]{0,64}(?:SECRET|TOKEN|PASSWORD|PASSWD)[A-Za-z0-9_.-]{0,64}\s{0,3}[=:]\s{0,3}["']?)([^\s"'$%{}<>]{4,4096})/gi,
    group: 2,
  },
];

function applyRule(s: string, rule: Rule): string {
  return s.replace(rule.re, (...m: string[]) => {
    const whole = m[0]!;
    const secret = m[rule.group];
    if (!secret) return whole;
    const at = whole.lastIndexOf(secret);
    return whole.slice(0, at) + tag(rule.kind, secret) + whole.slice(at + secret.length);
  });
}

const SECRET_KEY = /secret|token|password|passwd|api[_-]?key/i;
const NOT_SECRET_KEY = /^(?:input|output|max|cache_[a-z_]+|total)_tokens$|tokenizer|token_type/i;

export function createRedactor(_config: RedactConfig = {}): Redactor {
  const text = (s: string): string => {
    let out = s;
    for (const rule of FLOOR) out = applyRule(out, rule);
    return out;
  };
  const value = (v: unknown, key?: string): unknown => {
    if (typeof v === "string") {
      if (key && SECRET_KEY.test(key) && !NOT_SECRET_KEY.test(key) && v.length >= 4 && !/^[$%{<]/.test(v)) {
        return tag("secret-field", v);
      }
      return text(v);
    }
    if (Array.isArray(v)) return v.map((x) => value(x, key));
    if (v && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [text(k), value(x, k)]));
    }
    return v;
  };
  return { text, value: (v) => value(v) };
}

export const defaultRedactor: Redactor = createRedactor();
