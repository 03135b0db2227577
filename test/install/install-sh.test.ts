/**
 * install.sh the way a user runs it: `curl -fsSL URL/install.sh | sh` in a
 * fresh HOME, with the release assets served from 127.0.0.1. The release
 * directory holds dist/tracegate as tracegate-linux-x64 (building all five
 * targets is a release job, too slow for every test run) and its SHA256SUMS.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const DIST = join(ROOT, "dist", "tracegate");
const SCRIPT = join(ROOT, "install.sh");
const hostAsset = `tracegate-${process.platform}-${process.arch === "arm64" ? "arm64" : "x64"}`;

let root: string;
let server: ReturnType<typeof Bun.serve>;
let base: string;

function sha(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** The compressed downloads of dist/tracegate, made once: xz at its fastest level, gzip. */
let packed: { xz: string; gz: string };

function releaseDir(name: string, tamper: boolean): string {
  const dir = join(root, "www", name);
  mkdirSync(dir, { recursive: true });
  copyFileSync(packed.xz, join(dir, `${hostAsset}.xz`));
  copyFileSync(packed.gz, join(dir, `${hostAsset}.gz`));
  const sums = [`${hostAsset}.xz`, `${hostAsset}.gz`].map((f) => `${sha(join(dir, f))}  ${f}\n`).join("");
  writeFileSync(join(dir, "SHA256SUMS"), sums);
  if (tamper) {
    // One flipped byte after the checksums were made: what a compromised mirror would serve.
    for (const f of [`${hostAsset}.xz`, `${hostAsset}.gz`]) {
      const buf = readFileSync(join(dir, f));
      buf[buf.length - 100] = buf[buf.length - 100]! ^ 0xff;
      writeFileSync(join(dir, f), buf);
    }
  }
  copyFileSync(SCRIPT, join(dir, "install.sh"));
  return dir;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "tg-installsh-"));
  packed = { xz: join(root, "t.xz"), gz: join(root, "t.gz") };
  writeFileSync(packed.xz, spawnSync("xz", ["-0", "-T0", "-c", DIST], { maxBuffer: 1 << 30 }).stdout);
  writeFileSync(packed.gz, spawnSync("gzip", ["-1", "-c", DIST], { maxBuffer: 1 << 30 }).stdout);
  releaseDir("good", false);
  releaseDir("tampered", true);
  mkdirSync(join(root, "www", "empty"));
  copyFileSync(SCRIPT, join(root, "www", "empty", "install.sh"));
  const www = join(root, "www");
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = decodeURIComponent(new URL(req.url).pathname);
      const file = join(www, path);
      if (path.includes("..") || !existsSync(file)) return new Response("not found", { status: 404 });
      return new Response(Bun.file(file));
    },
  });
  base = `http://127.0.0.1:${server.port}`;
}, 180_000);
afterAll(() => {
  server.stop(true);
  rmSync(root, { recursive: true, force: true });
});

function home(name: string) {
  const h = join(root, "homes", name);
  mkdirSync(h, { recursive: true });
  return h;
}

/**
 * `curl -fsSL .../install.sh | SHELL -s -- ARGS` with a clean environment.
 * Async: the HTTP server lives in this process, so a blocking spawn would
 * starve it.
 */
async function curlPipe(release: string, h: string, args: string[] = [], opts: { shell?: string; env?: Record<string, string>; path?: string } = {}) {
  const shell = opts.shell ?? "sh";
  const pipeline = `curl -fsSL ${base}/${release}/install.sh | ${shell} -s -- ${args.join(" ")}`;
  const p = Bun.spawn(["/bin/sh", "-c", pipeline], {
    cwd: h,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      PATH: opts.path ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: h,
      TRACEGATE_DOWNLOAD_URL: `${base}/${release}`,
      CLAUDE_CONFIG_DIR: join(h, ".claude"),
      TRACEGATE_HOME: join(h, "data"),
      ...opts.env,
    },
  });
  const [stdout, stderr, status] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { stdout, stderr, status };
}

