import { describe, expect, it } from "vitest";
import { configSchema, type HermesConfig } from "../config/schema.js";
import { HermesError } from "../shared/errors.js";
import { configuredEndpoints, detectProvider, NO_KEY, resolveProvider, resolveProviderOrDiscovery, vendorKeyName } from "./resolve.js";

const config = (raw: Record<string, unknown> = {}): HermesConfig => configSchema.parse(raw);
const HOME = "/tmp/hermes-home-for-messages";

function failure(cfg: HermesConfig, env: NodeJS.ProcessEnv): HermesError {
  try {
    resolveProvider(cfg, env, HOME);
  } catch (error) {
    expect(error).toBeInstanceOf(HermesError);
    return error as HermesError;
  }
  throw new Error("expected resolveProvider to throw");
}

describe("resolveProvider: named providers (a)", () => {
  const providers = {
    local: { base_url: "http://127.0.0.1:8080/v1/", models: ["qwen3", "llama"] },
    team: { base_url: "https://llm.example.com/v1", api_key: "entry-key-123", key_env: "TEAM_KEY" },
    viaenv: { base_url: "https://llm.example.com/v1", key_env: "TEAM_KEY" },
    deep: { base_url: "https://api.deepseek.com/v1" },
  };

  it("uses the entry's base_url, no key for a local server, and its first model", () => {
    const resolved = resolveProvider(config({ model: { provider: "local" }, providers }), {}, HOME);
    expect(resolved).toMatchObject({ provider: "local", baseUrl: "http://127.0.0.1:8080/v1", apiKey: NO_KEY, model: "qwen3", apiMode: "chat_completions" });
    expect(resolved.source).toContain("providers.local");
  });

  it("takes the key from api_key, then env[key_env], then the host's vendor variable", () => {
    const env = { TEAM_KEY: "env-key-456", DEEPSEEK_API_KEY: "ds-key-789" };
    expect(resolveProvider(config({ model: { provider: "team", default: "m" }, providers }), env, HOME).apiKey).toBe("entry-key-123");
    const viaEnv = resolveProvider(config({ model: { provider: "viaenv", default: "m" }, providers }), env, HOME);
    expect(viaEnv.apiKey).toBe("env-key-456");
    expect(viaEnv.source).toContain("key: env TEAM_KEY");
    expect(viaEnv.source).not.toContain("env-key-456");
    expect(resolveProvider(config({ model: { provider: "deep", default: "deepseek-chat" }, providers }), env, HOME).apiKey).toBe("ds-key-789");
  });

  it("wins over a built-in id of the same name and over environment keys", () => {
    const cfg = config({ model: { provider: "openrouter", default: "m" }, providers: { openrouter: { base_url: "http://proxy.internal/v1" } } });
    const resolved = resolveProvider(cfg, { OPENROUTER_API_KEY: "sk-or-real" }, HOME);
    expect(resolved.baseUrl).toBe("http://proxy.internal/v1");
  });

  it("asks for model.default when the entry lists no model", () => {
    const error = failure(config({ model: { provider: "deep" }, providers }), { DEEPSEEK_API_KEY: "x" });
    expect(error.code).toBe("auth_required");
    expect(error.message).toContain("model.default");
    expect(error.message).toContain(`${HOME}/config.yaml`);
  });
});

