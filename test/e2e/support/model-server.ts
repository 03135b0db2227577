/**
 * A scripted stand-in for the Anthropic Messages API, for driving a real
 * Claude Code in end-to-end tests. Listens on 127.0.0.1 only, on a random port.
 *
 * Main-loop requests (those that carry a `tools` array) get the next turn of a
 * scenario. The turn is chosen by counting the assistant turns already in the
 * request's `messages`: Claude Code resends the whole conversation each time,
 * so the count is the position in the script, whatever the last message was
 * (a tool result, a Stop hook's feedback, a system reminder). Side requests
 * (titles, summaries, count_tokens) get a short, harmless answer and never
 * advance the script.
 */

/** One content block of a scripted assistant turn. */
export type Block =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly name: string; readonly input: Record<string, unknown>; readonly id?: string };

/** What the scripted model sees of a request when a turn is a function. */
export interface TurnContext {
  /** The request body as received. */
  readonly body: MessagesRequest;
  /** Assistant turns already in `messages` (the index of the turn being chosen). */
  readonly index: number;
  /** All text of the last user message: text blocks, tool results, strings. */
  readonly lastUserText: string;
}

/** A scripted turn: fixed blocks, or blocks computed from the request. */
export type Turn = readonly Block[] | ((ctx: TurnContext) => readonly Block[]);

/** A scenario is a list of assistant turns; past the end, the model says "Done.". */
export type Scenario = readonly Turn[];

export interface MessagesRequest {
  readonly model?: string;
  readonly stream?: boolean;
  readonly tools?: readonly unknown[];
  readonly messages?: readonly { role: string; content: unknown }[];
  readonly [k: string]: unknown;
}

/** One request the server received, kept for assertions. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly body: MessagesRequest | null;
  /** "main" (carried tools, answered from the scenario), "side", or "other". */
  readonly kind: "main" | "side" | "other";
  /** Index of the scenario turn served, for main requests. */
  readonly turn?: number;
}

export interface ModelServer {
  /** Base URL for ANTHROPIC_BASE_URL, e.g. "http://127.0.0.1:41234". */
  readonly url: string;
  /** Every request received, in arrival order (live array). */
  readonly requests: RecordedRequest[];
  /** Main-loop request bodies only: what the model was shown each turn. */
  mainRequests(): MessagesRequest[];
  stop(): Promise<void>;
}

/**
 * Text of a message's content, flattening text blocks and tool results.
 *
 * @example
 * ```ts
 * contentText([{ type: "text", text: "Stop hook feedback:\nFAIL" }]); // "Stop hook feedback:\nFAIL"
 * ```
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => {
      if (!b || typeof b !== "object") return "";
      const block = b as Record<string, unknown>;
      if (block.type === "text" && typeof block.text === "string") return block.text;
      if (block.type === "tool_result") return contentText(block.content);
      return "";
    })
    .join("\n");
}

/**
 * How many assistant turns a request already holds. Claude Code may split one
 * turn into consecutive assistant messages, so runs of them count once; it
 * also puts `role: "system"` entries into `messages` (2.1.332 does, e.g. after
 * a Stop hook block), which neither start nor end a turn.
 *
 * @example
 * ```ts
 * assistantTurns([{ role: "user", content: "hi" }]); // 0
 * ```
 */
export function assistantTurns(messages: readonly { role: string }[] = []): number {
  let n = 0;
  let prev = "";
  for (const m of messages) {
    if (m.role === "system") continue;
    if (m.role === "assistant" && prev !== "assistant") n++;
    prev = m.role;
  }
  return n;
}

/**
 * All text of the last `user` message (system entries skipped): where a tool
 * result or a Stop hook's feedback (`Stop hook feedback:\n<reason>`) lands.
 *
 * @example
 * ```ts
 * lastUserText([{ role: "user", content: "hi" }, { role: "assistant", content: "yo" }]); // "hi"
 * ```
 */
export function lastUserText(messages: readonly { role: string; content: unknown }[] = []): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === "user") return contentText(messages[i]!.content);
  }
  return "";
}

