import { afterEach, describe, expect, it } from "vitest";
import { startFakeAnthropic, type FakeAnthropic } from "../../test/support/fake-anthropic.js";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import { configSchema, type HermesConfig } from "../config/schema.js";
import { ModelCatalog, parseModelId, parseModelList, supportsReasoningEffort } from "./catalog.js";

const config = (raw: Record<string, unknown> = {}): HermesConfig => configSchema.parse(raw);
let llm: FakeLlm | undefined;
let anthropic: FakeAnthropic | undefined;

afterEach(async () => {
  await llm?.close();
  await anthropic?.close();
  llm = undefined;
  anthropic = undefined;
});

const modelGets = (server: { allRequests?: { path: string }[]; requests: { path: string }[] }): number => (server.allRequests ?? server.requests).filter((request) => request.path.includes("/models")).length;

describe("ModelCatalog", () => {
  it("lists the configured default first, then the endpoint's live models, with no key sent to a local server", async () => {
    llm = await startFakeLlm();
    const cfg = config({ model: { base_url: llm.baseUrl, default: "local-default", context_length: 32_768 } });
    const entries = await new ModelCatalog().list(cfg, {});
    expect(entries).toEqual([
      { provider: "custom", model: "local-default", id: "custom:local-default", contextLength: 32_768 },
      { provider: "custom", model: "fake-model", id: "custom:fake-model" },
    ]);
    expect(llm.allRequests[0]?.path).toBe("/v1/models");
    expect(llm.allRequests[0]?.headers.authorization).toBeUndefined();
  });

  it("covers named providers (declared then live, Anthropic-style lists with their windows) and keyed built-ins", async () => {
    llm = await startFakeLlm();
    anthropic = await startFakeAnthropic([], {
      models: [
        { type: "model", id: "claude-live-1", display_name: "Claude Live", max_input_tokens: 200_000 },
        { type: "model", id: "claude-declared", display_name: "Claude Declared", max_input_tokens: 1_000_000 },
      ],
    });
    const cfg = config({
      model: { provider: "claude", default: "claude-declared" },
      providers: {
        claude: { base_url: anthropic.baseUrl, api_mode: "anthropic_messages", api_key: "sk-ant-entry-key", models: ["claude-declared", "claude-extra"] },
        local: { base_url: llm.baseUrl, models: ["qwen3"] },
      },
    });
    const catalog = new ModelCatalog();
    // Built-ins are fetched too: point Nous at the local fake, never at the real service.
    const entries = await catalog.list(cfg, { NOUS_API_KEY: "nous-key", NOUS_BASE_URL: llm.baseUrl });
    const ids = entries.map((entry) => entry.id);
    expect(ids.slice(0, 5)).toEqual(["custom:claude:claude-declared", "custom:claude:claude-extra", "custom:claude:claude-live-1", "custom:local:qwen3", "custom:local:fake-model"]);
    expect(ids.slice(5)).toEqual(["nous:Hermes-4-70B", "nous:fake-model"]);
    expect(llm.allRequests.filter((request) => request.headers.authorization === "Bearer nous-key")).toHaveLength(1);
    expect(entries[0]).toMatchObject({ contextLength: 1_000_000 });
    expect(catalog.contextLength("Claude", "claude-live-1")).toBe(200_000);
    expect(catalog.contextLength("local", "fake-model")).toBeUndefined();
    expect(entries[2]).toMatchObject({ contextLength: 200_000 });
    const get = anthropic.requests.find((request) => request.path.startsWith("/v1/models"));
    expect(get?.headers["x-api-key"]).toBe("sk-ant-entry-key");
    expect(get?.headers["anthropic-version"]).toBeTruthy();
  });

  it("fetches each endpoint once per process; snapshot() shows declared models, then the cached live ones", async () => {
    llm = await startFakeLlm();
    const cfg = config({ model: { base_url: llm.baseUrl, default: "m" } });
    const catalog = new ModelCatalog();
    expect(catalog.snapshot(cfg, {}).map((entry) => entry.id)).toEqual(["custom:m"]);
    expect(modelGets(llm)).toBe(0);
    await Promise.all([catalog.list(cfg, {}), catalog.list(cfg, {})]);
    await catalog.list(cfg, {});
    expect(modelGets(llm)).toBe(1);
    expect(catalog.snapshot(cfg, {}).map((entry) => entry.id)).toEqual(["custom:m", "custom:fake-model"]);
  });

  it("falls back to the declared models when the endpoint never answers", async () => {
    anthropic = await startFakeAnthropic([], { stallModels: true });
    const cfg = config({ model: { base_url: anthropic.baseUrl, api_mode: "anthropic_messages", default: "claude-x" } });
    const entries = await new ModelCatalog().list(cfg, {});
    expect(entries).toEqual([{ provider: "custom", model: "claude-x", id: "custom:claude-x" }]);
    expect(anthropic.requests.map((request) => request.path)).toEqual(["/v1/models?limit=1000"]);
  });

  it("falls back on an HTTP error and asks again only after retryFailedAfterMs", async () => {
    anthropic = await startFakeAnthropic();
    // An OpenAI-style endpoint on the Anthropic fake: GET /models is a 404 there.
    const cfg = config({ model: { base_url: anthropic.baseUrl, default: "m" } });
    let now = 1_000;
    const catalog = new ModelCatalog({ retryFailedAfterMs: 10_000, now: () => now });
    expect((await catalog.list(cfg, {})).map((entry) => entry.id)).toEqual(["custom:m"]);
    now += 5_000;
    await catalog.list(cfg, {});
    expect(modelGets(anthropic)).toBe(1);
    now += 6_000;
    await catalog.list(cfg, {});
    expect(modelGets(anthropic)).toBe(2);
  });

  it("answers the declared models when nothing but config is known, and nothing when no provider is configured", async () => {
    const catalog = new ModelCatalog({ fetch: () => Promise.reject(new Error("offline")) });
    expect((await catalog.list(config({ model: { provider: "openrouter" } }), { OPENROUTER_API_KEY: "k" })).map((e) => e.id)).toEqual([
      "openrouter:anthropic/claude-sonnet-4",
    ]);
    expect(await catalog.list(config(), {})).toEqual([]);
  });
});