describe("resolveProvider: explicit built-in providers (b)", () => {
  it("openrouter: OPENROUTER_API_KEY and the default model", () => {
    const resolved = resolveProvider(config({ model: { provider: "openrouter" } }), { OPENROUTER_API_KEY: "sk-or-1", OPENAI_API_KEY: "sk-2" }, HOME);
    expect(resolved).toMatchObject({ provider: "openrouter", baseUrl: "https://openrouter.ai/api/v1", apiKey: "sk-or-1", model: "anthropic/claude-sonnet-4" });
  });

  it("openrouter without a key is auth_required naming the variable and the .env file", () => {
    const error = failure(config({ model: { provider: "openrouter" } }), { OPENAI_API_KEY: "sk-2" });
    expect(error.code).toBe("auth_required");
    expect(error.message).toContain("OPENROUTER_API_KEY");
    expect(error.message).toContain(`${HOME}/.env`);
  });

  it("openai: OPENAI_API_KEY, optional OPENAI_BASE_URL, gpt-4.1 only on api.openai.com", () => {
    const official = resolveProvider(config({ model: { provider: "OpenAI" } }), { OPENAI_API_KEY: "sk-o" }, HOME);
    expect(official).toMatchObject({ provider: "openai", baseUrl: "https://api.openai.com/v1", apiKey: "sk-o", model: "gpt-4.1" });
    const local = resolveProvider(config({ model: { provider: "openai", default: "qwen" } }), { OPENAI_BASE_URL: "http://localhost:8000/v1" }, HOME);
    expect(local).toMatchObject({ baseUrl: "http://localhost:8000/v1", apiKey: NO_KEY, model: "qwen" });
    expect(failure(config({ model: { provider: "openai" } }), {}).message).toContain("OPENAI_API_KEY");
  });

  it("model.api_key is used before environment keys", () => {
    const resolved = resolveProvider(config({ model: { provider: "openrouter", api_key: "sk-or-config" } }), { OPENROUTER_API_KEY: "sk-or-env" }, HOME);
    expect(resolved.apiKey).toBe("sk-or-config");
    expect(resolved.source).toContain("model.api_key");
  });

  it("custom: needs model.base_url and a model", () => {
    const resolved = resolveProvider(config({ model: { provider: "custom", base_url: "http://127.0.0.1:11434/v1", default: "llama3" } }), {}, HOME);
    expect(resolved).toMatchObject({ provider: "custom", baseUrl: "http://127.0.0.1:11434/v1", apiKey: NO_KEY, model: "llama3" });
    expect(failure(config({ model: { provider: "custom" } }), {}).message).toContain("model.base_url");
    expect(failure(config({ model: { provider: "custom", base_url: "http://127.0.0.1:1/v1" } }), {}).message).toContain("model.default");
  });

  it("ollama: localhost default, no key", () => {
    const resolved = resolveProvider(config({ model: { provider: "ollama", default: "qwen3:8b" } }), {}, HOME);
    expect(resolved).toMatchObject({ provider: "ollama", baseUrl: "http://localhost:11434/v1", apiKey: NO_KEY, model: "qwen3:8b" });
  });

  it("an unsupported provider without base_url says what is supported", () => {
    const error = failure(config({ model: { provider: "bedrock" } }), { OPENROUTER_API_KEY: "k" });
    expect(error.code).toBe("auth_required");
    expect(error.message).toContain('"bedrock" is not supported');
    expect(error.message).toContain("providers:");
  });

  it("an unsupported provider with base_url is a custom endpoint under that id", () => {
    const resolved = resolveProvider(config({ model: { provider: "deepseek", base_url: "https://api.deepseek.com/v1", default: "deepseek-chat" } }), { DEEPSEEK_API_KEY: "ds" }, HOME);
    expect(resolved).toMatchObject({ provider: "deepseek", apiKey: "ds" });
  });

  it("HERMES_INFERENCE_PROVIDER applies when model.provider is auto", () => {
    const env = { HERMES_INFERENCE_PROVIDER: "openai", OPENROUTER_API_KEY: "sk-or", OPENAI_API_KEY: "sk-o" };
    const resolved = resolveProvider(config(), env, HOME);
    expect(resolved.provider).toBe("openai");
    expect(resolved.source).toContain("HERMES_INFERENCE_PROVIDER");
    expect(resolveProvider(config({ model: { provider: "openrouter" } }), env, HOME).provider).toBe("openrouter");
  });
});

