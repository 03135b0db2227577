/**
 * `tracegate sync` end to end, the compiled binary against a file:// store
 * and a real Ceph RGW (s3://): layout, append-only segments, idempotent and
 * resumable runs (SIGKILL, concurrent syncs, lost journal), conflicts, faults,
 * and `sessions`/`show`/`verify --from` on a fresh data dir.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveS3Settings } from "../../lib/sync/aws.ts";
import { FileStore, S3Store, type ObjectStore } from "../../lib/sync/objects.ts";
import { rgw } from "../support/rgw.ts";
import { BINARY, cleanup, postToolUse, run, tempDir } from "../support/tracegate.ts";
import { bulkSessions, expectExactlyOnce, message, sessionStart, storeObjects, writeSession } from "./support.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const dirs: string[] = [];
const tmp = () => {
  const d = tempDir("tg-sync-");
  dirs.push(d);
  return d;
};
afterAll(() => cleanup(...dirs));

interface Backend {
  readonly name: string;
  /** A fresh empty store: its URL, the env the binary needs, and a reader. */
  fresh(sub?: string): Promise<{ url: string; env: Record<string, string>; store: ObjectStore; prefix: string }>;
}

const fileBackend: Backend = {
  name: "file",
  async fresh() {
    const root = join(tmp(), "store");
    mkdirSync(root);
    return { url: `file://${root}`, env: {}, store: new FileStore(root), prefix: "" };
  },
};

const server = await rgw();
const backends: Backend[] = [fileBackend];
if (server) {
  backends.push({
    name: "s3",
    async fresh(sub = "team") {
      const bucket = await server.bucket();
      return { url: `s3://${bucket}/${sub}`, env: server.env(), store: new S3Store(server.settings(), bucket), prefix: sub };
    },
  });
}

function homeEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { TRACEGATE_HOME: home, TRACEGATE_CONFIG: join(home, "config.jsonc"), HOME: home, ...extra };
}

async function sync(home: string, env: Record<string, string>, ...args: string[]) {
  const r = await run(["sync", ...args], { env: homeEnv(home, env) });
  let summary: any = null;
  if (args.includes("--json")) summary = JSON.parse(text(r.stdout));
  return { ...r, summary };
}

/** A git repo whose origin carries credentials, for the org/repo part of the layout. */
function gitRepo(remote: string): string {
  const dir = join(tmp(), "api");
  mkdirSync(join(dir, "src"), { recursive: true });
  execFileSync("git", ["init", "-q", dir]);
  execFileSync("git", ["-C", dir, "remote", "add", "origin", remote]);
  return dir;
}

