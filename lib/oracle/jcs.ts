/**
 * RFC 8785 JSON Canonicalization Scheme (JCS): the exact bytes an oracle
 * signs and a collector verifies.
 *
 * Own implementation rather than the `canonicalize` npm package: JCS was
 * designed so that ECMAScript's own serializers are the reference (numbers
 * are `Number.prototype.toString`, strings are `JSON.stringify`'s escaping),
 * so the whole scheme is the key sort plus input checks. The package does the
 * same in as many lines but accepts lone surrogates and `toJSON`, which
 * RFC 8785 (via I-JSON, RFC 7493) rules out.
 *
 * @example
 * ```ts
 * import { canonicalize } from "./jcs.ts";
 * canonicalize({ b: 1, a: [true, null, 1e21] }); // '{"a":[true,null,1e+21],"b":1}'
 * ```
 */

/** Thrown for input that has no canonical form (NaN, Infinity, lone surrogates, non-JSON values). */
export class JcsError extends Error {
  override name = "JcsError";
}

// A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function str(s: string): string {
  if (LONE_SURROGATE.test(s)) throw new JcsError("string holds a lone surrogate");
  // ES2019+ JSON.stringify escapes exactly what RFC 8785 section 3.2.2.2 asks:
  // `"`, `\`, the five short forms, other controls as lowercase \u00xx.
  return JSON.stringify(s);
}

function num(n: number): string {
  if (!Number.isFinite(n)) throw new JcsError(`number ${n} has no JSON form`);
  // Number.prototype.toString is the ES6 algorithm RFC 8785 section 3.2.2.3 names; -0 becomes "0".
  return Object.is(n, -0) ? "0" : String(n);
}

// Default sort compares UTF-16 code units, which is what RFC 8785 section 3.2.3 asks for.
function compareUtf16(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function walk(v: unknown, depth: number, parts: string[]): void {
  if (depth > 1000) throw new JcsError("value nested deeper than 1000 levels");
  if (v === null) {
    parts.push("null");
    return;
  }
  switch (typeof v) {
    case "boolean":
      parts.push(v ? "true" : "false");
      return;
    case "number":
      parts.push(num(v));
      return;
    case "string":
      parts.push(str(v));
      return;
    case "object":
      break;
    default:
      throw new JcsError(`a ${typeof v} has no JSON form`);
  }
  if (Array.isArray(v)) {
    parts.push("[");
    for (let i = 0; i < v.length; i++) {
      if (i > 0) parts.push(",");
      if (v[i] === undefined) throw new JcsError("array holds undefined");
      walk(v[i], depth + 1, parts);
    }
    parts.push("]");
    return;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    throw new JcsError("only plain objects have a JSON form");
  }
  const obj = v as Record<string, unknown>;
  // Undefined members are left out, as JSON.stringify leaves them out on the wire.
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort(compareUtf16);
  parts.push("{");
  for (let i = 0; i < keys.length; i++) {
    if (i > 0) parts.push(",");
    const k = keys[i]!;
    parts.push(str(k), ":");
    walk(obj[k], depth + 1, parts);
  }
  parts.push("}");
}

/**
 * The RFC 8785 canonical JSON text of a JSON value. Throws `JcsError` for a
 * value with no canonical form.
 *
 * @example
 * ```ts
 * canonicalize({ "\u20ac": 1, "\r": 2 }); // '{"\\r":2,"€":1}'
 * ```
 */
export function canonicalize(value: unknown): string {
  const parts: string[] = [];
  walk(value, 0, parts);
  return parts.join("");
}

/**
 * The canonical JSON as UTF-8 bytes: what gets signed.
 *
 * @example
 * ```ts
 * canonicalBytes({ a: "é" }).length; // 10
 * ```
 */
export function canonicalBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalize(value));
}
