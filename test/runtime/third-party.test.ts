/**
 * The hook's stdout muzzle: console writers at once, the stream only before
 * a library loads (lib/runtime/third-party.ts). Run in a child so the test
 * runner's own stdout is untouched.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "../support/tracegate.ts";

function child(body: string): { out: string; err: string } {
  const script = `
    import { muzzleStdout } from ${JSON.stringify(join(ROOT, "lib/hook/stdout.ts"))};
    import { isomorphicGit } from ${JSON.stringify(join(ROOT, "lib/runtime/third-party.ts"))};
    import { writeSync } from "node:fs";
    const reports = [];
    muzzleStdout((e) => reports.push(e.message));
    ${body}
    writeSync(2, JSON.stringify(reports));
  `;
  const p = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT });
  return { out: p.stdout.toString(), err: p.stderr.toString() };
}

test("a library loaded through the door cannot print: console and stdout writes are reported, not printed", () => {
  const r = child(`const git = await isomorphicGit(); if (typeof git.readObject !== "function") throw new Error("no git"); console.log("x"); process.stdout.write("y\\n");`);
  expect(r.out).toBe("");
  expect(JSON.parse(r.err)).toEqual(["a module tried to print to the console", "a module tried to write to process.stdout"]);
});

test("console writes are muzzled before any library loads", () => {
  const r = child(`console.error("x"); console.log("y");`);
  expect(r.out).toBe("");
  expect(JSON.parse(r.err)).toEqual(["a module tried to print to the console", "a module tried to print to the console"]);
});