for (const b of backends) {
  describe(`sync to ${b.name}`, () => {
    test("layout: <prefix>/<org>/<repo>/<YYYY>/<MM>/<DD>/<session>/<offset>.jsonl, credentials stripped", async () => {
      const home = tmp();
      const repo = gitRepo("https://bob:ghp_s3cr3tTOKEN@github.com/acme/api.git");
      const plain = join(tmp(), "scratch-proj");
      mkdirSync(plain);
      writeSession(home, "s-git", [sessionStart("s-git", join(repo, "src"), "2026-11-30T23:59:59.000Z"), message("s-git", 1, "x", "2026-12-01T00:00:01.000Z")]);
      writeSession(home, "s-plain", [sessionStart("s-plain", plain, "2026-12-01T08:00:00.000Z")]);
      writeSession(home, "s-none", [message("s-none", 1, "no start", "2026-01-02T03:04:05.000Z")]);
      const s = await b.fresh();
      const r = await sync(home, s.env, "--to", s.url, "--json");
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.summary).toMatchObject({ uploaded: 3, skipped: 0, conflicts: [], errors: [] });
      const p = s.prefix ? `${s.prefix}/` : "";
      const keys = [...(await storeObjects(s.store)).keys()].sort();
      expect(keys).toEqual([
        `${p}_local/_none/2026/01/02/s-none/000000000000.jsonl`,
        `${p}_local/scratch-proj/2026/12/01/s-plain/000000000000.jsonl`,
        `${p}acme/api/2026/11/30/s-git/000000000000.jsonl`,
      ]);
      expect(keys.join()).not.toContain("s3cr3t");
      expectExactlyOnce(home, await storeObjects(s.store));
      // Readers narrow by prefix: one repository, one repository's month.
      for (const narrow of [`${s.url}/acme/api`, `${s.url}/acme/api/2026/11`, `${s.url}/_local`]) {
        const r = await run(["sessions", "--json", "--from", narrow], { env: homeEnv(tmp(), s.env) });
        expect(r.code).toBe(0);
        const ids = text(r.stdout).trim().split("\n").map((l) => JSON.parse(l).session_id).sort();
        expect(ids).toEqual(narrow.endsWith("_local") ? ["s-none", "s-plain"] : ["s-git"]);
      }
    });

    test("append-only: a rerun uploads nothing; new records become a new segment; old objects untouched; no URL is exit 2", async () => {
      const home = tmp();
      bulkSessions(home, 3, 5);
      const s = await b.fresh();
      const first = await sync(home, s.env, "--to", s.url, "--json");
      expect(first.summary).toMatchObject({ uploaded: 3, errors: [] });
      const before = await storeObjects(s.store);
      const again = await sync(home, s.env, "--to", s.url, "--json");
      expect(again.summary).toMatchObject({ uploaded: 0, bytes: 0, errors: [], conflicts: [] });
      // Without the local journal the store's listing says the same: nothing to upload.
      rmSync(join(home, "sync"), { recursive: true });
      const cold = await sync(home, s.env, "--to", s.url, "--json");
      expect(cold.summary).toMatchObject({ uploaded: 0, skipped: 3, errors: [], conflicts: [] });
      const size = readFileSync(join(home, "sessions", "bulk-0001.jsonl")).length;
      writeSession(home, "bulk-0001", [message("bulk-0001", 99)], true);
      const more = await sync(home, s.env, "--to", s.url, "--json");
      expect(more.summary).toMatchObject({ uploaded: 1, errors: [] });
      const after = await storeObjects(s.store);
      for (const [k, v] of before) expect(after.get(k)!.equals(v)).toBe(true);
      const added = [...after.keys()].filter((k) => !before.has(k));
      expect(added).toHaveLength(1);
      expect(added[0]).toEndWith(`/bulk-0001/${String(size).padStart(12, "0")}.jsonl`);
      expectExactlyOnce(home, after);
      // --session: only that session goes.
      writeSession(home, "bulk-0000", [message("bulk-0000", 96)], true);
      writeSession(home, "bulk-0002", [message("bulk-0002", 96)], true);
      const one = await sync(home, s.env, "--to", s.url, "--session", "bulk-0002", "--json");
      expect(one.summary).toMatchObject({ sessions: 1, uploaded: 1, errors: [] });
      const unknown = await sync(home, s.env, "--to", s.url, "--session", "nope", "--json");
      expect(unknown.code).toBe(1);
      expect(unknown.summary.errors[0].error).toContain('no session "nope"');
      // Dry run: counts what would go, writes nothing.
      writeSession(home, "bulk-0002", [message("bulk-0002", 98)], true);
      const dry = await sync(home, s.env, "--to", s.url, "--dry-run", "--json");
      expect(dry.summary).toMatchObject({ dry_run: true, uploaded: 2 });
      expect((await storeObjects(s.store)).size).toBe(after.size + 1);
      // Silence off a terminal: nothing on stdout or stderr without --json.
      const quiet = await sync(home, s.env, "--to", s.url);
      writeSession(home, "bulk-0000", [message("bulk-0000", 95)], true);
      expect(quiet.code).toBe(0);
      expect(quiet.stdout.length).toBe(0);
      expect(quiet.stderr).toBe("");
      const none = await sync(home, s.env);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain("--to");
      // The config's sync.url is the default destination.
      writeFileSync(join(home, "config.jsonc"), JSON.stringify({ sync: { url: s.url } }));
      writeSession(home, "bulk-0000", [message("bulk-0000", 97)], true);
      expect((await sync(home, s.env, "--json")).summary).toMatchObject({ uploaded: 1, errors: [] });
    });

    test("a torn last line is not synced: error, exit 1; once completed it goes up", async () => {
      const home = tmp();
      const path = writeSession(home, "s-torn", [sessionStart("s-torn", null), message("s-torn", 1)]);
      writeFileSync(path, `${readFileSync(path, "utf8")}{"id":"half`);
      const s = await b.fresh();
      const r = await sync(home, s.env, "--to", s.url, "--json");
      expect(r.code).toBe(1);
      expect(r.summary.errors[0].error).toContain("torn line");
      expect(r.summary.uploaded).toBe(1);
      expectExactlyOnce(home, await storeObjects(s.store));
      writeFileSync(path, `${readFileSync(path, "utf8")}","type":"message"}\n`);
      const ok = await sync(home, s.env, "--to", s.url, "--json");
      expect(ok.summary).toMatchObject({ uploaded: 1, errors: [] });
      expect(ok.code).toBe(0);
      expectExactlyOnce(home, await storeObjects(s.store));
    });

    test("conflict: different bytes at a synced offset are reported, exit 1, never overwritten", async () => {
      const home = tmp();
      const path = writeSession(home, "s-c", [sessionStart("s-c", null), message("s-c", 1, "aaaa")]);
      const s = await b.fresh();
      expect((await sync(home, s.env, "--to", s.url, "--json")).code).toBe(0);
      const before = await storeObjects(s.store);
      // Local history rewritten (same length), journal gone: the listing's MD5 or the 412's sha256 catches it.
      writeFileSync(path, readFileSync(path, "utf8").replace("aaaa", "bbbb"));
      rmSync(join(home, "sync"), { recursive: true });
      writeSession(home, "s-c", [message("s-c", 2)], true);
      const r = await sync(home, s.env, "--to", s.url, "--json");
      expect(r.code).toBe(1);
      expect(r.summary.conflicts).toHaveLength(1);
      expect(r.summary.conflicts[0].reason).toContain("different bytes");
      const after = await storeObjects(s.store);
      expect([...after.keys()]).toEqual([...before.keys()]);
      for (const [k, v] of before) expect(after.get(k)!.equals(v)).toBe(true);
      // A local file shorter than what the store holds is a conflict too, journal or not.
      writeSession(home, "s-c", [sessionStart("s-c", null)]);
      for (const dropJournal of [false, true]) {
        if (dropJournal) rmSync(join(home, "sync"), { recursive: true, force: true });
        const short = await sync(home, s.env, "--to", s.url, "--json");
        expect(short.code).toBe(1);
        expect(short.summary.conflicts[0].reason).toMatch(/local file only \d+ complete bytes|different bytes/);
      }
      expect((await storeObjects(s.store)).size).toBe(before.size);
    });

    test("conflict on 412: another writer's different segment at the next offset is kept and reported", async () => {
      const home = tmp();
      const path = writeSession(home, "s-412", [sessionStart("s-412", null)]);
      const s = await b.fresh();
      await sync(home, s.env, "--to", s.url, "--json");
      const [first] = [...(await storeObjects(s.store)).keys()];
      const size = readFileSync(path).length;
      const rogueKey = first!.replace(/\d{12}\.jsonl$/, `${String(size).padStart(12, "0")}.jsonl`);
      const rogue = Buffer.from(`${message("s-412", 7, "someone else")}\n`);
      expect(await s.store.putIfAbsent(rogueKey, rogue, new Bun.CryptoHasher("sha256").update(rogue).digest("hex"))).toBe("created");
      writeSession(home, "s-412", [message("s-412", 1, "mine")], true);
      const r = await sync(home, s.env, "--to", s.url, "--json");
      expect(r.code).toBe(1);
      expect(r.summary.conflicts).toEqual([expect.objectContaining({ key: rogueKey })]);
      expect(Buffer.from(await s.store.get(rogueKey)).equals(rogue)).toBe(true);
    });

    test("SIGKILL at several moments, then a rerun: every segment exactly once, no partial object", async () => {
      const home = tmp();
      bulkSessions(home, 40, 30, 300);
      const s = await b.fresh();
      const env = homeEnv(home, { ...s.env, TRACEGATE_SYNC_SEGMENT_BYTES: "2048" });
      for (const [i, delay] of [5, 40, 90, 160, 260, 400].entries()) {
        const p = Bun.spawn([BINARY, "sync", "--to", s.url], { env: { PATH: process.env.PATH!, ...env }, stdout: "ignore", stderr: "ignore" });
        await Bun.sleep(delay);
        p.kill("SIGKILL");
        await p.exited;
        if (i % 2) rmSync(join(home, "sync"), { recursive: true, force: true }); // lost local state too
        expectExactlyOnce(home, await storeObjects(s.store), []); // every object so far is whole
      }
      const done = await run(["sync", "--to", s.url, "--json"], { env: { ...env } });
      expect(done.code).toBe(0);
      expect(JSON.parse(text(done.stdout))).toMatchObject({ conflicts: [], errors: [] });
      expectExactlyOnce(home, await storeObjects(s.store));
      const noop = await run(["sync", "--to", s.url, "--json"], { env });
      expect(JSON.parse(text(noop.stdout))).toMatchObject({ uploaded: 0 });
    }, 120_000);

    test("16 syncs of the same data dir at once end the same: each segment created exactly once", async () => {
      const home = tmp();
      bulkSessions(home, 12, 20, 300);
      const s = await b.fresh();
      const env = { PATH: process.env.PATH!, ...homeEnv(home, { ...s.env, TRACEGATE_SYNC_SEGMENT_BYTES: "2048" }) };
      const procs = Array.from({ length: 16 }, () => Bun.spawn([BINARY, "sync", "--to", s.url, "--json"], { env, stdout: "pipe", stderr: "pipe" }));
      const results = await Promise.all(procs.map(async (p) => ({ code: await p.exited, out: await new Response(p.stdout).text(), err: await new Response(p.stderr).text() })));
      for (const r of results) {
        expect(r.err).toBe("");
        expect(r.code).toBe(0);
      }
      const summaries = results.map((r) => JSON.parse(r.out));
      const objects = await storeObjects(s.store);
      expect(summaries.reduce((n, x) => n + x.uploaded, 0)).toBe(objects.size);
      expectExactlyOnce(home, objects);
    }, 120_000);

    test("two machines with the same bytes derive the same segments: the second uploads nothing, no conflict", async () => {
      const a = tmp();
      bulkSessions(a, 6, 20, 300);
      const bHome = tmp();
      execFileSync("cp", ["-a", join(a, "sessions"), join(bHome, "sessions")]);
      const s = await b.fresh();
      const small = { ...s.env, TRACEGATE_SYNC_SEGMENT_BYTES: "2048" };
      const [ra, rb] = await Promise.all([sync(a, small, "--to", s.url, "--json"), sync(bHome, small, "--to", s.url, "--json")]);
      expect([ra.code, rb.code]).toEqual([0, 0]);
      const objects = await storeObjects(s.store);
      expect(ra.summary.uploaded + rb.summary.uploaded).toBe(objects.size);
      const again = await sync(bHome, small, "--to", s.url, "--json");
      expect(again.summary).toMatchObject({ uploaded: 0, conflicts: [], errors: [] });
      expectExactlyOnce(a, objects);
    });

    test("records appended while syncs run: every complete line ends up exactly once", async () => {
      const home = tmp();
      bulkSessions(home, 3, 5, 300);
      const s = await b.fresh();
      const env = { ...s.env, TRACEGATE_SYNC_SEGMENT_BYTES: "1024" };
      let stop = false;
      const appender = (async () => {
        for (let i = 0; !stop; i++) {
          writeSession(home, `bulk-000${i % 3}`, [message(`bulk-000${i % 3}`, 1000 + i, "y".repeat(200))], true);
          await Bun.sleep(2);
        }
      })();
      for (let i = 0; i < 4; i++) expect((await sync(home, env, "--to", s.url, "--json")).summary.conflicts).toEqual([]);
      stop = true;
      await appender;
      const last = await sync(home, env, "--to", s.url, "--json");
      expect(last.summary).toMatchObject({ conflicts: [], errors: [] });
      expectExactlyOnce(home, await storeObjects(s.store));
    });

    test("a session file that cannot be read is an error; the rest sync; it is not marked done", async () => {
      const home = tmp();
      bulkSessions(home, 2, 3);
      mkdirSync(join(home, "sessions", "broken.jsonl")); // not a file: cannot be read as one
      const s = await b.fresh();
      const r = await sync(home, s.env, "--to", s.url, "--json");
      expect(r.code).toBe(1);
      expect(r.summary.uploaded).toBe(2);
      expect(r.summary.errors).toEqual([expect.objectContaining({ session: "broken", error: expect.stringContaining("not a regular file") })]);
      rmSync(join(home, "sessions", "broken.jsonl"), { recursive: true });
      writeSession(home, "broken", [sessionStart("broken", null)]);
      const ok = await sync(home, s.env, "--to", s.url, "--json");
      expect(ok.summary).toMatchObject({ uploaded: 1, errors: [] });
    });

    test("hostile data dir: a symlinked or FIFO session file is refused, not followed; a FIFO .git/config does not stall", async () => {
      const home = tmp();
      bulkSessions(home, 1, 2);
      const secret = join(tmp(), "secret.txt");
      writeFileSync(secret, "do not upload\n");
      symlinkSync(secret, join(home, "sessions", "link.jsonl"));
      execFileSync("mkfifo", [join(home, "sessions", "fifo.jsonl")]);
      const repo = join(tmp(), "evil");
      mkdirSync(join(repo, ".git"), { recursive: true });
      execFileSync("mkfifo", [join(repo, ".git", "config")]);
      writeSession(home, "s-evil", [sessionStart("s-evil", repo)]);
      const s = await b.fresh();
      const r = await sync(home, s.env, "--to", s.url, "--json");
      expect(r.code).toBe(1);
      expect(r.summary.uploaded).toBe(2);
      expect(r.summary.errors.map((e: any) => e.session).sort()).toEqual(["fifo", "link"]);
      const objects = await storeObjects(s.store);
      expect(Buffer.concat([...objects.values()]).toString()).not.toContain("do not upload");
      expect([...objects.keys()].some((k) => k.includes("_local/evil/"))).toBe(true);
    });

    test("--from: sessions, show and verify on a fresh empty data dir answer as the local dir does", async () => {
      const home = tmp();
      const e = homeEnv(home);
      await run(["session-start"], { stdin: JSON.stringify({ session_id: "s-one", cwd: home, source: "startup" }), env: e });
      await run(["user-prompt-submit"], { stdin: JSON.stringify({ session_id: "s-one", prompt: "fix the bug" }), env: e });
      await run(["post-tool-use"], { stdin: postToolUse("s-one"), env: e });
      await run(["session-end"], { stdin: JSON.stringify({ session_id: "s-one", reason: "exit" }), env: e });
      await run(["user-prompt-submit"], { stdin: JSON.stringify({ session_id: "s-two", prompt: "hello" }), env: e });
      const s = await b.fresh();
      // Small segments: the readers must stitch several back together.
      const up = await sync(home, { ...s.env, TRACEGATE_SYNC_SEGMENT_BYTES: "200" }, "--to", s.url, "--json");
      expect(up.code).toBe(0);
      expect(up.summary.uploaded).toBe(5); // every record is longer than 200 bytes: one segment each
      const fresh = tmp();
      const local = (args: string[]) => run(args, { env: homeEnv(home, s.env) });
      const remote = (args: string[]) => run([...args, "--from", s.url], { env: homeEnv(fresh, s.env) });
      const rows = (r: { stdout: Uint8Array }) =>
        text(r.stdout).trim().split("\n").map((l) => {
          const { file, ...rest } = JSON.parse(l);
          return rest;
        }).sort((a, b) => a.session_id.localeCompare(b.session_id));
      const [ls, rs] = [await local(["sessions", "--json"]), await remote(["sessions", "--json"])];
      expect(rs.code).toBe(0);
      expect(rows(rs)).toEqual(rows(ls));
      expect(rows(rs)).toHaveLength(2);
      for (const args of [["show", "s-one", "--json"], ["show", "s-one"], ["verify"], ["verify", "s-two", "--json"], ["show", "nope"]]) {
        const [l, r] = [await local(args), await remote(args)];
        expect({ args, code: r.code, out: text(r.stdout) }).toEqual({ args, code: l.code, out: text(l.stdout) });
      }
      expect((await remote(["show", "s-one"])).code).toBe(0);
    });
  });
}

