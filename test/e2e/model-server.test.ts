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
