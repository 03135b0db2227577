/**
 * The OpenCode plugin tracegate installs: one JavaScript module with no
 * dependencies, written whole into `plugins/` of an OpenCode config dir. It
 * holds no logic the binary has. It
 *
 * - passes only the events the adapter reads (lib/harness/opencode.ts), as one
 *   JSON envelope on the stdin of `tracegate <subcommand> --harness=opencode`
 *   (never in argv or env), each child killed after the subcommand's declared
 *   timeout (strictly above its cap);
 * - runs the children one after another in a queue, so records land in the
 *   order the events fired, and awaits none of them, except on the stop: the
 *   awaited `experimental.text.complete` hook waits for the queue and the
 *   gate's decision, and on a block adds the decision's reason to the session
 *   with `noReply: true` so the running loop takes it as the next turn
 *   (`opencode run` exits at the first idle, so a prompt sent on idle is
 *   never answered);
 * - does nothing and shows nothing when the binary is gone (or any spawn
 *   fails), like the shell guard of the command hooks;
 * - has exactly one export, the plugin function (OpenCode 1.18.33 skips a
 *   file with any other export, silently).
 *
 * Its first line marks it as tracegate's; `ENTRIES` (one JSON line) is what
 * `doctor` and `uninstall` read back.
 */
import { EVENT_FLAG, HARNESS_FLAG, HOOKS, OBSERVE_FLAG, type HookName } from "../hook/subcommands.ts";
import type { PluginEntry, PluginFile } from "./types.ts";

/** The first line of every plugin file tracegate writes. */
export const PLUGIN_MARK = "// tracegate OpenCode plugin: written by `tracegate install --harness opencode`; `tracegate uninstall --harness opencode` removes it.";

/** How long `dispose` waits at most for the queued children (session end's cap is 1.2 s). */
export const DISPOSE_WAIT_MS = 4_000;

// The plugin's one export, spliced in so this module's own source has no
// `export` line that is not its own (the @example checker reads exports).
const PLUGIN_EXPORT = "export const TracegatePlugin";

const BODY = String.raw`
${PLUGIN_EXPORT} = async ({ client, directory }) => {
  // A project-scope plugin names the binary portably (committed for teammates): a bare name is
  // looked up on PATH, a relative path is the project's; looked up on each use, so a binary
  // installed or removed later is seen, and a missing one means nothing happens.
  const bin = () => (BIN.startsWith("/") ? BIN : BIN.includes("/") ? directory + "/" + BIN : (Bun.which(BIN) ?? ""));
  const seen = new Set();
  const parents = new Map();
  const started = new Map();
  let queue = Promise.resolve();

  // One child per event, one after another; resolves with the child's stdout, or null.
  const call = (name, sessionID, body) => {
    const entry = ENTRIES[name];
    if (!entry || typeof sessionID !== "string") return Promise.resolve(null);
    let json;
    try {
      json = JSON.stringify({ hook_event_name: name, sessionID, cwd: directory, ...body });
    } catch {
      return Promise.resolve(null);
    }
    const run = () =>
      new Promise((done) => {
        let child;
        try {
          const exe = bin();
          if (!exe || !existsSync(exe)) return done(null);
          child = Bun.spawn([exe, ...entry.args], { stdin: "pipe", stdout: "pipe", stderr: "ignore", cwd: directory, env: { ...process.env } });
        } catch {
          return done(null);
        }
        const timer = setTimeout(() => {
          try { child.kill("SIGKILL"); } catch {}
        }, entry.timeout_ms);
        try {
          child.stdin.write(json);
          child.stdin.end();
        } catch {}
        new Response(child.stdout).text().then(
          (out) => child.exited.then(() => { clearTimeout(timer); done(out); }, () => { clearTimeout(timer); done(null); }),
          () => { clearTimeout(timer); done(null); },
        );
      });
    const p = queue.then(run, run);
    queue = p.then(() => undefined, () => undefined);
    return p;
  };

  const remember = (sessionID, resumed) => {
    if (typeof sessionID !== "string" || seen.has(sessionID)) return;
    seen.add(sessionID);
    if (resumed) call("session.resumed", sessionID, {});
  };

  return {
    event: async ({ event }) => {
      try {
        const t = event && event.type;
        const props = (event && event.properties) || {};
        if (t === "session.created") {
          const info = props.info || {};
          const id = info.id || props.sessionID;
          if (typeof id === "string" && !seen.has(id)) {
            seen.add(id);
            if (typeof info.parentID === "string") parents.set(id, info.parentID);
            call(t, id, { info });
          }
        } else if (t === "session.error") {
          call(t, props.sessionID, { properties: props });
        } else if (t === "permission.replied" && props.reply === "reject") {
          call(t, props.sessionID, { properties: props });
        } else if (t === "message.part.updated") {
          const part = props.part || {};
          if (part.type === "tool" && part.state && part.state.status === "error") call("tool.failed", part.sessionID, { part });
        }
      } catch {}
    },
    "chat.message": async (input, output) => {
      try {
        remember(input.sessionID, true);
        call("chat.message", input.sessionID, { input, output: { message: output.message, parts: output.parts } });
      } catch {}
    },
    "tool.execute.before": async (input) => {
      try { started.set(input.callID, Date.now()); } catch {}
    },
    "tool.execute.after": async (input, output) => {
      try {
        const t0 = started.get(input.callID);
        started.delete(input.callID);
        call("tool.execute.after", input.sessionID, { input, output, duration_ms: t0 === undefined ? null : Date.now() - t0 });
      } catch {}
    },
    "experimental.text.complete": async (input, output) => {
      try {
        const exe = bin();
        if (!ENTRIES["experimental.text.complete"] || !exe || !existsSync(exe)) return;
        let part_types = null;
        try {
          const m = await client.session.message({ path: { id: input.sessionID, messageID: input.messageID } });
          part_types = ((m && m.data && m.data.parts) || []).map((x) => x && x.type);
        } catch {}
        const out = await call("experimental.text.complete", input.sessionID, { input, output: { text: output.text }, part_types, parentID: parents.get(input.sessionID) || null });
        let d = null;
        try { d = out ? JSON.parse(out) : null; } catch {}
        if (d && d.decision === "block" && typeof d.reason === "string") {
          await client.session.prompt({ path: { id: input.sessionID }, body: { noReply: true, parts: [{ type: "text", text: d.reason }] } });
        }
      } catch {}
    },
    dispose: async () => {
      try {
        for (const id of seen) call("dispose", id, {});
        await Promise.race([queue, new Promise((r) => setTimeout(r, DISPOSE_WAIT_MS))]);
      } catch {}
    },
  };
};
`;

