import { describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { canonicalize } from "../../lib/oracle/jcs.ts";
import { keyIdOf, sha256Hex, signVerdict, verifyVerdict, type SignedVerdict } from "../../lib/oracle/verdict.ts";

function pair() {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    priv: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
    pub: publicKey.export({ type: "spki", format: "pem" }) as string,
  };
}

const keys = pair();
const other = pair();
const binding = {
  task_id: "task-1",
  session_id: "11111111-2222-3333-4444-555555555555",
  base_commit: "a".repeat(40),
  diff_sha256: sha256Hex("diff --git a/x b/x\n"),
  chain_head: "c".repeat(64),
  attempt: 2,
};
const signed = signVerdict({ ...binding, verdict: "PASS", tests_hash: "t".repeat(64), issued_at: "2026-01-02T03:04:05.000Z" }, keys.priv);

describe("sign and verify", () => {
  test("a fresh verdict verifies against its key and the request it answers", () => {
    expect(verifyVerdict(signed, keys.pub, binding)).toEqual({ verified: true });
    expect(signed.key_id).toBe(keyIdOf(keys.pub));
    expect(signed.key_id).toMatch(/^[0-9a-f]{16}$/);
    expect(Buffer.from(signed.signature, "base64")).toHaveLength(64);
  });

  test("it survives a JSON round trip (what goes over HTTP and into the store)", () => {
    expect(verifyVerdict(JSON.parse(JSON.stringify(signed)), keys.pub, binding).verified).toBe(true);
    // Key order on the wire does not matter: JCS sorts.
    const reordered = Object.fromEntries(Object.entries(signed).reverse());
    expect(verifyVerdict(reordered, keys.pub, binding).verified).toBe(true);
  });

  test("the signed bytes are the JCS of every field but the signature", () => {
    const { signature: _s, ...rest } = signed;
    const { createPublicKey, verify } = require("node:crypto") as typeof import("node:crypto");
    expect(verify(null, Buffer.from(canonicalize(rest)), createPublicKey(keys.pub), Buffer.from(signed.signature, "base64"))).toBe(true);
  });

  test("key id from the private key equals key id from the public key", () => {
    expect(keyIdOf(keys.priv)).toBe(keyIdOf(keys.pub));
    expect(keyIdOf(other.pub)).not.toBe(keyIdOf(keys.pub));
  });

  test("issued_at defaults to now, as ISO UTC", () => {
    const s = signVerdict({ ...binding, verdict: "FAIL", tests_hash: "h" }, keys.priv);
    expect(s.issued_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(verifyVerdict(s, keys.pub, binding).verified).toBe(true);
  });
});

describe("tampering with any field breaks it", () => {
  const changes: Record<keyof SignedVerdict, unknown> = {
    task_id: "task-2",
    session_id: "99999999-2222-3333-4444-555555555555",
    base_commit: "b".repeat(40),
    diff_sha256: sha256Hex("other"),
    chain_head: "d".repeat(64),
    attempt: 3,
    verdict: "FAIL",
    tests_hash: "u".repeat(64),
    issued_at: "2030-01-01T00:00:00.000Z",
    key_id: keyIdOf(other.pub),
    signature: signed.signature.slice(0, 10) + (signed.signature[10] === "A" ? "B" : "A") + signed.signature.slice(11),
  };
  for (const [field, value] of Object.entries(changes)) {
    test(`changed ${field}`, () => {
      const forged = { ...signed, [field]: value };
      // The collector's expectations stay those of the real request.
      const r = verifyVerdict(forged, keys.pub, binding);
      expect(r.verified).toBe(false);
      expect(r.problem).toBeString();
    });
    test(`missing ${field}`, () => {
      const { [field as keyof SignedVerdict]: _drop, ...rest } = signed;
      expect(verifyVerdict(rest, keys.pub, binding).verified).toBe(false);
    });
  }

  test("FAIL flipped to PASS is caught by the signature, not only by the binding", () => {
    const fail = signVerdict({ ...binding, verdict: "FAIL", tests_hash: "h" }, keys.priv);
    const r = verifyVerdict({ ...fail, verdict: "PASS" }, keys.pub, binding);
    expect(r).toEqual({ verified: false, problem: "signature does not verify" });
  });

  test("an added field is covered by the signature", () => {
    expect(verifyVerdict({ ...signed, note: "trust me" }, keys.pub, binding)).toEqual({
      verified: false,
      problem: "signature does not verify",
    });
  });

  test("attempt as a string, verdict as a lowercase word, signature of the wrong size or alphabet", () => {
    expect(verifyVerdict({ ...signed, attempt: "2" }, keys.pub, binding).verified).toBe(false);
    expect(verifyVerdict({ ...signed, verdict: "pass" }, keys.pub, binding).verified).toBe(false);
    expect(verifyVerdict({ ...signed, signature: "" }, keys.pub, binding).problem).toBe("signature is not 64 bytes of base64");
    expect(verifyVerdict({ ...signed, signature: signed.signature.slice(4) }, keys.pub, binding).verified).toBe(false);
    expect(verifyVerdict({ ...signed, signature: "!" + signed.signature.slice(1) }, keys.pub, binding).verified).toBe(false);
  });

  test("garbage is never verified and never throws", () => {
    for (const g of [null, undefined, 1, "PASS", [], [signed], { verdict: "PASS" }, Object.create(null)]) {
      expect(verifyVerdict(g, keys.pub, binding).verified).toBe(false);
    }
  });
});

describe("wrong key", () => {
  test("a verdict signed by another key does not verify against the configured one", () => {
    const s = signVerdict({ ...binding, verdict: "PASS", tests_hash: "h" }, other.priv);
    expect(verifyVerdict(s, keys.pub, binding).problem).toContain("is not the configured key");
  });

  test("another key claiming the configured key id fails on the signature", () => {
    const s = signVerdict({ ...binding, verdict: "PASS", tests_hash: "h" }, other.priv);
    const { signature: _s, ...rest } = { ...s, key_id: keyIdOf(keys.pub) };
    const { createPrivateKey, sign } = require("node:crypto") as typeof import("node:crypto");
    const sig = sign(null, Buffer.from(canonicalize(rest)), createPrivateKey(other.priv)).toString("base64");
    expect(verifyVerdict({ ...rest, signature: sig }, keys.pub, binding)).toEqual({
      verified: false,
      problem: "signature does not verify",
    });
  });

  test("an unreadable or non-Ed25519 configured key is a problem, not a crash", () => {
    expect(verifyVerdict(signed, "not a pem", binding).problem).toBe("configured public key cannot be read");
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ type: "spki", format: "pem" }) as string;
    expect(verifyVerdict(signed, rsa, binding).problem).toBe("configured public key is not Ed25519");
  });
});

describe("replay: a good signature for another request", () => {
  const cases: [string, Partial<typeof binding>][] = [
    ["another session", { session_id: "other-session" }],
    ["another attempt", { attempt: 3 }],
    ["another diff", { diff_sha256: sha256Hex("a different diff") }],
    ["another task", { task_id: "task-2" }],
    ["another base commit", { base_commit: "c".repeat(40) }],
    ["another trace (chain head)", { chain_head: "e".repeat(64) }],
  ];
  for (const [name, change] of cases) {
    test(name, () => {
      const r = verifyVerdict(signed, keys.pub, { ...binding, ...change });
      expect(r.verified).toBe(false);
      expect(r.problem).toContain("does not match the request");
    });
  }
});
