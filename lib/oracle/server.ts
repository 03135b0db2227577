/**
 * The reference oracle's HTTP server (`tracegate oracle serve`).
 *
 *     POST /v1/verdicts   {task_id, session_id, repo, base_commit, diff, chain_head, attempt}
 *                         header `Authorization: Bearer TOKEN` (required)
 *                         (optional header `Prefer: wait=SECONDS` caps the short wait)
 *       200 signed verdict      the job finished within the short wait
 *       202 {job_id}            still queued or running; poll the GET below
 *       400 {error}             malformed request
 *       401 {error}             missing or wrong token
 *       413 {error}             diff larger than --max-diff-bytes
 *       422 {error}             base_commit is not a commit of --repo
 *       429 {error}             this (task, session) used up --max-attempts
 *       503 {error}             the job queue is full (Retry-After header)
 *     GET  /v1/verdicts/{job_id}  (token required) 202 {job_id, status} | 200 signed verdict | 404 | 500 {error}
 *     GET  /v1/key            {key_id, public_key}: lets `doctor` check the configured key
 *     GET  /healthz           {ok, queued, running}
 *
 * The signed payload is `{task_id, session_id, base_commit, diff_sha256,
 * chain_head, attempt, verdict, tests_hash, issued_at, key_id}`: `chain_head`
 * is the request's, returned unchanged, so the verdict fixes the trace the
 * session had written when it asked.
 *
 * Jobs run one at a time by default (`jobs`), at most `queue` wait behind
 * them. Finished jobs stay fetchable for `keepMs`, and at most `keepJobs` of
 * them holding at most `keepBytes` (oldest dropped first; a finished job keeps
 * its verdict, never its diff). Each (task, session) gets `maxAttempts`
 * accepted requests, so an agent cannot use the oracle as an unlimited test
 * runner under one session.
 *
 * @example
 * ```ts
 * import { startOracleServer } from "./server.ts";
 * const s = await startOracleServer({ repo, testCmd: "npm test", privateKeyPem, port: 0, token: "secret", sandbox: { kind: "none" } });
 * s.url; // "http://127.0.0.1:41234"
 * await s.stop();
 * ```
 */
import type { KeyObject } from "node:crypto";
import { nodeCrypto } from "../runtime/builtins.ts";
import { hasCommit, runJob, COMMIT_RE, type JobResult } from "./run.ts";
import type { Sandbox } from "./sandbox.ts";
import { keyIdOf, sha256Hex, signVerdict, type SignedVerdict, type VerdictRequest } from "./verdict.ts";

export interface OracleServerOptions {
  readonly repo: string;
  readonly testCmd: string;
  readonly testsListCmd?: string;
  readonly privateKeyPem: string;
  readonly host?: string;
  readonly port?: number;
  /** Test command time limit. Default 600 s. */
  readonly timeoutMs?: number;
  /** Largest diff accepted, in UTF-8 bytes. Default 50 MiB. */
  readonly maxDiffBytes?: number;
  /** Jobs waiting beyond the running ones before POST answers 503. Default 16. */
  readonly queue?: number;
  /** Jobs run at once. Default 1. */
  readonly jobs?: number;
  /** How long POST waits for the job before answering 202. Default 10 s. */
  readonly waitMs?: number;
  /** How long a finished job's verdict stays fetchable. Default 1 h. */
  readonly keepMs?: number;
  /** One line per job for the operator (test output never goes to the agent). */
  readonly log?: (line: string) => void;
  /** Also log each job's test output (the operator's stderr; never in a response). */
  readonly verbose?: boolean;
  /** Parent for temporary checkouts. */
  readonly tmpRoot?: string;
  /** The bearer token every verdict request must carry. */
  readonly token: string;
  /** How test commands run (`--no-sandbox` is `{ kind: "none" }`). */
  readonly sandbox: Sandbox;
  /** Globs restored from the base commit after the diff is applied (`--protect`). */
  readonly protect?: readonly string[];
  /** Finished jobs kept at most. Default 1000. */
  readonly keepJobs?: number;
  /** Bytes of finished-job answers kept at most. Default 16 MiB. */
  readonly keepBytes?: number;
  /** Accepted requests per (task, session). Default 25. */
  readonly maxAttempts?: number;
}

