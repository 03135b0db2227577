import { afterEach, describe, expect, test } from "bun:test";
import { assistantTurns, startModelServer, type ModelServer } from "./support/model-server.ts";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const tools = [{ name: "Bash", input_schema: { type: "object" } }];

async function post(path: string, body: unknown) {
  return fetch(`${server!.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** Parses an SSE body into [event, data] pairs. */
function events(text: string): [string, any][] {
  return text
    .trim()
    .split("\n\n")
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)![1]!;
      const data = JSON.parse(/^data: (.*)$/m.exec(chunk)![1]!);
      return [event, data];
    });
}

describe("scripted model server", () => {
  test("listens on loopback only", async () => {
    server = await startModelServer([]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  test("streams text and tool_use turns as the Messages API does, chosen by assistant-turn count", async () => {
    server = await startModelServer([
      [
        { type: "text", text: "Running." },
        { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo 'a \"quoted\" arg'" } },
      ],
      [{ type: "text", text: "Finished." }],
    ]);
    const first = await post("/v1/messages", { model: "m", stream: true, tools, messages: [{ role: "user", content: "go" }] });
    expect(first.headers.get("content-type")).toContain("text/event-stream");
    const ev = events(await first.text());
    expect(ev.map(([e]) => e)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(ev[4]![1].content_block).toMatchObject({ type: "tool_use", id: "toolu_1", name: "Bash" });
    const json = ev.filter(([, d]) => d.delta?.type === "input_json_delta").map(([, d]) => d.delta.partial_json).join("");
    expect(JSON.parse(json)).toEqual({ command: "echo 'a \"quoted\" arg'" });
    expect(ev[8]![1].delta.stop_reason).toBe("tool_use");

    // Second turn: the last message is a tool result, not what picks the turn.
    const second = await post("/v1/messages", {
      model: "m",
      stream: true,
      tools,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "text", text: "Running." }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "x" }] },
      ],
    });
    const ev2 = events(await second.text());
    expect(ev2.find(([e]) => e === "content_block_delta")![1].delta.text).toBe("Finished.");
    expect(ev2.find(([e]) => e === "message_delta")![1].delta.stop_reason).toBe("end_turn");
    expect(server.requests.filter((r) => r.kind === "main").map((r) => r.turn)).toEqual([0, 1]);
  });

  test("answers non-streaming requests with one JSON message, and function turns see the request", async () => {
    server = await startModelServer([(ctx) => [{ type: "text", text: `saw: ${ctx.lastUserText}` }]]);
    const res = await post("/v1/messages", { model: "m", stream: false, tools, messages: [{ role: "user", content: "hello" }] });
    const msg = await res.json();
    expect(msg).toMatchObject({ type: "message", role: "assistant", stop_reason: "end_turn", content: [{ type: "text", text: "saw: hello" }] });
  });

  test("side requests, count_tokens and HEAD do not advance the script", async () => {
    server = await startModelServer([[{ type: "text", text: "main turn" }]]);
    expect((await fetch(server.url, { method: "HEAD" })).status).toBe(200);
    expect(await (await post("/v1/messages/count_tokens", { messages: [] })).json()).toEqual({ input_tokens: 10 });
    const side: any = await (await post("/v1/messages", { model: "m", messages: [{ role: "user", content: "title?" }] })).json();
    expect(side.content[0].type).toBe("text");
    const main: any = await (await post("/v1/messages", { model: "m", tools, messages: [{ role: "user", content: "go" }] })).json();
    expect(main.content[0].text).toBe("main turn");
    expect(server.requests.map((r) => r.kind)).toEqual(["other", "other", "side", "main"]);
  });

  test("past the end of the script the model says Done.", async () => {
    server = await startModelServer([]);
    const msg: any = await (await post("/v1/messages", { model: "m", tools, messages: [{ role: "user", content: "go" }] })).json();
    expect(msg.content).toEqual([{ type: "text", text: "Done." }]);
  });

  test("assistantTurns counts runs of assistant messages and skips system entries", () => {
    const u = { role: "user" };
    const a = { role: "assistant" };
    const s = { role: "system" };
    expect(assistantTurns([u])).toBe(0);
    expect(assistantTurns([u, a, u])).toBe(1);
    expect(assistantTurns([u, a, a, u, a])).toBe(2);
    expect(assistantTurns([u, s, a, s, a, u, s])).toBe(1);
  });
});

/** Data lines of an SSE body, parsed ("[DONE]" kept as a string). */
function dataLines(text: string): any[] {
  return text
    .split(/\r?\n/)
    .filter((l) => l.startsWith("data: "))
    .map((l) => (l === "data: [DONE]" ? "[DONE]" : JSON.parse(l.slice(6))));
}

describe("scripted model server: the other dialects", () => {
  const script = [[{ type: "shell" as const, command: "echo hi", id: "call_1" }], [{ type: "text" as const, text: "Finished." }]];

  test("Responses (Codex): a shell block becomes exec_command {cmd}; function_call_output starts the next turn", async () => {
    server = await startModelServer(script);
    const tools = [{ type: "function", name: "exec_command" }, { type: "function", name: "write_stdin" }];
    const input = [{ type: "message", role: "developer", content: [{ type: "input_text", text: "sys" }] }, { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] }];
    const ev = dataLines(await (await post("/v1/responses", { model: "m", stream: true, tools, input })).text());
    expect(ev[0].type).toBe("response.created");
    expect(ev.at(-1).type).toBe("response.completed");
    const call = ev.find((e) => e.type === "response.output_item.done").item;
    expect(call).toMatchObject({ type: "function_call", call_id: "call_1", name: "exec_command", status: "completed" });
    expect(JSON.parse(call.arguments)).toEqual({ cmd: "echo hi" });
    const next = [...input, call, { type: "function_call_output", call_id: "call_1", output: "hi\n" }];
    const ev2 = dataLines(await (await post("/v1/responses", { model: "m", stream: true, tools, input: next })).text());
    expect(ev2.find((e) => e.type === "response.output_text.done").text).toBe("Finished.");
    expect(server.requests.map((r) => r.turn)).toEqual([0, 1]);
  });

  test("Chat Completions (Copilot, OpenCode): tool_calls chunk, finish_reason, usage, [DONE]; no shell tool is a side request", async () => {
    server = await startModelServer(script);
    const tools = [{ type: "function", function: { name: "bash" } }];
    const ev = dataLines(await (await post("/v1/chat/completions", { model: "m", stream: true, tools, messages: [{ role: "user", content: "go" }] })).text());
    const call = ev.find((e) => e.choices?.[0]?.delta?.tool_calls).choices[0].delta.tool_calls[0];
    expect(call).toMatchObject({ id: "call_1", type: "function", function: { name: "bash" } });
    expect(JSON.parse(call.function.arguments)).toEqual({ command: "echo hi", description: "run a command" });
    expect(ev.some((e) => e.choices?.[0]?.finish_reason === "tool_calls")).toBe(true);
    expect(ev.at(-1)).toBe("[DONE]");
    await post("/v1/chat/completions", { model: "m", stream: true, messages: [{ role: "user", content: "title?" }] });
    expect(server.requests.map((r) => r.kind)).toEqual(["main", "side"]);
  });

  test("Gemini: streamGenerateContent maps a shell block onto run_shell_command; JSON side calls fill their schema", async () => {
    server = await startModelServer(script);
    const tools = [{ functionDeclarations: [{ name: "run_shell_command" }, { name: "read_file" }] }];
    const res = await post("/v1beta/models/gemini-x:streamGenerateContent?alt=sse", { contents: [{ role: "user", parts: [{ text: "go" }] }], tools });
    const [chunk] = dataLines(await res.text());
    expect(chunk.candidates[0].content.parts[0].functionCall).toMatchObject({ name: "run_shell_command", args: { command: "echo hi" } });
    const side = await post("/v1beta/models/flash-lite:generateContent", {
      contents: [{ role: "user", parts: [{ text: "classify" }] }],
      generationConfig: {
        responseMimeType: "application/json",
        responseJsonSchema: { type: "object", properties: { complexity_reasoning: { type: "string" }, complexity_score: { type: "integer", minimum: 1 }, unproductive_state_confidence: { type: "number" }, next_speaker: { type: "string", enum: ["user", "model"] } } },
      },
    });
    const answer = JSON.parse(((await side.json()) as any).candidates[0].content.parts[0].text);
    expect(answer).toEqual({ complexity_reasoning: "ok", complexity_score: 1, unproductive_state_confidence: 0, next_speaker: "user" });
    expect(server.requests.map((r) => r.kind)).toEqual(["main", "side"]);
  });

  test("the rest turn serves past the end of the script, with the turn index", async () => {
    server = await startModelServer([], { rest: (ctx) => [{ type: "text", text: `done ${ctx.index}` }] });
    const msg: any = await (await post("/v1/messages", { model: "m", tools, messages: [{ role: "user", content: "go" }, { role: "assistant", content: "x" }, { role: "user", content: "again" }] })).json();
    expect(msg.content).toEqual([{ type: "text", text: "done 1" }]);
  });
});