describe("resolveProvider: auto detection (c–e)", () => {
  it("(c) model.base_url: a local server needs no key", () => {
    const resolved = resolveProvider(config({ model: { base_url: "http://localhost:8080/v1", default: "local-model" } }), { OPENROUTER_API_KEY: "k" }, HOME);
    expect(resolved).toMatchObject({ provider: "custom", baseUrl: "http://localhost:8080/v1", apiKey: NO_KEY, model: "local-model" });
  });

  it("(c) model.base_url: host-specific keys only for their hosts", () => {
    const env = { OPENAI_API_KEY: "sk-openai", OPENROUTER_API_KEY: "sk-or", DEEPSEEK_API_KEY: "sk-ds" };
    const m = { default: "m" };
    expect(resolveProvider(config({ model: { ...m, base_url: "https://api.openai.com/v1" } }), env, HOME)).toMatchObject({ provider: "openai", apiKey: "sk-openai" });
    expect(resolveProvider(config({ model: { ...m, base_url: "https://openrouter.ai/api/v1" } }), env, HOME)).toMatchObject({ provider: "openrouter", apiKey: "sk-or" });
    expect(resolveProvider(config({ model: { ...m, base_url: "https://api.deepseek.com/v1" } }), env, HOME)).toMatchObject({ provider: "custom", apiKey: "sk-ds" });
    expect(resolveProvider(config({ model: { ...m, base_url: "https://llm.example.org/v1" } }), env, HOME).apiKey).toBe(NO_KEY);
    expect(resolveProvider(config({ model: { ...m, base_url: "https://llm.example.org/v1", api_key: "cfg-key" } }), env, HOME).apiKey).toBe("cfg-key");
  });

  it("(c) a custom endpoint without a model asks for model.default", () => {
    const error = failure(config({ model: { base_url: "http://localhost:8080/v1" } }), {});
    expect(error.code).toBe("auth_required");
    expect(error.message).toContain("Set model.default");
  });

  it("(c) a base_url that is not http(s) is config_invalid", () => {
    expect(failure(config({ model: { base_url: "localhost:8080/v1", default: "m" } }), {}).code).toBe("config_invalid");
  });

  it("(d) OPENROUTER_API_KEY comes before OPENAI_API_KEY", () => {
    const resolved = resolveProvider(config(), { OPENROUTER_API_KEY: "sk-or-x", OPENAI_API_KEY: "sk-o" }, HOME);
    expect(resolved).toMatchObject({ provider: "openrouter", baseUrl: "https://openrouter.ai/api/v1", apiKey: "sk-or-x", model: "anthropic/claude-sonnet-4" });
    expect(resolved.source).toBe("auto: env OPENROUTER_API_KEY; model: default for openrouter");
    expect(resolveProvider(config({ model: "openai/gpt-4.1" }), { OPENROUTER_API_KEY: "k" }, HOME).model).toBe("openai/gpt-4.1");
  });

  it("(e) OPENAI_API_KEY with optional OPENAI_BASE_URL", () => {
    expect(resolveProvider(config(), { OPENAI_API_KEY: "sk-o" }, HOME)).toMatchObject({ provider: "openai", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1" });
    const proxied = resolveProvider(config({ model: { default: "m" } }), { OPENAI_API_KEY: "sk-o", OPENAI_BASE_URL: "https://gw.example.com/v1/" }, HOME);
    expect(proxied).toMatchObject({ provider: "openai", baseUrl: "https://gw.example.com/v1", apiKey: "sk-o", model: "m" });
  });

  it("nothing configured is auth_required with the setup hint and the real .env path", () => {
    const error = failure(config(), { OPENROUTER_API_KEY: "  ", HOME: "/x" });
    expect(error.code).toBe("auth_required");
    expect(error.message).toBe(
      `No model provider is configured. Run \`hermes acp --setup\`, or set OPENROUTER_API_KEY (for example in ${HOME}/.env).`,
    );
  });

  it("uses HERMES_HOME for message paths when no home is passed", () => {
    expect(() => resolveProvider(config(), { HERMES_HOME: "/opt/hh" })).toThrow("/opt/hh/.env");
  });
});

describe("detectProvider", () => {
  it("names the provider that would be used, even before a model is chosen", () => {
    expect(detectProvider(config(), { OPENROUTER_API_KEY: "k" })).toBe("openrouter");
    expect(detectProvider(config({ model: { base_url: "http://127.0.0.1:1/v1" } }), {})).toBe("custom");
  });

  it("returns undefined instead of throwing", () => {
    expect(detectProvider(config(), {})).toBeUndefined();
    expect(detectProvider(config({ model: { provider: "openrouter" } }), {})).toBeUndefined();
    expect(detectProvider(config({ model: { base_url: "nonsense" } }), {})).toBeUndefined();
  });
});

describe("vendorKeyName", () => {
  it.each([
    ["api.deepseek.com", "DEEPSEEK_API_KEY"],
    ["api.together.xyz", "TOGETHER_API_KEY"],
    ["llm.example.co.uk", "EXAMPLE_API_KEY"],
    ["my-host.example.com", "EXAMPLE_API_KEY"],
    ["localhost", undefined],
    ["127.0.0.1", undefined],
    ["::1", undefined],
  ])("%s → %s", (host, expected) => {
    expect(vendorKeyName(host)).toBe(expected);
  });
});

describe("resolveProvider: Anthropic, Nous and api_mode", () => {
  it("anthropic: native Messages API, ANTHROPIC_API_KEY then ANTHROPIC_TOKEN, default model", () => {
    const resolved = resolveProvider(config({ model: { provider: "anthropic" } }), { ANTHROPIC_API_KEY: "sk-ant-1", ANTHROPIC_TOKEN: "tok" }, HOME);
    expect(resolved).toMatchObject({ provider: "anthropic", apiMode: "anthropic_messages", baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-1", model: "claude-sonnet-4-6" });
    expect(resolveProvider(config({ model: { provider: "claude", default: "claude-opus-4-5" } }), { ANTHROPIC_TOKEN: "tok-2" }, HOME)).toMatchObject({ provider: "anthropic", apiKey: "tok-2", model: "claude-opus-4-5" });
    const error = failure(config({ model: { provider: "anthropic" } }), { OPENROUTER_API_KEY: "k" });
    expect(error.code).toBe("auth_required");
    expect(error.message).toContain("ANTHROPIC_API_KEY");
  });

  it("nous: Nous Portal's OpenAI-compatible API with NOUS_API_KEY", () => {
    const resolved = resolveProvider(config({ model: { provider: "nous" } }), { NOUS_API_KEY: "nous-1" }, HOME);
    expect(resolved).toMatchObject({ provider: "nous", apiMode: "chat_completions", baseUrl: "https://inference-api.nousresearch.com/v1", apiKey: "nous-1" });
    expect(failure(config({ model: { provider: "nous" } }), {}).message).toContain("NOUS_API_KEY");
  });

  it("auto: OpenRouter, then OpenAI, then Anthropic, then Nous", () => {
    const all = { OPENROUTER_API_KEY: "or", OPENAI_API_KEY: "oa", ANTHROPIC_API_KEY: "an", NOUS_API_KEY: "no" };
    expect(resolveProvider(config(), all, HOME).provider).toBe("openrouter");
    expect(resolveProvider(config(), { ...all, OPENROUTER_API_KEY: "" }, HOME).provider).toBe("openai");
    const anthropic = resolveProvider(config(), { ANTHROPIC_API_KEY: "an", NOUS_API_KEY: "no" }, HOME);
    expect(anthropic).toMatchObject({ provider: "anthropic", apiMode: "anthropic_messages", source: "auto: env ANTHROPIC_API_KEY; model: default for anthropic" });
    expect(resolveProvider(config(), { NOUS_API_KEY: "no" }, HOME).provider).toBe("nous");
  });

  it("detects anthropic_messages from the URL (api.anthropic.com, a path ending in /anthropic), or takes api_mode", () => {
    const env = { ANTHROPIC_API_KEY: "an", MINIMAX_API_KEY: "mm" };
    expect(resolveProvider(config({ model: { base_url: "https://api.anthropic.com", default: "m" } }), env, HOME)).toMatchObject({ provider: "anthropic", apiMode: "anthropic_messages", apiKey: "an" });
    expect(resolveProvider(config({ model: { base_url: "https://api.minimax.io/anthropic", default: "m" } }), env, HOME)).toMatchObject({ apiMode: "anthropic_messages", apiKey: "mm" });
    expect(resolveProvider(config({ model: { base_url: "https://proxy.example.com/anthropic/v1/", default: "m" } }), env, HOME).apiMode).toBe("anthropic_messages");
    expect(resolveProvider(config({ model: { base_url: "http://127.0.0.1:9/v1", api_mode: "anthropic_messages", default: "m" } }), env, HOME).apiMode).toBe("anthropic_messages");
    expect(resolveProvider(config({ model: { base_url: "http://127.0.0.1:9/v1", api_mode: "codex_responses", default: "m" } }), env, HOME).apiMode).toBe("responses");
    const providers = { mm: { base_url: "http://127.0.0.1:9", api_mode: "anthropic_messages", model: "MiniMax-M2" }, plain: { base_url: "https://x.example.com/anthropic" } };
    expect(resolveProvider(config({ model: { provider: "mm" }, providers }), {}, HOME)).toMatchObject({ apiMode: "anthropic_messages", model: "MiniMax-M2" });
    expect(resolveProvider(config({ model: { provider: "plain", default: "m" }, providers }), {}, HOME).apiMode).toBe("anthropic_messages");
  });
});

describe("resolveProvider with a target (model switching)", () => {
  const env = { OPENROUTER_API_KEY: "or", ANTHROPIC_API_KEY: "an" };

  it("keeps the configured endpoint when the target is the configured provider", () => {
    const cfg = config({ model: { base_url: "http://127.0.0.1:8080/v1", api_key: "local-key", default: "a" } });
    const resolved = resolveProvider(cfg, env, HOME, { provider: "custom", model: "b" });
    expect(resolved).toMatchObject({ provider: "custom", baseUrl: "http://127.0.0.1:8080/v1", apiKey: "local-key", model: "b" });
    expect(resolved.source).toContain("model: requested");
  });

  it("resolves another provider as if model.provider named it, without the configured base_url, key or api_mode", () => {
    const cfg = config({ model: { base_url: "http://127.0.0.1:8080/v1", api_key: "local-key", api_mode: "chat_completions", default: "a" } });
    expect(resolveProvider(cfg, env, HOME, { provider: "anthropic", model: "claude-sonnet-4-6" })).toMatchObject({
      provider: "anthropic",
      apiMode: "anthropic_messages",
      baseUrl: "https://api.anthropic.com",
      apiKey: "an",
      model: "claude-sonnet-4-6",
    });
    expect(resolveProvider(cfg, env, HOME, { provider: "openrouter", model: "" }).model).toBe("anthropic/claude-sonnet-4");
    expect(() => resolveProvider(cfg, env, HOME, { provider: "nous", model: "x" })).toThrow("NOUS_API_KEY");
  });

  it("switches to a named provider entry", () => {
    const cfg = config({ model: { provider: "openrouter" }, providers: { local: { base_url: "http://127.0.0.1:1234/v1", models: ["q"] } } });
    expect(resolveProvider(cfg, env, HOME, { provider: "LOCAL", model: "q2" })).toMatchObject({ provider: "local", baseUrl: "http://127.0.0.1:1234/v1", model: "q2" });
  });
});

describe("configuredEndpoints", () => {
  it("lists the configured endpoint first, then providers: entries, then built-ins with a key, each once", () => {
    const cfg = config({
      model: { provider: "local", default: "q-default" },
      providers: { local: { base_url: "http://127.0.0.1:1234/v1", models: ["q1", "q2"] }, openrouter: { base_url: "http://proxy.internal/v1", models: ["x"] } },
    });
    const endpoints = configuredEndpoints(cfg, { OPENROUTER_API_KEY: "or", ANTHROPIC_TOKEN: "tok" });
    expect(endpoints.map((e) => [e.provider, e.apiMode, e.models])).toEqual([
      ["local", "chat_completions", ["q-default", "q1", "q2"]],
      ["openrouter", "chat_completions", ["x"]],
      ["anthropic", "anthropic_messages", ["claude-sonnet-4-6"]],
    ]);
    expect(endpoints[2]?.apiKey).toBe("tok");
  });

  it("is empty when nothing is configured, and leaves out entries it cannot resolve", () => {
    expect(configuredEndpoints(config(), {})).toEqual([]);
    expect(configuredEndpoints(config({ providers: { bad: { base_url: "not a url" } } }), {})).toEqual([]);
  });
});

describe("resolveProvider: Hermes' provider presets", () => {
  it.each([
    ["gemini", { GEMINI_API_KEY: "g-2" }, "https://generativelanguage.googleapis.com/v1beta/openai", "g-2", "chat_completions"],
    ["google", { GOOGLE_API_KEY: "g-1", GEMINI_API_KEY: "g-2" }, "https://generativelanguage.googleapis.com/v1beta/openai", "g-1", "chat_completions"],
    ["deepseek", { DEEPSEEK_API_KEY: "ds" }, "https://api.deepseek.com/v1", "ds", "chat_completions"],
    ["grok", { XAI_API_KEY: "xk" }, "https://api.x.ai/v1", "xk", "responses"],
    ["moonshot", { KIMI_API_KEY: "sk-legacy" }, "https://api.moonshot.ai/v1", "sk-legacy", "chat_completions"],
    ["kimi-coding-cn", { KIMI_CN_API_KEY: "kc" }, "https://api.moonshot.cn/v1", "kc", "chat_completions"],
    ["glm", { ZAI_API_KEY: "z2", Z_AI_API_KEY: "z3" }, "https://api.z.ai/api/paas/v4", "z2", "chat_completions"],
    ["minimax", { MINIMAX_API_KEY: "mm" }, "https://api.minimax.io/anthropic", "mm", "anthropic_messages"],
    ["minimax-cn", { MINIMAX_CN_API_KEY: "mc" }, "https://api.minimaxi.com/anthropic", "mc", "anthropic_messages"],
    ["dashscope", { DASHSCOPE_API_KEY: "qw" }, "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", "qw", "chat_completions"],
    ["mistral", { MISTRAL_API_KEY: "mk-123" }, "https://api.mistral.ai/v1", "mk-123", "chat_completions"],
    ["groq", { GROQ_API_KEY: "gq" }, "https://api.groq.com/openai/v1", "gq", "chat_completions"],
    ["together", { TOGETHER_API_KEY: "tg" }, "https://api.together.xyz/v1", "tg", "chat_completions"],
    ["fireworks", { FIREWORKS_API_KEY: "fw" }, "https://api.fireworks.ai/inference/v1", "fw", "chat_completions"],
    ["hf", { HF_TOKEN: "hf_x" }, "https://router.huggingface.co/v1", "hf_x", "chat_completions"],
  ])("model.provider: %s → its endpoint, key variable and wire API", (provider, env, baseUrl, apiKey, apiMode) => {
    const resolved = resolveProvider(config({ model: { provider } }), env, HOME);
    expect(resolved).toMatchObject({ baseUrl, apiKey, apiMode });
    expect(resolved.model).not.toBe("");
    expect(resolved.source).not.toContain(apiKey);
  });

  it("names the preset id (not the alias), its variables in Hermes' order when the key is missing, and the default model", () => {
    expect(resolveProvider(config({ model: { provider: "Google-AI-Studio" } }), { GEMINI_API_KEY: "g" }, HOME)).toMatchObject({ provider: "gemini", model: "gemini-3.1-pro-preview" });
    const error = failure(config({ model: { provider: "zai" } }), {});
    expect(error.code).toBe("auth_required");
    expect(error.message).toContain("GLM_API_KEY (or ZAI_API_KEY, Z_AI_API_KEY)");
    expect(error.message).toContain(`${HOME}/.env`);
  });

  it("takes the base-URL override variable, model.base_url, model.api_key(s) and model.default for the configured preset", () => {
    const viaEnv = resolveProvider(config({ model: { provider: "deepseek" } }), { DEEPSEEK_API_KEY: "ds", DEEPSEEK_BASE_URL: "http://127.0.0.1:9/v1/" }, HOME);
    expect(viaEnv).toMatchObject({ baseUrl: "http://127.0.0.1:9/v1" });
    expect(viaEnv.source).toContain("base_url: env DEEPSEEK_BASE_URL");
    const configured = resolveProvider(config({ model: { provider: "mistral", base_url: "https://eu.example.com/v1", api_key: "cfg", default: "codestral-latest" } }), { MISTRAL_API_KEY: "env" }, HOME);
    expect(configured).toMatchObject({ baseUrl: "https://eu.example.com/v1", apiKey: "cfg", model: "codestral-latest" });
    expect(failure(config({ model: { provider: "xai" } }), { XAI_API_KEY: "x", XAI_BASE_URL: "ftp://nope" }).code).toBe("config_invalid");
  });

  it("sends sk-kimi- keys to Kimi Code's Anthropic-style endpoint, other Moonshot keys to api.moonshot.ai", () => {
    const code = resolveProvider(config({ model: { provider: "kimi-coding" } }), { KIMI_API_KEY: "sk-kimi-abc" }, HOME);
    expect(code).toMatchObject({ baseUrl: "https://api.kimi.com/coding/v1", apiMode: "anthropic_messages" });
  });

  it("auto-detects a preset from its key after the original four, in registry order", () => {
    expect(resolveProvider(config(), { DEEPSEEK_API_KEY: "ds", GROQ_API_KEY: "gq" }, HOME)).toMatchObject({ provider: "deepseek", source: expect.stringContaining("auto: env DEEPSEEK_API_KEY") });
    expect(resolveProvider(config(), { DEEPSEEK_API_KEY: "ds", NOUS_API_KEY: "n" }, HOME).provider).toBe("nous");
  });

  it("lists presets whose key is set in configuredEndpoints, with the default model, once each", () => {
    const endpoints = configuredEndpoints(config({ model: { provider: "openrouter" } }), { OPENROUTER_API_KEY: "or", XAI_API_KEY: "xk", MINIMAX_API_KEY: "mm" });
    expect(endpoints.map((e) => [e.provider, e.apiMode, e.models])).toEqual([
      ["openrouter", "chat_completions", ["anthropic/claude-sonnet-4"]],
      ["minimax", "anthropic_messages", ["MiniMax-M3"]],
      ["xai", "responses", ["grok-4.6"]],
    ]);
    expect(endpoints[1]?.listsModels).toBe(false);
  });

  it("switches to a preset with a target, ignoring the configured endpoint's settings", () => {
    const cfg = config({ model: { base_url: "http://127.0.0.1:8080/v1", api_key: "local", default: "a" } });
    expect(resolveProvider(cfg, { GROQ_API_KEY: "gq" }, HOME, { provider: "groqcloud", model: "llama-3.3-70b-versatile" })).toMatchObject({
      provider: "groq",
      baseUrl: "https://api.groq.com/openai/v1",
      apiKey: "gq",
      model: "llama-3.3-70b-versatile",
    });
  });
});

describe("resolveProvider: custom_providers and enabled: false", () => {
  const custom = [
    { name: "Home Lab", base_url: "http://127.0.0.1:8000/v1", model: "qwen3" },
    { name: "team", base_url: "http://127.0.0.1:8001/v1", model: "from-list" },
    { name: "off", base_url: "http://127.0.0.1:8002/v1", model: "m", enabled: false },
  ];

  it("reads entries by name, slug or custom:<slug>; a providers: entry of the same name wins", () => {
    const providers = { team: { base_url: "http://127.0.0.1:9001/v1", model: "from-map" } };
    for (const provider of ["Home Lab", "home-lab", "custom:home-lab", "CUSTOM:Home Lab"]) {
      expect(resolveProvider(config({ model: { provider }, custom_providers: custom }), {}, HOME)).toMatchObject({ provider: "Home Lab", baseUrl: "http://127.0.0.1:8000/v1", model: "qwen3" });
    }
    const resolved = resolveProvider(config({ model: { provider: "team" }, providers, custom_providers: custom }), {}, HOME);
    expect(resolved).toMatchObject({ baseUrl: "http://127.0.0.1:9001/v1", model: "from-map" });
    expect(resolved.source).toContain("providers.team");
  });

  it("leaves enabled: false entries out of resolution and the endpoint list", () => {
    const providers = { gone: { base_url: "http://127.0.0.1:9002/v1", model: "x", enabled: "no" } };
    expect(failure(config({ model: { provider: "off" }, custom_providers: custom }), {}).message).toContain('"off" is not supported');
    expect(failure(config({ model: { provider: "custom:gone" }, providers }), {}).message).toContain("names no enabled entry");
    const names = configuredEndpoints(config({ model: { provider: "team" }, providers, custom_providers: custom }), {}).map((e) => e.provider);
    expect(names).toEqual(["team", "Home Lab"]);
  });
});

describe("resolveProvider: credential pools", () => {
  it("model.api_key + model.api_keys for the configured provider, api_key first; sources name no key", () => {
    const resolved = resolveProvider(config({ model: { provider: "openrouter", api_key: "sk-or-a", api_keys: ["sk-or-b", "sk-or-a", "sk-or-c"] } }), { OPENROUTER_API_KEY: "env" }, HOME);
    expect(resolved.apiKey).toBe("sk-or-a");
    expect(resolved.apiKeys).toEqual(["sk-or-a", "sk-or-b", "sk-or-c"]);
    expect(resolved.source).toContain("model.api_key (+2 in the pool)");
    for (const key of resolved.apiKeys ?? []) expect(resolved.source).not.toContain(key);
  });

  it("an entry's api_key + api_keys, else every set variable of key_env [A, B]", () => {
    const providers = {
      inline: { base_url: "https://llm.example.com/v1", api_key: "k1", api_keys: ["k2"], model: "m" },
      envs: { base_url: "https://llm.example.com/v1", key_env: ["POOL_A", "POOL_MISSING", "POOL_B"], model: "m" },
    };
    const env = { POOL_A: "a-key", POOL_B: "b-key" };
    expect(resolveProvider(config({ model: { provider: "inline" }, providers }), env, HOME)).toMatchObject({ apiKey: "k1", apiKeys: ["k1", "k2"] });
    const pooled = resolveProvider(config({ model: { provider: "envs" }, providers }), env, HOME);
    expect(pooled).toMatchObject({ apiKey: "a-key", apiKeys: ["a-key", "b-key"] });
    expect(pooled.source).toContain("key: env POOL_A, POOL_B");
    expect(pooled.source).not.toContain("a-key");
  });

  it("registers every pool key for redaction", async () => {
    const { redactSecrets } = await import("../config/redact.js");
    resolveProvider(config({ model: { provider: "groq", api_keys: ["gsk-pool-one-1234", "gsk-pool-two-5678"] } }), {}, HOME);
    expect(redactSecrets("gsk-pool-one-1234 gsk-pool-two-5678")).not.toMatch(/gsk-pool-(one|two)/);
  });

  it("keeps a single key without apiKeys", () => {
    expect(resolveProvider(config({ model: { provider: "openrouter" } }), { OPENROUTER_API_KEY: "one" }, HOME).apiKeys).toBeUndefined();
  });
});

describe("resolveProvider: Responses API detection", () => {
  const env = { OPENAI_API_KEY: "sk-o", XAI_API_KEY: "xk" };
  it.each([
    ["gpt-5", "responses"],
    ["gpt-5.3-codex", "responses"],
    ["codex-mini-latest", "responses"],
    ["o3", "responses"],
    ["o4-mini", "responses"],
    ["o1", "responses"],
    ["o1-mini", "chat_completions"],
    ["gpt-4.1", "chat_completions"],
    ["gpt-4o", "chat_completions"],
  ])("on api.openai.com, %s → %s", (model, apiMode) => {
    expect(resolveProvider(config({ model: { provider: "openai", default: model } }), env, HOME).apiMode).toBe(apiMode);
  });

  it("also on a model.base_url of OpenAI's own hosts and when switching models; never elsewhere", () => {
    expect(resolveProvider(config({ model: { base_url: "https://us.api.openai.com/v1", default: "gpt-5-mini" } }), env, HOME).apiMode).toBe("responses");
    const cfg = config({ model: { provider: "openai", default: "gpt-4.1" } });
    expect(resolveProvider(cfg, env, HOME, { provider: "openai", model: "gpt-5" }).apiMode).toBe("responses");
    expect(resolveProvider(config({ model: { base_url: "http://127.0.0.1:9/v1", default: "gpt-5" } }), env, HOME).apiMode).toBe("chat_completions");
    expect(resolveProvider(config({ model: { provider: "openrouter", default: "openai/gpt-5" } }), { OPENROUTER_API_KEY: "or" }, HOME).apiMode).toBe("chat_completions");
  });

  it("xAI is Responses for every model (preset and a base_url on api.x.ai)", () => {
    expect(resolveProvider(config({ model: { provider: "xai", default: "grok-3" } }), env, HOME).apiMode).toBe("responses");
    expect(resolveProvider(config({ model: { base_url: "https://api.x.ai/v1", default: "grok-3" } }), env, HOME)).toMatchObject({ apiMode: "responses", apiKey: "xk" });
  });

  it("api_mode says otherwise", () => {
    expect(resolveProvider(config({ model: { provider: "openai", default: "gpt-5", api_mode: "chat_completions" } }), env, HOME).apiMode).toBe("chat_completions");
    expect(resolveProvider(config({ model: { provider: "xai", api_mode: "chat_completions" } }), env, HOME).apiMode).toBe("chat_completions");
    const providers = { proxy: { base_url: "https://gw.example.com/v1", api_mode: "codex_responses", model: "anything" } };
    expect(resolveProvider(config({ model: { provider: "proxy" }, providers }), {}, HOME).apiMode).toBe("responses");
  });
});

describe("resolveProviderOrDiscovery", () => {
  it("asks for discovery when an endpoint has no model, and resolves the chosen one", () => {
    const resolution = resolveProviderOrDiscovery(config({ model: { base_url: "http://127.0.0.1:8080/v1", api_key: "lk" } }), {}, HOME);
    expect(resolution.resolved).toBeUndefined();
    expect(resolution.discovery?.endpoint).toMatchObject({ provider: "custom", baseUrl: "http://127.0.0.1:8080/v1", apiKey: "lk" });
    expect(resolution.discovery?.resolve("qwen3")).toMatchObject({ provider: "custom", model: "qwen3", apiKey: "lk" });
    expect(resolution.discovery?.resolve("qwen3").source).toContain("model: qwen3 from http://127.0.0.1:8080/v1/models");
  });

  it("resolves directly when a model is known, and throws for endpoints that list no models", () => {
    expect(resolveProviderOrDiscovery(config({ model: { provider: "ollama", default: "q" } }), {}, HOME).resolved?.model).toBe("q");
    expect(resolveProviderOrDiscovery(config({ model: { provider: "lmstudio" } }), {}, HOME).discovery?.endpoint.baseUrl).toBe("http://127.0.0.1:1234/v1");
  });
});
