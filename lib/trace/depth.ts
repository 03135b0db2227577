/**
 * Bound the nesting depth of a parsed payload without recursion, so a
 * 20,000-level payload cannot overflow the stack of any later walk. Subtrees
 * below the bound are replaced by their JSON text, which the redactor then
 * treats as text and the cap cuts like any long string.
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
          setOwn(dst, k, JSON.stringify(child));
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
