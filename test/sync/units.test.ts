/** The pure parts of sync: URLs, layout, segment cuts, AWS settings. */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AwsConfigError, resolveS3Settings } from "../../lib/sync/aws.ts";
import { datePath, parseSegmentKey, repoSlug, safeComponent, segmentKey } from "../../lib/sync/layout.ts";
import { segmentEnd } from "../../lib/sync/segments.ts";
import { parseStoreUrl, StoreUrlError } from "../../lib/sync/url.ts";
import { cleanup, tempDir } from "../support/tracegate.ts";

test("store URLs: file:// needs an absolute path; s3:// takes bucket and prefix; nothing else", () => {
  expect(parseStoreUrl("file:///srv/t/")).toMatchObject({ kind: "file", root: "/srv/t" });
  expect(parseStoreUrl("s3://traces/acme//x/")).toMatchObject({ kind: "s3", bucket: "traces", prefix: "acme/x", url: "s3://traces/acme/x" });
  expect(parseStoreUrl("s3://traces")).toMatchObject({ bucket: "traces", prefix: "" });
  for (const bad of ["file://rel/dir", "http://x", "s3://Bad_Bucket/x", "s3://traces/../x", "/abs"]) expect(() => parseStoreUrl(bad)).toThrow(StoreUrlError);
});

test("repo slug: credentials and .git stripped, scp form, nested groups, local paths refused", () => {
  expect(repoSlug("https://user:ghp_secret@github.com/acme/api.git")).toEqual({ org: "acme", repo: "api" });
  expect(repoSlug("git@github.com:acme/api.git")).toEqual({ org: "acme", repo: "api" });
  expect(repoSlug("ssh://git@host:2222/acme/api")).toEqual({ org: "acme", repo: "api" });
  expect(repoSlug("https://gitlab.com/a/b/c.git")).toEqual({ org: "a-b", repo: "c" });
  expect(repoSlug("https://github.com/acme/../../etc")).toEqual({ org: "acme", repo: "etc" });
  expect(repoSlug("/srv/git/api.git")).toBeNull();
  expect(JSON.stringify(repoSlug("https://u:tok@h/o/r"))).not.toContain("tok");
  expect(safeComponent("..", "_")).toBe("_");
  expect(safeComponent(".hidden", "_")).toBe("_hidden");
  expect(safeComponent("a/b c", "_")).toBe("a_b_c");
});

test("layout: date from the first record in UTC; keys sort by offset and parse back", () => {
  expect(datePath("2026-12-31T23:30:00-02:00")).toBe("2027/01/01");
  expect(datePath("yesterday")).toBe("1970/01/01");
  const k = segmentKey("p/acme/api/2026/12/01/s1", 1234);
  expect(k).toBe("p/acme/api/2026/12/01/s1/000000001234.jsonl");
  expect(parseSegmentKey(k)).toMatchObject({ org: "acme", repo: "api", date: "2026/12/01", session: "s1", offset: 1234, sessionPrefix: "p/acme/api/2026/12/01/s1" });
  expect(parseSegmentKey("p/acme/api/2026/12/01/s1/notes.txt")).toBeNull();
  expect(segmentKey("x", 10) < segmentKey("x", 9) ).toBe(false);
});

test("segments end after the last newline that fits; a longer line is its own segment; no newline, no segment", () => {
  const b = Buffer.from('{"a":1}\n{"b":2}\n{"c"');
  expect(segmentEnd(b, 0, 1 << 20)).toBe(16);
  expect(segmentEnd(b, 100, 10)).toBe(108);
  expect(segmentEnd(Buffer.from("x".repeat(50) + "\nyy\n"), 0, 10)).toBe(51);
  expect(segmentEnd(Buffer.from("torn"), 0, 10)).toBeNull();
  // A window reaching past the ceiling with no newline inside it ends at the first newline after.
  expect(segmentEnd(Buffer.from(`${"x".repeat(30)}\n${"y".repeat(30)}\n`), 0, 10)).toBe(31);
});

test("AWS settings: env pair wins, else AWS_PROFILE from ~/.aws files; endpoint means path-style", () => {
  const home = tempDir();
  try {
    mkdirSync(join(home, ".aws"));
    writeFileSync(join(home, ".aws", "credentials"), "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n[work]\naws_access_key_id = W\naws_secret_access_key = WS\n");
    writeFileSync(join(home, ".aws", "config"), "[profile work]\nregion = eu-west-3\nendpoint_url = http://127.0.0.1:9000\n");
    const w = resolveS3Settings({ HOME: home, AWS_PROFILE: "work" });
    expect(w).toMatchObject({ accessKeyId: "W", secretAccessKey: "WS", region: "eu-west-3", endpoint: "http://127.0.0.1:9000", pathStyle: true });
    const d = resolveS3Settings({ HOME: home });
    expect(d).toMatchObject({ accessKeyId: "D", endpoint: "https://s3.us-east-1.amazonaws.com", pathStyle: false });
    const e = resolveS3Settings({ HOME: home, AWS_ACCESS_KEY_ID: "E", AWS_SECRET_ACCESS_KEY: "ES", AWS_SESSION_TOKEN: "T", AWS_ENDPOINT_URL_S3: "http://h:1/ignored", AWS_DEFAULT_REGION: "ap-south-1" });
    expect(e).toMatchObject({ accessKeyId: "E", secretAccessKey: "ES", sessionToken: "T", endpoint: "http://h:1", region: "ap-south-1" });
    expect(() => resolveS3Settings({ HOME: home, AWS_PROFILE: "nope" })).toThrow(AwsConfigError);
  } finally {
    cleanup(home);
  }
});
