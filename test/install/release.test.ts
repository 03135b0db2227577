/**
 * The release build: asset names, the npm packages holding each target's Bun
 * runtime, and one real build of this machine's target with its SHA256SUMS.
 * (All five targets take minutes and fetch four packages: `npm run release`.)
 */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assetName, TARGETS } from "../../build/release.ts";

const ROOT = join(import.meta.dir, "..", "..");

test("five targets, named as install.sh expects, each with a runtime package the bun package itself lists", () => {
  expect(TARGETS.map(assetName)).toEqual([
    "tracegate-linux-x64",
    "tracegate-linux-arm64",
    "tracegate-darwin-x64",
    "tracegate-darwin-arm64",
    "tracegate-windows-x64.exe",
  ]);
  const bunPkg = JSON.parse(readFileSync(join(ROOT, "node_modules", "bun", "package.json"), "utf8"));
  for (const t of TARGETS) expect(Object.keys(bunPkg.optionalDependencies)).toContain(t.pkg);
  // install.sh builds the same names from uname.
  const sh = readFileSync(join(ROOT, "install.sh"), "utf8");
  expect(sh).toContain('asset="tracegate-$os-$arch"');
});

test("a host-target release build writes a binary stamped with version and commit, and a SHA256SUMS that matches", () => {
  if (process.platform !== "linux" || process.arch !== "x64") return;
  const out = mkdtempSync(join(tmpdir(), "tg-release-"));
  try {
    const r = spawnSync(process.execPath, [join(ROOT, "build", "release.ts"), "--targets", "linux-x64", "--out", out, "--no-plugin"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["SHA256SUMS", "tracegate-linux-x64"]);
    const bin = join(out, "tracegate-linux-x64");
    const digest = createHash("sha256").update(readFileSync(bin)).digest("hex");
    expect(readFileSync(join(out, "SHA256SUMS"), "utf8")).toBe(`${digest}  tracegate-linux-x64\n`);
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
    // The commit is HEAD's short hash at build time (others may commit meanwhile: match the shape).
    const stamped = spawnSync(bin, ["--version"], { encoding: "utf8" }).stdout;
    expect(stamped).toMatch(new RegExp(`^tracegate ${version.replaceAll(".", "\\.")} \\([0-9a-f]{12}\\)\n$`));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 120_000);
