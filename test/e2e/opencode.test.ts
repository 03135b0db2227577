/**
 * End to end with the real OpenCode (opencode-ai 1.18.33's linux-x64 binary,
 * see test/e2e/support/clients.ts for how it runs offline: isolated XDG dirs,
 * the plugin-dependency install stubbed in every config dir, models fetch,
 * autoupdate, share and LSP downloads off) against the scripted model server,
 * with the plugin from `tracegate install --harness opencode` (issue 14):
 * the shared suite (a)-(d), then OpenCode's own cases: an idle after a
 * rejected permission is never gated, and a deleted binary leaves the client
 * running as if the plugin were not there.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claimedOutcome } from "../support/claimed-outcome.ts";
import { TRACEGATE } from "./support/claude.ts";
import { clientAvailable, clientHome, expectCleanExit } from "./support/clients.ts";
import { harnessSuite } from "./support/harness-suite.ts";

const h = harnessSuite("opencode");

describe.skipIf(!clientAvailable("opencode"))("real opencode client: OpenCode's own cases", () => {
  test(
    "a rejected permission ends the turn: the idle after it is not gated (no verdict), the rejection and the session end are recorded",
    async () => {
      const s = await h.gated([[{ type: "shell", command: "echo 42 > answer.txt" }], [{ type: "text", text: "Done." }]], 3);
      // `opencode run` auto-rejects a permission it would have to ask for.
      const cfgPath = join(clientHome(s.world, "opencode"), "opencode.json");
      const cfg = JSON.parse(readFileSync(cfgPath, "utf8"));
      cfg.permission.bash = "ask";
      writeFileSync(cfgPath, JSON.stringify(cfg, null, 2));
      const r = await h.run(s, "Write the answer into answer.txt.");
      expectCleanExit(r);
      expect(existsSync(join(s.world.repo, "answer.txt"))).toBe(false);
      const [only] = h.sessions(s);
      const records = h.records(s, only!.session_id);
      expect(records.filter((x) => x.type === "oracle_verdict")).toEqual([]);
      expect(records.some((x) => x.type === "event" && x.event === "permission.replied")).toBe(true);
      expect(records.at(-1)!.type).toBe("session_end");
      expect(claimedOutcome(records)).toBe("no_oracle");
    },
    200_000,
  );

  test(
    "the binary deleted after install: the session runs normally, nothing shown, nothing recorded",
    async () => {
      const s = await h.setup([[{ type: "shell", command: "echo hello-from-e2e" }], [{ type: "text", text: "Said hello." }]]);
      const bin = join(s.world.root, "tracegate-copy");
      copyFileSync(TRACEGATE, bin);
      chmodSync(bin, 0o755);
      const inst = h.tg(s, "install", "--harness", "opencode", "--bin", bin);
      expect(inst.code).toBe(0);
      rmSync(bin);
      const r = await h.run(s, "Say hello with the shell.");
      expectCleanExit(r);
      expect(r.stdout).toContain("Said hello.");
      expect(r.stderr).not.toContain("tracegate");
      expect(r.stderr).not.toContain("ENOENT");
      const sessions = join(s.world.dataDir, "sessions");
      expect(existsSync(sessions) ? readdirSync(sessions) : []).toEqual([]);
    },
    200_000,
  );
});
