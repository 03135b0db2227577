import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describeError, ERROR_LOG, ERROR_LOG_MAX_BYTES, logError, TracegateError } from "../../lib/hook/errorlog.ts";
import { cleanup, tempDir } from "../support/tracegate.ts";

const home = tempDir();
afterAll(() => cleanup(home));

test("the error log is bounded: one rotation, never more than two files of about the bound", () => {
  for (let i = 0; i < 12_000; i++) logError(home, "post-tool-use", "parse", new TracegateError(`problem number ${i} ${"x".repeat(150)}`));
  const log = join(home, ERROR_LOG);
  expect(existsSync(`${log}.1`)).toBe(true);
  expect(existsSync(`${log}.2`)).toBe(false);
  expect(statSync(log).size).toBeLessThanOrEqual(ERROR_LOG_MAX_BYTES + 4096);
  expect(statSync(`${log}.1`).size).toBeLessThanOrEqual(ERROR_LOG_MAX_BYTES + 4096);
  expect(statSync(log).mode & 0o777).toBe(0o600);
  const last = readFileSync(log, "utf8").trim().split("\n").at(-1)!;
  expect(last).toMatch(/^\S+Z pid=\d+ event=post-tool-use stage=parse TracegateError: problem number 11999 /);
});

test("foreign errors are logged by class and code location only, never by message", () => {
  let caught: unknown;
  try {
    JSON.parse('{"token": "ghp_secretsecretsecret"');
  } catch (e) {
    caught = e;
  }
  const line = describeError(caught);
  expect(line.startsWith("SyntaxError")).toBe(true);
  expect(line).not.toContain("ghp_");
  expect(describeError(new TracegateError("our own words"))).toBe("TracegateError: our own words");
});

test("an error log that cannot be written is silently skipped", () => {
  expect(() => logError("/dev/null/not-a-dir", "stop", "x", new Error("e"))).not.toThrow();
});
