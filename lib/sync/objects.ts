/**
 * The object stores sync writes to and readers list: an S3 bucket (signed
 * fetch) or a plain directory laid out exactly like the bucket. Both offer
 * the same four calls, and the only write is a conditional create: nothing
 * here can overwrite or delete an object.
 */
import { nodeCrypto } from "../runtime/builtins.ts";
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import type { S3Settings } from "./aws.ts";
import { EMPTY_SHA256, signS3 } from "./sigv4.ts";

export interface ObjectInfo {
  readonly key: string;
  readonly size: number;
  /** MD5 of the bytes for single-PUT S3 objects (quotes stripped); null when unknown. */
  readonly etag: string | null;
  readonly lastModifiedMs: number;
}

export interface ObjectStore {
  /** For messages: `s3://bucket` or `file:///dir`. */
  readonly label: string;
  /** Fails with a StoreError that says what is wrong (unreachable, refused keys, no bucket). */
  check(): Promise<void>;
  /** Create `key` only if absent (`If-None-Match: *`), with its sha256 kept as metadata. */
  putIfAbsent(key: string, body: Uint8Array, sha256: string): Promise<"created" | "exists">;
  /** Size and stored sha256 (null when the object carries none), or null if absent. */
  head(key: string): Promise<{ size: number; sha256: string | null } | null>;
  get(key: string): Promise<Uint8Array>;
  /** Every object under `prefix` (a directory-like prefix, "" for all), in key order. */
  list(prefix: string): AsyncIterable<ObjectInfo>;
}

export type StoreErrorKind = "unreachable" | "auth" | "no-bucket" | "conflict-retry" | "other";

/** A store operation failed; `message` is meant for the user. */
export class StoreError extends Error {
  constructor(
    readonly kind: StoreErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** hex sha256 */
export const sha256Of = (b: Uint8Array): string => nodeCrypto().createHash("sha256").update(b).digest("hex");

const xmlDecode = (s: string): string =>
  s.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_, e: string) =>
    e === "lt" ? "<" : e === "gt" ? ">" : e === "amp" ? "&" : e === "quot" ? '"' : e === "apos" ? "'" : String.fromCodePoint(e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)),
  );
const tag = (xml: string, name: string): string | null => {
  const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml);
  return m ? xmlDecode(m[1]!) : null;
};

/** How long one S3 request may take (an 8 MiB PUT on a slow link included). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

/** S3 over signed fetch, path-style when an endpoint is configured. */
export class S3Store implements ObjectStore {
  readonly label: string;
  constructor(
    private readonly s: S3Settings,
    private readonly bucket: string,
    /** Per request: a server that accepts and never answers must not hang sync. */
    private readonly timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
  ) {
    this.label = `s3://${bucket} at ${s.endpoint}`;
  }

