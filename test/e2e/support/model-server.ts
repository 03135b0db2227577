/**
 * A scripted model server for driving real agent clients in end-to-end tests.
 * One server, one scenario format, four wire dialects:
 *
 * - Anthropic Messages (`POST /v1/messages`): Claude Code;
 * - OpenAI Responses (`POST …/responses`): Codex;
 * - OpenAI Chat Completions (`POST …/chat/completions`): Copilot CLI (BYOK),
 *   OpenCode (`@ai-sdk/openai-compatible`);
 * - Gemini (`POST /v1beta/models/M:streamGenerateContent` and `:generateContent`): Gemini CLI.
 *
 * Listens on 127.0.0.1 only, on a random port.
 *
 * Main-loop requests (those that offer a shell tool, or for Anthropic any
 * tools) get the next turn of a scenario. The turn is chosen by counting the
 * assistant turns already in the request's history: every client resends the
 * whole conversation each time, so the count is the position in the script,
 * whatever the last message was (a tool result, a stop hook's reason, a system
 * reminder). Side requests (titles, routers, loop checks, count_tokens) get a
 * short, harmless answer and never advance the script.
 *
 * A `{type: "shell"}` block is mapped onto whichever shell tool the client
 * offers (`Bash`, `exec_command`, `run_shell_command`, `bash`, …), so one
 * scenario drives every client.
 */

/** One content block of a scripted assistant turn. */
export type Block =
  | { readonly type: "text"; readonly text: string }
  /** A raw tool call: the name and input are sent as written. */
  | { readonly type: "tool_use"; readonly name: string; readonly input: Record<string, unknown>; readonly id?: string }
  /** A shell command, sent as a call of the client's own shell tool. */
  | { readonly type: "shell"; readonly command: string; readonly id?: string };

/** Which wire API a request came in on. */
export type Dialect = "anthropic" | "responses" | "chat" | "gemini";

/** One message of a request's history, reduced to a role and its text. */
export interface Said {
  /** Tool results count as "user" (they start a new assistant turn), calls as "assistant". */
  readonly role: "user" | "assistant" | "system";
  readonly text: string;
}

/** What the scripted model sees of a request when a turn is a function. */
export interface TurnContext {
  /** The request body as received. */
  readonly body: MessagesRequest;
  readonly dialect: Dialect;
  /** Assistant turns already in the history (the index of the turn being chosen). */
  readonly index: number;
  /** All text of the last user message: text blocks, tool results, strings. */
  readonly lastUserText: string;
  /** The history as roles and texts. */
  readonly history: readonly Said[];
  /** Names of the tools the request offers (to script a client-specific tool call). */
  readonly tools: readonly string[];
}

/** A scripted turn: fixed blocks, or blocks computed from the request. */
export type Turn = readonly Block[] | ((ctx: TurnContext) => readonly Block[]);

/** A scenario is a list of assistant turns; past the end, the model says "Done." (or `ServerOptions.rest`). */
export type Scenario = readonly Turn[];

export interface ServerOptions {
  /**
   * The turn served past the end of the scenario. Default: "Done.". A client
   * that is kept looping needs text that varies (Gemini's repetition detector
   * steps in on identical turns): use a function of `ctx.index`.
   */
  readonly rest?: Turn;
}

/** A request body of any dialect; Anthropic's fields are typed for the Claude tests. */
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
  /** "main" (answered from the scenario), "side", or "other". */
  readonly kind: "main" | "side" | "other";
  readonly dialect?: Dialect;
  /** Index of the scenario turn served, for main requests. */
  readonly turn?: number;
  /** The history as roles and texts (main and side requests). */
  readonly history?: readonly Said[];
  /** Request headers, for main and side requests. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ModelServer {
  /** Base URL without a path, e.g. "http://127.0.0.1:41234" (clients add `/v1` or `/v1beta` as they need). */
  readonly url: string;
  /** Every request received, in arrival order (live array). */
  readonly requests: RecordedRequest[];
  /** Main-loop request bodies only: what the model was shown each turn. */
  mainRequests(): MessagesRequest[];
  /** Main-loop requests' histories, in the common form. */
  mainHistories(): (readonly Said[])[];
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
      if ((block.type === "text" || block.type === "input_text" || block.type === "output_text") && typeof block.text === "string") return block.text;
      if (block.type === "tool_result") return contentText(block.content);
      return "";
    })
    .join("\n");
}

