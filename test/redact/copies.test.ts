/**
 * Every occurrence of every found value goes, in the whole record: a secret
 * found once under its label is masked wherever else it appears, in any
 * field, key or form (JSON-escaped, URL-encoded, base64).
 */
import { describe, expect, test } from "bun:test";
import { Copies } from "../../lib/redact/copies.ts";
import { createRedactor } from "../../lib/redact/index.ts";
import { A, Gen, leak, rng } from "./shapes.ts";

const r = createRedactor({ fingerprintKey: "k" });
const g = new Gen(rng(12));

describe("copies", () => {
  test("one secret repeated in 3 fields and 5 places of one record leaves no copy", () => {
    const pw = g.s(A.b62, 18);
    const record = {
      tool_input: { command: `psql "postgresql://app@db.internal:5432/orders" -c 'select 1' && export PGPASSWORD=${pw}` },
      tool_response: { stdout: `PGPASSWORD=${pw}\nconnected as app with ${pw}\n`, stderr: `warning: password ${pw} is weak` },
      note: `retry with ${pw}`,
    };
    const out = JSON.stringify(r.value(record));
    expect(leak(out, pw)).toBeUndefined();
    const tags = out.match(/\[REDACTED:password:[0-9a-f]{4}\]/g) ?? [];
    expect(tags.length).toBe(5);
    expect(new Set(tags).size).toBe(1);
    // Everything else stays.
    expect(out).toContain("postgresql://app@db.internal:5432/orders");
    expect(out).toContain("connected as app with ");
    expect(out).toContain("is weak");
    expect(out).toContain("retry with ");
  });

  test("text(): a token labelled once and echoed bare later", () => {
    const key = g.s(A.b62, 12) + g.s(A.hex, 20);
    const out = r.text(`MY_SERVICE_API_KEY=${key}\n$ curl -s https://api.example.net/v1/ping?k=${key}\necho ${key}\n`);
    expect(leak(out, key)).toBeUndefined();
    expect(out).toContain("https://api.example.net/v1/ping?k=[REDACTED:");
  });

  test("copies in other forms: JSON-escaped, URL-encoded, base64; and in keys", () => {
    const pw = "p@ss/" + g.s(A.b62, 14) + "\"+q";
    const record = {
      password: pw,
      log: `url=https://h.example/login?pw=${encodeURIComponent(pw)}`,
      raw: JSON.stringify({ nested: `pw is ${pw}` }),
      b64: `blob ${Buffer.from(pw).toString("base64")}`,
      [`seen:${pw}`]: 1,
    };
    const out = r.value(record) as Record<string, unknown>;
    const text = JSON.stringify(out);
    expect(text.includes(pw)).toBe(false);
    expect(text.includes(encodeURIComponent(pw))).toBe(false);
    expect(text.includes(JSON.stringify(pw).slice(1, -1))).toBe(false);
    expect(text.includes(Buffer.from(pw).toString("base64").replace(/=+$/, ""))).toBe(false);
    expect(Object.keys(out).some((k) => k.startsWith("seen:[REDACTED:password:"))).toBe(true);
  });

  test("a copy that another rule found only part of still goes whole", () => {
    // Seen in trufflehog's fixtures: the labelled copy is one value; in the bare copy the
    // entropy rule stops at `:` or `%` and finds a piece. The copy must win over the piece.
    for (const v of [
      "KUoABcy4vAON5IDR1AskOXAjwrlcoz2IiNYKj8:ocjGep7tW9WMHS7",
      "EGGIFBZPKVTIKCEJCSRHQY%5PabdkLS20yFOCKlOiXqbTG%PHGkqp%Ybm%2YgUAvoI-%3ZXVX8KgdsYSJ1DEgoxhGkoY6cNMN8EZidvGnJQ4Z8",
    ]) {
      const out = r.text(`service token = '${v}' | '${v}'\n`);
      expect(leak(out, v)).toBeUndefined();
      const tags = out.match(/\[REDACTED:[a-z-]+:[0-9a-f]{4}\]/g) ?? [];
      expect(tags).toHaveLength(2);
      expect(tags[1]).toBe(tags[0]!);
      expect(out).toStartWith("service token = '");
    }
    // The same in a record: the piece is in another field than the labelled value.
    const v = "Zr81QpLm4TxW2vNc9KaHs7:BdYe3Fu6Gj";
    const out = JSON.stringify(r.value({ api_token: v, log: `retrying with ${v} now` }));
    expect(leak(out, v)).toBeUndefined();
    expect(out).toContain("retrying with [REDACTED:");
    expect(out).toContain("] now");
  });

  test("a letters-only token goes in every copy; a name a rule took for a value does not spread", () => {
    const v = "vZrEclFwOqeA";
    const out = r.text(`parsehub token = '${v}' | '${v}'\n`);
    expect(out).not.toContain(v);
    // `Secret: secretValue`, `token = XMLHttpRequest`: whatever the rule made of them, the words stay elsewhere.
    const names = r.value({ secret: "secretValue", token: "XMLHttpRequest", note: "secretValue and XMLHttpRequest" }) as Record<string, string>;
    expect(names.note).toBe("secretValue and XMLHttpRequest");
  });

  test("short finds are masked only where they stand alone", () => {
    // A 6-char password: its copy inside a longer word is no copy.
    const out = r.value({ password: "Zq81xW", msg: "Zq81xW and Zq81xWabc and (Zq81xW)" }) as Record<string, string>;
    expect(out.msg).toMatch(/^\[REDACTED:password:[0-9a-f]{4}\] and Zq81xWabc and \(\[REDACTED:password:[0-9a-f]{4}\]\)$/);
  });

  test("explain marks copies", () => {
    const pw = g.s(A.b62, 16);
    const { found } = r.explainValue!({ password: pw, note: `again ${pw}` });
    expect(found.map((f) => [f.path, f.kind, f.copy === true])).toEqual([["$.password", "password", false], ["$.note", "password", true]]);
  });

  test("scope(): pieces redacted one by one, copies masked across them", () => {
    const tok = "ghp_" + g.s(A.b62, 36);
    const pw = g.s(A.b62, 16);
    const s = r.scope!();
    // The bare copy comes first, before the labelled one is seen.
    const a = s.value({ stdout: `got ${pw}` });
    const b = s.value({ env: { DB_PASSWORD: pw }, t: tok });
    const c = s.value({ again: tok.slice(4) });
    const all = JSON.stringify(s.maskCopies([a, b, c]));
    expect(leak(all, pw)).toBeUndefined();
    expect(leak(all, tok.slice(4))).toBeUndefined();
    // A fresh scope remembers nothing.
    expect(JSON.stringify(r.scope!().value({ stdout: `got ${pw.slice(0, 10)}` }))).toContain(pw.slice(0, 10));
  });

  test("a clean record is returned unchanged", () => {
    const v = { a: "hello world", b: [1, 2, { c: "input_tokens 1234" }], d: null };
    expect(r.value(v)).toEqual(v);
  });
});

