/**
 * Run `dist/tracegate view` as a child process the way a user does, read the
 * URL it prints, and listen to its live stream like the page does.
 */
import type { Subprocess } from "bun";
import { BINARY, baseEnv } from "../support/tracegate.ts";

export interface ViewerProc {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">;
  readonly url: string;
  readonly base: string;
  readonly port: number;
  readonly token: string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Start the viewer; resolves once it has printed its URL (the record is written before that). */
export async function startViewerProc(home: string, args: string[] = [], env: Record<string, string> = {}): Promise<ViewerProc> {
  const proc = Bun.spawn([BINARY, "view", ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: baseEnv({ TRACEGATE_HOME: home, ...env }) });
  const reader = proc.stdout.getReader();
  let text = "";
  const deadline = Date.now() + 20_000;
  while (!/http:\/\/\S+\n/.test(text)) {
    if (Date.now() > deadline) throw new Error(`viewer printed no URL: ${text}`);
    const { done, value } = await reader.read();
    if (done) throw new Error(`viewer exited: ${text}${await new Response(proc.stderr).text()}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const url = /(http:\/\/\S+)\n/.exec(text)![1]!;
  const u = new URL(url);
  return {
    proc,
    url,
    base: u.origin,
    port: Number(u.port),
    token: u.searchParams.get("token")!,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      proc.kill(signal);
      await proc.exited;
    },
  };
}

export interface LiveStream {
  readonly events: any[];
  /** Resolves with the first event matching, or rejects after `ms`. */
  waitFor(pred: (e: any) => boolean, ms?: number): Promise<any>;
  close(): void;
}

/** Subscribe to the viewer's server-sent events with the token. */
export async function liveStream(v: ViewerProc): Promise<LiveStream> {
  const ac = new AbortController();
  const res = await fetch(`${v.base}/api/events?token=${v.token}`, { signal: ac.signal });
  if (res.status !== 200) throw new Error(`events: HTTP ${res.status}`);
  const events: any[] = [];
  const waiters: { pred: (e: any) => boolean; resolve: (e: any) => void }[] = [];
  (async () => {
    const reader = res.body!.getReader();
    let buf = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buf += new TextDecoder().decode(value);
        let i: number;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
          if (!data) continue;
          const ev = JSON.parse(data);
          events.push(ev);
          for (const w of [...waiters]) if (w.pred(ev)) w.resolve(ev);
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    events,
    waitFor(pred, ms = 15_000) {
      const hit = events.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no matching event in ${ms} ms; got ${JSON.stringify(events).slice(0, 500)}`)), ms);
        waiters.push({ pred, resolve: (e) => (clearTimeout(t), resolve(e)) });
      });
    },
    close: () => ac.abort(),
  };
}

/** A plain HTTP server on 127.0.0.1 that answers every request with `answer(req)` and logs them. */
export function impostor(answer: (req: Request, url: URL) => string | Promise<string> = () => "ok") {
  const seen: { method: string; path: string; body: string }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      seen.push({ method: req.method, path: url.pathname, body: await req.text() });
      return new Response(await answer(req, url));
    },
  });
  return { port: server.port!, seen, stop: () => server.stop(true) };
}