/**
 * How many assistant turns a history holds. A client may split one turn into
 * consecutive assistant messages (text, then tool calls), so runs of them
 * count once; `role: "system"` entries (Claude Code 2.1.332 puts some into
 * `messages`) neither start nor end a turn.
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

// ---------------------------------------------------------------------------
// Reading requests: each dialect's history in the common form.

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));

function anthropicHistory(body: MessagesRequest): Said[] {
  return (body.messages ?? []).map((m) => ({ role: m.role === "assistant" ? "assistant" : m.role === "system" ? "system" : "user", text: contentText(m.content) }));
}

function responsesHistory(body: MessagesRequest): Said[] {
  const input = body.input;
  if (typeof input === "string") return [{ role: "user", text: input }];
  if (!Array.isArray(input)) return [];
  const out: Said[] = [];
  for (const item of input) {
    if (!isObj(item)) continue;
    const type = item.type ?? "message";
    if (type === "message") {
      const role = item.role === "assistant" ? "assistant" : item.role === "user" ? "user" : "system";
      out.push({ role, text: contentText(item.content) });
    } else if (type === "function_call" || type === "custom_tool_call" || type === "local_shell_call") {
      out.push({ role: "assistant", text: str(item.arguments ?? item.input ?? item.action) });
    } else if (type === "function_call_output" || type === "custom_tool_call_output" || type === "local_shell_call_output") {
      const o = item.output;
      out.push({ role: "user", text: isObj(o) ? str(o.content ?? o) : Array.isArray(o) ? contentText(o) : str(o) });
    }
    // reasoning items and the like carry no turn of their own
  }
  return out;
}

function chatHistory(body: MessagesRequest): Said[] {
  return (body.messages ?? []).map((m) => {
    const msg = m as unknown as Obj;
    if (m.role === "assistant") {
      const calls = Array.isArray(msg.tool_calls) ? msg.tool_calls.map((c) => str((c as Obj).function)).join("\n") : "";
      return { role: "assistant" as const, text: [contentText(m.content), calls].filter(Boolean).join("\n") };
    }
    if (m.role === "system" || m.role === "developer") return { role: "system" as const, text: contentText(m.content) };
    return { role: "user" as const, text: contentText(m.content) };
  });
}

function geminiHistory(body: MessagesRequest): Said[] {
  const contents = Array.isArray(body.contents) ? body.contents : [];
  return contents.filter(isObj).map((c) => {
    const parts = Array.isArray(c.parts) ? c.parts.filter(isObj) : [];
    const text = parts
      .map((p) => (typeof p.text === "string" ? p.text : isObj(p.functionResponse) ? str(p.functionResponse.response) : isObj(p.functionCall) ? str(p.functionCall.args) : ""))
      .join("\n");
    return { role: c.role === "model" ? ("assistant" as const) : ("user" as const), text };
  });
}

/** Names of the tools a request offers, in any dialect. */
function toolNames(dialect: Dialect, body: MessagesRequest): string[] {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObj) : [];
  if (dialect === "gemini") {
    return tools.flatMap((t) => (Array.isArray(t.functionDeclarations) ? t.functionDeclarations.filter(isObj).map((d) => String(d.name)) : []));
  }
  return tools.flatMap((t) => {
    if (typeof t.name === "string") return [t.name];
    if (isObj(t.function) && typeof t.function.name === "string") return [t.function.name];
    return [];
  });
}

