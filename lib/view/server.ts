/**
 * The viewer's HTTP server, on 127.0.0.1 only.
 *
 * Page routes (`/`, `/app.js`, `/app.css`, `/api/*`) need the access token
 * (`?token=` or an `x-tracegate-token` header, compared in constant time)
 * and a `Host` naming this listener (127.0.0.1 or localhost with our port), and
 * any `Origin` must be this listener: another local user, a web page in the
 * browser or a DNS-rebinding host gets 403. Record content goes to the page
 * only as JSON; the page renders it as text (see assets/app.js).
 *
 * Hook routes (`/_hook/challenge`, `/_hook/event`) need no access token but
 * refuse anything a browser sends (an Origin or Sec-Fetch-Site header). The
 * challenge answers `sha256(proofToken:nonce)`; an event is accepted only
 * with a nonce answered in the last few seconds, used once, and an HMAC of
 * the body keyed by the proof token, so only a process that could read the
 * 0600 discovery record can put events on the page.
 *
 * @example
 * ```ts
 * const v = startViewer({ source, port: 0, accessToken, proofToken });
 * v.url; // "http://127.0.0.1:40123/?token=..."
 * v.stop();
 * ```
 */
import type { Server } from "bun";
import type { TraceRecord } from "../trace/record.ts";
import { parseSessionText } from "../trace/store.ts";
import { constantTimeEqual, eventMac, proofFor } from "./discovery.ts";
import type { SessionEntry, Source } from "./source.ts";
import { listPage, SummaryCache, type SessionRow } from "./summary.ts";
import { signatureChecks, verdictCheck, type ConfiguredKey } from "./verdicts.ts";
import { readFileSync } from "node:fs";
import appJs from "./assets/app.js" with { type: "text" };
import { APP_CSS } from "./assets/style.ts";

export interface ViewerOptions {
  readonly source: Source;
  /** 0 for a free port. */
  readonly port: number;
  /** The page's access token (printed in the URL). */
  readonly accessToken: string;
  /** The discovery record's proof token; null when live forwarding is off. */
  readonly proofToken: string | null;
  /** The configured oracle key, to check stored verdicts again; absent: nothing is checked. */
  readonly oracleKey?: ConfiguredKey;
}

export interface Viewer {
  readonly port: number;
  readonly url: string;
  /** Events accepted from hooks so far (for tests and the status line). */
  readonly accepted: () => number;
  stop(): void;
}

/** The largest event post accepted (hooks cut each record at 64 KiB). */
export const EVENT_BODY_MAX = 1024 * 1024;
/** How long a challenge nonce may wait for its event post. */
const NONCE_TTL_MS = 10_000;
const NONCE_MAX = 4096;
/** The largest session the page loads whole. */
export const SESSION_MAX_BYTES = 256 * 1024 * 1024;
const HEX32 = /^[0-9a-f]{32}$/;
/** Cold session reads between yields to the event loop (a hook's challenge waits at most this long). */
const COLD_READS_PER_TURN = 100;

