import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../lib/config/load.ts";
import { configPath, dataDir } from "../../lib/config/paths.ts";
import { cleanup, tempDir } from "../support/tracegate.ts";

const dir = tempDir();
afterAll(() => cleanup(dir));

async function withFiles(user: string | null, repo: string | null) {
  const root = tempDir();
  const repoDir = join(root, "repo");
  mkdirSync(join(repoDir, ".git"), { recursive: true });
  mkdirSync(join(repoDir, "sub"), { recursive: true });
  writeFileSync(join(repoDir, ".git", "HEAD"), "ref: refs/heads/main\n");
  if (user !== null) writeFileSync(join(root, "user.jsonc"), user);
  if (repo !== null) writeFileSync(join(repoDir, ".tracegate.jsonc"), repo);
  return { cfg: await loadConfig({ TRACEGATE_CONFIG: join(root, "user.jsonc") }, join(repoDir, "sub")), root };
}

test("no config: defaults, no oracle, redaction on, no errors", async () => {
  const { cfg, root } = await withFiles(null, null);
  expect(cfg.exists).toBe(false);
  expect(cfg.oracle).toBeNull();
  expect(cfg.redact.enabled).toBe(true);
  expect(cfg.errors).toEqual([]);
  cleanup(root);
});

test("a JSONC user config with comments and trailing commas is read", async () => {
  const { cfg, root } = await withFiles(
    `{ // oracle\n "oracle": {"url": "http://127.0.0.1:8700/", "public_key": "k.pub",}, "task_id": "t1", "gate": {"max_attempts": 5}, }`,
    null,
  );
  expect(cfg.errors).toEqual([]);
  expect(cfg.oracle).toEqual({ url: "http://127.0.0.1:8700", public_key: "k.pub", timeout_s: 40, on_error: "allow" });
  expect(cfg.task_id).toBe("t1");
  expect(cfg.gate.max_attempts).toBe(5);
  cleanup(root);
});

test("an invalid user config is reported with its path and contributes nothing", async () => {
  const { cfg, root } = await withFiles(`{"oracle": {"url": "ftp://x", "public_key": "k"}, "redact": {"enabled": false}}`, null);
  expect(cfg.errors.length).toBeGreaterThan(0);
  expect(cfg.errors[0]).toContain("user.jsonc");
  expect(cfg.oracle).toBeNull();
  expect(cfg.redact.enabled).toBe(true);
  cleanup(root);
});

test("a repository config may add patterns but cannot set the oracle or turn redaction off", async () => {
  const ok = await withFiles(null, `{"redact": {"extra": [{"kind": "acme", "pattern": "acme_[a-z]{8}"}]}}`);
  expect(ok.cfg.errors).toEqual([]);
  expect(ok.cfg.redact.repo_extra).toEqual([{ kind: "acme", pattern: "acme_[a-z]{8}" }]);
  cleanup(ok.root);
  const bad = await withFiles(null, `{"oracle": {"url": "http://127.0.0.1:1", "public_key": "k"}, "redact": {"enabled": false, "allow": ["x"]}}`);
  expect(bad.cfg.oracle).toBeNull();
  expect(bad.cfg.redact.enabled).toBe(true);
  expect(bad.cfg.redact.allow).toEqual([]);
  // Reported, and never a reason to stop gating: the user config's errors stay empty.
  expect(bad.cfg.repo_errors.some((e) => e.includes(".tracegate.jsonc"))).toBe(true);
  expect(bad.cfg.errors).toEqual([]);
  cleanup(bad.root);
});

test("a repository config's error names a user setting as one, and suggests no other user setting", async () => {
  const a = await withFiles(null, `{"oracle": {"url": "http://127.0.0.1:1", "public_key": "k"}}`);
  const msg = a.cfg.repo_errors.join("\n");
  expect(msg).toContain(`"oracle" cannot be set in a repository config`);
  expect(msg).toContain(`"redact.extra"`);
  expect(msg).not.toContain("did you mean");
  cleanup(a.root);
  const b = await withFiles(null, `{"redact": {"extras": []}}`);
  expect(b.cfg.repo_errors.join("\n")).toContain(`unknown key "redact.extras"; a repository config may only set "redact.extra"`);
  cleanup(b.root);
});

test("a pattern that is not a regular expression is an error, not a crash", async () => {
  const { cfg, root } = await withFiles(`{"redact": {"extra": [{"kind": "k", "pattern": "([a-z"}]}}`, null);
  expect(cfg.errors.join()).toContain("not a valid regular expression");
  cleanup(root);
});

test("data dir and config path follow the documented precedence", async () => {
  expect(dataDir({ TRACEGATE_HOME: "/a", CLAUDE_PLUGIN_DATA: "/b" })).toBe("/a");
  expect(dataDir({ CLAUDE_PLUGIN_DATA: "/b", XDG_DATA_HOME: "/x" })).toBe("/b");
  expect(dataDir({ XDG_DATA_HOME: "/x" }, "linux")).toBe("/x/tracegate");
  expect(dataDir({ HOME: "/h" }, "linux")).toBe("/h/.local/share/tracegate");
  expect(dataDir({ HOME: "/h" }, "darwin")).toBe("/h/Library/Application Support/tracegate");
  expect(dataDir({ LOCALAPPDATA: "C:\\L" }, "win32")).toContain("tracegate");
  expect(configPath({ XDG_CONFIG_HOME: "/c" }, "linux")).toBe("/c/tracegate/config.jsonc");
  expect(configPath({ TRACEGATE_CONFIG: "/f.jsonc" })).toBe("/f.jsonc");
});

test("patterns that could backtrack super-linearly are refused", async () => {
  const { unsafePattern } = await import("../../lib/config/load.ts");
  for (const bad of ["(a+)+$", "(a*)*", "(?:x+y?)+z", "(a|aa)+b{2}(c+){3}", "(\\w)\\1"]) expect({ bad, unsafe: unsafePattern(bad) }).toEqual({ bad, unsafe: true });
  for (const good of ["acme_[A-Za-z0-9]{32}", "(?:sk|rk)_live_[0-9a-z]{24,99}", "tok-(?:[a-f0-9]{8})", "[(+*]+x", "a\\(b+\\)+"]) expect({ good, unsafe: unsafePattern(good) }).toEqual({ good, unsafe: false });
  const { cfg, root } = await withFiles(null, `{"redact": {"extra": [{"kind": "evil", "pattern": "(a+)+$"}]}}`);
  expect(cfg.redact.repo_extra).toEqual([]);
  expect(cfg.repo_errors.join()).toContain("nests quantifiers");
  cleanup(root);
});
