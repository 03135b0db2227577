/**
 * Text escaped for another syntax (rules/escaped.ts): JSON escaped twice, as
 * a log line or a transcript file keeps a JSON string holding JSON, and JSON
 * in a page's HTML entities. Each secret goes on the characters that spell
 * it; every other character stays.
 */
import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../lib/redact/index.ts";
import { unescapeHtml, unescapeJson } from "../../lib/redact/rules/escaped.ts";
import { restored } from "./shapes.ts";

const r = createRedactor({ fingerprintKey: "k" });
const PW = "Zq7wintersun";
const enc = (v: unknown): string => JSON.stringify(v);


describe("a secret in JSON escaped twice or more goes, and nothing else", () => {
  // A log line carrying a serialized event whose body is serialized JSON.
  const twice = enc({ level: "info", event: enc({ path: "/login", body: enc({ user: "app", password: PW }) }) });
  // A transcript line whose tool result is JSON text holding a settings file's JSON.
  const transcript = enc({ type: "user", message: { content: [{ type: "tool_result", content: enc({ stdout: enc({ db: { host: "db.internal", password: PW } }) }) }] } });
  // Three levels down.
  const thrice = enc({ m: enc({ m: enc({ m: enc({ password: PW, port: 5432 }) }) }) });
  for (const [name, text] of [["a log line's serialized event", twice], ["a transcript line's tool result", transcript], ["three levels down", thrice]] as const) {
    test(name, () => {
      expect(text).toContain('\\\\\\"password');
      const out = r.text(`${text}\n`);
      expect(out).not.toContain(PW);
      expect(out).toContain("[REDACTED:password:");
      expect(restored(out, PW)).toBe(`${text}\n`);
    });
  }

  test("the secret's tag is the one it has anywhere else, and its copies elsewhere go", () => {
    const tag = /\[REDACTED:password:([0-9a-f]{4})\]/.exec(r.text(`DB_PASSWORD=${PW}`))![1];
    const out = r.text(`${twice}\nretrying with ${PW}\n`);
    expect([...out.matchAll(/\[REDACTED:password:([0-9a-f]{4})\]/g)].map((m) => m[1])).toEqual([tag, tag]);
  });

  test("escaped JSON with no secret, and code that escapes quotes, stay", () => {
    for (const text of [
      enc({ m: enc({ m: enc({ user: "app", host: "db.internal", port: 5432 }) }) }),
      'const quoted = "say \\\\\\"hello\\\\\\" twice";',
      String.raw`C:\\\"Program Files\\\" is quoted`,
    ]) expect(r.text(text)).toBe(text);
  });
});

test("unescapeJson reads one level down and keeps each character's place", () => {
  const s = String.raw`x{\\\"k\\\":\\\"v\u0041\\n\\\"}`;
  const d = unescapeJson(s, 1, s.length);
  expect(d.text).toBe(String.raw`{\"k\":\"vA\n\"}`);
  // `\\` (two characters) reads as one backslash, `\u0041` (six) as one letter.
  expect([d.at[1], d.end[1]]).toEqual([2, 4]);
  const a = d.text.indexOf("A");
  expect(s.slice(d.at[a]!, d.end[a]!)).toBe(String.raw`\u0041`);
});

describe("a secret in JSON a page writes with HTML entities goes, and nothing else", () => {
  const entities = (t: string): string => t.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
  for (const [name, text] of [
    ["a debug page's <pre>", `<pre>${entities(enc({ user: "app", password: PW }))}</pre>`],
    ["a framework's props in a data- attribute", `<div id="app" data-page="${entities(enc({ props: { apiKey: "Zq7wintersun2024abc", team: "Acme & Co" } }))}"></div>`],
    ["numeric references", `<pre>{&#34;password&#34;:&#34;${PW}&#34;}</pre>`],
  ] as const) {
    test(name, () => {
      const secret = name.startsWith("a framework") ? "Zq7wintersun2024abc" : PW;
      const out = r.text(`${text}\n`);
      expect(out).not.toContain(secret);
      expect(restored(out, secret)).toBe(`${text}\n`);
    });
  }

  test("a page with entities and no secret stays", () => {
    for (const text of [
      "<p>Say &quot;hello&quot; &amp; welcome, &lt;user&gt;</p>",
      `<div data-page="${entities(enc({ props: { user: "app", page: 2, password: "" } }))}"></div>`,
      '<label title="Type your &quot;password&quot; twice">Password</label>',
    ]) expect(r.text(text)).toBe(text);
  });
});

test("unescapeHtml reads character references back and keeps each character's place", () => {
  const s = "a&quot;b&#39;c&#x22;d&amp;e&bogus;";
  const d = unescapeHtml(s, 0, s.length);
  expect(d.text).toBe("a\"b'c\"d&e&bogus;");
  const q = d.text.indexOf("'");
  expect(s.slice(d.at[q]!, d.end[q]!)).toBe("&#39;");
});

describe("a secret in JSON that writes `=` and `&` as \\u escapes goes, and nothing else", () => {
  // What Gson writes by default for a URL with a query and for a `key=value` setting.
  const gson = (t: string): string => t.replaceAll("=", "\\u003d").replaceAll("&", "\\u0026");
  const TOKEN = "Zq7wInTeRsUn2024aBcDeF";
  for (const [name, text, secret] of [
    ["a callback URL's token", gson(enc({ callback: `https://app.example/cb?state=42&access_token=${TOKEN}&expires_in=3600` })), TOKEN],
    ["a setting with a password", gson(enc({ event: "config", line: `password=${PW}` })), PW],
    ["a form body, capitals in the escape", enc({ body: `user=app&password=${PW}` }).replaceAll("=", "\\u003D").replaceAll("&", "\\u0026"), PW],
  ] as const) {
    test(name, () => {
      expect(text).toContain("\\u003");
      const out = r.text(`${text}\n`);
      expect(out).not.toContain(secret);
      expect(restored(out, secret)).toBe(`${text}\n`);
    });
  }

  test("such JSON with no secret stays", () => {
    for (const text of [
      gson(enc({ url: "https://app.example/search?q=cats&page=2", sum: "a+b=c" })),
      gson(enc({ note: "x = 1 & y = 2", sha: "sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" })),
    ]) expect(r.text(text)).toBe(text);
  });
});
