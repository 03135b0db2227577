/**
 * Secrets hidden by an encoding (issue 11): base64, percent-encoding and JSON
 * `\uXXXX` escapes in raw text are decoded and rescanned; the encoded run goes
 * whole, named by what it held.
 */
import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../lib/redact/index.ts";
import { spaceOrQuote } from "../../lib/redact/keys.ts";
import { A, Gen, rng } from "./shapes.ts";

const r = createRedactor({ fingerprintKey: "k" });
const g = new Gen(rng(11));

describe("encoded secrets", () => {
  test("base64 of a line holding a token", () => {
    const tok = "ghp_" + g.s(A.b62, 36);
    const b64 = Buffer.from(`export GITHUB_TOKEN=${tok}\n`).toString("base64");
    const { output, found } = r.explainText!(`$ cat env.b64\n${b64}\n`);
    expect(output).toMatch(/^\$ cat env\.b64\n\[REDACTED:github-pat:[0-9a-f]{4}\]\n$/);
    expect(found[0]).toMatchObject({ kind: "github-pat", within: "base64", rule: "encoded" });
  });
  test("base64 of a password assignment", () => {
    const pw = g.s(A.b62, 14);
    const b64 = Buffer.from(`DB_PASSWORD=${pw}`).toString("base64");
    expect(r.text(`value: ${b64}`)).toMatch(/^value: \[REDACTED:password:[0-9a-f]{4}\]$/);
  });
  test("percent-encoded JSON with a password", () => {
    const pw = g.s(A.b62, 14);
    const enc = encodeURIComponent(JSON.stringify({ user: "app", password: pw }));
    const out = r.text(`GET /login?state=${enc} HTTP/1.1`);
    expect(out).not.toContain(pw);
    expect(out).toContain("GET /login?state=");
  });
  test("JSON \\u escapes in raw text", () => {
    const id = "AKIA" + g.s(A.upnum, 16);
    const escaped = `\\u0041\\u004b${id.slice(2)}`;
    const out = r.text(`{"stdout": "key ${escaped} ok"}`);
    expect(out).not.toContain(id.slice(2));
    expect(out).toContain("[REDACTED:aws-access-key-id:");
  });
  test("plain base64 data with no secret in it stays", () => {
    const b64 = Buffer.from("hello world, this is a perfectly ordinary sentence of text.").toString("base64");
    expect(r.text(`payload ${b64}`)).toBe(`payload ${b64}`);
    const url = `https://example.com/search?q=${encodeURIComponent("a b & c / d")}&page=2`;
    expect(r.text(url)).toBe(url);
  });
});

describe("hex of text (xxd -p, .hex(), %x)", () => {
  const env = (pw: string, tok: string) => `NODE_ENV=production\nPORT=3000\nDB_HOST=db.internal\nDB_PASSWORD=${pw}\nSTRIPE_KEY=sk_live_${tok}\nJWT_SECRET=s3cr3tjwtsigningkey2024\n`;
  /** `text`'s bytes as `xxd -p` prints them: 60 hex digits a line. */
  const xxdP = (text: string): string => Buffer.from(text).toString("hex").match(/.{1,60}/g)!.join("\n");

  test("xxd -p of a .env: every line of the hex goes, the short last one too", () => {
    const pw = g.s(A.b62, 14);
    const hex = xxdP(env(pw, g.s(A.b62, 24)));
    const out = r.text(`$ xxd -p .env\n${hex}\n$ echo done`);
    expect(out).toMatch(/^\$ xxd -p \.env\n\[REDACTED:[a-z-]+:[0-9a-f]{4}\]\n\$ echo done$/);
    // Before, only the lines whose own bytes held a secret went; the last line kept `4\n` of the JWT secret.
    for (const line of hex.split("\n")) expect(out).not.toContain(line);
  });

  test("hex of one assignment, in a line of output", () => {
    const pw = g.s(A.b62, 14);
    const hex = Buffer.from(`password=${pw}`).toString("hex");
    expect(r.text(`payload: ${hex} (hex)`)).toMatch(/^payload: \[REDACTED:password:[0-9a-f]{4}\] \(hex\)$/);
    expect(r.text(`payload: ${hex.toUpperCase()}`)).toMatch(/^payload: \[REDACTED:password:[0-9a-f]{4}\]$/);
  });

  test("hex that is a digest, an id or text without a secret stays", () => {
    for (const text of [
      "3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f0a\n4bc453b53cb3d914b45f4b250294236adba2c0e0\n",
      "sha256: 4bc453b53cb3d914b45f4b250294236adba2c0e09ff6f03793949e7e39fd4cc1",
      `hex: ${Buffer.from("hello world, this is just text").toString("hex")}`,
      xxdP("NODE_ENV=production\nPORT=3000\nLOG_LEVEL=info\n"),
    ]) expect(r.text(text)).toBe(text);
  });
});

describe("where an encoded run ends", () => {
  // spaceOrQuote stands in for the regex class `[\s"']` in the rules that read code units.
  test("spaceOrQuote is `[\\s\"']` for every code unit", () => {
    const re = /[\s"']/;
    const differ: number[] = [];
    for (let c = 0; c < 65536; c++) if (spaceOrQuote(c) !== re.test(String.fromCharCode(c))) differ.push(c);
    expect(differ).toEqual([]);
  });

  test("a percent-encoded secret after a non-breaking space or an ideographic space is found", () => {
    const pw = g.s(A.b62, 20);
    const enc = encodeURIComponent(`postgres://app:${pw}@db.internal/x`);
    for (const sp of ["\u00a0", "\u3000", "\u2028", " "]) {
      const out = r.text(`see${sp}${enc}${sp}done`);
      expect(out).not.toContain(pw);
      expect(out).toContain(`see${sp}`);
      expect(out).toContain(`${sp}done`);
    }
  });
});
