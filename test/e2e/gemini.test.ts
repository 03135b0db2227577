/**
 * End to end with the real Gemini CLI (pinned devDependency; API-key auth
 * stub, GOOGLE_GEMINI_BASE_URL at the scripted model server, the workspace
 * trusted by env, see test/e2e/support/clients.ts) with hooks from
 * `tracegate install --harness gemini`. Needs `npm run build` first.
 */
import { describe, expect, test } from "bun:test";
import { clientAvailable, expectCleanExit } from "./support/clients.ts";
import { harnessSuite } from "./support/harness-suite.ts";
import { stored } from "./support/store.ts";

const h = harnessSuite("gemini");

describe.skipIf(!clientAvailable("gemini"))("real gemini client: cumulative prompt_response", () => {
  test(
    "after a refused stop each assistant record holds only the new text and points at the one it extends",
    async () => {
      const first = "Done: wrote the answer.";
      const second = "Fixed the answer; done.";
      const s = await h.gated(
        [[{ type: "shell", command: "echo 41 > answer.txt" }], [{ type: "text", text: first }], [{ type: "shell", command: "echo 42 > answer.txt" }], [{ type: "text", text: second }]],
        5,
      );
      const r = await h.run(s, "Write the answer into answer.txt.");
      expectCleanExit(r);
      const [session] = h.sessions(s);
      const assistant = h.records(s, session!.session_id).filter((x) => x.type === "message" && x.role === "assistant");
      expect(assistant.map((m) => m.text)).toEqual([first, second]);
      // The full text stays findable: the second record says how long the whole was and which record it continues.
      expect(assistant[1]!.cumulative).toEqual({ chars: `${first}\n${second}`.length, continues: assistant[0]!.id });
      // Gemini prints every pass's text on stdout, run together.
      expect(r.stdout).toContain(first);
      expect(r.stdout).toContain(second);
    },
    200_000,
  );
});

describe.skipIf(!clientAvailable("gemini"))("real gemini client: SIGTERM to its process group during a tool", () => {
  test(
    "SessionEnd (which Gemini can fire twice on SIGTERM) gives one session_end record; the model is not asked again; verify passes",
    async () => {
      // Gemini runs the shell in a process group of its own, which the signal does not reach: a
      // short sleep, so what outlives the client ends by itself within seconds.
      const s = await h.setup([[{ type: "shell", command: "sleep 6" }], [{ type: "text", text: "unreachable" }]]);
      const r = await h.run(s, "Wait a minute.", 120_000, () => stored(s.world.dataDir, "pre_tool_use"), "SIGTERM");
      expect(r.timedOut).toBe(false);
      expect(r.interruptedMs).not.toBeNull();
      const [session, ...more] = h.sessions(s);
      expect(more).toEqual([]);
      const records = h.records(s, session!.session_id);
      expect(records.filter((x) => x.type === "session_end")).toHaveLength(1);
      expect(records.some((x) => x.type === "pre_tool_use")).toBe(true);
      // It ended there: no second model turn.
      expect(s.model.mainHistories()).toHaveLength(1);
      expect(h.tg(s, "verify").code).toBe(0);
    },
    200_000,
  );
});
