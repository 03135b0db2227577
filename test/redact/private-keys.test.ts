/**
 * Private keys in every shape tool output gives them: recall must be 1.0.
 * Real keys from node:crypto (PKCS#1, PKCS#8, encrypted PKCS#8, SEC1 EC) and
 * an OpenSSH-format body, each printed raw, CRLF, line-numbered (`cat -n`, the
 * Read tool's `     1\t` and `1→`), JSON-escaped (once and twice), flattened
 * onto one line, cut off by `head`, and cut off inside a JSON string.
 */
import { describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { createRedactor } from "../../lib/redact/index.ts";
import { A, Gen, rng } from "./shapes.ts";

const r = createRedactor({ fingerprintKey: "k" });
const g = new Gen(rng(3));

const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
const opensshBody = ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", ...Array.from({ length: 5 }, () => g.s(A.b64, 70)), g.s(A.b64, 20) + "=="];
const KEYS: Record<string, string> = {
  "pkcs1 rsa": rsa.privateKey.export({ type: "pkcs1", format: "pem" }) as string,
  "pkcs8": rsa.privateKey.export({ type: "pkcs8", format: "pem" }) as string,
  "pkcs8 encrypted": rsa.privateKey.export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "pw" }) as string,
  "sec1 ec": ec.privateKey.export({ type: "sec1", format: "pem" }) as string,
  "openssh": `-----BEGIN OPENSSH PRIVATE KEY-----\n${opensshBody.join("\n")}\n-----END OPENSSH PRIVATE KEY-----\n`,
};

/** The key's base64 body lines (what must not survive). */
const bodyOf = (pem: string): string[] => pem.split("\n").filter((l) => l.length > 0 && !l.startsWith("-----") && !l.includes(": "));

/** A 16-char window of any body line that survived, or undefined. */
function survivor(out: string, pem: string, cut = Infinity): string | undefined {
  for (const line of bodyOf(pem).slice(0, cut)) {
    for (let i = 0; i + 16 <= line.length; i += 4) if (out.includes(line.slice(i, i + 16))) return line.slice(i, i + 16);
  }
  return undefined;
}

const catN = (t: string): string => t.split("\n").map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join("\n");
const readArrow = (t: string): string => t.split("\n").map((l, i) => `${String(i + 1).padStart(6)}→${l}`).join("\n");
const readShort = (t: string): string => t.split("\n").map((l, i) => `${i + 1}→${l}`).join("\n");

const SHAPES: Record<string, (pem: string) => string> = {
  raw: (p) => `$ cat key.pem\n${p}$ echo done\n`,
  crlf: (p) => p.replaceAll("\n", "\r\n"),
  "cat -n": (p) => catN(p),
  "Read tool tab": (p) => p.split("\n").map((l, i) => `${i + 1}\t${l}`).join("\n"),
  "Read tool arrow": (p) => readArrow(p),
  "Read tool short arrow": (p) => readShort(p),
  "JSON string (\\n escapes)": (p) => JSON.stringify({ type: "service_account", private_key: p, client_email: "svc@demo.iam.gserviceaccount.com" }),
  "JSON twice": (p) => JSON.stringify({ stdout: JSON.stringify({ private_key: p }) }),
  "Read tool in a raw JSON record": (p) => JSON.stringify({ tool_response: { file: { content: catN(p) } } }),
  "one line, spaces": (p) => `KEY="${p.trim().split("\n").join(" ")}"`,
  "one line, no spaces": (p) => {
    const lines = p.trim().split("\n");
    return `PRIVATE=${lines[0]}${lines.slice(1, -1).join("")}${lines[lines.length - 1]}`;
  },
  "head -5 (no END)": (p) => `$ head -5 key.pem\n${p.split("\n").slice(0, 5).join("\n")}\n$ ls\n`,
  "cut mid-line at end of output": (p) => p.slice(0, Math.floor(p.length * 0.6)),
  "cut inside a JSON string": (p) => JSON.stringify({ stdout: p.slice(0, Math.floor(p.length * 0.6)) + "\n... [output truncated]" }),
  "cut with a ... marker": (p) => p.slice(0, Math.floor(p.length * 0.5)) + "...\n(truncated)",
  "cat -n, cut": (p) => catN(p.split("\n").slice(0, 6).join("\n")),
};

