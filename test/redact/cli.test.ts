/**
 * `tracegate redact` end to end: a real process, stdin in, stdout out.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { A, Gen, leak, rng } from "./shapes.ts";

const home = mkdtempSync(join(tmpdir(), "tg-redact-cli-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const MAIN = join(import.meta.dir, "../../main.ts");

async function run(args: string[], stdin: string): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([process.execPath, MAIN, "redact", ...args], {
    stdin: new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "none.jsonc") },
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

const g = new Gen(rng(99));

/** stdout as bytes: a text decode would hide a wrong byte (an encoded half of a surrogate pair). */
async function runBytes(stdin: string): Promise<{ code: number; out: Uint8Array }> {
  const p = Bun.spawn([process.execPath, MAIN, "redact"], {
    stdin: new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "none.jsonc") },
  });
  const [out, code] = await Promise.all([new Response(p.stdout).arrayBuffer(), p.exited]);
  return { code, out: new Uint8Array(out) };
}

describe("tracegate redact", () => {
  test("raw text: secrets replaced, the rest byte-for-byte", async () => {
    const pw = g.s(A.b62, 16);
    const tok = "ghp_" + g.s(A.b62, 36);
    const input = `# .env\nDB_PASSWORD=${pw}\nGITHUB_TOKEN=${tok}\nLOG_LEVEL=debug\n`;
    const r = await run([], input);
    expect(r.code).toBe(0);
    expect(leak(r.out, pw)).toBeUndefined();
    expect(leak(r.out, tok.slice(4))).toBeUndefined();
    expect(r.out).toMatch(/^# \.env\nDB_PASSWORD=\[REDACTED:password:[0-9a-f]{4}\]\nGITHUB_TOKEN=ghp_\[REDACTED:github-pat:[0-9a-f]{4}\]\nLOG_LEVEL=debug\n$/);
  });

  // The output is written in pieces, each encoded as it comes (lib/cli/print.ts stdoutPieces), not
  // built as one string: every byte must still be what encoding redactor.text()'s output gives,
  // with surrogate pairs astride the 65,536-unit cuts and secrets between them.
  test("a large output written in pieces is byte for byte the redacted text", async () => {
    const parts: string[] = [];
    let len = 0;
    while (len < 700_000) {
      const line = g.int(0, 9) === 0 ? `DB_PASSWORD=${g.s(A.b62, 18)}\n` : `${"x".repeat(g.int(10, 200))} \u{1F600} café ${g.s(A.lownum, 8)}\n`;
      parts.push(line);
      len += line.length;
    }
    // A first piece of 300 K units with no secret, a pair astride each 65,536-unit cut of it, then the
    // lines with secrets, and a lone surrogate.
    let head = "plain text, nothing to find here\n".repeat(9400);
    for (let cut = 65_535; cut < head.length; cut += 65_536) head = `${head.slice(0, cut)}\u{1F680}${head.slice(cut)}`;
    const input = `${head}${parts.join("")}lone \ud800 end\n`;
    const r = await runBytes(input);
    expect(r.code).toBe(0);
    const { createRedactor } = await import("../../lib/redact/index.ts");
    const { readFileSync } = await import("node:fs");
    const expected = Buffer.from(createRedactor({ fingerprintKey: readFileSync(join(home, "redact.key")) }).text(input), "utf8");
    expect(r.out.length).toBe(expected.length);
    expect(Buffer.compare(Buffer.from(r.out), expected)).toBe(0);
    expect(new TextDecoder().decode(r.out)).toContain("[REDACTED:password:");
  });

  test("--json: keys give context; JSON Lines work too", async () => {
    const pw = g.s(A.b62, 16);
    const r = await run(["--json"], JSON.stringify({ password: pw, input_tokens: 3 }));
    expect(r.code).toBe(0);
    const v = JSON.parse(r.out);
    expect(v.input_tokens).toBe(3);
    expect(v.password).toMatch(/^\[REDACTED:password:/);
    const lines = await run(["--json"], `{"password":"${pw}"}\n{"ok":true}\n`);
    expect(lines.code).toBe(0);
    expect(lines.out.trim().split("\n").map((l) => JSON.parse(l))[1]).toEqual({ ok: true });
    expect(lines.out).not.toContain(pw);
  });

  test("--explain: where and what kind, never the value", async () => {
    const tok = "npm_" + g.s(A.b62, 36);
    const pw = g.s(A.b62, 16);
    const r = await run(["--explain"], `line one\n//registry.npmjs.org/:_authToken=${tok}\npassword: ${pw}\n`);
    expect(r.code).toBe(0);
    expect(r.out).toContain("2:");
    expect(r.out).toContain("npm-token");
    expect(r.out).toContain("password");
    expect(r.out).not.toContain(pw);
    expect(leak(r.out, tok.slice(4))).toBeUndefined();
    const j = await run(["--json", "--explain"], JSON.stringify({ a: { b: [`x ${tok}`] } }));
    expect(j.out).toContain("$.a.b[0]");
  });

  test("--explain names the rule and the span of each find", async () => {
    const tok = "ghp_" + g.s(A.b62, 36);
    const pw = g.s(A.b62, 16);
    const r = await run(["--explain"], `GITHUB_TOKEN=${tok}\npassword: ${pw}\nUsing Key=${g.s(A.b62, 24)}42Zq\n`);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^1:18 \+36\tgithub-pat\trule prefix/m);
    expect(r.out).toMatch(/^2:11 \+16\tpassword\trule key-value$/m);
    expect(r.out).toMatch(/^3:11 \+28\tlabelled-token\trule entropy$/m);
    expect(r.out).not.toContain(pw);
  });

  test("--strict also takes unlabelled hex the default pass leaves", async () => {
    const hex = g.s(A.hex, 40);
    // A command that names no secret (`cat config/master.key` would: see printed.test.ts).
    const input = `$ ./build-id\n${hex}\n`;
    const plain = await run([], input);
    expect(plain.out).toBe(input);
    const strict = await run(["--strict"], input);
    expect(strict.code).toBe(0);
    expect(strict.out).toMatch(/^\$ \.\/build-id\n\[REDACTED:high-entropy-token:[0-9a-f]{4}\]\n$/);
    // Guards still hold in strict mode: a commit id after `commit` stays.
    const commit = `commit ${hex}\n`;
    expect((await run(["--strict"], commit)).out).toBe(commit);
  });

  test("bad input and bad usage: a clear error and a non-zero exit", async () => {
    const bad = await run(["--json"], "{not json");
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("not valid JSON");
    expect(bad.out).toBe("");
    const usage = await run(["--nope"], "");
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("usage: tracegate redact");
  });
});

describe("inputBytes: what the command knows of its input's size before reading it", () => {
  test("files add up; stdin redirected from a file is that file's size; a pipe and a missing file are unknown", async () => {
    const { inputBytes } = await import("../../lib/redact/cli.ts");
    const { writeFileSync } = await import("node:fs");
    const a = join(home, "a.txt");
    const b = join(home, "b.txt");
    writeFileSync(a, "x".repeat(1000));
    writeFileSync(b, "y".repeat(24));
    expect(inputBytes([a, b])).toBe(1024);
    expect(inputBytes([a, join(home, "missing.txt")])).toBeUndefined();
    // A child whose stdin is the file, and one whose stdin is a pipe: each prints what it knows.
    const probe = `import { inputBytes } from ${JSON.stringify(join(import.meta.dir, "../../lib/redact/cli.ts"))}; process.stdout.write(String(inputBytes([])));`;
    const viaFile = Bun.spawnSync([process.execPath, "-e", probe], { stdin: Bun.file(a) });
    expect(viaFile.stdout.toString()).toBe("1000");
    const viaPipe = Bun.spawn([process.execPath, "-e", probe], { stdin: "pipe", stdout: "pipe" });
    viaPipe.stdin.write("hello");
    await viaPipe.stdin.end();
    expect(await new Response(viaPipe.stdout).text()).toBe("undefined");
  });
});
