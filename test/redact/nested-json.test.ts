/**
 * JSON escaped twice (rules/nested-json.ts): a JSON string holding JSON,
 * inside another JSON string, as a log line or a transcript file keeps it
 * on disk. Each secret goes on the characters that spell it; every other
 * character stays.
 */
import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../lib/redact/index.ts";
import { unescapeOnce } from "../../lib/redact/rules/nested-json.ts";

const r = createRedactor({ fingerprintKey: "k" });
const PW = "Zq7wintersun";
const enc = (v: unknown): string => JSON.stringify(v);

/** `text` with each redaction tag put back as `secret`: what the output is, but for the secret. */
const restored = (text: string, secret: string): string => text.replace(/\[REDACTED:[a-z-]+:[0-9a-f]{4}\]/g, secret);

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

test("unescapeOnce reads one level down and keeps each character's place", () => {
  const s = String.raw`x{\\\"k\\\":\\\"v\u0041\\n\\\"}`;
  const d = unescapeOnce(s, 1, s.length);
  expect(d.text).toBe(String.raw`{\"k\":\"vA\n\"}`);
  // `\\` (two characters) reads as one backslash, `\u0041` (six) as one letter.
  expect([d.at[1], d.end[1]]).toEqual([2, 4]);
  const a = d.text.indexOf("A");
  expect(s.slice(d.at[a]!, d.end[a]!)).toBe(String.raw`\u0041`);
});