test("the copy search is linear: many finds sharing a prefix, echoed many times", () => {
  const doc = (n: number): Record<string, string> => {
    const v: Record<string, string> = {};
    let log = "";
    for (let i = 0; i < n; i++) {
      const t = "ghp_" + "A1b2C3d4".repeat(4) + String(i).padStart(4, "0");
      v[`t${i}`] = t;
      log += `ghp_A1b2C3d4 near miss ${t.slice(0, 30)} and ${t}\n`;
    }
    v.log = log;
    return v;
  };
  const cost = (x: unknown): number => {
    let best = Infinity;
    for (let k = 0; k < 3; k++) {
      const t = performance.now();
      r.value(x);
      best = Math.min(best, performance.now() - t);
    }
    return best;
  };
  // Thousands of short strings and thousands of forms: searched form by form, each string cost
  // every form's indexOf (4,000 finds took 750 ms, 32x the time of 500).
  const small = doc(500);
  const big = doc(4000);
  cost(small);
  const a = cost(small);
  const b = cost(big);
  // 8x the finds and 8x the text: quadratic would be ~64x.
  if (b > 20) expect(b / Math.max(a, 1)).toBeLessThan(20);
  const out = JSON.stringify(r.value(small));
  expect(Object.values(small).filter((t) => t.startsWith("ghp_") && out.includes(t.slice(4))).length).toBe(0);
}, 60_000);

test("copies of secrets that share their first eight and last four characters all go (sequential passwords)", () => {
  // A head and a tail told such forms apart no better than one: each copy was compared with every
  // form of the family until the compare budget ran out, and the copies after that stayed in clear.
  const pw = (i: number) => `CorrectHorse${String(i).padStart(5, "0")}Staple`;
  for (const n of [1000, 20_000]) {
    let text = "";
    for (let i = 0; i < n; i++) text += `user${i}: password=${pw(i)}\n`;
    text += `later the log printed ${pw(7)} and ${pw(n - 3)} in clear\n`;
    const out = createRedactor({ fingerprintKey: "k" }).text(text);
    expect(out.slice(out.lastIndexOf("later"))).toMatch(/^later the log printed \[REDACTED:password:[0-9a-f]{4}\] and \[REDACTED:password:[0-9a-f]{4}\] in clear\n$/);
    expect(leak(out, pw(7))).toBeUndefined();
  }
}, 60_000);

