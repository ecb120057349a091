/**
 * Both wire providers against model servers that misbehave at the edges: no response headers ever,
 * and a stream that never ends. Time limits are tiny and configured; nothing here measures time.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { startFakeAnthropic, type FakeAnthropic } from "../../test/support/fake-anthropic.js";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import { createAnthropicProvider } from "./anthropic.js";
import { createOpenAiChatProvider } from "./openai-chat.js";
import type { ModelRequest, Provider, ProviderEvent } from "./types.js";

interface Server {
  inFlight(): number;
  requests: unknown[];
  close(): Promise<void>;
}

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Make = (steps: "hang" | "endless", connectTimeoutMs?: number) => Promise<Provider>;

const openai: Make = async (step, connectTimeoutMs) => {
  const llm: FakeLlm = await startFakeLlm([step === "hang" ? { hang: "headers" } : { endless: true }]);
  server = llm;
  return createOpenAiChatProvider({ id: "fake", baseUrl: llm.baseUrl, apiKey: "k", ...(connectTimeoutMs ? { connectTimeoutMs } : {}) });
};

const anthropic: Make = async (step, connectTimeoutMs) => {
  const fake: FakeAnthropic = await startFakeAnthropic([step === "hang" ? { hang: "headers" } : { endless: true }]);
  server = fake;
  return createAnthropicProvider({ id: "anthropic", baseUrl: fake.baseUrl, apiKey: "k", ...(connectTimeoutMs ? { connectTimeoutMs } : {}) });
};

const request: ModelRequest = { model: "m", messages: [{ role: "user", content: "hi" }] };

async function collect(stream: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe.each([
  ["openai-chat", openai],
  ["anthropic", anthropic],
])("%s provider at the edges", (_name, make) => {
  it("ends with a timeout error when the server never sends response headers", async () => {
    const provider = await make("hang", 200);
    const events = await collect(provider.stream(request, new AbortController().signal));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "error", kind: "timeout" });
    expect((events[0] as { message: string }).message).toMatch(/no response from the model within 0\.2 s \(model\.connect_timeout\)/);
    await vi.waitFor(() => expect(server?.inFlight()).toBe(0));
  });

  it("ends the wait for headers as soon as the caller aborts (default connect timeout)", async () => {
    const provider = await make("hang");
    const controller = new AbortController();
    const done = collect(provider.stream(request, controller.signal));
    await vi.waitFor(() => expect(server?.requests.length).toBe(1));
    controller.abort();
    expect(await done).toEqual([{ type: "error", kind: "aborted", message: "request aborted" }]);
    await vi.waitFor(() => expect(server?.inFlight()).toBe(0));
  });

  it("closes the HTTP stream of an endless answer when the consumer stops reading", async () => {
    const provider = await make("endless");
    let chars = 0;
    for await (const event of provider.stream(request, new AbortController().signal)) {
      if (event.type === "text_delta") chars += event.text.length;
      if (chars > 50_000) break;
    }
    expect(chars).toBeGreaterThan(50_000);
    await vi.waitFor(() => expect(server?.inFlight()).toBe(0));
  });
});