/**
 * The plugin for an adapter's event table.
 *
 * @example
 * ```ts
 * opencodePlugin({ dispose: "session-end" }).render("/x/tracegate", false).startsWith(PLUGIN_MARK); // true
 * ```
 */
export function opencodePlugin(events: Readonly<Record<string, HookName>>): PluginFile {
  const entriesFor = (bin: string, gate: boolean): PluginEntry[] =>
    Object.entries(events).map(([event, sub]) => ({
      event,
      bin,
      args: [
        sub,
        `${HARNESS_FLAG}opencode`,
        ...(sub === "event" ? [`${EVENT_FLAG}${event}`] : []),
        ...(sub === "stop" && !gate ? [OBSERVE_FLAG] : []),
      ],
      timeout_ms: HOOKS[sub].timeoutS * 1000,
    }));
  return {
    render(bin, gate) {
      const table = Object.fromEntries(entriesFor(bin, gate).map((e) => [e.event, { args: e.args, timeout_ms: e.timeout_ms }]));
      return [
        PLUGIN_MARK,
        `import { existsSync } from "node:fs";`,
        ``,
        `const BIN = ${JSON.stringify(bin)};`,
        `const ENTRIES = ${JSON.stringify(table)};`,
        `const DISPOSE_WAIT_MS = ${DISPOSE_WAIT_MS};`,
        BODY,
      ].join("\n");
    },
    parse(text) {
      if (!text.startsWith(PLUGIN_MARK)) return null;
      const bin = /^const BIN = (.*);$/m.exec(text);
      const table = /^const ENTRIES = (.*);$/m.exec(text);
      if (!bin || !table) return [];
      try {
        const b = JSON.parse(bin[1]!);
        const t = JSON.parse(table[1]!) as Record<string, { args?: unknown; timeout_ms?: unknown }>;
        if (typeof b !== "string" || !t || typeof t !== "object") return [];
        return Object.entries(t).flatMap(([event, e]) =>
          Array.isArray(e?.args) && e.args.every((a) => typeof a === "string") && typeof e.timeout_ms === "number"
            ? [{ event, bin: b, args: e.args as string[], timeout_ms: e.timeout_ms }]
            : [],
        );
      } catch {
        return [];
      }
    },
  };
}