describe("the many-secrets copy search finds exactly what a search for each form finds", () => {
  // The reference: every form searched for natively, then the same rules as find (bounded short
  // forms stand alone, longest first at a position, no overlaps).
  const reference = (forms: readonly string[], s: string): string[] => {
    const isWord = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    const hits: [number, number][] = [];
    for (const f of forms) {
      for (let i = s.indexOf(f); i !== -1; i = s.indexOf(f, i + 1)) {
        const ok = f.length >= 10 || (!isWord(i > 0 ? s.charCodeAt(i - 1) : 32) && !isWord(i + f.length < s.length ? s.charCodeAt(i + f.length) : 32));
        if (ok) hits.push([i, i + f.length]);
      }
    }
    hits.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const out: string[] = [];
    let end = 0;
    for (const [a, b] of hits) {
      if (a < end) continue;
      out.push(`${a}+${b - a}`);
      end = b;
    }
    return out;
  };
  const gen = new Gen(rng(20261203));
  const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const word = (n: number) => gen.s(ALNUM, n);
  const below = (n: number) => gen.int(0, n - 1);
  // Lengths around every threshold: 4-char and 8-char forms, the sampled minimum (12) and stride edges.
  // Texts of `pieces` pieces: 60 keeps a string under NATIVE_MAX (searched form by form), 2,000
  // puts it past (the sampled and every-position passes).
  test("a family of forms sharing their first twelve characters, told apart by length and tail", () => {
    const c = new Copies();
    const forms: string[] = [];
    for (let k = 0; k < 300; k++) {
      const f = "sk-ant-api03" + word([8, 20, 20, 33][k % 4]!) + (k % 2 ? "7" : "");
      c.add(f, { kind: "k", tag: "0000" });
      forms.push(f);
    }
    const registered = forms.filter((f) => c.lookup(f) !== undefined);
    expect(registered.length).toBe(300);
    for (const pieces of [40, 4000]) {
      let s = "";
      for (let k = 0; k < pieces; k++) {
        const f = registered[below(registered.length)]!;
        const r2 = below(4);
        if (r2 === 0) s += ` ${f} `;
        else if (r2 === 1) s += f.slice(0, 12 + below(f.length - 12)) + " ";
        else if (r2 === 2) s += f + f;
        else s += "sk-ant-api03" + word(20) + "\n";
      }
      expect(c.find(s).map(([a, b]) => `${a}+${b - a}`)).toEqual(reference(registered, s));
    }
  });

  for (const [name, lens, count, pieces] of [
    ["long forms only, the sampled path", [12, 13, 20, 33, 64], 120, 2000],
    ["long forms and a few short ones (searched natively)", [6, 12, 20, 33, 40, 50, 64, 70, 80, 90, 100, 110], 96, 2000],
    ["long forms and more short ones (every position read)", [4, 6, 9, 11, 12, 25, 40], 60, 2000],
    ["many short forms too (every position read)", [5, 8, 10, 11, 14, 30], 160, 2000],
    ["one length only, the shortest sampled", [8], 90, 2000],
    ["few forms in a long string, the sampled path", [7, 9, 16, 40], 12, 20000],
    ["many forms in a short string, form by form", [5, 8, 12, 30], 120, 60],
  ] as const) {
    test(name, () => {
      const c = new Copies();
      const forms: string[] = [];
      for (let k = 0; k < count; k++) {
        // Token characters only: a find's escaped forms are then the find itself.
        const f = word(lens[k % lens.length]!) + (k % 3 === 0 ? "9" : "");
        if (!/\d/.test(f) && /^[A-Za-z]+$/.test(f)) continue; // copyWorthy drops letters-only words
        c.add(f, { kind: "k", tag: "0000" });
        forms.push(f);
      }
      const registered = forms.filter((f) => c.lookup(f) !== undefined);
      expect(registered.length).toBeGreaterThan(count > 24 ? 24 : 8);
      // Copies at the very start and end, glued to words, back to back, overlapping each other, in noise.
      for (let trial = 0; trial < (pieces > 60 ? 4 : 20); trial++) {
        let s = "";
        const pick = () => registered[below(registered.length)]!;
        s += pick();
        for (let k = 0; k < pieces; k++) {
          const r2 = below(5);
          if (r2 === 0) s += " " + pick() + " ";
          else if (r2 === 1) s += pick() + pick();
          else if (r2 === 2) s += word(below(7));
          else if (r2 === 3) { const f = pick(); s += f.slice(0, below(f.length)); }
          else s += "\n" + word(1 + below(3)) + "=" + pick();
        }
        s += pick();
        expect(s.length * c.size > 1 << 20).toBe(pieces > 60);
        const got = c.find(s).map(([a, b]) => `${a}+${b - a}`);
        // Forms the reference knows are only the registered ones, plus their base64 forms (never in this text).
        expect(got).toEqual(reference(registered, s));
      }
    });
  }
});