let idCounter = 0;
const toolId = () => `toolu_e2e_${Date.now().toString(36)}_${(idCounter++).toString(36)}`;

/** Resolves ids so a function turn and the recorded response agree. */
function materialize(blocks: readonly Block[]) {
  return blocks.map((b) =>
    b.type === "text"
      ? { type: "text" as const, text: b.text }
      : { type: "tool_use" as const, id: b.id ?? toolId(), name: b.name, input: b.input },
  );
}

type Content = ReturnType<typeof materialize>;

const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function messageJson(model: string, content: Content) {
  const stop = content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  return {
    id: `msg_e2e_${Date.now().toString(36)}_${(idCounter++).toString(36)}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage,
  };
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The streaming form of one message, as the real API sends it. */
export function streamEvents(message: ReturnType<typeof messageJson>): string {
  const parts: string[] = [];
  parts.push(sse("message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }));
  message.content.forEach((b, index) => {
    if (b.type === "text") {
      parts.push(sse("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }));
      parts.push(sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } }));
    } else {
      parts.push(sse("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } }));
      const json = JSON.stringify(b.input);
      // Split the input JSON the way the API does, so the client's partial-JSON path runs.
      const mid = Math.floor(json.length / 2);
      for (const piece of [json.slice(0, mid), json.slice(mid)]) {
        parts.push(sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }));
      }
    }
    parts.push(sse("content_block_stop", { type: "content_block_stop", index }));
  });
  parts.push(sse("message_delta", { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }));
  parts.push(sse("message_stop", { type: "message_stop" }));
  return parts.join("");
}

function reply(body: MessagesRequest, content: Content): Response {
  const message = messageJson(body.model ?? "claude-e2e", content);
  if (body.stream) {
    return new Response(streamEvents(message), {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": "req_e2e" },
    });
  }
  return Response.json(message, { headers: { "request-id": "req_e2e" } });
}

/** A side request gets text; one that asks for JSON-ish output (titles) gets a harmless JSON string. */
function sideAnswer(body: MessagesRequest): Content {
  const system = JSON.stringify(body.system ?? "");
  if (/json/i.test(system)) return [{ type: "text", text: '{"title": "e2e session", "isNewTopic": false}' }];
  return [{ type: "text", text: "ok" }];
}

/**
 * Starts the server with a scenario.
 *
 * @example
 * ```ts
 * const model = await startModelServer([
 *   [{ type: "tool_use", name: "Bash", input: { command: "echo hi" } }],
 *   [{ type: "text", text: "All done." }],
 * ]);
 * // ANTHROPIC_BASE_URL=model.url ...; then
 * await model.stop();
 * ```
 */
export async function startModelServer(scenario: Scenario): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      let body: MessagesRequest | null = null;
      if (req.method === "POST") {
        try {
          body = (await req.json()) as MessagesRequest;
        } catch {
          body = null;
        }
      }
      if (req.method === "POST" && path.endsWith("/v1/messages/count_tokens")) {
        requests.push({ method: req.method, path, body, kind: "other" });
        return Response.json({ input_tokens: 10 });
      }
      if (req.method === "POST" && path.endsWith("/v1/messages") && body) {
        if (Array.isArray(body.tools) && body.tools.length > 0) {
          const index = assistantTurns(body.messages);
          requests.push({ method: req.method, path, body, kind: "main", turn: index });
          const turn: Turn = scenario[index] ?? [{ type: "text", text: "Done." }];
          const blocks = typeof turn === "function" ? turn({ body, index, lastUserText: lastUserText(body.messages) }) : turn;
          return reply(body, materialize(blocks));
        }
        requests.push({ method: req.method, path, body, kind: "side" });
        return reply(body, sideAnswer(body));
      }
      requests.push({ method: req.method, path, body, kind: "other" });
      if (req.method === "HEAD" || req.method === "GET") return new Response(req.method === "HEAD" ? null : "{}", { status: 200 });
      return Response.json({ type: "error", error: { type: "not_found_error", message: `no ${path}` } }, { status: 404 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    mainRequests: () => requests.filter((r) => r.kind === "main").map((r) => r.body!),
    stop: async () => {
      await server.stop(true);
    },
  };
}