/** The page shell; everything else is built by app.js with text nodes. `__TOKEN__` is hex. */
const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>tracegate view</title>
<link rel="stylesheet" href="/app.css?token=__TOKEN__">
<script src="/app.js?token=__TOKEN__" defer></script>
</head>
<body><noscript>tracegate view needs JavaScript.</noscript><main id="app"></main></body>
</html>
`;

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const COMMON_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-resource-policy": "same-origin",
};

function respond(body: string | ReadableStream<Uint8Array> | null, status: number, type: string, extra: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { ...COMMON_HEADERS, "content-type": type, ...extra } });
}
const json = (v: unknown, status = 200) => respond(JSON.stringify(v), status, "application/json; charset=utf-8");
const text = (s: string, status: number) => respond(s, status, "text/plain; charset=utf-8");
const forbidden = (why: string) => text(`403 forbidden: ${why}\n`, 403);

/** Read the whole of a session (bounded by SESSION_MAX_BYTES). */
async function readEntry(entry: SessionEntry): Promise<string> {
  if (entry.load) return entry.load();
  return entry.segments.map((s) => readFileSync(s.path, "utf8")).join("");
}

/** Listen on 127.0.0.1 (`opts.port`, 0 for a free one) and serve the page, its API and the hook routes. */
export function startViewer(opts: ViewerOptions): Viewer {
  const oracleKey = opts.oracleKey ?? { pem: null, problem: "the viewer has no oracle key" };
  const cache = new SummaryCache(verdictCheck(oracleKey));
  let entries = new Map<string, SessionEntry>();
  const nonces = new Map<string, number>();
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const enc = new TextEncoder();
  let accepted = 0;
  let port = 0;

  async function relist(): Promise<SessionEntry[]> {
    const list = await opts.source.list();
    entries = new Map(list.map((e) => [e.key, e]));
    return list;
  }

  function hostOk(req: Request): boolean {
    const host = req.headers.get("host");
    return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
  }

  function originOk(req: Request): boolean {
    const origin = req.headers.get("origin");
    if (origin === null) return req.headers.get("sec-fetch-site") !== "cross-site";
    return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
  }

  function tokenOk(req: Request, url: URL): boolean {
    const given = url.searchParams.get("token") ?? req.headers.get("x-tracegate-token") ?? "";
    return constantTimeEqual(given, opts.accessToken);
  }

  function broadcast(event: unknown): void {
    const chunk = enc.encode(`data: ${JSON.stringify(event)}\n\n`);
    for (const c of streams) {
      try {
        c.enqueue(chunk);
      } catch {
        streams.delete(c);
      }
    }
  }

  function pruneNonces(now: number): void {
    for (const [n, t] of nonces) if (now - t > NONCE_TTL_MS) nonces.delete(n);
    while (nonces.size > NONCE_MAX) nonces.delete(nonces.keys().next().value as string);
  }

  async function hookRoute(req: Request, url: URL): Promise<Response> {
    if (req.headers.has("origin") || req.headers.has("sec-fetch-site")) return forbidden("hook routes are not for browsers");
    if (!opts.proofToken) return text("live forwarding is off for this source\n", 404);
    if (url.pathname === "/_hook/challenge" && req.method === "GET") {
      const nonce = url.searchParams.get("nonce") ?? "";
      if (!HEX32.test(nonce)) return text("bad nonce\n", 400);
      const now = Date.now();
      pruneNonces(now);
      nonces.set(nonce, now);
      return text(proofFor(opts.proofToken, nonce), 200);
    }
    if (url.pathname === "/_hook/event" && req.method === "POST") {
      const nonce = req.headers.get("x-tracegate-nonce") ?? "";
      const mac = req.headers.get("x-tracegate-mac") ?? "";
      const issued = nonces.get(nonce);
      if (issued === undefined || Date.now() - issued > NONCE_TTL_MS) return forbidden("unknown or expired nonce");
      nonces.delete(nonce);
      const len = Number(req.headers.get("content-length") ?? "0");
      if (!Number.isFinite(len) || len > EVENT_BODY_MAX) return text("too large\n", 413);
      const body = await req.text();
      if (body.length > EVENT_BODY_MAX) return text("too large\n", 413);
      if (!constantTimeEqual(mac, eventMac(opts.proofToken, nonce, body))) return forbidden("bad mac");
      let event: unknown;
      try {
        event = JSON.parse(body);
      } catch {
        return text("not JSON\n", 400);
      }
      const records = (event as { records?: unknown })?.records;
      if (!Array.isArray(records)) return text("no records\n", 400);
      accepted++;
      // Verdicts that arrive live are checked like stored ones (a record cut for display has no signature to check).
      const whole = records.filter((r) => r && typeof r === "object" && !("view_cut" in r)) as TraceRecord[];
      broadcast({ kind: "records", hook: String((event as { hook?: unknown }).hook ?? "").slice(0, 64), records, checks: signatureChecks(whole, oracleKey) });
      return text("ok\n", 200);
    }
    return text("not found\n", 404);
  }

  /** Rows for every session; reads of uncached sessions yield now and then so hook challenges are answered meanwhile. */
  async function allRows(): Promise<SessionRow[]> {
    const rows: SessionRow[] = [];
    let reads = 0;
    for (const e of await relist()) {
      const hit = cache.peek(e);
      if (hit) {
        rows.push(hit);
        continue;
      }
      rows.push(await cache.get(e));
      if (++reads % COLD_READS_PER_TURN === 0) await Bun.sleep(0);
    }
    return rows;
  }

  async function sessionsRoute(url: URL): Promise<Response> {
    const all = await allRows();
    const num = (k: string) => {
      const raw = url.searchParams.get(k);
      const v = raw === null || raw === "" ? NaN : Number(raw);
      return Number.isFinite(v) ? v : undefined;
    };
    const page = listPage(all, {
      q: url.searchParams.get("q") ?? undefined,
      harness: url.searchParams.get("harness") || undefined,
      outcome: url.searchParams.get("outcome") || undefined,
      offset: num("offset"),
      limit: num("limit"),
    });
    return json({ source: opts.source.label, live: opts.proofToken !== null, ...page });
  }

  async function sessionRoute(url: URL): Promise<Response> {
    const key = url.searchParams.get("key") ?? "";
    let entry = entries.get(key);
    if (!entry) entry = (await relist()).find((e) => e.key === key);
    if (!entry) return json({ error: `no session "${key.slice(0, 200)}" in ${opts.source.label}` }, 404);
    const bytes = entry.bytes;
    if (bytes > SESSION_MAX_BYTES) return json({ error: `session is ${bytes} bytes, over the viewer's ${SESSION_MAX_BYTES}; use tracegate show` }, 413);
    const { records, problems } = parseSessionText(key, await readEntry(entry));
    const row = cache.putExact(entry, records as unknown as Record<string, unknown>[]);
    const checks = signatureChecks(records, oracleKey);
    return json({ row, records, problems, checks });
  }

  function eventsRoute(req: Request, server: Server<undefined>): Response {
    server.timeout(req, 0);
    let me: ReadableStreamDefaultController<Uint8Array> | undefined;
    let beat: ReturnType<typeof setInterval> | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        me = c;
        streams.add(c);
        c.enqueue(enc.encode(`retry: 500\ndata: ${JSON.stringify({ kind: "hello", live: opts.proofToken !== null })}\n\n`));
        beat = setInterval(() => {
          try {
            c.enqueue(enc.encode(": beat\n\n"));
          } catch {
            clearInterval(beat);
          }
        }, 10_000);
      },
      cancel() {
        if (me) streams.delete(me);
        clearInterval(beat);
      },
    });
    return respond(stream, 200, "text/event-stream; charset=utf-8", { connection: "keep-alive" });
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: opts.port,
    idleTimeout: 60,
    // Page routes are GETs; the one body we take is a hook's event post.
    maxRequestBodySize: EVENT_BODY_MAX,
    async fetch(req, srv) {
      let url: URL;
      try {
        url = new URL(req.url);
      } catch {
        return text("bad request\n", 400);
      }
      if (!hostOk(req)) return forbidden("Host must be this listener (127.0.0.1 or localhost with its port)");
      if (url.pathname.startsWith("/_hook/")) return hookRoute(req, url);
      if (!originOk(req)) return forbidden("cross-origin request");
      if (!tokenOk(req, url)) return forbidden("missing or wrong token; open the URL `tracegate view` printed");
      if (req.method !== "GET") return text("method not allowed\n", 405);
      try {
        switch (url.pathname) {
          case "/":
            return respond(INDEX_HTML.replaceAll("__TOKEN__", opts.accessToken), 200, "text/html; charset=utf-8", { "content-security-policy": CSP });
          case "/app.js":
            return respond(appJs, 200, "text/javascript; charset=utf-8");
          case "/app.css":
            return respond(APP_CSS, 200, "text/css; charset=utf-8");
          case "/api/sessions":
            return await sessionsRoute(url);
          case "/api/session":
            return await sessionRoute(url);
          case "/api/events":
            return eventsRoute(req, srv);
          default:
            return text("not found\n", 404);
        }
      } catch (e) {
        return json({ error: `viewer error: ${(e as Error).message}` }, 500);
      }
    },
  });
  port = server.port ?? 0;
  return {
    port,
    url: `http://127.0.0.1:${port}/?token=${opts.accessToken}`,
    accepted: () => accepted,
    stop() {
      for (const c of streams) {
        try {
          c.close();
        } catch {
          // already closed
        }
      }
      server.stop(true);
    },
  };
}
