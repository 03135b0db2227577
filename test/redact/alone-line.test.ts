/**
 * A password alone on its line, symbols and all (lib/redact/rules/alone-line.ts):
 * what a script that makes or fetches one prints, with no label and no command
 * that names a secret. The negatives are what this machine's own files and the
 * external real-code set hold as one symbol-bearing word on a line.
 */
import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../lib/redact/index.ts";
import { looksLikeLonePassword } from "../../lib/redact/rules/alone-line.ts";

const r = createRedactor({ fingerprintKey: "k" });
const after = (line: string): string => `$ ./scripts/new-db-user.sh\ncreated user app\n${line}\ndone\n`;

describe("a password alone on its line goes", () => {
  for (const pw of [
    "P@ssw0rd$1",
    "d2LkV78zLx!t",
    "dB2yF6@qL9vZm1P#4J",
    "434EWv@Z7KcKlP6M5FO0",
    "ai$oy@v8w9-$rcawnt^87rv3-9k0t&srbc8v",
    "49|07KJBwfPzF2ESyNui5yBw9OVB6eWj0iXkssEKC7b",
    "KUoABcy4vAON5IDR1AskOXAjwrlcoz2IiNYKj8:ocjGep7tW9WMHS7",
    "u@D7GXt)t>8d(LtH^(lvZ<g=",
  ]) {
    test(pw, () => {
      for (const text of [after(pw), after(`    ${pw}  `), after(pw).replaceAll("\n", "\r\n")]) {
        const out = r.text(text);
        expect(out).not.toContain(pw);
        expect(out).toContain("created user app\n".replace("\n", text.includes("\r\n") ? "\r\n" : "\n"));
        expect(out).toContain("[REDACTED:password:");
      }
    });
  }

  test("--explain names the rule", () => {
    const found = r.explainText!(after("dB2yF6@qL9vZm1P#4J")).found;
    expect(found.map((f) => [f.line, f.kind, f.rule])).toEqual([[3, "password", "alone-line"]]);
  });
});

describe("what else is one symbol-bearing word on a line stays", () => {
  for (const word of [
    // This machine's files (bench/redact/machine.ts): names joined by symbols.
    "ssl-cert:x:103:postgres",
    "Normalization*.txt",
    "AsyncGeneratorFunction|AsyncFunction|Promise|Object|",
    "[SECURITY.md][].",
    "Memcheck:Value8",
    "fun:call_init.part.0",
    "fun:pthread_create@@GLIBC_2.2.5",
    "fun:_ZN4node5StartEiPPc",
    "site-policy@w3.org.",
    "x509v3_config.html#STANDARD-EXTENSIONS",
    "0:character_rank_in_language",
    "BindGlobal|BIND_GLOBAL",
    "re.VERBOSE).match",
    "(TextTestRunner).",
    "test-workspaces-fund@1.0.0",
    "processing](#Variables_and_Conditionals).",
    // The external real-code set: calls, member chains, closers.
    "this.#logStream.end(output)",
    "this.#checkDeprecated(key)",
    "this.packumentCache?.delete(this.#cacheKey)",
    "handler.onData?.(Buffer.from(responseData))",
    "}).Level(logLevel)",
    "ItemDelegate{&cmn})",
    // Shapes a terminal prints alone.
    "dev@Laptop-7:~/proj$",
    "root@a1b2c3d4e5f6:/app#",
    "John.Doe1@Example.com",
    "2024-01-01T12:00:00Z",
    "AB:CD:EF:01:23:45:67:89",
    "fe80::1ff:fe23:4567:890a",
    "SHA256:AbC123dEf456GhI789jKl",
    "Map<String,Integer>",
    "${DB_PASSWORD}",
    "<your-password-here>",
    "ERROR:Failed1",
    "@Override",
    "#FF00aa",
    "x86_64-linux-gnu",
  ]) {
    test(word, () => {
      const text = after(word);
      expect(r.text(text)).toBe(text);
    });
  }

  test("a string of one line is its key's to judge (a JSON value), not this rule's", () => {
    expect(r.text("dB2yF6@qL9vZm1P#4J")).toBe("dB2yF6@qL9vZm1P#4J");
    expect(r.value({ title: "dB2yF6@qL9vZm1P#4J" })).toEqual({ title: "dB2yF6@qL9vZm1P#4J" });
  });

  test("a word with spaces around others on its line is not alone", () => {
    const text = "$ ./run.sh\nuser dB2yF6@qL9vZm1P#4J created\n";
    expect(r.text(text)).toBe(text);
  });
});

test("looksLikeLonePassword: the shape alone", () => {
  expect(looksLikeLonePassword("dB2yF6@qL9vZm1P#4J")).toBe(true);
  expect(looksLikeLonePassword("yqDVtkqPECriaLRi")).toBe(false); // no symbol: the entropy rule's
  expect(looksLikeLonePassword("a@b1C")).toBe(false); // too short
  expect(looksLikeLonePassword(`${"aB3$".repeat(17)}`)).toBe(false); // too long for a line's password
  expect(looksLikeLonePassword("user@example.com")).toBe(false);
  expect(looksLikeLonePassword("getUser(id);")).toBe(false);
});