  private async send(method: string, key: string, opts: { query?: Record<string, string>; headers?: Record<string, string>; body?: Uint8Array; sha?: string } = {}): Promise<Response> {
    const signed = signS3(this.s, method, this.bucket, key, opts.query ?? {}, opts.headers ?? {}, opts.sha ?? EMPTY_SHA256);
    try {
      return await fetch(signed.url, { method, headers: signed.headers, body: opts.body, redirect: "manual", signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (e) {
      if ((e as Error).name === "TimeoutError" || (e as Error).name === "AbortError") {
        throw new StoreError("unreachable", `the S3 endpoint ${this.s.endpoint} did not answer ${method} within ${this.timeoutMs / 1000} s; is the server healthy?`);
      }
      const code = (e as { code?: string }).code ?? (e as Error).message;
      throw new StoreError("unreachable", `cannot reach the S3 endpoint ${this.s.endpoint} (${code}); is the server running, and is AWS_ENDPOINT_URL right?`);
    }
  }

  /** Turn a non-2xx answer into a StoreError naming the cause. */
  private async failure(r: Response, what: string): Promise<StoreError> {
    const text = await r.text().catch(() => "");
    const code = tag(text, "Code") ?? (r.status === 404 ? "NotFound" : r.status === 403 ? "AccessDenied" : `HTTP ${r.status}`);
    if (code === "NoSuchBucket" || (r.status === 404 && what.startsWith("bucket")))
      return new StoreError("no-bucket", `bucket "${this.bucket}" does not exist at ${this.s.endpoint}; create it first`);
    if (r.status === 403 || code === "InvalidAccessKeyId" || code === "SignatureDoesNotMatch")
      return new StoreError("auth", `${this.s.endpoint} refused access key id "${this.s.accessKeyId}" (${code}); check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or the AWS_PROFILE credentials`);
    if (code === "ConditionalRequestConflict" || r.status === 409) return new StoreError("conflict-retry", `${what}: ${code}`);
    return new StoreError("other", `${what}: ${code} (HTTP ${r.status})`);
  }

  async check(): Promise<void> {
    const r = await this.send("GET", "", { query: { "list-type": "2", "max-keys": "1" } });
    if (!r.ok) throw await this.failure(r, `bucket ${this.bucket}`);
    await r.arrayBuffer();
  }

  async putIfAbsent(key: string, body: Uint8Array, sha256: string): Promise<"created" | "exists"> {
    // AWS answers a concurrent conditional write with 409 and asks for a retry.
    for (let attempt = 0; ; attempt++) {
      const r = await this.send("PUT", key, {
        body,
        sha: sha256,
        headers: { "if-none-match": "*", "x-amz-meta-sha256": sha256, "content-type": "application/x-ndjson" },
      });
      if (r.ok) {
        await r.arrayBuffer();
        return "created";
      }
      if (r.status === 412) {
        await r.arrayBuffer();
        return "exists";
      }
      const err = await this.failure(r, `PUT ${key}`);
      if (err.kind !== "conflict-retry" || attempt >= 5) throw err;
      await Bun.sleep(50 * 2 ** attempt);
    }
  }

  async head(key: string): Promise<{ size: number; sha256: string | null } | null> {
    const r = await this.send("HEAD", key);
    if (r.status === 404) return null;
    if (!r.ok) throw await this.failure(r, `HEAD ${key}`);
    return { size: Number(r.headers.get("content-length") ?? 0), sha256: r.headers.get("x-amz-meta-sha256") };
  }

  async get(key: string): Promise<Uint8Array> {
    const r = await this.send("GET", key);
    if (!r.ok) throw await this.failure(r, `GET ${key}`);
    return new Uint8Array(await r.arrayBuffer());
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    let token: string | null = null;
    do {
      const query: Record<string, string> = { "list-type": "2", "max-keys": "1000" };
      if (prefix) query.prefix = prefix.endsWith("/") ? prefix : `${prefix}/`;
      if (token) query["continuation-token"] = token;
      const r = await this.send("GET", "", { query });
      if (!r.ok) throw await this.failure(r, `bucket ${this.bucket}`);
      const xml = await r.text();
      for (const m of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
        const c = m[1]!;
        const etag = (tag(c, "ETag") ?? "").replace(/"/g, "");
        yield {
          key: tag(c, "Key") ?? "",
          size: Number(tag(c, "Size") ?? 0),
          etag: /^[0-9a-f]{32}$/.test(etag) ? etag : null,
          lastModifiedMs: Date.parse(tag(c, "LastModified") ?? "") || 0,
        };
      }
      token = tag(xml, "IsTruncated") === "true" ? tag(xml, "NextContinuationToken") : null;
    } while (token);
  }
}

/** Where a file store keeps half-written objects; readers skip dot names. */
export const FILE_STORE_TMP = ".tracegate-tmp";

/**
 * The embedded store: objects are files under `root`, created by writing a
 * temporary file, fsync, then `link()`, which fails if the name exists: the
 * same all-or-nothing conditional create as `If-None-Match: *`, so a killed
 * sync never leaves a partial object under a real name.
 */
export class FileStore implements ObjectStore {
  readonly label: string;
  constructor(private readonly root: string) {
    this.label = `file://${root}`;
  }

  private path(key: string): string {
    if (key.split("/").some((p) => p === "" || p === "." || p === ".." || p.startsWith("."))) throw new StoreError("other", `bad object key ${key}`);
    return join(this.root, ...key.split("/"));
  }

  async check(): Promise<void> {
    let st;
    try {
      st = statSync(this.root);
    } catch {
      throw new StoreError("no-bucket", `the store directory ${this.root} does not exist; create it first (mkdir -p ${this.root})`);
    }
    if (!st.isDirectory()) throw new StoreError("no-bucket", `${this.root} is not a directory`);
  }

  async putIfAbsent(key: string, body: Uint8Array, _sha256: string): Promise<"created" | "exists"> {
    const final = this.path(key);
    const tmpDir = join(this.root, FILE_STORE_TMP);
    mkdirSync(tmpDir, { recursive: true });
    mkdirSync(dirname(final), { recursive: true });
    const tmp = join(tmpDir, `${process.pid}-${nodeCrypto().randomBytes(6).toString("hex")}`);
    const fd = openSync(tmp, "wx", 0o644);
    try {
      let off = 0;
      while (off < body.length) off += writeSync(fd, body, off, body.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(tmp, final);
      return "created";
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return "exists";
      throw new StoreError("other", `cannot create ${final}: ${(e as NodeJS.ErrnoException).code}`);
    } finally {
      unlinkSync(tmp);
    }
  }

  async head(key: string): Promise<{ size: number; sha256: string | null } | null> {
    try {
      const p = this.path(key);
      return { size: statSync(p).size, sha256: sha256Of(readFileSync(p)) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw e;
    }
  }

  async get(key: string): Promise<Uint8Array> {
    return readFileSync(this.path(key));
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    const start = prefix ? join(this.root, ...prefix.split("/")) : this.root;
    const walk = function* (dir: string, rel: string): Generator<ObjectInfo> {
      let names: string[];
      try {
        names = readdirSync(dir).sort();
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return;
        throw e;
      }
      for (const n of names) {
        if (n.startsWith(".")) continue;
        const p = join(dir, n);
        const k = rel ? `${rel}/${n}` : n;
        const st = statSync(p);
        if (st.isDirectory()) yield* walk(p, k);
        else if (st.isFile()) yield { key: k, size: st.size, etag: null, lastModifiedMs: st.mtimeMs };
      }
    };
    yield* walk(start, prefix);
  }
}
