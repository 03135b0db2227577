/**
 * No rule backtracks super-linearly: for every rule, 1 MB of near misses built
 * from its own keywords costs about 4x what 256 KB costs. The bound is a
 * generous ratio (quadratic would be ~16x), never a wall-clock limit.
 */
import { describe, expect, test } from "bun:test";
import { BUILTIN_RULES, scan } from "../../lib/redact/engine.ts";
import { prefixRules } from "../../lib/redact/prefix.ts";
import { bestMs } from "../support/timing.ts";

// One family at a time (the redactor runs the prefix families through one
// dispatching rule; each family's own regex is what could backtrack).
const RULES = [...prefixRules(), ...BUILTIN_RULES];

function nearMisses(keywords: readonly string[], size: number): string {
  const patterns: string[] = [];
  for (const kw of keywords) {
    const up = kw.toUpperCase();
    const cased = /[a-z]/.test(kw) && /^(akia|asia|abia|acca|aiza|ltai|hrku|nrak|absk|atbb|atatt3|ezak|gr1348941|age-secret|pmak|cfpat|gocspx|a{20})/.test(kw) ? up : kw;
    patterns.push(
      cased.repeat(8),
      cased + "A".repeat(300) + "_",
      cased + "a1B2".repeat(60) + "@",
      cased + "=" + "x9".repeat(400) + " ",
      cased + ":" + " ".repeat(4) + '"' + "q".repeat(500),
      cased + "-----END " + "M".repeat(100),
      cased + "://" + "u".repeat(200) + ":" + "p".repeat(200),
      "\n".repeat(3) + cased + "\n  data:\n" + "  k: v\n".repeat(20),
    );
  }
  let out = "";
  let i = 0;
  while (out.length < size) out += patterns[i++ % patterns.length]!;
  return out.slice(0, size);
}

const cost = (rules: readonly (typeof BUILTIN_RULES)[number][], s: string): number => bestMs(() => scan(s, rules));

describe("every rule scans near misses in linear time", () => {
  for (const [i, rule] of RULES.entries()) {
    test(`rule ${i} (${rule.kinds[0]}) 256 KB vs 1 MB`, () => {
      expect.hasAssertions();
      const small = nearMisses(rule.keywords, 256 * 1024);
      const big = nearMisses(rule.keywords, 1024 * 1024);
      cost([rule], small); // warm the JIT and the lazily compiled regex
      // The rule's own work: minus the shared lowercase pass, whose cost steps
      // up once the string outgrows the CPU cache and says nothing about the rule.
      const measure = (): [number, number] => [
        Math.max(0, cost([rule], small) - cost([], small)),
        Math.max(0, cost([rule], big) - cost([], big)),
      ];
      let [a, b] = measure();
      // 4x the input; allow 12x (noise, cache effects) but not the 16x+ of
      // quadratic work. A noisy outlier gets one re-measure. Below 20 ms for a
      // full megabyte the ratio is noise, and the rule is fast anyway.
      if (b > 20 && b / Math.max(a, 1) >= 12) [a, b] = measure();
      if (b > 20 && b / Math.max(a, 1) >= 12) console.error(`rule ${i}: 256KB ${a.toFixed(1)} ms, 1MB ${b.toFixed(1)} ms`);
      // Below 20 ms for a full megabyte the rule is fast whatever the ratio says.
      expect({ rule: i, ok: b <= 20 || b / Math.max(a, 1) < 12, a, b }).toMatchObject({ rule: i, ok: true });
    }, 60_000);
  }
});

