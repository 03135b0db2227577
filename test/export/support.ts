/**
 * Sessions for export tests, made the way a harness makes them: the compiled
 * binary's hooks fed real payloads in a real git clone of the task repo, the
 * Stop gate asking a real `tracegate oracle serve` on 127.0.0.1.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, run } from "../support/tracegate.ts";

export interface Store {
  readonly home: string;
  readonly configPath: string;
  env(extra?: Record<string, string>): Record<string, string>;
}

/** A data dir and a user config that names the oracle (and optionally turns redaction off). */
export function makeStore(root: string, name: string, config: Record<string, unknown>): Store {
  const home = join(root, name, "data");
  mkdirSync(home, { recursive: true });
  const configPath = join(root, name, "config.jsonc");
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  return {
    home,
    configPath,
    env: (extra = {}) => ({ TRACEGATE_HOME: home, TRACEGATE_CONFIG: configPath, HOME: join(root, name), ...extra }),
  };
}

export async function hook(store: Store, name: string, payload: Record<string, unknown>, env: Record<string, string> = {}) {
  const r = await run([name], { stdin: JSON.stringify(payload), env: store.env(env) });
  if (r.code !== 0) throw new Error(`${name} exited ${r.code}: ${r.stderr}`);
  return r;
}

export interface SessionScript {
  readonly id: string;
  /** A clone of the task repo: the agent's working tree. */
  readonly work: string;
  /** Each attempt: files to write before that Stop. */
  readonly attempts: readonly Record<string, string>[];
  readonly prompt?: string;
  /** Text the tool "printed" (e.g. a planted secret). */
  readonly toolOutput?: string;
  readonly env?: Record<string, string>;
}

/**
 * One whole session: start, prompt, a Bash tool call, then per attempt the
 * files written and a Stop (the gate blocks on FAIL), then SessionEnd.
 */
export async function playSession(store: Store, taskRepo: string, s: SessionScript): Promise<void> {
  execFileSync("git", ["clone", "-q", taskRepo, s.work]);
  const common = { session_id: s.id, cwd: s.work, transcript_path: "/nonexistent" };
  await hook(store, "session-start", { ...common, hook_event_name: "SessionStart", source: "startup", model: "claude-test-1" }, s.env);
  await hook(store, "user-prompt-submit", { ...common, hook_event_name: "UserPromptSubmit", prompt: s.prompt ?? "write 42 into answer.txt" }, s.env);
  let active = false;
  for (const [i, files] of s.attempts.entries()) {
    for (const [f, content] of Object.entries(files)) writeFileSync(join(s.work, f), content);
    await hook(store, "post-tool-use", {
      ...common,
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_input: { command: `cat answer.txt # attempt ${i + 1}` },
      tool_response: { stdout: s.toolOutput ?? `${files["answer.txt"] ?? ""}`, stderr: "", interrupted: false, isImage: false },
      tool_use_id: `toolu_${s.id}_${i + 1}`,
      duration_ms: 12,
    }, s.env);
    const r = await hook(store, "stop", { ...common, hook_event_name: "Stop", stop_hook_active: active, last_assistant_message: `done (attempt ${i + 1})` }, s.env);
    active = new TextDecoder().decode(r.stdout).includes('"block"');
  }
  await hook(store, "session-end", { ...common, hook_event_name: "SessionEnd", reason: "exit" }, s.env);
}

export { BINARY };