/** Defaults of the limits above, one place. */
export const SERVER_DEFAULTS = { keepJobs: 1000, keepBytes: 16 * 1024 * 1024, maxAttempts: 25, keepMs: 3_600_000 } as const;
/** (task, session) pairs whose attempt counts are remembered; the oldest are forgotten past this. */
const MAX_COUNTED = 100_000;

/**
 * Compare a request's bearer token with the expected one in constant time
 * (both hashed first, so neither length nor content leaks through timing).
 */
export function tokenMatches(header: string | null, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(header ?? "");
  const given = nodeCrypto().createHash("sha256").update(m ? m[1]! : "\0no token").digest();
  const want = nodeCrypto().createHash("sha256").update(token).digest();
  return nodeCrypto().timingSafeEqual(given, want) && m !== null;
}

export interface OracleServer {
  readonly url: string;
  readonly port: number;
  readonly keyId: string;
  stop(): Promise<void>;
}


interface Job {
  readonly id: string;
  /** Dropped when the job finishes: a kept job holds its answer, not the diff. */
  req: VerdictRequest | null;
  status: "queued" | "running" | "done" | "failed";
  verdict?: SignedVerdict;
  error?: string;
  finishedAt?: number;
  /** Bytes the finished job holds (its answer). */
  bytes?: number;
  readonly done: Promise<void>;
  resolve(): void;
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}

const MAX_ID = 512;

/**
 * How long to hold a POST open: the server's own short wait, shortened by an
 * RFC 7240 `Prefer: wait=SECONDS` header so a client with a tight deadline
 * gets its 202 and job id in time.
 *
 * @example
 * ```ts
 * preferredWaitMs(new Request("http://x", { headers: { prefer: "wait=2" } }), 10_000); // 2000
 * ```
 */
export function preferredWaitMs(request: Request, serverWaitMs: number): number {
  const m = /(?:^|[,;\s])wait=(\d+)/i.exec(request.headers.get("prefer") ?? "");
  return m ? Math.min(serverWaitMs, Number(m[1]) * 1000) : serverWaitMs;
}

/**
 * Check a POST body. Returns the request or the 400 message.
 *
 * @example
 * ```ts
 * parseVerdictRequest({ task_id: "t" }); // { error: "session_id must be a non-empty string" }
 * ```
 */
export function parseVerdictRequest(v: unknown): VerdictRequest | { error: string } {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { error: "body must be a JSON object" };
  const o = v as Record<string, unknown>;
  for (const f of ["task_id", "session_id"] as const) {
    if (typeof o[f] !== "string" || o[f].length === 0 || o[f].length > MAX_ID) return { error: `${f} must be a non-empty string of at most ${MAX_ID} characters` };
  }
  if (o.repo !== undefined && o.repo !== null && typeof o.repo !== "string") return { error: "repo must be a string or null" };
  if (typeof o.base_commit !== "string" || !COMMIT_RE.test(o.base_commit)) return { error: "base_commit must be a full lowercase hex commit id" };
  if (typeof o.diff !== "string") return { error: "diff must be a string (a unified git patch, possibly empty)" };
  if (typeof o.attempt !== "number" || !Number.isSafeInteger(o.attempt) || o.attempt < 1) return { error: "attempt must be an integer >= 1" };
  if (typeof o.chain_head !== "string" || !/^[0-9a-f]{64}$/.test(o.chain_head)) return { error: "chain_head must be the session's 64-hex chain head" };
  return {
    task_id: o.task_id as string,
    session_id: o.session_id as string,
    repo: (o.repo as string | undefined) ?? null,
    base_commit: o.base_commit,
    diff: o.diff,
    chain_head: o.chain_head,
    attempt: o.attempt,
  };
}

/**
 * Start the oracle. Resolves once it listens; `stop()` cancels running jobs
 * and removes their checkouts.
 */
