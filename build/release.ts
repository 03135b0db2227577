/**
 * Release build, in dist/release/: each platform's executable compressed as
 * `.xz` and `.gz`, install.sh, the Claude Code plugin bundle, and SHA256SUMS
 * of those downloads.
 *
 *   bun build/release.ts                       # all five targets
 *   bun build/release.ts --targets linux-x64   # a subset
 *   bun build/release.ts --out /tmp/rel        # elsewhere
 *
 * Cross-compiling needs each target's Bun runtime. It comes from the target's
 * npm package (`@oven/bun-<os>-<arch>`, the same version as the `bun` dev
 * dependency), fetched with `npm pack` into node_modules/.cache and handed to
 * `bun build --compile-executable-path`, so nothing is downloaded from outside
 * the npm registry. npm skips those packages at install time (their os/cpu
 * fields do not match this machine), hence the pack.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { compileBinary, generateValidators, VERSION } from "../build.ts";

const root = join(import.meta.dir, "..");

/** A release target: our asset name, Bun's --target, and the npm package holding its runtime. */
export interface Target {
  readonly name: string;
  readonly bunTarget: string;
  readonly pkg: string;
  readonly exe: string;
}

export const TARGETS: readonly Target[] = [
  { name: "linux-x64", bunTarget: "bun-linux-x64", pkg: "@oven/bun-linux-x64", exe: "bun" },
  { name: "linux-arm64", bunTarget: "bun-linux-arm64", pkg: "@oven/bun-linux-aarch64", exe: "bun" },
  { name: "darwin-x64", bunTarget: "bun-darwin-x64", pkg: "@oven/bun-darwin-x64", exe: "bun" },
  { name: "darwin-arm64", bunTarget: "bun-darwin-arm64", pkg: "@oven/bun-darwin-aarch64", exe: "bun" },
  { name: "windows-x64", bunTarget: "bun-windows-x64", pkg: "@oven/bun-windows-x64", exe: "bun.exe" },
];

/**
 * The file name of a target's executable.
 *
 * @example
 * ```ts
 * assetName(TARGETS[4]!); // "tracegate-windows-x64.exe"
 * ```
 */
export function assetName(t: Target): string {
  return `tracegate-${t.name}${t.name.startsWith("windows") ? ".exe" : ""}`;
}

function bunVersion(): string {
  return JSON.parse(readFileSync(join(root, "node_modules", "bun", "package.json"), "utf8")).version;
}

/** Progress for a person watching a release (stderr, so stdout stays the one summary line). */
function progress(line: string): void {
  process.stderr.write(`release: ${line}\n`);
}