describe("faults", () => {
  test("file store: a missing store directory is a clear error, exit 1, nothing written", async () => {
    const home = tmp();
    bulkSessions(home, 1, 2);
    const r = await sync(home, {}, "--to", `file://${join(home, "nope")}`);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("does not exist");
    const bad = await sync(home, {}, "--to", "ftp://x/y");
    expect(bad.code).toBe(2);
  });

  test.skipIf(!server)("s3: server down, wrong secret, unknown key id, missing bucket: each says what, exit 1, nothing marked done", async () => {
    const home = tmp();
    bulkSessions(home, 2, 2);
    const bucket = await server!.bucket();
    const url = `s3://${bucket}/p`;
    const down = await sync(home, { ...server!.env(), AWS_ENDPOINT_URL: "http://127.0.0.1:9" }, "--to", url);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("cannot reach the S3 endpoint http://127.0.0.1:9");
    const secret = await sync(home, { ...server!.env(), AWS_SECRET_ACCESS_KEY: "wrong" }, "--to", url);
    expect(secret.code).toBe(1);
    expect(secret.stderr).toContain(`refused access key id "${server!.accessKeyId}"`);
    const unknown = await sync(home, { ...server!.env(), AWS_ACCESS_KEY_ID: "AKIDNOSUCHKEY" }, "--to", url, "--json");
    expect(unknown.code).toBe(1);
    expect(unknown.summary.errors[0].error).toContain('"AKIDNOSUCHKEY" (InvalidAccessKeyId)');
    const missing = await sync(home, server!.env(), "--to", "s3://no-such-bucket-here/p");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('bucket "no-such-bucket-here" does not exist');
    const nokeys = await sync(home, { AWS_ENDPOINT_URL: server!.endpoint }, "--to", url);
    expect(nokeys.code).toBe(2);
    expect(nokeys.stderr).toContain("AWS_ACCESS_KEY_ID");
    // None of that marked anything done: the first good run uploads everything.
    const ok = await sync(home, server!.env(), "--to", url, "--json");
    expect(ok.summary).toMatchObject({ uploaded: 2, skipped: 0, errors: [] });
  });

  test("s3: a server that accepts and never answers: a timeout error naming the endpoint, exit 1", async () => {
    const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const home = tmp();
      bulkSessions(home, 1, 2);
      const env = { AWS_ENDPOINT_URL: `http://127.0.0.1:${silent.port}`, AWS_ACCESS_KEY_ID: "AKIDX", AWS_SECRET_ACCESS_KEY: "s", TRACEGATE_SYNC_TIMEOUT_S: "1" };
      const r = await sync(home, env, "--to", "s3://traces/p", "--json");
      expect(r.code).toBe(1);
      expect(r.summary.errors[0].error).toContain(`http://127.0.0.1:${silent.port} did not answer`);
      expect(r.summary.uploaded).toBe(0);
    } finally {
      silent.stop(true);
    }
  });

  test.skipIf(!server)("s3: credentials from AWS_PROFILE in ~/.aws, endpoint from the config file", async () => {
    const home = tmp();
    bulkSessions(home, 1, 2);
    mkdirSync(join(home, ".aws"));
    writeFileSync(join(home, ".aws", "credentials"), `[ci]\naws_access_key_id = ${server!.accessKeyId}\naws_secret_access_key = ${server!.secretAccessKey}\n`);
    writeFileSync(join(home, ".aws", "config"), `[profile ci]\nregion = us-east-1\nendpoint_url = ${server!.endpoint}\n`);
    const bucket = await server!.bucket();
    const r = await sync(home, { AWS_PROFILE: "ci" }, "--to", `s3://${bucket}`, "--json");
    expect(r.summary).toMatchObject({ uploaded: 1, errors: [] });
  });

  test.skipIf(!server)("s3: 16 processes racing one conditional create: exactly one wins, its bytes stay", async () => {
    const bucket = await server!.bucket();
    const script = join(import.meta.dir, "fixtures", "put-once.ts");
    const startAt = String(Date.now() + 1500);
    const procs = Array.from({ length: 16 }, (_, i) =>
      Bun.spawn([process.execPath, script, bucket, "race/key.jsonl", `writer-${i}\n`], { env: { PATH: process.env.PATH!, ...server!.env(), START_AT: startAt }, stdout: "pipe", stderr: "pipe" }),
    );
    const outs = await Promise.all(procs.map(async (p) => (await p.exited, (await new Response(p.stdout).text()).trim())));
    expect(outs.filter((o) => o === "created")).toHaveLength(1);
    expect(outs.filter((o) => o === "exists")).toHaveLength(15);
    const winner = outs.indexOf("created");
    const store = new S3Store(resolveS3Settings(server!.env()), bucket);
    expect(text(await store.get("race/key.jsonl"))).toBe(`writer-${winner}\n`);
    expect((await store.head("race/key.jsonl"))?.sha256).toBe(new Bun.CryptoHasher("sha256").update(`writer-${winner}\n`).digest("hex"));
  }, 60_000);
});

test.skipIf(!Bun.which("script"))("a terminal gets a progress bar (sessions, bytes, rate) and a summary line", async () => {
  const home = tmp();
  bulkSessions(home, 5, 10);
  const { url } = await fileBackend.fresh();
  const log = join(home, "tty.log");
  // util-linux `script` runs the command on a pseudo-terminal and copies what it shows to the log.
  const p = Bun.spawn(["script", "-qec", `${BINARY} sync --to ${url}`, log], { env: { PATH: process.env.PATH!, ...homeEnv(home) }, stdout: "ignore", stderr: "ignore", stdin: "ignore" });
  expect(await p.exited).toBe(0);
  const tty = readFileSync(log, "utf8");
  expect(tty).toMatch(/\[#+\] 5\/5 sessions\s+0\.\d MB\s+[\d.]+ MB\/s/);
  expect(tty).toContain("uploaded 5 segments");
});
