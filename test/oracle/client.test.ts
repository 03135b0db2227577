/**
 * The oracle client against real HTTP servers on 127.0.0.1 that answer the
 * way a healthy, slow, broken or absent oracle does.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { pollVerdict, requestVerdict, type OracleRequestBody } from "../../lib/oracle/client.ts";

const body: OracleRequestBody = { task_id: "t", session_id: "s", repo: null, base_commit: "a".repeat(40), diff: "", chain_head: "c".repeat(64), attempt: 1 };
const VERDICT = { verdict: "PASS", signature: "x" };

type Handler = (req: Request, n: number) => Response | Promise<Response>;
const servers: ReturnType<typeof Bun.serve>[] = [];

function server(handler: Handler): { url: string; hits: () => string[] } {
  const seen: string[] = [];
  const s = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      seen.push(req.url);
      return handler(req, seen.length);
    },
  });
  servers.push(s);
  return { url: `http://127.0.0.1:${s.port}`, hits: () => seen };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop(true)));
});

const json = (status: number, b: unknown) => Response.json(b, { status });

describe("requestVerdict", () => {
  test("200: the verdict, posted as JSON to /v1/verdicts with a Prefer: wait inside the deadline", async () => {
    let got: any;
    let prefer: string | null = null;
    const s = server(async (req) => {
      got = { method: req.method, path: new URL(req.url).pathname, body: await req.json() };
      prefer = req.headers.get("prefer");
      return json(200, VERDICT);
    });
    const r = await requestVerdict({ url: s.url + "/", body, deadlineMs: 5_000 });
    expect(r).toEqual({ kind: "verdict", signed: VERDICT });
    expect(got).toEqual({ method: "POST", path: "/v1/verdicts", body });
    expect(prefer).toMatch(/^wait=[0-4]$/);
  });

  test("202 then polling: 202 while running, then the verdict", async () => {
    const s = server((req, n) => {
      if (req.method === "POST") return json(202, { job_id: "job/1" });
      return n < 4 ? json(202, { job_id: "job/1", status: "running" }) : json(200, VERDICT);
    });
    const r = await requestVerdict({ url: s.url, body, deadlineMs: 10_000, pollMs: 20 });
    expect(r).toEqual({ kind: "verdict", signed: VERDICT });
    expect(new URL(s.hits()[1]!).pathname).toBe("/v1/verdicts/job%2F1");
  });

  test("a job that outlives the deadline: pending with its id", async () => {
    const s = server((req) => json(202, { job_id: "j" }));
    const r = await requestVerdict({ url: s.url, body, deadlineMs: 600, pollMs: 50 });
    expect(r).toEqual({ kind: "pending", job_id: "j" });
  });

  test("5xx is retried with backoff, then succeeds", async () => {
    const s = server((_req, n) => (n <= 2 ? json(503, { error: "queue full" }) : json(200, VERDICT)));
    const r = await requestVerdict({ url: s.url, body, deadlineMs: 10_000, backoffMs: 10 });
    expect(r.kind).toBe("verdict");
    expect(s.hits()).toHaveLength(3);
  });

  test("5xx that never ends: an error after the bounded retries", async () => {
    const s = server(() => json(500, { error: "boom" }));
    const r = await requestVerdict({ url: s.url, body, deadlineMs: 10_000, backoffMs: 10, retries: 2 });
    expect(r).toEqual({ kind: "error", status: 500, message: "oracle answered 500: boom" });
    expect(s.hits()).toHaveLength(3);
  });

  test("4xx is final: one request, the server's error in the message", async () => {
    // 401 (wrong token) and 429 (the oracle's attempt limit) too: asking again only counts again.
    for (const status of [400, 401, 413, 422, 429]) {
      const s = server(() => json(status, { error: `no (${status})` }));
      const r = await requestVerdict({ url: s.url, body, deadlineMs: 10_000, backoffMs: 10 });
      expect(r).toEqual({ kind: "error", status, message: `oracle answered ${status}: no (${status})` });
      expect(s.hits()).toHaveLength(1);
    }
  });

  test("the token goes out as a bearer credential on the POST and on every poll", async () => {
    const auth: (string | null)[] = [];
    const s = server((req, n) => {
      auth.push(req.headers.get("authorization"));
      return n === 1 ? json(202, { job_id: "j" }) : json(200, VERDICT);
    });
    const r = await requestVerdict({ url: s.url, token: "s3cret", body, deadlineMs: 10_000, pollMs: 5 });
    expect(r).toEqual({ kind: "verdict", signed: VERDICT });
    expect(auth).toEqual(["Bearer s3cret", "Bearer s3cret"]);
    expect(await pollVerdict(s.url, "j", 5_000, { token: "s3cret" })).toEqual({ kind: "verdict", signed: VERDICT });
    expect(auth.at(-1)).toBe("Bearer s3cret");
  });

  test("nothing listening: an error, after retries, well inside the deadline", async () => {
    const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const url = `http://127.0.0.1:${s.port}`;
    await s.stop(true);
    const r = await requestVerdict({ url, body, deadlineMs: 10_000, backoffMs: 10 });
    expect(r.kind).toBe("error");
    expect((r as { message: string }).message).toStartWith("oracle unreachable");
  });

  test("a server that hangs: the deadline ends the wait", async () => {
    const s = server(() => new Promise<Response>(() => {}));
    const r = await requestVerdict({ url: s.url, body, deadlineMs: 300 });
    expect(r).toEqual({ kind: "error", message: "deadline reached before the oracle answered" });
  });

  test("malformed answers are errors, never verdicts", async () => {
    const noId = server(() => json(202, { status: "queued" }));
    expect((await requestVerdict({ url: noId.url, body, deadlineMs: 2_000 })).kind).toBe("error");
    const notJson = server(() => new Response("<html>", { status: 200 }));
    expect((await requestVerdict({ url: notJson.url, body, deadlineMs: 2_000, retries: 0 })).kind).toBe("error");
  });

  test("a job the oracle could not run (500 on poll) is an error at once", async () => {
    const s = server((req) => (req.method === "POST" ? json(202, { job_id: "j" }) : json(500, { error: "clone failed" })));
    const r = await requestVerdict({ url: s.url, body, deadlineMs: 5_000, pollMs: 10 });
    expect(r).toEqual({ kind: "error", status: 500, message: "oracle answered 500: clone failed" });
  });

  test("a bad URL is an error value, not a throw", async () => {
    expect(await requestVerdict({ url: "not a url", body, deadlineMs: 1_000 })).toEqual({ kind: "error", message: "oracle url is not an http(s) URL: not a url" });
    expect((await pollVerdict("ftp://x", "j", 1_000)).kind).toBe("error");
  });
});

describe("pollVerdict", () => {
  test("picks up a finished job", async () => {
    const s = server(() => json(200, VERDICT));
    expect(await pollVerdict(s.url, "j", 2_000)).toEqual({ kind: "verdict", signed: VERDICT });
  });

  test("an expired job (404) is an error", async () => {
    const s = server(() => json(404, { error: "no such job" }));
    const r = await pollVerdict(s.url, "j", 2_000);
    expect(r).toEqual({ kind: "error", status: 404, message: "oracle answered 404: no such job" });
  });

  test("still running at the deadline: pending", async () => {
    const s = server(() => json(202, { job_id: "j" }));
    expect(await pollVerdict(s.url, "j", 300, { pollMs: 50 })).toEqual({ kind: "pending", job_id: "j" });
  });
});
