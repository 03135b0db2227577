/**
 * The one-shot tier limit (lib/redact/tiering.ts) changes how fast a large
 * payload is redacted, never what comes out: the same document redacted in a
 * process that turned the limit on and in one that did not gives the same
 * bytes. Each side runs in a child process, since the limit, once on, stays
 * on for the process (and would slow the rest of this suite's files), and
 * each loads the redactor through the compile step's marks (build/hot.ts),
 * as the binary does, so the limit has every function to act on.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ONE_SHOT_MIN_CHARS, oneShotPayload } from "../../lib/redact/tiering.ts";

const root = join(import.meta.dir, "../..");

/** Redacts the bench's mixed document, cut to `chars`, in a fresh process; `limit` turns the tier limit on first. */
function redactInChild(chars: number, limit: boolean): { out: string; limited: string; named: number } {
  const script = `
    const { hotMarks } = await import(${JSON.stringify(join(root, "build/hot.ts"))});
    Bun.plugin(hotMarks);
    const { mixedDocument } = await import(${JSON.stringify(join(root, "bench/redact/corpus.ts"))});
    const { hotFunctionCount, oneShotPayload } = await import(${JSON.stringify(join(root, "lib/redact/tiering.ts"))});
    const { createRedactor } = await import(${JSON.stringify(join(root, "lib/redact/index.ts"))});
    let doc = mixedDocument();
    while (doc.length < ${chars}) doc += doc;
    doc = doc.slice(0, ${chars});
    const limited = ${limit} ? oneShotPayload(doc.length) : false;
    const out = createRedactor({ fingerprintKey: "k" }).text(doc);
    process.stdout.write(JSON.stringify({ limited: String(limited), named: hotFunctionCount(), out }));
  `;
  const p = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  expect(p.exitCode).toBe(0);
  return JSON.parse(p.stdout.toString());
}

describe("the one-shot tier limit", () => {
  test("a payload under the threshold leaves the tiers alone", () => {
    expect(oneShotPayload(ONE_SHOT_MIN_CHARS - 1)).toBe(false);
    expect(oneShotPayload(10_000)).toBe(false);
  });

  test("turned on for a large payload, it redacts to the same bytes", () => {
    const chars = ONE_SHOT_MIN_CHARS + 65_536;
    const limited = redactInChild(chars, true);
    const plain = redactInChild(chars, false);
    expect(limited.limited).toBe("true");
    expect(plain.limited).toBe("false");
    expect(limited.named).toBeGreaterThan(300);
    expect(limited.out.length).toBeGreaterThan(chars / 2);
    expect(limited.out).toContain("[REDACTED:");
    expect(limited.out === plain.out).toBe(true);
  }, 120_000);
});
