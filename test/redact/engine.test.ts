import { describe, expect, test } from "bun:test";
import { scan } from "../../lib/redact/engine.ts";
import type { Rule } from "../../lib/redact/types.ts";

const spans = (s: string): string[] => scan(s).map((f) => `${f.kind} ${s.slice(f.start, f.end)}`).sort();
const token = "ghp_" + "A1b2C3d4E5".repeat(3) + "F6g7H8";

describe("the keyword pass", () => {
  test("each scan finds its keywords afresh: the per-keyword lists the index keeps between calls start empty", () => {
    const first = `export GITHUB_TOKEN=${token}\n`;
    const alone = spans(first);
    expect(alone).toContain(`github-pat ${token.slice(4)}`);
    // The same keywords at other positions, after another text's scan: only this text's finds.
    const second = `${"x\n".repeat(5)}password: Zx81!qPmW2vr\n${first}`;
    expect(spans(second)).toEqual([...alone, "password Zx81!qPmW2vr"].sort());
    // A text with none of them, then the first again: as it was alone.
    expect(scan("nothing to see here, just words")).toEqual([]);
    expect(spans(first)).toEqual(alone);
  });

  test("folds capitals past ASCII as ASCII ones: ПАРОЛЬ is пароль, as PASSWORD is password", () => {
    expect(spans("ПАРОЛЬ: Zx81!qPmW2vr")).toEqual(["password Zx81!qPmW2vr"]);
    expect(spans("PASSWORD: Zx81!qPmW2vr")).toEqual(["password Zx81!qPmW2vr"]);
  });

  test("a keyword that ends the text is still met (the pass's last position has no third unit)", () => {
    // `token:` at the very end: no value follows, so nothing is found, and nothing throws.
    expect(scan(`${token} token:`).map((f) => f.kind)).toEqual(["github-pat"]);
  });

  test("more characters open keywords than six bits number: the rest share a code, and every keyword is still met exactly", () => {
    // 90 keywords, each opened by a character of its own: all printable ASCII but the space, then Greek.
    const openers = [...Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).filter((c) => !/[A-Z]/.test(c)), ..."αβγδεζηθικλμνξοπ"];
    const met: string[] = [];
    const rule: Rule = { kinds: ["test"], keywords: openers.map((c) => `${c}q!`), scan: (ctx, pos, kw) => void met.push(`${kw}@${pos}`) };
    const text = openers.map((c) => `${c}q! ${c}x! `).join("");
    scan(text, [rule]);
    expect(met.sort()).toEqual(openers.map((c) => `${c}q!@${text.indexOf(`${c}q!`)}`).sort());
    // Near misses that share a code with a keyword's opener (the first character differs) are not met.
    met.length = 0;
    scan("~Q? }q? ζq? 9q?", [rule]);
    expect(met).toEqual([]);
  });
});