describe("private keys: every key type in every shape", () => {
  for (const [kname, pem] of Object.entries(KEYS)) {
    for (const [sname, shape] of Object.entries(SHAPES)) {
      test(`${kname}, ${sname}`, () => {
        const input = shape(pem);
        // Only lines that made it into the input must be gone.
        const present = bodyOf(pem).filter((l) => input.includes(l.slice(0, 16)) || JSON.stringify(input).includes(l.slice(0, 16)));
        const out = r.text(input);
        expect(survivor(out, present.join("\n") + "\n")).toBeUndefined();
        expect(out).toContain("[REDACTED:");
        if (sname.startsWith("JSON") || sname.includes("raw JSON")) {
          // Parsed, as the hook sees it: the value walk too.
          const outV = JSON.stringify(r.value(JSON.parse(input)));
          expect(survivor(outV, present.join("\n") + "\n")).toBeUndefined();
        }
      });
    }
  }

  test("an OpenSSH body without its BEGIN line", () => {
    const out = r.text(`...\n${opensshBody.join("\n")}\n-----END OPENSSH PRIVATE KEY-----\n`);
    expect(survivor(out, opensshBody.join("\n"))).toBeUndefined();
    expect(out).toContain("[REDACTED:openssh-private-key:");
  });

  // A key body printed without its BEGIN line (a copied middle, `tail`, a
  // field stripped of its header): the DER opening says what it is.
  const ed = generateKeyPairSync("ed25519");
  const ec8 = ec.privateKey.export({ type: "pkcs8", format: "pem" }) as string;
  const headless: Record<string, string> = {
    ...Object.fromEntries(Object.entries(KEYS).filter(([k]) => !/encrypted|openssh/.test(k))),
    "pkcs8 ec": ec8,
    "pkcs8 ed25519": ed.privateKey.export({ type: "pkcs8", format: "pem" }) as string,
  };
  for (const [kname, pem] of Object.entries(headless)) {
    test(`${kname} body without its BEGIN and END lines, raw and line-numbered`, () => {
      const body = bodyOf(pem).join("\n");
      for (const text of [`$ sed -n 2,99p key.pem\n${body}\n$ echo ok\n`, catN(body), readArrow(body)]) {
        const out = r.text(text);
        expect(survivor(out, pem)).toBeUndefined();
        expect(out).toMatch(/\[REDACTED:[a-z]+-private-key:|\[REDACTED:private-key:/);
      }
    });
  }

  test("a body without its BEGIN line inside a JSON string, right after a \\n escape", () => {
    for (const pem of [KEYS["openssh"]!, KEYS["sec1 ec"]!, KEYS["pkcs8"]!]) {
      const body = bodyOf(pem).join("\\n");
      const out = r.text(`{"key": "junk\\n${body}\\n-----END"}`);
      expect(survivor(out, pem)).toBeUndefined();
    }
  });

  test("SSH2 (RFC 4716) private key", () => {
    const body = Array.from({ length: 4 }, () => g.s(A.b64, 64));
    const out = r.text(`---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "rsa-key"\n${body.join("\n")}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----\n`);
    expect(survivor(out, body.join("\n"))).toBeUndefined();
  });

  test("the text after a cut-off key stays; the header and END line stay", () => {
    const pem = KEYS.pkcs8!;
    const out = r.text(`${pem.split("\n").slice(0, 4).join("\n")}\nadded 12 packages in 3s\n`);
    expect(out).toContain("-----BEGIN PRIVATE KEY-----");
    expect(out).toContain("\nadded 12 packages in 3s\n");
    const full = r.text(catN(pem));
    expect(full).toContain("-----BEGIN PRIVATE KEY-----");
    expect(full).toContain("-----END PRIVATE KEY-----");
  });

  test("public keys, certificates and docs stubs stay", () => {
    const pub = rsa.publicKey.export({ type: "spki", format: "pem" }) as string;
    expect(r.text(pub)).toBe(pub);
    const stub = "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----\n";
    expect(r.text(stub)).toBe(stub);
    const ssh = `ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ${g.s(A.b64, 60)} me@host`;
    expect(r.text(ssh)).toBe(ssh);
  });
});

describe("PuTTY .ppk keys", () => {
  const priv = Array.from({ length: 4 }, () => g.s(A.b64, 64));
  const ppk = (comment: string) =>
    `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ${comment}\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIO\nAAAAC3NzaC1lZDI1NTE5AAAAIO\nPrivate-Lines: 4\n${priv.join("\n")}\nPrivate-MAC: ${g.s(A.hex, 64)}\nnext line stays\n`;

  test("the private lines go; the header, the public lines and what follows stay", () => {
    const out = r.text(ppk("me@laptop"));
    expect(survivor(out, priv.join("\n"))).toBeUndefined();
    expect(out).toContain("[REDACTED:putty-private-key:");
    expect(out).toContain("Comment: me@laptop\nPublic-Lines: 2\n");
    expect(out).toContain("\nnext line stays\n");
  });

  // Lowercasing can lengthen a string ('İ' becomes two code units): offsets found in a lowercased
  // copy of the file moved one character per such letter, and a comment of them moved the span
  // off the key.
  test("a comment whose letters lowercase to more code units does not move the span", () => {
    const comment = "İ".repeat(300);
    const out = r.text(ppk(comment));
    expect(survivor(out, priv.join("\n"))).toBeUndefined();
    expect(out).toContain(`Comment: ${comment}\nPublic-Lines: 2\n`);
    expect(out).toContain("\nnext line stays\n");
  });
});

/**
 * A key as `openssl pkey -text -noout` prints it: each component's name, then
 * its big-endian bytes as colon hex, fifteen to a line, with a leading 00 when
 * the top bit is set.
 */
function opensslText(jwk: Record<string, string | undefined>, kind: "rsa" | "ec" | "ed25519"): { text: string; secrets: string[] } {
  const hex = (b64u: string): string[] => {
    const bytes = [...Buffer.from(b64u, "base64url")];
    if (bytes[0]! >= 0x80) bytes.unshift(0);
    return bytes.map((b) => b.toString(16).padStart(2, "0"));
  };
  const block = (name: string, b64u: string): string => {
    const h = hex(b64u);
    const lines: string[] = [];
    for (let i = 0; i < h.length; i += 15) lines.push(`    ${h.slice(i, i + 15).join(":")}${i + 15 < h.length ? ":" : ""}`);
    return `${name}:\n${lines.join("\n")}\n`;
  };
  const secrets: string[] = [];
  const secret = (name: string, b64u: string): string => {
    const b = block(name, b64u);
    // Lines of five bytes or more: a last line of one byte (`d5`) is in any hex.
    secrets.push(...b.split("\n").slice(1).map((l) => l.trim()).filter((l) => l.length >= 14));
    return b;
  };
  if (kind === "rsa") {
    const text = `Private-Key: (2048 bit, 2 primes)\n${block("modulus", jwk.n!)}publicExponent: 65537 (0x10001)\n${secret("privateExponent", jwk.d!)}${secret("prime1", jwk.p!)}${secret("prime2", jwk.q!)}${secret("exponent1", jwk.dp!)}${secret("exponent2", jwk.dq!)}${secret("coefficient", jwk.qi!)}`;
    return { text, secrets };
  }
  const heading = kind === "ec" ? "Private-Key: (256 bit)" : "ED25519 Private-Key:";
  const tail = kind === "ec" ? "ASN1 OID: prime256v1\nNIST CURVE: P-256\n" : "";
  return { text: `${heading}\n${secret("priv", jwk.d!)}${block("pub", jwk.x!)}${tail}`, secrets };
}

describe("a private key printed as its numbers (openssl pkey -text -noout)", () => {
  const printed = {
    rsa: opensslText(rsa.privateKey.export({ format: "jwk" }) as Record<string, string>, "rsa"),
    ec: opensslText(ec.privateKey.export({ format: "jwk" }) as Record<string, string>, "ec"),
    ed25519: opensslText(generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" }) as Record<string, string>, "ed25519"),
  };
  for (const [name, { text, secrets }] of Object.entries(printed)) {
    test(`${name}: every private component goes, raw, CRLF, in a JSON string and walked as a value; names and public parts stay`, () => {
      for (const out of [r.text(text), r.text(text.replaceAll("\n", "\r\n")), r.text(JSON.stringify({ type: "tool_result", content: text })), JSON.stringify(r.value({ tool_response: { stdout: text } }))]) {
        for (const line of secrets) expect(out).not.toContain(line);
        expect(out).toContain(name === "rsa" ? "privateExponent:" : "priv:");
        expect(out).toContain(name === "rsa" ? "modulus:" : "pub:");
      }
      // The public part is left whole: the first line under modulus / pub.
      const lines = text.split("\n");
      const pub = lines[lines.indexOf(name === "rsa" ? "modulus:" : "pub:") + 1]!.trim();
      expect(r.text(text)).toContain(pub);
    });
  }

  test("`priv:` with hex under it but no Private-Key heading above, and RSA names out of place, stay", () => {
    for (const text of [
      "priv:\n    00:b5:6a:31:9c:7e:11:f0:2a:8d:44:e1:93:0b:7c:52\n",
      "see prime1: below\n    00:b5:6a:31:9c:7e:11:f0\n",
      "// exponent1: computed later\n",
    ]) expect(r.text(text)).toBe(text);
  });
});
