/**
 * End to end with the real Codex CLI (pinned devDependency; a `mock`
 * Responses provider in a temp CODEX_HOME, see test/e2e/support/clients.ts)
 * with hooks from `tracegate install --harness codex`. Needs `npm run build`
 * first (`npm test` does it).
 */
import { describe, expect, test } from "bun:test";
import { clientAvailable } from "./support/clients.ts";
import { harnessSuite } from "./support/harness-suite.ts";
import { stored } from "./support/store.ts";

const h = harnessSuite("codex");

describe.skipIf(!clientAvailable("codex"))("real codex client: Ctrl-C during a tool", () => {
  test(
    "Interrupt and SessionEnd (each clamped to 3 s by Codex) are both recorded; no tool_call for the killed tool",
    async () => {
      const s = await h.setup([[{ type: "shell", command: "sleep 60" }], [{ type: "text", text: "unreachable" }]]);
      const r = await h.run(s, "Wait a minute.", 120_000, () => stored(s.world.dataDir, "pre_tool_use"));
      expect(r.timedOut).toBe(false);
      expect(r.interruptedMs).not.toBeNull();
      expect(r.code).not.toBe(0);
      const [session, ...more] = h.sessions(s);
      expect(more).toEqual([]);
      const records = h.records(s, session!.session_id);
      const events = records.map((x) => x.event);
      for (const e of ["SessionStart", "UserPromptSubmit", "PreToolUse", "Interrupt", "SessionEnd"]) expect(events).toContain(e);
      expect(events.indexOf("Interrupt")).toBeLessThan(events.indexOf("SessionEnd"));
      expect(records.filter((x) => x.type === "tool_call")).toEqual([]);
      expect(records.filter((x) => x.type === "session_end")).toHaveLength(1);
      expect(records.every((x) => x.harness === "codex")).toBe(true);
      expect(h.tg(s, "verify").code).toBe(0);
    },
    200_000,
  );
});
