/**
 * Gemini 0.61.0 sends `stop_hook_active: false` on the AfterAgent after a
 * refused stop when the continuation pass made a tool call, while its
 * `prompt_response` is still cumulative (captured:
 * test/fixtures/harness/gemini/tool-after-refusal). The new part is found
 * from the previous record's text, not only from the flag.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { newPart } from "../../lib/harness/gemini.ts";
import { FIXTURES } from "./support.ts";

const dir = join(FIXTURES, "gemini", "tool-after-refusal");
const afterAgent = readdirSync(dir)
  .filter((f) => f.endsWith("-AfterAgent.json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")));

test("the captured continuation: flag false, text cumulative", () => {
  expect(afterAgent.map((a) => [a.stop_hook_active, a.prompt_response])).toEqual([
    [false, "Done: wrote the answer."],
    [false, "Done: wrote the answer.\nFixed the answer; done."],
  ]);
});

test("a cumulative text that extends the previous record is split even with stop_hook_active false", () => {
  const [first, second] = afterAgent;
  const one = newPart(first.prompt_response, first.stop_hook_active, null);
  expect(one).toEqual({ text: "Done: wrote the answer.", cumulative: { chars: 23, continues: null } });
  const prev = { id: "r1", chars: one.cumulative.chars, text: one.text };
  expect(newPart(second.prompt_response, second.stop_hook_active, prev)).toEqual({
    text: "Fixed the answer; done.",
    cumulative: { chars: 47, continues: "r1" },
  });
});

test("without the flag, a text that only happens to have a \\n at the previous length is recorded whole", () => {
  const prev = { id: "r1", chars: 5, text: "first" };
  expect(newPart("other\nsecond", false, prev).text).toBe("other\nsecond");
  // a previous record that was itself a continuation: its text is the end of the previous whole
  expect(newPart("a\nfirst\nthird", false, { id: "r2", chars: 7, text: "first" }).text).toBe("third");
  expect(newPart("first\nsecond", false, { id: "r1", chars: 5, text: "" }).text).toBe("first\nsecond");
});
