/**
 * A recording OpenCode plugin (1.x API) for capturing what the real client
 * hands a plugin (test/e2e/support/capture.ts copies it into a config dir's
 * `plugins/`). Writes each bus event and each hook call it defines as
 * `$TG_RECORD_DIR/<ns>-<kind>-<name>.json`; refuses the first final answer
 * once, the way the gate does in `opencode run` (a `noReply` user message
 * from the awaited `experimental.text.complete` hook), so the continuation
 * is captured too. Hooks whose inputs are the system prompt, tool schemas or
 * provider options (large, and not what an adapter reads) are not defined.
 *
 * Every export must be a plugin function: OpenCode 1.18.33 skips a file with
 * any other export.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export const TracegateRecorder = async (input: any) => {
  const dir = process.env.TG_RECORD_DIR ?? "";
  const write = (kind: string, name: string, data: unknown) => {
    if (!dir) return;
    writeFileSync(join(dir, `${process.hrtime.bigint()}-${kind}-${name}.json`), JSON.stringify(data));
  };
  write("init", "plugin", { keys: Object.keys(input).sort(), directory: input.directory, worktree: input.worktree, project: input.project });
  let blocked = false;
  const hook = (name: string) => async (i: unknown, o: unknown) => write("hook", name, { input: i, output: o });
  return {
    // plugin.added fires about 45 times at start-up for the "v2" core's own plugins: noise here.
    event: async ({ event }: any) => {
      if (event?.type !== "plugin.added") write("event", String(event?.type), event);
    },
    "chat.message": hook("chat.message"),
    "tool.execute.before": hook("tool.execute.before"),
    "tool.execute.after": hook("tool.execute.after"),
    "shell.env": hook("shell.env"),
    "command.execute.before": hook("command.execute.before"),
    "experimental.text.complete": async (i: any, o: any) => {
      write("hook", "experimental.text.complete", { input: i, output: o });
      if (blocked) return;
      const m = await input.client.session.message({ path: { id: i.sessionID, messageID: i.messageID } });
      if ((m.data?.parts ?? []).some((p: any) => p.type === "tool")) return;
      blocked = true;
      await input.client.session.prompt({
        path: { id: i.sessionID },
        body: { noReply: true, parts: [{ type: "text", text: "CAPTURE: refused once, check again" }] },
      });
    },
    dispose: async () => write("hook", "dispose", {}),
  };
};
