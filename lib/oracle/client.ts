/**
 * The collector's side of the oracle protocol: POST a request, follow a 202
 * by polling, all inside a deadline the caller owns. Never throws: the Stop
 * gate must always reach a decision, so every failure is a value.
 *
 * Retries are for the transport only (connection refused or reset, 5xx, a
 * full queue), with exponential backoff, a few at most, and never past the
 * deadline. A 4xx answer is final: asking again would get the same answer
 * (401: wrong or missing `oracle.token`; 429: the oracle's attempt limit for
 * this task and session).
 *
 * @example
 * ```ts
 * import { requestVerdict } from "./client.ts";
 * const r = await requestVerdict({ url: "http://127.0.0.1:8700", body, deadlineMs: 30_000 });
 * if (r.kind === "verdict") verify(r.signed);
 * ```
 */

import type { VerdictRequest } from "./verdict.ts";

/** The POST body; the type lives with the rest of the protocol in verdict.ts. */
export type OracleRequestBody = VerdictRequest;

export type ClientResult =
  | { readonly kind: "verdict"; readonly signed: unknown }
  | { readonly kind: "pending"; readonly job_id: string }
  | { readonly kind: "error"; readonly message: string; readonly status?: number };

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** The oracle's base URL (`oracle.url`), e.g. `http://127.0.0.1:8700`. */
  readonly url: string;
  /** Bearer token (`oracle.token`), sent on every request when set. */
  readonly token?: string;
  /** Milliseconds from now the whole exchange may take, polling included. */
  readonly deadlineMs: number;
  /** Injected for tests that need a transport failure a real server cannot produce. */
  readonly fetch?: FetchLike;
  /** Transport retries after the first try. Default 3. */
  readonly retries?: number;
  /** First backoff; doubles each retry. Default 200 ms. */
  readonly backoffMs?: number;
  /** Poll interval while a job runs. Default 500 ms. */
  readonly pollMs?: number;
}

function base(url: string): string {
  return url.replace(/\/+$/, "");
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

type Attempt =
  | { readonly ok: true; readonly status: number; readonly body: unknown }
  | { readonly ok: false; readonly retry: boolean; readonly message: string; readonly status?: number };

async function once(fetcher: FetchLike, url: string, init: RequestInit, leftMs: number): Promise<Attempt> {
  if (leftMs <= 0) return { ok: false, retry: false, message: "deadline reached before the oracle answered" };
  let res: Response;
  try {
    res = await fetcher(url, { ...init, signal: AbortSignal.timeout(leftMs) });
  } catch (e) {
    const name = (e as Error)?.name;
    if (name === "TimeoutError" || name === "AbortError") return { ok: false, retry: false, message: "deadline reached before the oracle answered" };
    return { ok: false, retry: true, message: `oracle unreachable: ${(e as Error)?.message ?? String(e)}` };
  }
  let text = "";
  try {
    text = await res.text();
  } catch (e) {
    return { ok: false, retry: true, status: res.status, message: `oracle answer cut off: ${(e as Error)?.message ?? String(e)}` };
  }
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // A non-JSON body is judged by its status below.
  }
  if (res.status === 200 || res.status === 202) {
    if (body === undefined) return { ok: false, retry: res.status >= 500, status: res.status, message: `oracle answered ${res.status} without a JSON body` };
    return { ok: true, status: res.status, body };
  }
  const said = typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string"
    ? (body as { error: string }).error.slice(0, 500)
    : text.slice(0, 200);
  // 429 is the oracle's per-session attempt limit: final, asking again only counts again.
  const retry = res.status >= 500;
  return { ok: false, retry, status: res.status, message: `oracle answered ${res.status}: ${said}` };
}

async function withRetries(
  fetcher: FetchLike,
  url: string,
  init: (leftMs: number) => RequestInit,
  end: number,
  retries: number,
  backoffMs: number,
): Promise<Attempt> {
  let last: Attempt = { ok: false, retry: false, message: "not tried" };
  for (let i = 0; i <= retries; i++) {
    const left = end - performance.now();
    last = await once(fetcher, url, init(left), left);
    if (last.ok || !last.retry) return last;
    const wait = backoffMs * 2 ** i;
    if (i === retries || performance.now() + wait >= end) break;
    await sleep(wait);
  }
  return last;
}

function jobIdOf(body: unknown): string | null {
  const id = (body as { job_id?: unknown } | null)?.job_id;
  return typeof id === "string" && id.length > 0 && id.length <= 200 ? id : null;
}