/** Path to the target's Bun runtime, packed from npm into the cache on first use. */
export function runtimeFor(t: Target, version = bunVersion()): string {
  const dir = join(root, "node_modules", ".cache", "tracegate-release", `${t.pkg.replace("/", "+")}@${version}`);
  const exe = join(dir, "package", "bin", t.exe);
  if (existsSync(exe)) {
    progress(`runtime ${t.pkg}@${version}: cached`);
    return exe;
  }
  const started = performance.now();
  progress(`fetching the ${t.name} runtime ${t.pkg}@${version} from the npm registry (about 40 MB)...`);
  mkdirSync(dir, { recursive: true });
  const out = execFileSync("npm", ["pack", `${t.pkg}@${version}`, "--pack-destination", dir, "--silent"], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const tgz = join(dir, out.trim().split("\n").pop()!);
  execFileSync("tar", ["-xzf", tgz, "-C", dir]);
  rmSync(tgz);
  if (!existsSync(exe)) throw new Error(`${t.pkg}@${version} has no bin/${t.exe}`);
  chmodSync(exe, 0o755);
  progress(`fetched ${t.pkg}@${version} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return exe;
}

function isHost(t: Target): boolean {
  const arch = process.arch === "x64" ? "x64" : process.arch === "arm64" ? "arm64" : "";
  const os = process.platform === "win32" ? "windows" : process.platform;
  return t.name === `${os}-${arch}`;
}

function sha256File(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/**
 * The Claude Code plugin bundle: manifest, hooks.json, the launcher as
 * bin/tracegate, and every built executable beside it.
 */
export function layOutPlugin(dir: string, binaries: readonly { readonly name: string; readonly path: string }[]): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, ".claude-plugin"), { recursive: true });
  mkdirSync(join(dir, "hooks"));
  mkdirSync(join(dir, "bin"));
  copyFileSync(join(root, ".claude-plugin", "plugin.json"), join(dir, ".claude-plugin", "plugin.json"));
  copyFileSync(join(root, "hooks", "hooks.json"), join(dir, "hooks", "hooks.json"));
  copyFileSync(join(root, "lib", "install", "plugin-launcher.sh"), join(dir, "bin", "tracegate"));
  chmodSync(join(dir, "bin", "tracegate"), 0o755);
  for (const b of binaries) {
    copyFileSync(b.path, join(dir, "bin", b.name));
    chmodSync(join(dir, "bin", b.name), 0o755);
  }
}

/**
 * The two downloads of one binary: `.xz` (smallest; install.sh prefers it)
 * and `.gz` (for machines without xz). SHA256SUMS covers these, the files
 * that are downloaded.
 */
export function compress(file: string, outDir: string, xzLevel: number): string[] {
  const name = basename(file);
  const xz = join(outDir, `${name}.xz`);
  const gz = join(outDir, `${name}.gz`);
  writeFileSync(xz, execFileSync("xz", [`-${xzLevel}`, "-T0", "-c", file], { maxBuffer: 1 << 30 }));
  writeFileSync(gz, execFileSync("gzip", ["-9", "-n", "-c", file], { maxBuffer: 1 << 30 }));
  return [xz, gz];
}

function buildPlugin(outDir: string, built: readonly Target[], rawDir: string): string {
  layOutPlugin(
    join(outDir, "tracegate-claude-plugin"),
    built.map((t) => ({ name: assetName(t), path: join(rawDir, assetName(t)) })),
  );
  const tgz = join(outDir, "tracegate-claude-plugin.tar.gz");
  execFileSync("tar", ["-czf", tgz, "-C", outDir, "tracegate-claude-plugin"]);
  return tgz;
}

/**
 * Build the given targets into `outDir` and write SHA256SUMS (the format
 * `sha256sum -c` reads).
 *
 * @example
 * ```ts
 * await release({ outDir: "dist/release", targets: TARGETS, plugin: true });
 * ```
 */
export async function release(opts: { outDir: string; targets: readonly Target[]; plugin: boolean; xzLevel?: number }): Promise<string[]> {
  generateValidators();
  mkdirSync(opts.outDir, { recursive: true });
  const assets: string[] = [];
  const raw = join(opts.outDir, "raw");
  mkdirSync(raw, { recursive: true });
  for (const [i, t] of opts.targets.entries()) {
    const outfile = join(raw, assetName(t));
    const executablePath = isHost(t) ? undefined : runtimeFor(t);
    progress(`compiling ${assetName(t)} (${i + 1} of ${opts.targets.length})`);
    await compileBinary({ outfile, target: t.bunTarget, executablePath });
    chmodSync(outfile, 0o755);
    progress(`compressing ${assetName(t)} with xz and gzip`);
    assets.push(...compress(outfile, opts.outDir, opts.xzLevel ?? 6));
  }
  // The README's curl URL names install.sh beside the binaries.
  copyFileSync(join(root, "install.sh"), join(opts.outDir, "install.sh"));
  chmodSync(join(opts.outDir, "install.sh"), 0o755);
  assets.push(join(opts.outDir, "install.sh"));
  if (opts.plugin) assets.push(buildPlugin(opts.outDir, opts.targets, raw));
  rmSync(raw, { recursive: true, force: true });
  const sums = assets.map((a) => `${sha256File(a)}  ${a.slice(opts.outDir.length + 1)}\n`).join("");
  writeFileSync(join(opts.outDir, "SHA256SUMS"), sums);
  return assets;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      targets: { type: "string" },
      out: { type: "string", default: join(root, "dist", "release") },
      "no-plugin": { type: "boolean", default: false },
      // Lower is faster and larger; 6 (xz's default) for published releases.
      "xz-level": { type: "string", default: "6" },
    },
  });
  const names = values.targets ? values.targets.split(",") : TARGETS.map((t) => t.name);
  const targets = names.map((n) => {
    const t = TARGETS.find((x) => x.name === n);
    if (!t) throw new Error(`unknown target ${n}; known: ${TARGETS.map((x) => x.name).join(", ")}`);
    return t;
  });
  const outDir = values.out!;
  // Stale assets from an earlier release must not end up beside new SHA256SUMS.
  if (existsSync(outDir)) {
    for (const f of readdirSync(outDir)) {
      if (f.startsWith("tracegate-") || f === "SHA256SUMS" || f === "install.sh" || f === "raw") rmSync(join(outDir, f), { recursive: true, force: true });
    }
  }
  const assets = await release({ outDir, targets, plugin: !values["no-plugin"], xzLevel: Number(values["xz-level"]) });
  process.stdout.write(`tracegate ${VERSION}: ${assets.length} assets and SHA256SUMS in ${outDir}\n`);
}
