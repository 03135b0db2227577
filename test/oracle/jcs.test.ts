import { describe, expect, test } from "bun:test";
import { canonicalBytes, canonicalize, JcsError } from "../../lib/oracle/jcs.ts";

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt("0x" + hex));
  return view.getFloat64(0);
}

describe("RFC 8785 vectors", () => {
  test("section 3.2.2 example: numbers, string escapes, literals, key order", () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    );
    expect(canonicalize(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  test("section 3.2.3 example: keys sorted by UTF-16 code units", () => {
    const input = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    expect(canonicalize(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis",' +
        '"€":"Euro Sign","😀":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  // Appendix B: IEEE 754 bit patterns and their canonical text.
  const numbers: [string, string][] = [
    ["0000000000000000", "0"],
    ["8000000000000000", "0"],
    ["0000000000000001", "5e-324"],
    ["8000000000000001", "-5e-324"],
    ["7fefffffffffffff", "1.7976931348623157e+308"],
    ["ffefffffffffffff", "-1.7976931348623157e+308"],
    ["4340000000000000", "9007199254740992"],
    ["c340000000000000", "-9007199254740992"],
    ["4430000000000000", "295147905179352830000"],
    ["44b52d02c7e14af5", "9.999999999999997e+22"],
    ["44b52d02c7e14af6", "1e+23"],
    ["44b52d02c7e14af7", "1.0000000000000001e+23"],
    ["444b1ae4d6e2ef4e", "999999999999999700000"],
    ["444b1ae4d6e2ef4f", "999999999999999900000"],
    ["444b1ae4d6e2ef50", "1e+21"],
    ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ["3eb0c6f7a0b5ed8d", "0.000001"],
    ["41b3de4355555553", "333333333.3333332"],
    ["41b3de4355555554", "333333333.33333325"],
    ["41b3de4355555555", "333333333.3333333"],
    ["41b3de4355555556", "333333333.3333334"],
    ["41b3de4355555557", "333333333.33333343"],
    ["becbf647612f3696", "-0.0000033333333333333333"],
    ["43143ff3c1cb0959", "1424953923781206.2"],
  ];
  for (const [bits, text] of numbers) {
    test(`number ${bits} -> ${text}`, () => {
      expect(canonicalize(fromBits(bits))).toBe(text);
    });
  }

  test("NaN and Infinity have no canonical form", () => {
    expect(() => canonicalize(fromBits("7fffffffffffffff"))).toThrow(JcsError);
    expect(() => canonicalize(fromBits("7ff0000000000000"))).toThrow(JcsError);
    expect(() => canonicalize({ a: -Infinity })).toThrow(JcsError);
  });
});

describe("input checks", () => {
  test("lone surrogates are rejected, in values and in keys; pairs are kept", () => {
    expect(() => canonicalize("a\ud800b")).toThrow(JcsError);
    expect(() => canonicalize("\udc00")).toThrow(JcsError);
    expect(() => canonicalize({ "\ud83d": 1 })).toThrow(JcsError);
    expect(canonicalize("\ud83d\ude00")).toBe('"😀"');
  });

  test("non-JSON values are rejected, undefined members are left out", () => {
    expect(() => canonicalize(() => 1)).toThrow(JcsError);
    expect(() => canonicalize(1n)).toThrow(JcsError);
    expect(() => canonicalize([undefined])).toThrow(JcsError);
    expect(() => canonicalize(new Date(0))).toThrow(JcsError);
    expect(canonicalize({ a: undefined, b: 2 })).toBe('{"b":2}');
  });

  test("nesting is canonical at every level and arrays keep their order", () => {
    expect(canonicalize({ z: [{ b: 1, a: 2 }, 3], a: { d: {}, c: [] } })).toBe(
      '{"a":{"c":[],"d":{}},"z":[{"a":2,"b":1},3]}',
    );
  });

  test("a string with characters in every escape class", () => {
    expect(canonicalize("\b\t\n\f\r\u0001\u001f \u007f\u2028")).toBe('"\\b\\t\\n\\f\\r\\u0001\\u001f \u007f\u2028"');
  });

  test("deep nesting throws instead of overflowing the stack", () => {
    let v: unknown = 1;
    for (let i = 0; i < 20_000; i++) v = [v];
    expect(() => canonicalize(v)).toThrow(JcsError);
  });

  test("bytes are UTF-8", () => {
    expect(Array.from(canonicalBytes({ a: "é" }))).toEqual(Array.from(Buffer.from('{"a":"é"}', "utf8")));
  });
});