async function poll(o: ReturnType<typeof resolved>, jobId: string, end: number): Promise<ClientResult> {
  const url = `${base(o.url)}/v1/verdicts/${encodeURIComponent(jobId)}`;
  let transportErrors = 0;
  for (;;) {
    const left = end - performance.now();
    if (left <= 0) return { kind: "pending", job_id: jobId };
    const r = await once(o.fetch, url, { method: "GET", headers: authHeaders(o.token) }, left);
    if (r.ok && r.status === 200) return { kind: "verdict", signed: r.body };
    if (!r.ok) {
      if (r.message.startsWith("deadline reached")) return { kind: "pending", job_id: jobId };
      // A job the oracle forgot, or one it could not run, will not come back by asking again.
      if (!r.retry || r.status === 500) return { kind: "error", message: r.message, status: r.status };
      if (++transportErrors > o.retries) return { kind: "error", message: r.message, status: r.status };
    }
    const wait = Math.min(o.pollMs, end - performance.now());
    if (wait <= 0) return { kind: "pending", job_id: jobId };
    await sleep(wait);
  }
}

function checkUrl(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol === "http:" || u.protocol === "https:") return null;
  } catch {
    // fall through
  }
  return `oracle url is not an http(s) URL: ${String(url).slice(0, 200)}`;
}

function authHeaders(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

function resolved(opts: ClientOptions) {
  return {
    url: opts.url,
    token: opts.token,
    deadlineMs: opts.deadlineMs,
    fetch: opts.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init)),
    retries: opts.retries ?? 3,
    backoffMs: opts.backoffMs ?? 200,
    pollMs: opts.pollMs ?? 500,
  };
}

/**
 * Ask the oracle for a verdict: 200 is the verdict; 202 is followed by
 * polling until the deadline, which then yields `pending` with the job id for
 * the next Stop to pick up.
 *
 * @example
 * ```ts
 * const r = await requestVerdict({ url, body, deadlineMs: ctx.remainingMs() - 2000 });
 * // { kind: "verdict", signed } | { kind: "pending", job_id } | { kind: "error", message }
 * ```
 */
export async function requestVerdict(opts: ClientOptions & { readonly body: OracleRequestBody }): Promise<ClientResult> {
  try {
    const bad = checkUrl(opts.url);
    if (bad) return { kind: "error", message: bad };
    const o = resolved(opts);
    const end = performance.now() + Math.max(0, o.deadlineMs);
    // RFC 7240 `Prefer: wait`: the server holds the POST open at most this
    // long, so the 202 with the job id arrives before our deadline, not after.
    const payload = JSON.stringify(opts.body);
    const init = (leftMs: number): RequestInit => ({
      method: "POST",
      headers: { "content-type": "application/json", prefer: `wait=${Math.max(0, Math.floor((leftMs - 1_000) / 1_000))}`, ...authHeaders(o.token) },
      body: payload,
    });
    const r = await withRetries(o.fetch, `${base(o.url)}/v1/verdicts`, init, end, o.retries, o.backoffMs);
    if (!r.ok) return { kind: "error", message: r.message, status: r.status };
    if (r.status === 200) return { kind: "verdict", signed: r.body };
    const jobId = jobIdOf(r.body);
    if (!jobId) return { kind: "error", message: "oracle answered 202 without a job_id", status: 202 };
    return await poll(o, jobId, end);
  } catch (e) {
    return { kind: "error", message: `oracle request failed: ${(e as Error)?.message ?? String(e)}` };
  }
}

/**
 * Pick up a job an earlier Stop left pending.
 *
 * @example
 * ```ts
 * await pollVerdict(url, "5f0c...", 20_000); // { kind: "verdict", signed } once it is done
 * ```
 */
export async function pollVerdict(
  url: string,
  jobId: string,
  deadlineMs: number,
  options: Omit<ClientOptions, "url" | "deadlineMs"> = {},
): Promise<ClientResult> {
  try {
    const bad = checkUrl(url);
    if (bad) return { kind: "error", message: bad };
    const o = resolved({ ...options, url, deadlineMs });
    return await poll(o, jobId, performance.now() + Math.max(0, deadlineMs));
  } catch (e) {
    return { kind: "error", message: `oracle poll failed: ${(e as Error)?.message ?? String(e)}` };
  }
}
