/**
 * Every kind, positive and negative, generated at run time from the shapes,
 * in several wrappers; plus the no-leak property: a redacted record contains
 * no 12-character substring of any planted secret's random part.
 */
import { describe, expect, test } from "bun:test";
import { createRedactor, KINDS } from "../../lib/redact/index.ts";
import { BLOCK_WRAPPERS, Gen, hardNegatives, leak, rng, SHAPES, WRAPPERS } from "./shapes.ts";

const r = createRedactor({ fingerprintKey: "test-key" });

describe("every shape is redacted in every wrapper", () => {
  const g = new Gen(rng(0x5eed));
  for (const [i, shape] of SHAPES.entries()) {
    const wrappers = shape.form === "token" ? WRAPPERS : BLOCK_WRAPPERS;
    for (const [wname, wrap] of Object.entries(wrappers)) {
      test(`${shape.kind} #${i} in ${wname}`, () => {
        const p = shape.make(g);
        const input = wrap(p.text);
        const out = r.text(input);
        expect(leak(out, p.secret)).toBeUndefined();
        if (wname === "raw") expect(out).toContain(`[REDACTED:${shape.kind}:`);
        else expect(out).toContain("[REDACTED:");
        // The value walk sees decoded strings; same guarantee.
        const v = JSON.stringify(r.value({ tool_response: { stdout: input } }));
        expect(leak(v, p.secret)).toBeUndefined();
      });
    }
  }
});

describe("near misses of each family survive", () => {
  const g = new Gen(rng(0xbad));
  for (const [i, shape] of SHAPES.entries()) {
    if (!shape.negatives) continue;
    test(`${shape.kind} #${i} negatives`, () => {
      for (const n of shape.negatives!(g)) expect(r.text(n)).toBe(n);
    });
  }
});

describe("hard negatives survive", () => {
  const g = new Gen(rng(42));
  for (const [i, n] of hardNegatives(g).entries()) {
    test(`hard negative #${i}`, () => {
      expect(r.text(n)).toBe(n);
    });
  }
});

test("at least sixty kinds, each with a generated shape", () => {
  const shaped = new Set(SHAPES.map((s) => s.kind));
  expect(shaped.size).toBeGreaterThanOrEqual(60);
  for (const k of shaped) expect(KINDS).toContain(k);
});