describe("install.sh", () => {
  test("is POSIX sh: parses under sh and dash, and checkbashisms finds nothing where it is installed", () => {
    for (const sh of ["/bin/sh", "/bin/dash"].filter(existsSync)) {
      expect(spawnSync(sh, ["-n", SCRIPT]).status).toBe(0);
    }
    const cb = spawnSync("checkbashisms", ["--posix", "--extra", SCRIPT], { encoding: "utf8" });
    if (!cb.error) expect({ code: cb.status, out: cb.stdout + cb.stderr }).toEqual({ code: 0, out: "" });
  });

  for (const shell of ["sh", "dash", "bash"]) {
    test(`curl | ${shell}: verifies, installs to ~/.local/bin, says how to reach it on PATH`, async () => {
      const h = home(`plain-${shell}`);
      const r = await curlPipe("good", h, [], { shell });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      const bin = join(h, ".local", "bin", "tracegate");
      expect(readFileSync(bin).equals(readFileSync(DIST))).toBe(true);
      expect(spawnSync(bin, ["--version"], { encoding: "utf8" }).stdout).toMatch(/^tracegate \d+\.\d+\.\d+ \(/);
      expect(r.stdout).toContain("checksum ok");
      expect(r.stdout).toContain(`export PATH="${join(h, ".local", "bin")}:$PATH"`);
      // After saying the dir is not on PATH, the next steps name the full path.
      expect(r.stdout).toContain(`until then, run it by its full path: ${bin}`);
      expect(r.stdout).toContain(`next: register the Claude Code hooks with: ${bin} install`);
      expect(r.stdout).toContain(`then check it with: ${bin} doctor`);
      expect(r.stdout).toContain(`downloading ${hostAsset}.xz`);
      // not registered unless asked
      expect(existsSync(join(h, ".claude", "settings.json"))).toBe(false);
      expect(readdirSync(join(h, ".local", "bin"))).toEqual(["tracegate"]);
    });
  }

  test("--register --gate runs tracegate install with the installed path; TRACEGATE_INSTALL_DIR is honoured", async () => {
    const h = home("register");
    const dir = join(h, "opt bin");
    const r = await curlPipe("good", h, ["--register", "--gate"], { env: { TRACEGATE_INSTALL_DIR: dir }, path: `${dir}:/usr/local/bin:/usr/bin:/bin` });
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain("is not on your PATH");
    const settings = JSON.parse(readFileSync(join(h, ".claude", "settings.json"), "utf8"));
    const stop = settings.hooks.Stop[0].hooks[0].command as string;
    expect(stop).toContain(`exec "$0" stop'`);
    expect(stop).toEndWith(`'${join(dir, "tracegate")}'`);
    const doctor = spawnSync(join(dir, "tracegate"), ["doctor"], { env: { HOME: h, CLAUDE_CONFIG_DIR: join(h, ".claude"), TRACEGATE_HOME: join(h, "data"), TRACEGATE_CONFIG: join(h, "none.jsonc") }, cwd: h, encoding: "utf8" });
    expect(doctor.status).toBe(0);
  });

  test("without xz (or TRACEGATE_COMPRESSION=gz) the .gz download is used, checked and decompressed", async () => {
    const h = home("gz");
    const r = await curlPipe("good", h, [], { env: { TRACEGATE_COMPRESSION: "gz" } });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`downloading ${hostAsset}.gz`);
    expect(readFileSync(join(h, ".local", "bin", "tracegate")).equals(readFileSync(DIST))).toBe(true);
    // A PATH with every tool the installer uses except xz.
    const tools = join(h, "tools");
    mkdirSync(tools);
    for (const t of ["sh", "curl", "awk", "sha256sum", "gzip", "mktemp", "rm", "uname", "chmod", "mkdir", "cp", "mv", "cat", "dirname"]) {
      const w = spawnSync("sh", ["-c", `command -v ${t}`], { encoding: "utf8" }).stdout.trim();
      if (w) symlinkSync(w, join(tools, t));
    }
    const h2 = home("no-xz");
    const r2 = await curlPipe("good", h2, [], { path: tools });
    expect(r2.stderr).toBe("");
    expect(r2.stdout).toContain(`downloading ${hostAsset}.gz`);
    expect(existsSync(join(h2, ".local", "bin", "tracegate"))).toBe(true);
  }, 60_000);

  test("on a terminal the download shows a progress bar; piped it does not", async () => {
    const h = home("bar");
    const env = `PATH=/usr/local/bin:/usr/bin:/bin HOME=${h} TRACEGATE_DOWNLOAD_URL=${base}/good CLAUDE_CONFIG_DIR=${h}/.claude TRACEGATE_HOME=${h}/data`;
    const p = Bun.spawn(["script", "-qec", `env -i ${env} sh -c 'curl -fsSL ${base}/good/install.sh | sh'`, "/dev/null"], { stdout: "pipe", stderr: "pipe" });
    const [out, status] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    if (status === 127 || /script: not found/.test(out)) {
      console.warn("SKIPPED: util-linux `script` is missing; the progress-bar test needs a pty");
      if (process.env.CI === "true") expect("script").toBe("installed");
      return;
    }
    expect(status).toBe(0);
    expect(out).toMatch(/#{10,}.*100(\.0)?%/s);
    const piped = await curlPipe("good", home("bar-piped"));
    expect(piped.stdout + piped.stderr).not.toContain("##########");
  }, 60_000);

  test("a tampered binary is refused and nothing is installed", async () => {
    const h = home("tampered");
    const r = await curlPipe("tampered", h, ["--register"]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("checksum mismatch");
    expect(existsSync(join(h, ".local"))).toBe(false);
    expect(existsSync(join(h, ".claude"))).toBe(false);
  });

  test("a missing asset fails with a clear message and installs nothing", async () => {
    const h = home("missing");
    const r = await curlPipe("empty", h);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`download failed: ${base}/empty/SHA256SUMS (check TRACEGATE_DOWNLOAD_URL)`);
    expect(existsSync(join(h, ".local"))).toBe(false);
  });

  test("an unsupported platform is refused before any download", async () => {
    const h = home("sunos");
    const fake = join(h, "fakebin");
    mkdirSync(fake);
    writeFileSync(join(fake, "uname"), '#!/bin/sh\ncase "$1" in -s) echo SunOS ;; -m) echo sparc64 ;; esac\n');
    chmodSync(join(fake, "uname"), 0o755);
    const r = await curlPipe("good", h, [], { path: `${fake}:/usr/local/bin:/usr/bin:/bin` });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("unsupported operating system: SunOS");
    expect(existsSync(join(h, ".local"))).toBe(false);
  });

  test("--from-source builds with npm ci && npm run build in the checkout and installs the result", () => {
    // A stand-in checkout and a stand-in npm that logs its calls: the real
    // `npm ci` would replace node_modules, which is not a test's to do.
    const h = home("source");
    const checkout = join(h, "checkout");
    mkdirSync(checkout);
    copyFileSync(SCRIPT, join(checkout, "install.sh"));
    writeFileSync(join(checkout, "package.json"), '{\n  "name": "tracegate",\n  "version": "0.0.0"\n}\n');
    const fake = join(h, "fakebin");
    mkdirSync(fake);
    const log = join(h, "npm.log");
    writeFileSync(join(fake, "npm"), `#!/bin/sh\necho "$*" >> '${log}'\nif [ "$1" = run ] && [ "$2" = build ]; then mkdir -p dist && cp '${DIST}' dist/tracegate; fi\n`);
    chmodSync(join(fake, "npm"), 0o755);
    const r = spawnSync("sh", [join(checkout, "install.sh"), "--from-source"], {
      cwd: h,
      encoding: "utf8",
      env: { PATH: `${fake}:/usr/bin:/bin`, HOME: h },
    });
    expect(r.status).toBe(0);
    expect(readFileSync(log, "utf8")).toBe("ci\nrun build\n");
    expect(readFileSync(join(h, ".local", "bin", "tracegate")).equals(readFileSync(DIST))).toBe(true);
    // A checkout whose node_modules is already installed from this lockfile: no second `npm ci`.
    writeFileSync(join(checkout, "package-lock.json"), "{}\n");
    mkdirSync(join(checkout, "node_modules"));
    const later = new Date(Date.now() + 5000);
    writeFileSync(join(checkout, "node_modules", ".package-lock.json"), "{}\n");
    utimesSync(join(checkout, "node_modules", ".package-lock.json"), later, later);
    writeFileSync(log, "");
    const again = spawnSync("sh", [join(checkout, "install.sh"), "--from-source"], { cwd: h, encoding: "utf8", env: { PATH: `${fake}:/usr/bin:/bin`, HOME: h } });
    expect(again.status).toBe(0);
    expect(readFileSync(log, "utf8")).toBe("run build\n");
  });

  test("bad arguments are refused", async () => {
    const h = home("args");
    expect((await curlPipe("good", h, ["--bogus"])).status).not.toBe(0);
    expect((await curlPipe("good", h, ["--gate"])).status).not.toBe(0);
    expect(existsSync(join(h, ".local"))).toBe(false);
  });
});