/** Shell tools by name, with how each takes a command line (what harness-clients.md records). */
const SHELL_TOOLS: Record<string, (cmd: string) => Record<string, unknown>> = {
  Bash: (command) => ({ command, description: "run a command" }),
  bash: (command) => ({ command, description: "run a command" }),
  run_shell_command: (command) => ({ command, description: "run a command" }),
  exec_command: (cmd) => ({ cmd }),
  shell_command: (command) => ({ command }),
  shell: (command) => ({ command: ["bash", "-lc", command] }),
};

function shellTool(names: readonly string[]): string | undefined {
  return Object.keys(SHELL_TOOLS).find((n) => names.includes(n));
}

let idCounter = 0;
const nextId = (prefix: string) => `${prefix}${Date.now().toString(36)}_${(idCounter++).toString(36)}`;

/** A block resolved for the wire: text, or a tool call with its id. */
type Resolved = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

function materialize(blocks: readonly Block[], names: readonly string[], idPrefix: string): Resolved[] {
  return blocks.map((b) => {
    if (b.type === "text") return { type: "text", text: b.text };
    if (b.type === "tool_use") return { type: "tool_use", id: b.id ?? nextId(idPrefix), name: b.name, input: b.input };
    const name = shellTool(names) ?? "Bash";
    return { type: "tool_use", id: b.id ?? nextId(idPrefix), name, input: SHELL_TOOLS[name]!(b.command) };
  });
}

// ---------------------------------------------------------------------------
// Anthropic Messages.