export async function startOracleServer(opts: OracleServerOptions): Promise<OracleServer> {
  const priv: KeyObject = nodeCrypto().createPrivateKey(opts.privateKeyPem);
  if (priv.asymmetricKeyType !== "ed25519") throw new Error("the oracle key is not an Ed25519 private key");
  const publicPem = nodeCrypto().createPublicKey(priv).export({ type: "spki", format: "pem" }) as string;
  const keyId = keyIdOf(priv);
  const timeoutMs = opts.timeoutMs ?? 600_000;
  const maxDiffBytes = opts.maxDiffBytes ?? 50 * 1024 * 1024;
  const queueCap = opts.queue ?? 16;
  const concurrency = Math.max(1, opts.jobs ?? 1);
  const waitMs = opts.waitMs ?? 10_000;
  const keepMs = opts.keepMs ?? SERVER_DEFAULTS.keepMs;
  const keepJobs = opts.keepJobs ?? SERVER_DEFAULTS.keepJobs;
  const keepBytes = opts.keepBytes ?? SERVER_DEFAULTS.keepBytes;
  const maxAttempts = opts.maxAttempts ?? SERVER_DEFAULTS.maxAttempts;
  const log = opts.log ?? (() => {});
  const testsListCmd = opts.testsListCmd;
  if (!opts.token) throw new Error("the oracle needs a token (--token-file)");

  const jobs = new Map<string, Job>();
  const attempts = new Map<string, number>();
  const waiting: Job[] = [];
  let running = 0;
  const abort = new AbortController();
  const inFlight = new Set<Promise<void>>();

  function prune(now: number): void {
    let count = 0;
    let bytes = 0;
    const finished: [string, Job][] = [];
    for (const [id, j] of jobs) {
      if (j.finishedAt === undefined) continue;
      if (now - j.finishedAt > keepMs) {
        jobs.delete(id);
        continue;
      }
      finished.push([id, j]);
      count++;
      bytes += j.bytes ?? 0;
    }
    // Oldest finished first (the Map keeps insertion order, near enough finishing order).
    finished.sort((a, b) => a[1].finishedAt! - b[1].finishedAt!);
    for (const [id, j] of finished) {
      if (count <= keepJobs && bytes <= keepBytes) break;
      jobs.delete(id);
      count--;
      bytes -= j.bytes ?? 0;
    }
  }

  async function execute(job: Job): Promise<void> {
    job.status = "running";
    const req = job.req!;
    let result: JobResult;
    if (opts.sandbox.kind === "none") log(`job ${job.id} WARNING: running the test command WITHOUT a sandbox (--no-sandbox): it can read the key and change --repo`);
    try {
      result = await runJob({
        repo: opts.repo,
        base: req.base_commit,
        diff: req.diff,
        testCmd: opts.testCmd,
        testsListCmd,
        timeoutMs,
        signal: abort.signal,
        tmpRoot: opts.tmpRoot,
        protect: opts.protect,
        sandbox: opts.sandbox,
      });
      if (result.protected_touched.length) {
        log(`job ${job.id} the diff touched protected paths, restored from the base commit: ${result.protected_touched.map((p) => JSON.stringify(p)).join(" ").slice(0, 2000)}`);
      }
      job.verdict = signVerdict(
        {
          task_id: req.task_id,
          session_id: req.session_id,
          base_commit: req.base_commit,
          diff_sha256: sha256Hex(req.diff),
          chain_head: req.chain_head,
          attempt: req.attempt,
          verdict: result.verdict,
          tests_hash: result.tests_hash,
        },
        priv,
      );
      job.status = "done";
      log(`job ${job.id} task=${req.task_id} session=${req.session_id} attempt=${req.attempt} ${result.verdict} (${result.detail}) ${result.ms} ms`);
      if (opts.verbose) log(`job ${job.id} test output:\n${result.output ?? ""}`.trimEnd());
    } catch (e) {
      job.status = "failed";
      job.error = `the oracle could not run the job: ${(e as Error)?.message ?? String(e)}`;
      log(`job ${job.id} task=${req.task_id} attempt=${req.attempt} ERROR ${job.error}`);
    } finally {
      job.finishedAt = Date.now();
      job.req = null;
      job.bytes = JSON.stringify(job.verdict ?? job.error ?? "").length + 256;
      job.resolve();
      prune(job.finishedAt);
    }
  }

  function pump(): void {
    while (running < concurrency && waiting.length > 0 && !abort.signal.aborted) {
      const job = waiting.shift()!;
      running++;
      const p = execute(job).finally(() => {
        running--;
        inFlight.delete(p);
        pump();
      });
      inFlight.add(p);
    }
  }

  function answer(job: Job): Response {
    if (job.status === "done") return json(200, job.verdict);
    if (job.status === "failed") return json(500, { error: job.error, job_id: job.id });
    return json(202, { job_id: job.id, status: job.status });
  }

  async function post(request: Request): Promise<Response> {
    const declared = Number(request.headers.get("content-length") ?? "NaN");
    // The envelope around the diff is small; a body past this cannot hold an acceptable diff.
    const bodyCap = maxDiffBytes * 6 + 64 * 1024;
    if (Number.isFinite(declared) && declared > bodyCap) return json(413, { error: `diff larger than ${maxDiffBytes} bytes` });
    let text: string;
    try {
      text = await request.text();
    } catch {
      return json(400, { error: "could not read the request body" });
    }
    if (Buffer.byteLength(text, "utf8") > bodyCap) return json(413, { error: `diff larger than ${maxDiffBytes} bytes` });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return json(400, { error: "body is not valid JSON" });
    }
    const req = parseVerdictRequest(body);
    if ("error" in req) return json(400, { error: req.error });
    if (Buffer.byteLength(req.diff, "utf8") > maxDiffBytes) return json(413, { error: `diff larger than ${maxDiffBytes} bytes` });
    if (!(await hasCommit(opts.repo, req.base_commit))) {
      return json(422, { error: `base_commit ${req.base_commit} is not a commit of the oracle's repository` });
    }
    prune(Date.now());
    // Full means every slot is busy and `queue` jobs already wait for one.
    if (running >= concurrency && waiting.length >= queueCap) return json(503, { error: "the oracle's job queue is full; retry later" }, { "retry-after": "5" });
    const counted = JSON.stringify([req.task_id, req.session_id]);
    const used = attempts.get(counted) ?? 0;
    if (used >= maxAttempts) {
      log(`refused task=${req.task_id} session=${req.session_id}: ${used} attempts used (--max-attempts ${maxAttempts})`);
      return json(429, { error: `this task and session have used all ${maxAttempts} attempts the oracle allows` });
    }
    attempts.delete(counted);
    attempts.set(counted, used + 1);
    if (attempts.size > MAX_COUNTED) attempts.delete(attempts.keys().next().value!);
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    const job: Job = { id: nodeCrypto().randomUUID(), req, status: "queued", done, resolve };
    jobs.set(job.id, job);
    waiting.push(job);
    pump();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([done, new Promise<void>((r) => (timer = setTimeout(r, preferredWaitMs(request, waitMs))))]);
    clearTimeout(timer);
    return answer(job);
  }

  const server = Bun.serve({
    hostname: opts.host ?? "127.0.0.1",
    port: opts.port ?? 8700,
    // Bun's own limit answers oversize bodies before we see them; keep it above ours.
    maxRequestBodySize: maxDiffBytes * 6 + 128 * 1024,
    idleTimeout: Math.min(255, Math.ceil(waitMs / 1000) + 30),
    async fetch(request) {
      const url = new URL(request.url);
      const path = url.pathname.replace(/\/+$/, "") || "/";
      try {
        if ((path === "/v1/verdicts" || path.startsWith("/v1/verdicts/")) && !tokenMatches(request.headers.get("authorization"), opts.token)) {
          return json(401, { error: "missing or wrong bearer token (oracle.token in the client config)" }, { "www-authenticate": "Bearer" });
        }
        if (path === "/v1/verdicts") {
          if (request.method !== "POST") return json(405, { error: "use POST" }, { allow: "POST" });
          return await post(request);
        }
        if (path.startsWith("/v1/verdicts/")) {
          if (request.method !== "GET") return json(405, { error: "use GET" }, { allow: "GET" });
          prune(Date.now());
          const job = jobs.get(decodeURIComponent(path.slice("/v1/verdicts/".length)));
          return job ? answer(job) : json(404, { error: "no such job (unknown, or expired)" });
        }
        if (path === "/v1/key" && request.method === "GET") return json(200, { key_id: keyId, public_key: publicPem });
        if (path === "/healthz" && request.method === "GET") return json(200, { ok: true, queued: waiting.length, running });
        return json(404, { error: "not found" });
      } catch (e) {
        return json(500, { error: `internal error: ${(e as Error)?.message ?? String(e)}` });
      }
    },
    error(e) {
      return json(500, { error: `internal error: ${e.message}` });
    },
  });

  const host = server.hostname ?? opts.host ?? "127.0.0.1";
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${server.port}`,
    port: server.port as number,
    keyId,
    async stop() {
      abort.abort();
      waiting.length = 0;
      await Promise.allSettled([...inFlight]);
      for (const j of jobs.values()) if (j.finishedAt === undefined) j.resolve();
      await server.stop(true);
    },
  };
}
