/**
 * The release build: asset names, the npm packages holding each target's Bun
 * runtime, and one real build of this machine's target with its SHA256SUMS.
 * (All five targets take minutes and fetch four packages: `npm run release`.)
 */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

test("a host-target release build: compressed binaries (xz, gz), install.sh beside them, SHA256SUMS of the downloads, progress on stderr", () => {
  if (process.platform !== "linux" || process.arch !== "x64") return;
  const out = mkdtempSync(join(tmpdir(), "tg-release-"));
  try {
    // xz level 0 keeps the test quick; releases use 6 (measured: 113 MB -> 40.5 MB xz, 53 MB gzip).
    const r = spawnSync(process.execPath, [join(ROOT, "build", "release.ts"), "--targets", "linux-x64", "--out", out, "--no-plugin", "--xz-level", "0"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toContain("release: compiling tracegate-linux-x64 (1 of 1)");
    expect(r.stderr).toContain("release: compressing tracegate-linux-x64 with xz and gzip");
    expect(readdirSync(out).sort()).toEqual(["SHA256SUMS", "install.sh", "tracegate-linux-x64.gz", "tracegate-linux-x64.xz"]);
    const sums = readFileSync(join(out, "SHA256SUMS"), "utf8");
    for (const f of ["tracegate-linux-x64.xz", "tracegate-linux-x64.gz", "install.sh"]) {
      const digest = createHash("sha256").update(readFileSync(join(out, f))).digest("hex");
      expect(sums).toContain(`${digest}  ${f}\n`);
    }
    expect(readFileSync(join(out, "install.sh"), "utf8")).toBe(readFileSync(join(ROOT, "install.sh"), "utf8"));
    const bin = join(out, "tracegate");
    writeFileSync(bin, spawnSync("xz", ["-dc", join(out, "tracegate-linux-x64.xz")], { maxBuffer: 1 << 30 }).stdout);
    chmodSync(bin, 0o755);
    const fromGz = spawnSync("gzip", ["-dc", join(out, "tracegate-linux-x64.gz")], { maxBuffer: 1 << 30 }).stdout;
    expect(Buffer.compare(fromGz, readFileSync(bin))).toBe(0);
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
    // The commit is HEAD's short hash at build time (others may commit meanwhile: match the shape).
    const stamped = spawnSync(bin, ["--version"], { encoding: "utf8" }).stdout;
    expect(stamped).toMatch(new RegExp(`^tracegate ${version.replaceAll(".", "\\.")} \\([0-9a-f]{12}\\)\n$`));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 240_000);

test("package.json engines matches what every installed package needs (npm warns otherwise)", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
  // The lowest Node version a range admits, as [major, minor].
  const floor = (range: string): [number, number] => {
    const lows = range.split("||").map((alt) => {
      const m = /(?:>=|\^)?\s*(\d+)(?:\.(\d+))?/.exec(alt.trim());
      return [Number(m?.[1] ?? 0), Number(m?.[2] ?? 0)] as [number, number];
    });
    return lows.sort((a, b) => a[0] - b[0] || a[1] - b[1])[0]!;
  };
  const ours = floor(pkg.engines.node);
  expect(lock.packages[""].engines.node).toBe(pkg.engines.node);
  const admits = (range: string, v: [number, number]) =>
    range.split("||").some((alt) => {
      const [maj, min] = floor(alt);
      const a = alt.trim();
      if (a.startsWith("^")) return v[0] > maj || (v[0] === maj && v[1] >= min); // treats a later major as fine: ours is a floor
      if (/^\d+$/.test(a)) return v[0] >= maj;
      return v[0] > maj || (v[0] === maj && v[1] >= min);
    });
  for (const [path, meta] of Object.entries(lock.packages as Record<string, { engines?: unknown }>)) {
    const node = (meta.engines as { node?: string } | undefined)?.node;
    if (!path || typeof node !== "string") continue;
    expect({ path, node, ok: admits(node, ours) }).toEqual({ path, node, ok: true });
  }
});
