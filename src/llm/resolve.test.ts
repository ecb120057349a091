import { describe, expect, it } from "vitest";
import { configSchema, type HermesConfig } from "../config/schema.js";
import { HermesError } from "../shared/errors.js";
import { configuredEndpoints, detectProvider, NO_KEY, resolveProvider, vendorKeyName } from "./resolve.js";

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
    expect(resolveProvider(config({ model: { base_url: "http://127.0.0.1:9/v1", api_mode: "codex_responses", default: "m" } }), env, HOME).apiMode).toBe("chat_completions");
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
