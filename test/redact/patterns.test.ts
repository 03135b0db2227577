/**
 * Pins the engine note from the brief: no pattern uses the `u` or `v` flag
 * together with a negated character class (Bun's YARR JIT ran greedy negated
 * classes under `/u` in cubic time). Walks every rule's regex as the rule
 * compiles it (sources exposed on call, built lazily, so start-up pays
 * nothing) and every regex literal and `new RegExp(…, flags)` in lib/redact.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_RULES } from "../../lib/redact/engine.ts";
import { prefixRules } from "../../lib/redact/prefix.ts";

/**
 * Whether a pattern with these flags puts a negated class under `u`/`v`:
 * `[^…]`, `\S`, `\W`, `\D`, `\P{…}` or `.` (all "anything but" sets).
 */
export function unicodeNegated(source: string, flags: string): boolean {
  if (!/[uv]/.test(flags)) return false;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      const e = source[i + 1];
      if (e === "S" || e === "W" || e === "D" || e === "P") return true;
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") {
      if (source[i + 1] === "^") return true;
      inClass = true;
      continue;
    }
    if (c === ".") return true;
  }
  return false;
}

/** Regex literals (`/…/flags`) and `new RegExp(…, "flags")` calls in TypeScript source. */
export function regexesIn(code: string): { source: string; flags: string }[] {
  const out: { source: string; flags: string }[] = [];
  let i = 0;
  let prev = ""; // last significant character outside strings/comments
  let prevWord = "";
  const n = code.length;
  const skipString = (q: string): void => {
    i++;
    while (i < n && code[i] !== q) {
      if (code[i] === "\\") i++;
      i++;
    }
    i++;
  };
  const skipTemplate = (): void => {
    i++;
    while (i < n && code[i] !== "`") {
      if (code[i] === "\\") i += 2;
      else if (code[i] === "$" && code[i + 1] === "{") {
        i += 2;
        let depth = 1;
        while (i < n && depth > 0) {
          const c = code[i]!;
          if (c === "{") depth++;
          else if (c === "}") depth--;
          else if (c === '"' || c === "'") {
            skipString(c);
            continue;
          } else if (c === "`") {
            skipTemplate();
            continue;
          }
          i++;
        }
      } else i++;
    }
    i++;
  };
  while (i < n) {
    const c = code[i]!;
    if (c === "/" && code[i + 1] === "/") {
      while (i < n && code[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && code[i + 1] === "*") {
      const e = code.indexOf("*/", i + 2);
      i = e < 0 ? n : e + 2;
      continue;
    }
    if (c === '"' || c === "'") {
      skipString(c);
      prev = c;
      continue;
    }
    if (c === "`") {
      skipTemplate();
      prev = "`";
      continue;
    }
    if (c === "/" && (prev === "" || "(,=:[!&|?{};+".includes(prev) || prevWord === "return")) {
      let j = i + 1;
      let inClass = false;
      while (j < n && code[j] !== "\n") {
        const d = code[j]!;
        if (d === "\\") j++;
        else if (d === "[") inClass = true;
        else if (d === "]") inClass = false;
        else if (d === "/" && !inClass) break;
        j++;
      }
      let k = j + 1;
      while (k < n && /[a-z]/.test(code[k]!)) k++;
      out.push({ source: code.slice(i + 1, j), flags: code.slice(j + 1, k) });
      i = k;
      prev = "/";
      prevWord = "";
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      let k = i;
      while (k < n && /[\w$]/.test(code[k]!)) k++;
      prevWord = code.slice(i, k);
      prev = "w";
      i = k;
      continue;
    }
    prev = c;
    prevWord = "";
    i++;
  }
  // new RegExp(<anything>, "flags"): the flags argument is what matters here.
  for (const m of code.matchAll(/new RegExp\(([^;]{1,300}?),\s*(?:"([a-z]*)"|`([a-z]*)|"([a-z]*)"\s*\+)/g)) {
    out.push({ source: `(constructed: ${m[1]})`, flags: m[2] ?? m[3] ?? m[4] ?? "" });
  }
  return out;
}

describe("the checker itself", () => {
  test("flags a negated class, \\S and dot under u or v, and nothing without them", () => {
    expect(unicodeNegated('[^"]*x', "u")).toBe(true);
    expect(unicodeNegated("a\\S+b", "gv")).toBe(true);
    expect(unicodeNegated("a.+b", "u")).toBe(true);
    expect(unicodeNegated('[^"]*x', "gi")).toBe(false);
    expect(unicodeNegated("[a^]\\[^x]", "u")).toBe(false);
    expect(unicodeNegated("\\p{L}+", "u")).toBe(false);
  });

  test("finds regex literals, skipping strings, comments and templates", () => {
    const code = [
      'const a = /[^"]+/u; // not /this/',
      "const b = x / 2 / y;",
      'const c = "/not a regex/";',
      "const d = `/nor ${'this/'} /one/`;",
      "function f() { return /ret/g; }",
      'const e = new RegExp(src, "dy" + flags);',
      'const g = new RegExp("a", "u");',
    ].join("\n");
    const found = regexesIn(code);
    expect(found.filter((r) => !r.source.startsWith("(constructed")).map((r) => `${r.source}/${r.flags}`)).toEqual(['[^"]+/u', "ret/g"]);
    expect(found.filter((r) => r.source.startsWith("(constructed")).map((r) => r.flags)).toEqual(["dy", "u"]);
  });
});

describe("no u/v flag on a pattern with a negated class", () => {
  test("every rule's compiled pattern (prefix families built on demand, structural rules)", () => {
    const patterns = [...prefixRules(), ...BUILTIN_RULES].flatMap((r) => r.patterns?.() ?? []);
    // The prefix families alone are about a hundred patterns: an empty walk would pass vacuously.
    expect(patterns.length).toBeGreaterThan(100);
    for (const p of patterns) {
      expect(() => new RegExp(p.source, p.flags)).not.toThrow();
      if (unicodeNegated(p.source, p.flags)) throw new Error(`${p.kind}: /${p.source}/${p.flags}`);
    }
  });

  test("every regex literal and RegExp construction in lib/redact", () => {
    const dir = join(import.meta.dir, "../../lib/redact");
    let literals = 0;
    for (const f of readdirSync(dir).filter((x) => x.endsWith(".ts"))) {
      for (const r of regexesIn(readFileSync(join(dir, f), "utf8"))) {
        literals++;
        if (unicodeNegated(r.source, r.flags)) throw new Error(`${f}: /${r.source}/${r.flags}`);
        // Constructed patterns take their flags from the code: none may add u or v.
        if (r.source.startsWith("(constructed") && /[uv]/.test(r.flags)) throw new Error(`${f}: ${r.source} with ${r.flags}`);
      }
    }
    expect(literals).toBeGreaterThan(50);
  });
});