const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function messageJson(model: string, content: Resolved[]) {
  const stop = content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  return {
    id: nextId("msg_e2e_"),
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

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache" };

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

function anthropicReply(body: MessagesRequest, content: Resolved[]): Response {
  const message = messageJson(body.model ?? "claude-e2e", content);
  if (body.stream) return new Response(streamEvents(message), { headers: { ...SSE_HEADERS, "request-id": "req_e2e" } });
  return Response.json(message, { headers: { "request-id": "req_e2e" } });
}

/** A side request gets text; one that asks for JSON-ish output (titles) gets a harmless JSON string. */
function anthropicSide(body: MessagesRequest): Resolved[] {
  const system = JSON.stringify(body.system ?? "");
  if (/json/i.test(system)) return [{ type: "text", text: '{"title": "e2e session", "isNewTopic": false}' }];
  return [{ type: "text", text: "ok" }];
}

// ---------------------------------------------------------------------------
// OpenAI Responses (Codex).

function responsesReply(body: MessagesRequest, content: Resolved[]): Response {
  const id = nextId("resp_e2e_");
  let seq = 0;
  const ev = (type: string, data: Obj) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`;
  const output: Obj[] = [];
  const parts: string[] = [];
  const base = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model: body.model ?? "mock-model", output: [] as Obj[] };
  parts.push(ev("response.created", { response: { ...base, status: "in_progress" } }));
  parts.push(ev("response.in_progress", { response: { ...base, status: "in_progress" } }));
  content.forEach((b, output_index) => {
    if (b.type === "text") {
      const item_id = nextId("msg_e2e_");
      const done = { type: "message", id: item_id, status: "completed", role: "assistant", content: [{ type: "output_text", text: b.text, annotations: [] }] };
      parts.push(ev("response.output_item.added", { output_index, item: { ...done, status: "in_progress", content: [] } }));
      parts.push(ev("response.content_part.added", { item_id, output_index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }));
      parts.push(ev("response.output_text.delta", { item_id, output_index, content_index: 0, delta: b.text }));
      parts.push(ev("response.output_text.done", { item_id, output_index, content_index: 0, text: b.text }));
      parts.push(ev("response.content_part.done", { item_id, output_index, content_index: 0, part: done.content[0] }));
      parts.push(ev("response.output_item.done", { output_index, item: done }));
      output.push(done);
    } else {
      const item_id = nextId("fc_e2e_");
      const args = JSON.stringify(b.input);
      const done = { type: "function_call", id: item_id, call_id: b.id, name: b.name, arguments: args, status: "completed" };
      parts.push(ev("response.output_item.added", { output_index, item: { ...done, arguments: "", status: "in_progress" } }));
      parts.push(ev("response.function_call_arguments.delta", { item_id, output_index, delta: args }));
      parts.push(ev("response.function_call_arguments.done", { item_id, output_index, arguments: args }));
      parts.push(ev("response.output_item.done", { output_index, item: done }));
      output.push(done);
    }
  });
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  parts.push(ev("response.completed", { response: { ...base, status: "completed", output, usage } }));
  return new Response(parts.join(""), { headers: SSE_HEADERS });
}

// ---------------------------------------------------------------------------
// OpenAI Chat Completions (Copilot BYOK, OpenCode).

function chatReply(body: MessagesRequest, content: Resolved[]): Response {
  const id = nextId("chatcmpl-e2e-");
  const model = body.model ?? "mock-model";
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Obj = {}) => `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`;
  const text = content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("\n");
  const calls = content.filter((b) => b.type === "tool_use") as Extract<Resolved, { type: "tool_use" }>[];
  const finish = calls.length ? "tool_calls" : "stop";
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (!body.stream) {
    const message: Obj = { role: "assistant", content: text || null };
    if (calls.length) message.tool_calls = calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.input) } }));
    return Response.json({ id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
  }
  const parts: string[] = [chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }])];
  if (text) parts.push(chunk([{ index: 0, delta: { content: text }, finish_reason: null }]));
  calls.forEach((c, index) => {
    parts.push(chunk([{ index: 0, delta: { tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.input) } }] }, finish_reason: null }]));
  });
  parts.push(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
  parts.push(chunk([], { usage }));
  parts.push("data: [DONE]\n\n");
  return new Response(parts.join(""), { headers: SSE_HEADERS });
}

// ---------------------------------------------------------------------------
// Gemini.

function geminiCandidate(content: Resolved[]) {
  const parts = content.map((b) => (b.type === "text" ? { text: b.text } : { functionCall: { name: b.name, args: b.input, id: b.id } }));
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: "mock-model",
  };
}

function geminiReply(stream: boolean, content: Resolved[]): Response {
  const payload = geminiCandidate(content);
  if (!stream) return Response.json(payload);
  return new Response(`data: ${JSON.stringify(payload)}\r\n\r\n`, { headers: SSE_HEADERS });
}

/**
 * Fills a JSON schema's properties for Gemini's JSON side calls: the next
 * speaker is the user, confidences are 0 (no loop), other numbers their
 * minimum or 1 (the router rejects a complexity score of 0).
 */
function fillSchema(schema: unknown, key = ""): unknown {
  if (!isObj(schema)) return "ok";
  const type = String(schema.type ?? "").toLowerCase();
  if (Array.isArray(schema.enum) && schema.enum.length) return key === "next_speaker" && schema.enum.includes("user") ? "user" : schema.enum[0];
  if (type === "object" || isObj(schema.properties)) {
    const out: Obj = {};
    for (const [k, v] of Object.entries(isObj(schema.properties) ? schema.properties : {})) out[k] = fillSchema(v, k);
    return out;
  }
  if (type === "array") return [];
  if (type === "boolean") return false;
  if (type === "number" || type === "integer") {
    if (/confidence/i.test(key)) return 0;
    return typeof schema.minimum === "number" ? Math.max(schema.minimum, 1) : 1;
  }
  if (key === "next_speaker") return "user";
  return "ok";
}

function geminiSide(body: MessagesRequest, stream: boolean): Response {
  const config = isObj(body.generationConfig) ? body.generationConfig : {};
  const schema = config.responseJsonSchema ?? config.responseSchema;
  const text = config.responseMimeType === "application/json" ? JSON.stringify(fillSchema(schema ?? { type: "object" })) : "ok";
  return geminiReply(stream, [{ type: "text", text }]);
}

// ---------------------------------------------------------------------------
// Routing.

function dialectOf(method: string, path: string): Dialect | null {
  if (method !== "POST") return null;
  if (path.endsWith("/v1/messages")) return "anthropic";
  if (path.endsWith("/responses")) return "responses";
  if (path.endsWith("/chat/completions")) return "chat";
  if (/\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(path)) return "gemini";
  return null;
}

const HISTORY: Record<Dialect, (b: MessagesRequest) => Said[]> = {
  anthropic: anthropicHistory,
  responses: responsesHistory,
  chat: chatHistory,
  gemini: geminiHistory,
};

const ID_PREFIX: Record<Dialect, string> = { anthropic: "toolu_e2e_", responses: "call_e2e_", chat: "call_e2e_", gemini: "gemini_e2e_" };

/** Headers worth keeping for assertions, with credentials cut short. */
function keptHeaders(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  req.headers.forEach((v, k) => {
    out[k] = /authorization|api-key|x-goog-api-key/i.test(k) ? `${v.slice(0, 12)}…` : v;
  });
  return out;
}

/**
 * Starts the server with a scenario.
 *
 * @example
 * ```ts
 * const model = await startModelServer([
 *   [{ type: "shell", command: "echo hi" }],
 *   [{ type: "text", text: "All done." }],
 * ]);
 * // ANTHROPIC_BASE_URL=model.url, or base_url = model.url + "/v1" for Codex, ...; then
 * await model.stop();
 * ```
 */
export async function startModelServer(scenario: Scenario, opts: ServerOptions = {}): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  const rest: Turn = opts.rest ?? [{ type: "text", text: "Done." }];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const path = url.pathname;
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
      if (req.method === "POST" && path.endsWith(":countTokens")) {
        requests.push({ method: req.method, path, body, kind: "other" });
        return Response.json({ totalTokens: 10 });
      }
      const dialect = dialectOf(req.method, path);
      if (dialect && body) {
        const history = HISTORY[dialect](body);
        const names = toolNames(dialect, body);
        const headers = keptHeaders(req);
        const stream = dialect === "gemini" ? path.includes(":streamGenerateContent") : body.stream === true;
        // Anthropic: any tools make a main request (Claude Code's side calls carry none). Elsewhere the
        // client must offer a shell tool: Gemini's router and loop checks, titles etc. offer none.
        const main = dialect === "anthropic" ? names.length > 0 : shellTool(names) !== undefined;
        if (!main) {
          requests.push({ method: req.method, path, body, kind: "side", dialect, history, headers });
          if (dialect === "anthropic") return anthropicReply(body, anthropicSide(body));
          if (dialect === "gemini") return geminiSide(body, stream);
          const side: Resolved[] = [{ type: "text", text: "e2e session" }];
          return dialect === "responses" ? responsesReply(body, side) : chatReply(body, side);
        }
        const index = assistantTurns(history);
        requests.push({ method: req.method, path, body, kind: "main", dialect, turn: index, history, headers });
        const turn: Turn = scenario[index] ?? rest;
        const lastUser = [...history].reverse().find((m) => m.role === "user")?.text ?? "";
        const blocks = typeof turn === "function" ? turn({ body, dialect, index, lastUserText: lastUser, history, tools: names }) : turn;
        const content = materialize(blocks, names, ID_PREFIX[dialect]);
        if (dialect === "anthropic") return anthropicReply(body, content);
        if (dialect === "responses") return responsesReply(body, content);
        if (dialect === "chat") return chatReply(body, content);
        return geminiReply(stream, content);
      }
      requests.push({ method: req.method, path, body, kind: "other" });
      if (req.method === "GET" && /\/models\/?$/.test(path)) return Response.json({ object: "list", data: [{ id: "mock-model", object: "model" }], models: [] });
      if (req.method === "HEAD" || req.method === "GET") return new Response(req.method === "HEAD" ? null : "{}", { status: 200 });
      return Response.json({ type: "error", error: { type: "not_found_error", message: `no ${path}` } }, { status: 404 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    mainRequests: () => requests.filter((r) => r.kind === "main").map((r) => r.body!),
    mainHistories: () => requests.filter((r) => r.kind === "main").map((r) => r.history ?? []),
    stop: async () => {
      await server.stop(true);
    },
  };
}
