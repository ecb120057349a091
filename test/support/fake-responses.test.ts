import { afterEach, describe, expect, it } from "vitest";
import { responsesRequestProblem, startFakeResponses, type FakeResponses, type ResponsesStep } from "./fake-responses.js";

let server: FakeResponses | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(...steps: ResponsesStep[]): Promise<FakeResponses> {
  server = await startFakeResponses(steps);
  return server;
}

const post = (fake: FakeResponses, body: unknown): Promise<Response> =>
  fetch(`${fake.baseUrl}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const basic = { model: "gpt-5-mini", stream: true, store: false, input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }] };

/** SSE blocks as [event, parsed data]. */
async function sse(response: Response): Promise<[string, Record<string, unknown>][]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((block) => {
      const [eventLine, dataLine] = block.split("\n");
      return [eventLine?.replace(/^event: /, "") ?? "", JSON.parse(dataLine?.replace(/^data: /, "") ?? "{}") as Record<string, unknown>];
    });
}

describe("fake-responses", () => {
  it("streams the Responses API event sequence, typed and numbered, with usage on response.completed", async () => {
    const fake = await start({ reasoning: { summary: ["hmm"] }, text: "hello there", toolCalls: [{ id: "call_1", name: "x", arguments: { a: 1 } }], usage: { cached_tokens: 4, reasoning_tokens: 3 } });
    const events = await sse(await post(fake, { ...basic, include: ["reasoning.encrypted_content"] }));
    for (const [name, data] of events) expect(data.type).toBe(name);
    expect(events.map(([, data]) => data.sequence_number)).toEqual(events.map((_, index) => index));
    const names = events.map(([name]) => name).filter((name) => !name.endsWith(".delta"));
    expect(names).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const reasoningDone = events.find(([name, data]) => name === "response.output_item.done" && (data.item as { type: string }).type === "reasoning");
    expect(reasoningDone?.[1].item).toEqual({ id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "hmm" }], encrypted_content: "enc:rs_1" });
    const completed = events.at(-1)![1].response as { status: string; usage: unknown; output: unknown[] };
    expect(completed.status).toBe("completed");
    expect(completed.output).toHaveLength(3);
    expect(completed.usage).toEqual({ input_tokens: 10, input_tokens_details: { cached_tokens: 4 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 15 });
  });

  it("returns encrypted reasoning content only when the request includes it", async () => {
    const fake = await start({ reasoning: { summary: ["hmm"] }, text: "ok" });
    const events = await sse(await post(fake, basic));
    expect(JSON.stringify(events)).not.toContain("encrypted_content");
  });

  it("ends with response.incomplete, response.failed or an error event when scripted", async () => {
    const fake = await start({ text: "a", incomplete: "max_output_tokens" }, { text: "b", failed: { code: "server_error", message: "boom" } }, { text: "c", streamError: { code: "rate_limit_exceeded", message: "slow down" } });
    const incomplete = (await sse(await post(fake, basic))).at(-1)!;
    expect(incomplete[0]).toBe("response.incomplete");
    expect((incomplete[1].response as { incomplete_details: unknown }).incomplete_details).toEqual({ reason: "max_output_tokens" });
    const failed = (await sse(await post(fake, basic))).at(-1)!;
    expect(failed[0]).toBe("response.failed");
    expect((failed[1].response as { error: unknown }).error).toEqual({ code: "server_error", message: "boom" });
    const error = (await sse(await post(fake, basic))).at(-1)!;
    expect(error).toEqual(["error", expect.objectContaining({ code: "rate_limit_exceeded", message: "slow down", param: null })]);
  });

  it("answers an HTTP error step with OpenAI's error JSON", async () => {
    const fake = await start({ status: 429, code: "rate_limit_exceeded", message: "Rate limit reached", headers: { "retry-after": "2" } });
    const response = await post(fake, basic);
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(await response.json()).toEqual({ error: { message: "Rate limit reached", type: "invalid_request_error", param: null, code: "rate_limit_exceeded" } });
  });

  it("rejects what a stateless request may not contain, without consuming a step", async () => {
    const call = { type: "function_call", call_id: "call_1", name: "x", arguments: "{}" };
    const output = { type: "function_call_output", call_id: "call_1", output: "done" };
    expect(responsesRequestProblem({ ...basic, previous_response_id: "resp_1" })?.[0]).toBe(400);
    expect(responsesRequestProblem({ ...basic, input: [call] })?.[1]).toMatchObject({ error: { message: "No tool output found for function call call_1." } });
    expect(responsesRequestProblem({ ...basic, input: [output] })?.[1]).toMatchObject({ error: { message: expect.stringContaining("No tool call found") } });
    expect(responsesRequestProblem({ ...basic, input: [{ type: "reasoning", id: "rs_1", summary: [] }] })?.[0]).toBe(404);
    expect(responsesRequestProblem({ ...basic, input: [{ type: "reasoning", id: "rs_1", encrypted_content: "x", summary: [] }, call, output] })).toBeUndefined();
    const fake = await start({ text: "ok" });
    expect((await post(fake, { ...basic, previous_response_id: "resp_1" })).status).toBe(400);
    expect(fake.remaining()).toBe(1);
  });
});
