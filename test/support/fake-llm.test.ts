import { afterEach, describe, expect, it, vi } from "vitest";
import { lastUserText, startFakeLlm, systemPromptOf, type FakeLlm, type ScriptStep } from "./fake-llm.js";

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

async function start(...steps: ScriptStep[]): Promise<FakeLlm> {
  llm = await startFakeLlm(steps);
  return llm;
}

function post(server: FakeLlm, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
    body: JSON.stringify(body),
    ...init,
  });
}

/** Parses an SSE body into its `data:` payloads (JSON objects, and the literal `[DONE]`). */
async function sse(response: Response): Promise<unknown[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.startsWith("data: "))
    .map((block) => block.slice("data: ".length))
    .map((data) => (data === "[DONE]" ? data : JSON.parse(data)));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- chunk JSON
type Chunk = any;

describe("fake-llm", () => {
  it("streams text in several OpenAI-format chunks, then finish, usage and [DONE]", async () => {
    const server = await start({ text: "one two three four five six seven eight nine ten" });
    const response = await post(server, {
      model: "m1",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = await sse(response);
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events.slice(0, -1) as Chunk[];
    for (const chunk of chunks) {
      expect(chunk.object).toBe("chat.completion.chunk");
      expect(chunk.model).toBe("m1");
      expect(chunk.id).toBe(chunks[0].id);
    }
    const textChunks = chunks.filter((c) => c.choices[0]?.delta?.content !== undefined);
    expect(textChunks.length).toBeGreaterThan(2);
    expect(textChunks[0].choices[0].delta.role).toBe("assistant");
    expect(textChunks.map((c) => c.choices[0].delta.content).join("")).toBe(
      "one two three four five six seven eight nine ten",
    );
    expect(textChunks.every((c) => c.choices[0].finish_reason === null)).toBe(true);
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(finish.choices[0]).toMatchObject({ index: 0, delta: {}, finish_reason: "stop" });
    const usage = chunks.at(-1);
    expect(usage.choices).toEqual([]);
    expect(usage.usage.total_tokens).toBe(usage.usage.prompt_tokens + usage.usage.completion_tokens);
    expect(server.remaining()).toBe(0);
  });

  it("uses explicit chunks and given usage, and omits usage when neither asked nor scripted", async () => {
    const server = await start(
      { text: "ab", chunks: ["a", "b"], usage: { prompt_tokens: 7, completion_tokens: 2 } },
      { text: "plain" },
    );
    const first = (await sse(await post(server, { model: "m", messages: [], stream: true }))) as Chunk[];
    expect(first.filter((c) => c.choices?.[0]?.delta?.content).map((c) => c.choices[0].delta.content)).toEqual([
      "a",
      "b",
    ]);
    expect(first.at(-2).usage).toEqual({ prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 });
    const second = (await sse(await post(server, { model: "m", messages: [], stream: true }))) as Chunk[];
    expect(second.some((c) => c !== "[DONE]" && c.usage)).toBe(false);
  });

  it("streams tool calls the way OpenAI does: header delta, then argument fragments", async () => {
    const server = await start({
      tool_calls: [
        { id: "call_a", name: "read_file", arguments: { path: "src/index.ts", offset: 10 } },
        { name: "terminal", arguments: '{"command":"ls -la"}' },
      ],
    });
    const chunks = (await sse(await post(server, { model: "m", messages: [], stream: true }))) as Chunk[];
    const deltas = chunks.filter((c) => c.choices?.[0]?.delta?.tool_calls).map((c) => c.choices[0].delta.tool_calls[0]);
    const first = deltas.filter((d) => d.index === 0);
    expect(first[0]).toEqual({ index: 0, id: "call_a", type: "function", function: { name: "read_file", arguments: "" } });
    expect(first.length).toBeGreaterThan(2);
    expect(first.map((d) => d.function.arguments).join("")).toBe('{"path":"src/index.ts","offset":10}');
    const second = deltas.filter((d) => d.index === 1);
    expect(second[0].id).toMatch(/^call_/);
    expect(second.map((d) => d.function.arguments).join("")).toBe('{"command":"ls -la"}');
    expect(chunks.find((c) => c.choices?.[0]?.finish_reason).choices[0].finish_reason).toBe("tool_calls");
  });

  it("streams reasoning in reasoning_content or reasoning", async () => {
    const server = await start(
      { reasoning: "let me think about it", text: "done" },
      { reasoning: "hmm", text: "ok", reasoningField: "reasoning" },
    );
    const a = (await sse(await post(server, { model: "m", messages: [], stream: true }))) as Chunk[];
    const reasoning = a.map((c) => c.choices?.[0]?.delta?.reasoning_content).filter(Boolean).join("");
    expect(reasoning).toBe("let me think about it");
    const b = (await sse(await post(server, { model: "m", messages: [], stream: true }))) as Chunk[];
    expect(b.map((c) => c.choices?.[0]?.delta?.reasoning).filter(Boolean).join("")).toBe("hmm");
  });

  it("answers non-streaming requests with a chat.completion", async () => {
    const server = await start({ tool_calls: [{ id: "c1", name: "x", arguments: { a: 1 } }], text: "calling" });
    const response = await post(server, { model: "m", messages: [{ role: "user", content: "go" }] });
    const json = (await response.json()) as Chunk;
    expect(json.object).toBe("chat.completion");
    expect(json.choices[0].finish_reason).toBe("tool_calls");
    expect(json.choices[0].message).toEqual({
      role: "assistant",
      content: "calling",
      tool_calls: [{ id: "c1", type: "function", function: { name: "x", arguments: '{"a":1}' } }],
    });
    expect(json.usage.total_tokens).toBeGreaterThan(0);
  });

  it("answers scripted HTTP errors and a loud 500 once the script is exhausted", async () => {
    const server = await start({ status: 429, headers: { "retry-after": "3" } });
    const limited = await post(server, { model: "m", messages: [] });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3");
    expect(((await limited.json()) as Chunk).error.message).toContain("429");
    const exhausted = await post(server, { model: "m", messages: [] });
    expect(exhausted.status).toBe(500);
    expect(await exhausted.json()).toEqual({ error: { message: "fake-llm: script exhausted" } });
  });

  it("records every request and lists models", async () => {
    const server = await start({ text: "hi" });
    const models = await fetch(`${server.baseUrl}/models`);
    expect(((await models.json()) as Chunk).data[0].id).toBe("fake-model");
    await (await post(server, { model: "m", messages: [{ role: "user", content: "q" }] })).json();
    expect(server.allRequests.map((r) => r.path)).toEqual(["/v1/models", "/v1/chat/completions"]);
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test");
    expect(server.requests[0]?.body).toEqual({ model: "m", messages: [{ role: "user", content: "q" }] });
    server.push({ text: "later" });
    expect(server.remaining()).toBe(1);
  });

  it("stops writing and clears its delay when the client disconnects mid-stream", async () => {
    const server = await start({ text: "first second third", chunks: ["first", " second", " third"], delayMs: 60_000 });
    const controller = new AbortController();
    const response = await post(server, { model: "m", messages: [], stream: true }, { signal: controller.signal });
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain('"content":"first"');
    expect(server.inFlight()).toBe(1);
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    await vi.waitFor(() => expect(server.inFlight()).toBe(0));
  });
  it("cuts a stream after N chunks: no finish reason, no [DONE], the connection fails", async () => {
    const server = await start({ text: "abc", chunks: ["a", "b", "c"], cutAfterChunks: 2 }, { text: "next" });
    const response = await post(server, { model: "m", messages: [], stream: true });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let received = "";
    const failure = await (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return undefined;
          received += new TextDecoder().decode(value);
        }
      } catch (error) {
        return error;
      }
    })();
    expect(failure).toBeInstanceOf(Error);
    expect(received).toContain('"content":"a"');
    expect(received).toContain('"content":"b"');
    expect(received).not.toContain('"content":"c"');
    expect(received).not.toContain("finish_reason\":\"stop");
    expect(received).not.toContain("[DONE]");
    const next = (await sse(await post(server, { model: "m", messages: [], stream: true }))) as Chunk[];
    expect(next.at(-1)).toBe("[DONE]");
  });

  it("stalls after N chunks until the client disconnects", async () => {
    const server = await start({ text: "ab", chunks: ["a", "b"], stallAfterChunks: 1 });
    const controller = new AbortController();
    const response = await post(server, { model: "m", messages: [], stream: true }, { signal: controller.signal });
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain('"content":"a"');
    expect(server.inFlight()).toBe(1);
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    await vi.waitFor(() => expect(server.inFlight()).toBe(0));
  });

  it("ends with finish_reason length on text and on a tool call, and sends malformed arguments verbatim", async () => {
    const server = await start(
      { text: "cut short", finishReason: "length" },
      { tool_calls: [{ id: "t1", name: "write_file", arguments: '{"path":"a.txt","content":"hal' }], finishReason: "length" },
    );
    const text = (await sse(await post(server, { model: "m", messages: [], stream: true }))) as Chunk[];
    expect(text.find((c) => c.choices?.[0]?.finish_reason).choices[0].finish_reason).toBe("length");
    const call = (await sse(await post(server, { model: "m", messages: [], stream: true }))) as Chunk[];
    expect(call.find((c) => c.choices?.[0]?.finish_reason).choices[0].finish_reason).toBe("length");
    const args = call
      .filter((c) => c.choices?.[0]?.delta?.tool_calls)
      .map((c) => c.choices[0].delta.tool_calls[0].function.arguments)
      .join("");
    expect(args).toBe('{"path":"a.txt","content":"hal');
  });

  it("serves a step with `when` only to requests it accepts; steps without one keep their order", async () => {
    const asking = (who: string) => ({ model: "m", messages: [{ role: "system", content: `I am ${who}` }, { role: "user", content: `hi from ${who}` }] });
    const server = await start(
      { when: (body) => systemPromptOf(body) === "I am b", text: "for b" },
      { text: "first come" },
      { when: (body) => lastUserText(body) === "hi from a", text: "for a" },
    );
    const answer = async (who: string) => ((await (await post(server, asking(who))).json()) as Chunk).choices[0].message.content;
    expect(await answer("a")).toBe("first come");
    expect(await answer("a")).toBe("for a");
    expect(await answer("b")).toBe("for b");
    server.push({ when: () => false, text: "never" });
    const unmatched = await post(server, asking("c"));
    expect(unmatched.status).toBe(500);
    expect(((await unmatched.json()) as Chunk).error.message).toBe("fake-llm: no step matches this request");
  });

  it("answers 500 with an OpenAI-style error body", async () => {
    const server = await start({ status: 500 });
    const response = await post(server, { model: "m", messages: [], stream: true });
    expect(response.status).toBe(500);
    expect(((await response.json()) as Chunk).error.message).toContain("500");
  });
});