describe("every rule scans one long line of its keywords in linear time", () => {
  // The same near misses with no line break anywhere: a rule that looks for its hit's line start or
  // end afresh at every hit, and remembers nothing about a line too long for it, reads the rest of
  // the line each time (the REPL rule did: 1 MB took 3.9 s). Text with line breaks every few
  // hundred characters, as above, hides that.
  const oneLine = (keywords: readonly string[], size: number): string => nearMisses(keywords, size).replaceAll("\n", " ");
  for (const [i, rule] of RULES.entries()) {
    test(`rule ${i} (${rule.kinds[0]}) one line, 256 KB vs 1 MB`, () => {
      expect.hasAssertions();
      const big = oneLine(rule.keywords, 1024 * 1024);
      cost([rule], big);
      let b = Math.max(0, cost([rule], big) - cost([], big));
      // Most rules take a few milliseconds for the megabyte: nothing to compare.
      if (b <= 20) return void expect(b).toBeLessThanOrEqual(20);
      const small = oneLine(rule.keywords, 256 * 1024);
      let a = Math.max(0, cost([rule], small) - cost([], small));
      if (b / Math.max(a, 1) >= 12) {
        a = Math.max(0, cost([rule], small) - cost([], small));
        b = Math.max(0, cost([rule], big) - cost([], big));
      }
      expect({ rule: i, ok: b <= 20 || b / Math.max(a, 1) < 12, a, b }).toMatchObject({ rule: i, ok: true });
    }, 60_000);
  }
});

describe("the entropy rule's shape tests on a crafted token", () => {
  // A token of name-like pieces (`Qab123_Rcd456_…`) that fails only at its end makes a regex
  // joining the pieces retry every way of matching them if a piece can match two ways: the
  // joined test (PIECES in rules/entropy.ts) took 9 s at 14 pieces before its pieces were made
  // unambiguous. Against a random token of the same length, it must cost about the same.
  const rng = (() => {
    let x = 0x2545f491;
    return () => ((x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) ^ (x + 0x6d2b79f5)) >>> 0) / 2 ** 32;
  })();
  const pick = (set: string) => set[Math.floor(rng() * set.length)]!;
  const pieces = (n: number) =>
    Array.from({ length: n }, () => pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + pick("abcdefghijklmnopqrstuvwxyz") + pick("abcdefghijklmnopqrstuvwxyz") + String(Math.floor(rng() * 9000) + 1000)).join("_");
  const random = (n: number) => Array.from({ length: n }, () => pick("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")).join("");

  test("pieces joined by _ and ended by a stray character cost what a random token costs", () => {
    // Thirteen pieces: enough for seconds of retries when a piece is ambiguous, few enough that the failing run ends.
    const crafted = Array.from({ length: 3 }, () => `api_key: ${pieces(13)}_+x\n`).join("");
    const plain = Array.from({ length: 3 }, (_, i) => `api_key: ${random(crafted.split("\n")[i]!.length - 9)}\n`).join("");
    const a = cost(BUILTIN_RULES, plain);
    const b = cost(BUILTIN_RULES, crafted);
    expect({ ok: b <= 20 || b / Math.max(a, 1) < 12, a, b }).toMatchObject({ ok: true });
  }, 60_000);
});

describe("a transcript's prompt lines (rules/printed.ts)", () => {
  // Each prompt line's command is read against the list of commands that print a secret; a pattern
  // with two `.*` conditions retried every `--with-decryption` of a 4 KB line (400 ms a megabyte).
  test("prompt lines that nearly name a secret store cost what plain prompt lines cost", () => {
    const lines = (body: string): string => {
      let s = "";
      while (s.length < 1024 * 1024) s += body;
      return s;
    };
    const plain = lines(`$ ls ${"-l ".repeat(1500)}\nx\n`);
    for (const near of ["aws ssm get-parameter " + "--with-decryption ".repeat(220), "op item get " + "--field ".repeat(450), "xclip" + " -".repeat(2000), "echo " + "$".repeat(4000)]) {
      const crafted = lines(`$ ${near}\nx\n`);
      const a = cost(BUILTIN_RULES, plain);
      const b = cost(BUILTIN_RULES, crafted);
      expect({ near: near.slice(0, 24), ok: b <= 20 || b / Math.max(a, 1) < 4, a, b }).toMatchObject({ ok: true });
    }
  }, 60_000);
});
