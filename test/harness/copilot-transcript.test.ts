/**
 * Copilot's transcript catch-up check against the captured events.jsonl:
 * agentStop can start before Copilot has flushed (or even created) the file,
 * and the hook's own `hook.start` line (its payload as `input`) is what says
 * the final assistant.message before it is on disk.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { finalTextFromTranscript, transcriptCaughtUp } from "../../lib/harness/copilot.ts";
import { FIXTURES } from "./support.ts";

const dir = join(FIXTURES, "copilot", "basic");
const transcript = readFileSync(join(dir, "transcript.events.jsonl"), "utf8");
const lines = transcript.split("\n").filter(Boolean);
const stops = ["10-agentStop.json", "13-agentStop.json"].map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")));

/** The file as it was when the hook for `stop` started: up to and including its hook.start line. */
function upTo(stop: Record<string, unknown>, extra = 0): string {
  const i = lines.findIndex((l) => l.includes('"hook.start"') && l.includes(`"timestamp":${stop.timestamp}`));
  return `${lines.slice(0, i + 1 + extra).join("\n")}\n`;
}

describe("copilot transcript catch-up", () => {
  test("caught up once the hook's own hook.start is in the tail; the final text is then the one before it", () => {
    expect(transcriptCaughtUp(upTo(stops[0]!), stops[0]!)).toBe(true);
    expect(finalTextFromTranscript(upTo(stops[0]!))).toBe("All done: printed the greeting, the check exited 3.");
    expect(transcriptCaughtUp(upTo(stops[1]!), stops[1]!)).toBe(true);
    expect(finalTextFromTranscript(upTo(stops[1]!))).toBe("Checked again after the refusal; done.");
  });

  test("not caught up while the file lags behind the hook (the earlier stop's lines only, or nothing)", () => {
    expect(transcriptCaughtUp(upTo(stops[0]!), stops[1]!)).toBe(false);
    expect(transcriptCaughtUp("", stops[0]!)).toBe(false);
    const cut = upTo(stops[0]!).split("\n").slice(0, -3).join("\n");
    expect(transcriptCaughtUp(cut, stops[0]!)).toBe(false);
  });

  test("a payload of another session with the same timestamp does not count", () => {
    expect(transcriptCaughtUp(upTo(stops[0]!), { ...stops[0]!, sessionId: "someone-else" })).toBe(false);
  });
});
