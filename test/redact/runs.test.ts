import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../lib/redact/index.ts";
import { codeUnits, giveBackRuns, lendRuns, giveBackUnits, lendUnits, RUN_DIGIT, RUN_EQUALS, RUN_LOWER, RUN_UPPER, runLetters, tokenRuns } from "../../lib/redact/runs.ts";

const runsOf = (s: string, min = 10): string[] => {
  const r = tokenRuns(codeUnits(s), min);
  const out: string[] = [];
  for (let i = 0; i < r.length; i += 3) out.push(s.slice(r[i]!, r[i + 1]!));
  return out;
};

describe("token runs", () => {
  test("are maximal runs of token characters, the short ones left out", () => {
    expect(runsOf("key=ghp_ABCDEFGHIJ0123 short x.y~z-w/v+u_t=0123456789 end")).toEqual(["key=ghp_ABCDEFGHIJ0123", "x.y~z-w/v+u_t=0123456789"]);
  });

  test("end at a non-ASCII unit whose low byte is a token character (U+0141 is 0x41 'A' below)", () => {
    expect(runsOf("abcdefghij\u0141klmnopqrst")).toEqual(["abcdefghij", "klmnopqrst"]);
    expect(runsOf("abcdefghij\u00e9klmnopqrst")).toEqual(["abcdefghij", "klmnopqrst"]);
  });

  test("read the same indices from a string whose buffer sits at an odd offset of the shared pool, short or long", () => {
    for (let pad = 0; pad < 8; pad++) {
      Buffer.from("x".repeat(pad % 4), "latin1"); // shifts the pool
      // Short strings are copied with a loop, longer ones through a Buffer (runs.ts SHORT_UNITS).
      const s = (pad < 4 ? "é " : "é ".repeat(400)) + "A1b2C3d4E5f6";
      const u = codeUnits(s);
      expect(u.length).toBe(s.length);
      for (let i = 0; i < s.length; i++) expect(u[i]).toBe(s.charCodeAt(i));
      expect(runsOf(s)).toEqual(["A1b2C3d4E5f6"]);
    }
  });

  test("take a run that ends the text and a text that is one run", () => {
    expect(runsOf("tail " + "z".repeat(12))).toEqual(["z".repeat(12)]);
    expect(runsOf("q".repeat(4000))).toEqual(["q".repeat(4000)]);
    expect(runsOf("")).toEqual([]);
  });

  test("carry each run's classes and letter count, which its rules rule runs out by", () => {
    const shapes = (s: string): [number, number][] => {
      const r = tokenRuns(codeUnits(s), 10);
      const out: [number, number][] = [];
      for (let i = 0; i < r.length; i += 3) out.push([r[i + 2]! & 15, runLetters(r[i + 2]!)]);
      return out;
    };
    expect(shapes("2024-01-05T10:00 abcdefghijkl ABCDEFGHIJ12 key=Value0123/+")).toEqual([
      [RUN_DIGIT | RUN_UPPER, 1],
      [RUN_LOWER, 12],
      [RUN_DIGIT | RUN_UPPER, 10],
      [RUN_DIGIT | RUN_UPPER | RUN_LOWER | RUN_EQUALS, 8],
    ]);
    expect(shapes("-_.~+/-_.~+/")).toEqual([[0, 0]]);
  });

  test("grow past their first allocation", () => {
    const s = Array.from({ length: 3000 }, (_, i) => `tok${String(i).padStart(8, "0")}`).join(" ");
    expect(runsOf(s).length).toBe(3000);
  });
});

describe("the lent code-unit buffer", () => {
  const same = (u: Uint16Array, s: string): boolean => u.length === s.length && [...s].every((_, i) => u[i] === s.charCodeAt(i));

  test("holds exactly the string, lone surrogates and all, over what a longer one left in it", () => {
    const long = "x".repeat(70_000);
    giveBackUnits(lendUnits(long));
    const s = "a\uD800b\u{1F600}é";
    const u = lendUnits(s);
    expect(same(u, s)).toBe(true);
    giveBackUnits(u);
  });

  test("is lent once at a time: a second loan gets a buffer of its own, and the first stays as it was", () => {
    const a = lendUnits("first string, lent");
    const b = lendUnits("second string");
    expect(b.buffer).not.toBe(a.buffer);
    expect(same(a, "first string, lent")).toBe(true);
    giveBackUnits(b); // a buffer of its own: giving it back frees nothing
    const c = lendUnits("third");
    expect(c.buffer).not.toBe(a.buffer);
    giveBackUnits(a);
    const d = lendUnits("fourth");
    expect(d.buffer).toBe(a.buffer);
    giveBackUnits(d);
  });

  test("is given back by a call that redacts a long value whole, which reads it no more", () => {
    const probe = lendUnits("probe");
    giveBackUnits(probe);
    const r = createRedactor({ fingerprintKey: "k" });
    const value = Array.from({ length: 600 }, (_, i) => `Zq8${i}xW`).join("");
    expect(JSON.stringify(r.value({ api_key: value }))).not.toContain("Zq81xW");
    const after = lendUnits("after");
    expect(after.buffer).toBe(probe.buffer);
    giveBackUnits(after);
  });

  test("serves a record of several long strings: each is redacted from its own units, and copies cross them", () => {
    const r = createRedactor({ fingerprintKey: "k" });
    const token = "ghp_" + "A1b2C3d4E5".repeat(3) + "F6g7H8";
    const filler = (w: string) => `${w} line of output\n`.repeat(400);
    const out = JSON.stringify(r.value({ a: filler("one") + `GITHUB_TOKEN=${token}\n`, b: filler("two") + `echo ${token.slice(4)}\n`, c: filler("three") }));
    expect(out).not.toContain(token.slice(4));
    expect(out).toContain("two line of output");
    // The buffer is free again after the call: a text() after it redacts as before.
    expect(r.text(filler("four") + `token: ${token}`)).not.toContain(token.slice(4));
  });
});

describe("lendRuns", () => {
  test("lends one kept list at a time; a second loan before the first is given back is a list of its own", () => {
    const u = codeUnits("x0123456789abc y 0123456789abcdef z".repeat(50));
    const a = lendRuns(u, 10);
    const b = lendRuns(u, 10);
    expect(b.buffer).not.toBe(a.buffer);
    expect([...a]).toEqual([...tokenRuns(u, 10)]);
    expect([...b]).toEqual([...a]);
    giveBackRuns(b); // its own: changes nothing
    const c = lendRuns(u, 10);
    expect(c.buffer).not.toBe(a.buffer);
    giveBackRuns(a);
    const d = lendRuns(u, 10);
    expect(d.buffer).toBe(a.buffer);
    expect([...d]).toEqual([...tokenRuns(u, 10)]);
    giveBackRuns(d);
  });

  test("a shorter text in the kept list reads only its own runs", () => {
    const long = codeUnits("q0123456789abcdef ".repeat(400));
    giveBackRuns(lendRuns(long, 10));
    const short = codeUnits("one 0123456789abcdefg two");
    const r = lendRuns(short, 10);
    expect([...r]).toEqual([...tokenRuns(short, 10)]);
    giveBackRuns(r);
  });
});
