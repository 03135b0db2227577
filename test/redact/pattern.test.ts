/**
 * User patterns (config `redact.extra`, user and repository) run on RE2
 * (re2js): linear in the input whatever the pattern, and a pattern RE2
 * cannot compile is refused with a config error that says what to do.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkRedactConfig, compileUserPattern, createRedactor } from "../../lib/redact/index.ts";

describe("compileUserPattern", () => {
  test("group 1 is the secret; without a group the whole match", () => {
    const c = compileUserPattern("acme", "acme_([A-Za-z0-9]{8})");
    expect(c.pattern!.matches("x acme_abcdefgh y acme_12345678", 10)).toEqual([[2, 7, 15], [18, 23, 31]]);
    const whole = compileUserPattern("acme", "acme_[a-z]{4}");
    expect(whole.pattern!.matches("😀 acme_abcd", 10)).toEqual([[3, 3, 12]]);
  });

  test("backreferences and lookaround are refused with a clear error", () => {
    for (const p of ["(a)\\1", "(?<=x)secret", "foo(?!bar)", "("]) {
      const c = compileUserPattern("x", p);
      expect(c.pattern).toBeUndefined();
      expect(c.error).toContain("RE2 cannot compile it");
      expect(c.error).toContain("rewrite it");
    }
    const errs = checkRedactConfig({ extra: [{ kind: "ok", pattern: "ok_[0-9]{4}" }], repoExtra: [{ kind: "bad", pattern: "(a)\\1" }] });
    expect(errs).toHaveLength(1);
    expect(errs[0]).toContain('redact.repoExtra[0].pattern (kind "bad")');
  });

  test("a refused pattern is skipped; the redactor still runs its other rules", () => {
    const r = createRedactor({ fingerprintKey: "k", repoExtra: [{ kind: "bad", pattern: "(a)\\1" }], extra: [{ kind: "acme", pattern: "acme_[0-9]{6}" }] });
    expect(r.text("id acme_123456 and password=hunter22x")).toMatch(/^id \[REDACTED:acme:[0-9a-f]{4}\] and password=\[REDACTED:password:/);
  });

  test("(.|.)*\\u0000 from a repository config costs linear time", () => {
    const r = createRedactor({ fingerprintKey: "k", repoExtra: [{ kind: "evil", pattern: "(.|.)*\u0000" }] });
    const cost = (s: string): number => {
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        r.text(s);
        best = Math.min(best, performance.now() - t);
      }
      return best;
    };
    const small = "a".repeat(64 * 1024);
    const big = "a".repeat(1024 * 1024);
    cost(small);
    const a = cost(small);
    const b = cost(big);
    // 16x the input: quadratic would be ~256x. Below 30 ms for 1 MB the ratio is noise.
    if (b > 30) expect(b / Math.max(a, 1)).toBeLessThan(64);
    // Group 1 of (.|.)* is its last repetition: the one character before the NUL.
    expect(r.text("abc\u0000def")).toMatch(/^ab\[REDACTED:evil:[0-9a-f]{4}\]\u0000def$/);
  });
});

describe("the compiled binary runs user patterns (re2js survives bun build --compile)", () => {
  const BIN = join(import.meta.dir, "../../dist/tracegate");
  const home = mkdtempSync(join(tmpdir(), "tg-redact-re2-"));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  test("tracegate redact with redact.extra", async () => {
    if (!existsSync(BIN)) {
      if (process.env.CI === "true") throw new Error("dist/tracegate missing: run npm run build");
      console.warn("SKIP: dist/tracegate missing; run `npm run build` first");
      return;
    }
    const cfg = join(home, "config.jsonc");
    writeFileSync(cfg, JSON.stringify({ redact: { extra: [{ kind: "acme-token", pattern: "acme_([A-Za-z0-9]{12})" }] } }));
    const p = Bun.spawn([BIN, "redact"], {
      stdin: new TextEncoder().encode("deploy acme_Zq81xW02kLm9 done\n"),
      stdout: "pipe",
      stderr: "pipe",
      cwd: home,
      env: { ...process.env, TRACEGATE_HOME: home, TRACEGATE_CONFIG: cfg },
    });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out).toMatch(/^deploy acme_\[REDACTED:acme-token:[0-9a-f]{4}\] done\n$/);
  });
});
