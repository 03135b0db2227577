/**
 * Container values decoded and rescanned: Kubernetes Secret data/stringData,
 * `.dockerconfigjson` and Docker `auths.*.auth`. The value is always
 * redacted; the finding carries the kind of what the plaintext holds, and
 * `--explain` says which container it was decoded from. Tokens are generated
 * at run time with random bodies.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DECODE_MAX } from "../../lib/redact/decode.ts";
import { createRedactor, type Found } from "../../lib/redact/index.ts";
import { base62, crc32 } from "../../lib/redact/crc32.ts";
import { A, Gen, leak, rng } from "./shapes.ts";
import { bestMs } from "../support/timing.ts";

const r = createRedactor({ fingerprintKey: "decoded" });
const g = new Gen(rng(0xdec0de));
const b64 = (s: string): string => Buffer.from(s).toString("base64");
const ghp = (): string => {
  const body = g.s(A.b62, 30);
  return `ghp_${body}${base62(crc32(body), 6)}`;
};
const kinds = (found: readonly Found[]): string[] => found.map((f) => `${f.kind}${f.within ? `<${f.within}` : ""}`);

describe("Kubernetes Secret text (kubectl get secret -o yaml / -o json)", () => {
  test("base64 data holding a GitHub token is reported as github-pat within k8s-secret", () => {
    expect.hasAssertions();
    const tok = ghp();
    const yaml = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: gh\ntype: Opaque\ndata:\n  token: ${b64(tok)}\n  username: ${b64("admin")}\n`;
    const { output, found } = r.explainText!(yaml);
    expect(output).toMatch(/\n {2}token: \[REDACTED:github-pat:[0-9a-f]{4}\]\n {2}username: \[REDACTED:k8s-secret:[0-9a-f]{4}\]\n$/);
    expect(kinds(found)).toEqual(["github-pat<k8s-secret", "k8s-secret"]);
    expect(found[0]!.line).toBe(7);
    expect(output).not.toContain(b64(tok).slice(0, 12));
  });

  test("stringData: plaintext values are rescanned too and still always redacted", () => {
    expect.hasAssertions();
    const tok = ghp();
    const yaml = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: gh\nstringData:\n  token: ${tok}\n  mode: plain-words\n`;
    const { output, found } = r.explainText!(yaml);
    expect(kinds(found)).toEqual(["github-pat<k8s-secret", "k8s-secret"]);
    expect(output).not.toContain("plain-words");
    expect(leak(output, tok.slice(4))).toBeUndefined();
  });

  test("JSON output (-o json), raw and JSON-escaped inside a tool response", () => {
    expect.hasAssertions();
    const tok = ghp();
    const json = JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "x" }, data: { token: b64(tok), user: b64("admin") } }, null, 2);
    const { output, found } = r.explainText!(json);
    expect(kinds(found)).toEqual(["github-pat<k8s-secret", "k8s-secret"]);
    expect(output).not.toContain(b64(tok).slice(0, 12));
    const escaped = JSON.stringify({ tool_response: { stdout: json } });
    const e = r.explainText!(escaped);
    expect(kinds(e.found)).toEqual(["github-pat<k8s-secret", "k8s-secret"]);
    expect(e.output).not.toContain(b64(tok).slice(0, 12));
  });

  test("binary data (a certificate, random bytes) is redacted as k8s-secret without a rescan", () => {
    expect.hasAssertions();
    const bin = Buffer.from(Array.from({ length: 48 }, (_, i) => (i * 37 + 11) % 256)).toString("base64");
    const { found } = r.explainText!(`apiVersion: v1\nkind: Secret\ndata:\n  blob: ${bin}\n`);
    expect(kinds(found)).toEqual(["k8s-secret"]);
  });

  test("a value too large to decode is still redacted whole, as k8s-secret", () => {
    expect.hasAssertions();
    const tok = ghp();
    const big = b64(`${"x".repeat(DECODE_MAX)} ${tok}`);
    const { output, found } = r.explainText!(`apiVersion: v1\nkind: Secret\ndata:\n  big: ${big}\n`);
    expect(kinds(found)).toEqual(["k8s-secret"]);
    expect(output.length).toBeLessThan(200);
  });

  test("a ConfigMap's base64-looking value is not decoded into a finding", () => {
    expect.hasAssertions();
    const cm = `apiVersion: v1\nkind: ConfigMap\ndata:\n  mode: ${b64("production")}\n`;
    expect(r.text(cm)).toBe(cm);
  });
});

describe("Kubernetes Secret values (the JSON walk)", () => {
  test("data is decoded, stringData rescanned, every value redacted", () => {
    expect.hasAssertions();
    const tok = ghp();
    const { output, found } = r.explainValue!({ apiVersion: "v1", kind: "Secret", metadata: { name: "gh" }, data: { token: b64(tok), user: b64("admin"), empty: "" }, stringData: { plain: tok, word: "hello" } });
    const out = output as { data: Record<string, string>; stringData: Record<string, string>; metadata: unknown };
    expect(out.data.token).toMatch(/^\[REDACTED:github-pat:[0-9a-f]{4}\]$/);
    expect(out.data.user).toMatch(/^\[REDACTED:k8s-secret:/);
    expect(out.data.empty).toBe("");
    expect(out.stringData.plain).toMatch(/^\[REDACTED:github-pat:/);
    expect(out.stringData.word).toMatch(/^\[REDACTED:k8s-secret:/);
    expect(out.metadata).toEqual({ name: "gh" });
    expect(found.map((f) => [f.path, f.kind, f.within ?? ""])).toEqual([
      ["$.data.token", "github-pat", "k8s-secret"],
      ["$.data.user", "k8s-secret", ""],
      ["$.stringData.plain", "github-pat", "k8s-secret"],
      ["$.stringData.word", "k8s-secret", ""],
    ]);
  });
});

describe("Docker credentials", () => {
  const config = (tok: string, pw: string) =>
    JSON.stringify({ auths: { "ghcr.io": { auth: b64(`octo:${tok}`) }, "registry.example.com": { auth: b64(`deploy:${pw}`) } }, credsStore: "desktop" }, null, 2);

  test("auths.*.auth: decoded user:password; a registry token inside reports its own kind", () => {
    expect.hasAssertions();
    const tok = ghp();
    const pw = g.s(A.b62, 18);
    const text = config(tok, pw);
    const { output, found } = r.explainText!(text);
    expect(kinds(found)).toEqual(["github-pat<docker-auth", "docker-auth"]);
    expect(output).toContain('"credsStore": "desktop"');
    expect(output).not.toContain(b64(`octo:${tok}`).slice(0, 12));
    const v = r.explainValue!(JSON.parse(text));
    expect(v.found.map((f) => [f.path, f.kind, f.within ?? ""])).toEqual([
      ['$.auths["ghcr.io"].auth', "github-pat", "docker-auth"],
      ['$.auths["registry.example.com"].auth', "docker-auth", ""],
    ]);
  });

  test("an auth that does not decode to user:password is not a docker-auth finding", () => {
    expect.hasAssertions();
    for (const plain of ["no-colon-here-at-all", ":only-password", "only-user:"]) {
      const found = r.explainText!(`{"auths": {"r": {"auth": "${b64(plain)}"}}}`).found;
      expect(found.map((f) => f.kind)).not.toContain("docker-auth");
    }
    const empty = '{"auths": {"r": {"auth": ""}}, "credsStore": "desktop"}';
    expect(r.text(empty)).toBe(empty);
  });

  test(".dockerconfigjson in a pull secret: base64 of the whole config, decoded twice", () => {
    expect.hasAssertions();
    const tok = ghp();
    const dcj = b64(config(tok, g.s(A.b62, 18)));
    const yaml = `apiVersion: v1\nkind: Secret\ntype: kubernetes.io/dockerconfigjson\nmetadata:\n  name: pull\ndata:\n  .dockerconfigjson: ${dcj}\n`;
    const { output, found } = r.explainText!(yaml);
    expect(found.map((f) => f.kind)).toEqual(["github-pat"]);
    expect(["k8s-secret", "dockerconfigjson"]).toContain(found[0]!.within!);
    expect(output).not.toContain(dcj.slice(0, 12));
    const v = r.explainValue!({ kind: "Secret", type: "kubernetes.io/dockerconfigjson", data: { ".dockerconfigjson": dcj } });
    expect(v.found.map((f) => [f.kind, f.within])).toEqual([["github-pat", "k8s-secret"]]);
    // Outside a Secret (Helm values, a jsonpath print): the key alone says what it is.
    const helm = r.explainText!(`imagePullSecret:\n  dockerconfigjson: ${dcj}\n`);
    expect(helm.found.map((f) => [f.kind, f.within])).toEqual([["github-pat", "dockerconfigjson"]]);
  });
});

describe("bounded", () => {
  test("nesting stops after three decodes; the value is still redacted", () => {
    expect.hasAssertions();
    const tok = ghp();
    // base64 of a Secret whose data is base64 of a Secret ... five levels down.
    let inner = tok;
    for (let i = 0; i < 5; i++) inner = `apiVersion: v1\nkind: Secret\ndata:\n  k: ${b64(inner)}\n`;
    const { output, found } = r.explainText!(inner);
    expect(found.length).toBe(1);
    expect(found[0]!.kind).toBe("k8s-secret");
    expect(output).toMatch(/k: \[REDACTED:k8s-secret:[0-9a-f]{4}\]\n$/);
  });

  test("decoding costs linear time: 4x the Secret values costs about 4x", () => {
    expect.hasAssertions();
    // Each value decodes to text full of keywords and near misses.
    const nearMiss = `ghp_short sk-ant-x "auth": "${b64("nocolon")}" password: x kind: Secret data: k: v `.repeat(40);
    const doc = (n: number) => {
      let s = "apiVersion: v1\nkind: Secret\ndata:\n";
      for (let i = 0; i < n; i++) s += `  k${i}: ${b64(nearMiss + i)}\n`;
      return s;
    };
    const small = doc(60);
    const big = doc(240);
    const cost = (s: string) => bestMs(() => r.text(s));
    cost(small);
    const a = cost(small);
    const b = cost(big);
    // Below 20 ms the ratio is noise and the decode is fast anyway.
    expect({ ok: b <= 20 || b / Math.max(a, 1) < 12, a, b }).toMatchObject({ ok: true });
  }, 60_000);
});

describe("tracegate redact --explain", () => {
  const home = mkdtempSync(join(tmpdir(), "tg-redact-decoded-"));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  test("says which container a kind was decoded from", async () => {
    expect.hasAssertions();
    const tok = ghp();
    const p = Bun.spawn([process.execPath, join(import.meta.dir, "../../main.ts"), "redact", "--explain"], {
      stdin: new TextEncoder().encode(`apiVersion: v1\nkind: Secret\ndata:\n  token: ${b64(tok)}\n`),
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "none.jsonc") },
    });
    const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    expect(code).toBe(0);
    expect(out).toContain("4:10 +56\tgithub-pat\trule k8s-secret\t(decoded from k8s-secret)");
    expect(out).not.toContain(b64(tok).slice(0, 12));
  });
});
