/**
 * End to end with the real Copilot CLI (pinned devDependency; BYOK Chat
 * Completions at the scripted model server, COPILOT_OFFLINE, see
 * test/e2e/support/clients.ts) with hooks from `tracegate install --harness
 * copilot`. Needs `npm run build` first (`npm test` does it).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { claimedOutcome } from "../support/claimed-outcome.ts";
import { clientAvailable, expectCleanExit } from "./support/clients.ts";
import { harnessSuite } from "./support/harness-suite.ts";
import type { TurnContext } from "./support/model-server.ts";

const h = harnessSuite("copilot");

/** The sub-agent's own conversation starts from the task prompt. */
const inSub = (ctx: TurnContext) => ctx.history.some((m) => m.role === "user" && m.text.includes("SUBTASK"));

describe.skipIf(!clientAvailable("copilot"))("real copilot client: sub-agents", () => {
  test(
    "agentStop of a sub-agent is not gated: one verdict, on the main agent's stop, PASS, flip",
    async () => {
      const s = await h.gated(
        [
          (ctx) =>
            inSub(ctx)
              ? [{ type: "shell", command: "echo 42 > answer.txt" }]
              : [{ type: "tool_use", name: "task", input: { description: "write the answer", prompt: "SUBTASK: write 42 into answer.txt", agent_type: "general-purpose", name: "answer" } }],
          (ctx) => [{ type: "text", text: inSub(ctx) ? "Sub done." : "The sub-agent wrote the answer; done." }],
        ],
        3,
      );
      const r = await h.run(s, "Have a sub-agent write the answer into answer.txt.");
      expectCleanExit(r);
      expect(readFileSync(join(s.world.repo, "answer.txt"), "utf8")).toBe("42\n");
      const all = h.sessions(s).flatMap((x) => h.records(s, x.session_id));
      const verdicts = all.filter((x) => x.type === "oracle_verdict");
      expect(verdicts.map((v) => [v.attempt, v.verdict, v.verified, v.decision])).toEqual([[1, "PASS", true, "allow"]]);
      // The verdict is in the main agent's session, the one that started.
      const main = all.find((x) => x.type === "session_start")!.session_id;
      expect(verdicts[0]!.session_id).toBe(main);
      expect(claimedOutcome(h.records(s, main))).toBe("flip");
      // The sub-agent's work is recorded too.
      expect(all.some((x) => x.type === "tool_call" && JSON.stringify(x).includes("echo 42 > answer.txt"))).toBe(true);
      expect(h.tg(s, "verify").code).toBe(0);
    },
    200_000,
  );
});
