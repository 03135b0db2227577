/**
 * Bound the nesting depth of a parsed payload without recursion, so a
 * 50,000-level payload cannot overflow the stack of any later walk. Subtrees
 * below the bound are replaced by their JSON text, which the redactor then
 * treats as text and the cap cuts like any long string. That text is written
 * by an iterative serialiser: `JSON.stringify` itself recurses and throws
 * past about 40,000 levels, which used to drop the whole record.
 */

export const MAX_DEPTH = 64;

/** Deepest nesting of arrays/objects in `v`, stopping early once past `limit`. */
export function depthExceeds(v: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (!x || typeof x !== "object") continue;
    if (d >= limit) return true;
    for (const child of Object.values(x)) if (child && typeof child === "object") stack.push([child, d + 1]);
  }
  return false;
}

/**
 * `JSON.stringify(v)` for plain JSON data (what JSON.parse returns), without
 * recursion, so any depth serialises. Object keys keep their order; values
 * JSON cannot hold (undefined, functions) become null as in arrays.
 *
 * @example
 * ```ts
 * import { jsonText } from "./depth.ts";
 * jsonText({ a: [1, "x", null], b: {} }); // '{"a":[1,"x",null],"b":{}}'
 * ```
 */
export function jsonText(v: unknown): string {
  const out: string[] = [];
  // A frame is a container being written: its entries and the next index.
  type Frame = { readonly keys: string[] | null; readonly items: unknown[]; i: number };
  const stack: Frame[] = [];
  const open = (x: unknown): void => {
    if (x === null || typeof x !== "object") {
      out.push(x === undefined || typeof x === "function" || typeof x === "symbol" ? "null" : (JSON.stringify(x) ?? "null"));
      return;
    }
    if (Array.isArray(x)) {
      out.push("[");
      stack.push({ keys: null, items: x, i: 0 });
    } else {
      const entries = Object.entries(x);
      out.push("{");
      stack.push({ keys: entries.map((e) => e[0]), items: entries.map((e) => e[1]), i: 0 });
    }
  };
  open(v);
  while (stack.length) {
    const f = stack[stack.length - 1]!;
    if (f.i >= f.items.length) {
      out.push(f.keys ? "}" : "]");
      stack.pop();
      continue;
    }
    if (f.i > 0) out.push(",");
    if (f.keys) out.push(JSON.stringify(f.keys[f.i]), ":");
    open(f.items[f.i++]);
  }
  return out.join("");
}

function shallowCopy(x: object): Record<string, unknown> | unknown[] {
  return Array.isArray(x) ? new Array(x.length) : {};
}

function setOwn(target: Record<string, unknown> | unknown[], key: string, value: unknown): void {
  // defineProperty, not assignment: a payload key "__proto__" stays a plain key.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A copy of `v` whose nesting stops at `limit`; deeper subtrees become JSON text.
 *
 * @example
 * ```ts
 * boundDepth({ a: { b: { c: 1 } } }, 2); // { a: { b: '{"c":1}' } }
 * ```
 */
export function boundDepth(v: unknown, limit = MAX_DEPTH): unknown {
  if (!depthExceeds(v, limit)) return v;
  const root = { value: v };
  const out: Record<string, unknown> = {};
  const stack: [object, Record<string, unknown> | unknown[], number][] = [[root, out, -1]];
  while (stack.length) {
    const [src, dst, d] = stack.pop()!;
    for (const [k, child] of Object.entries(src)) {
      if (child && typeof child === "object") {
        if (d + 1 >= limit) {
          setOwn(dst, k, jsonText(child));
        } else {
          const copy = shallowCopy(child);
          setOwn(dst, k, copy);
          stack.push([child, copy, d + 1]);
        }
      } else {
        setOwn(dst, k, child);
      }
    }
  }
  return out.value;
}