describe("parseModelList", () => {
  it("reads OpenAI, OpenRouter, vLLM, llama.cpp, Ollama and bare lists, and drops non-chat models", () => {
    expect(
      parseModelList({
        data: [
          { id: "gpt-4.1" },
          { id: "openai/gpt-5", context_length: 400_000 },
          { id: "qwen", max_model_len: 32_768 },
          { id: "llama", meta: { n_ctx_train: 8_192 } },
          { id: "text-embedding-3-small" },
          { id: "whisper-1" },
          { id: "tts-1-hd" },
          { id: "dall-e-3" },
          { id: "omni-moderation-latest" },
          { id: "gpt-4o-mini-transcribe" },
        ],
      }),
    ).toEqual([
      { id: "gpt-4.1" },
      { id: "openai/gpt-5", contextLength: 400_000 },
      { id: "qwen", contextLength: 32_768 },
      { id: "llama", contextLength: 8_192 },
    ]);
    expect(parseModelList({ models: [{ name: "qwen3:8b" }, { name: "nomic-embed-text" }] })).toEqual([{ id: "qwen3:8b" }]);
    expect(parseModelList(["a", { id: "b" }, 3, null])).toEqual([{ id: "a" }, { id: "b" }]);
    expect(parseModelList("nonsense")).toEqual([]);
  });
});

describe("parseModelId", () => {
  it("splits at the first colon when the prefix is a known provider", () => {
    const known = ["openrouter", "anthropic", "ollama", "MyLocal"];
    expect(parseModelId("anthropic:claude-sonnet-4-6", known)).toEqual({ provider: "anthropic", model: "claude-sonnet-4-6" });
    expect(parseModelId("ollama:qwen3:8b", known)).toEqual({ provider: "ollama", model: "qwen3:8b" });
    expect(parseModelId("mylocal:m", known)).toEqual({ provider: "MyLocal", model: "m" });
    expect(parseModelId("qwen3:8b", known)).toBeUndefined();
    expect(parseModelId("anthropic:", known)).toBeUndefined();
    expect(parseModelId("gpt-4.1", known)).toBeUndefined();
  });
});

describe("supportsReasoningEffort", () => {
  it.each([
    ["o3", true],
    ["o4-mini", true],
    ["openai/o3-mini", true],
    ["o1-mini", false],
    ["gpt-5", true],
    ["gpt-5.1-codex", true],
    ["gpt-5-chat-latest", false],
    ["gpt-oss-120b", true],
    ["claude-sonnet-4-6", true],
    ["claude-opus-4-20250514", true],
    ["anthropic/claude-3.7-sonnet", true],
    ["claude-haiku-4-5", true],
    ["claude-3-5-sonnet-latest", false],
    ["gemini-2.5-pro", true],
    ["gemini-2.0-flash", false],
    ["grok-3-mini", true],
    ["gpt-4.1", false],
    ["gpt-4o", false],
    ["qwen3:8b", false],
    ["deepseek-chat", false],
  ])("%s → %s", (model, expected) => {
    expect(supportsReasoningEffort(model)).toBe(expected);
  });
});
