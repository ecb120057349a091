/** Reading and resolving `fallback_providers` entries: pure resolution, no network. */
import { describe, expect, it } from "vitest";
import { configSchema } from "../config/schema.js";
import type { Provider, ResolvedProvider } from "../llm/types.js";
import { createFallbackChain, entryLabel, fallbackEntries, resolveFallbackEntry } from "./fallback-chain.js";

const config = (raw: Record<string, unknown>) =>
  configSchema.parse({ model: { provider: "custom", base_url: "http://127.0.0.1:9/v1", default: "main-model" }, ...raw });
const env = { OPENROUTER_API_KEY: "sk-or-test-key-123456" };

describe("fallbackEntries", () => {
  it("lists fallback_providers, then fallback_model, each once", () => {
    const entries = fallbackEntries(
      config({
        fallback_providers: [{ provider: "openrouter", model: "a" }, { provider: "OpenRouter", model: "a" }, { provider: "openrouter", model: "b" }],
        fallback_model: { provider: "openrouter", model: "b" },
      }),
    );
    expect(entries.map(entryLabel)).toEqual(["openrouter:a", "openrouter:b"]);
  });
});

describe("resolveFallbackEntry", () => {
  it("resolves a built-in provider like /model provider:model, with its own key", () => {
    const resolved = resolveFallbackEntry(config({}), env, { provider: "openrouter", model: "anthropic/claude-sonnet-4" });
    expect(resolved).toMatchObject({ provider: "openrouter", model: "anthropic/claude-sonnet-4", apiKey: env.OPENROUTER_API_KEY, apiMode: "chat_completions" });
  });

  it("takes the provider's default model when the entry names none", () => {
    expect(resolveFallbackEntry(config({}), env, { provider: "openrouter" }).model).toBe("anthropic/claude-sonnet-4");
  });

  it("uses an entry's base_url, api_key and api_mode, and never the main model's keys", () => {
    const main = config({ model: { provider: "custom", base_url: "http://127.0.0.1:9/v1", default: "main-model", api_key: "sk-main-0000000", api_keys: ["sk-main-1111111"] } });
    const resolved = resolveFallbackEntry(main, {}, { provider: "backup", model: "fb", base_url: "http://127.0.0.1:10/v1/", api_key: "sk-backup-22222", api_mode: "anthropic_messages" });
    expect(resolved).toMatchObject({ provider: "backup", model: "fb", baseUrl: "http://127.0.0.1:10/v1", apiKey: "sk-backup-22222", apiMode: "anthropic_messages" });
    expect(resolved.apiKeys ?? []).not.toContain("sk-main-1111111");
    expect(resolved.source).not.toContain("sk-backup");
  });

  it("lets an entry's api_key replace the provider's own key (and its pool)", () => {
    const resolved = resolveFallbackEntry(config({}), env, { provider: "openrouter", model: "m", api_key: "sk-entry-333333" });
    expect(resolved.apiKey).toBe("sk-entry-333333");
    expect(resolved.apiKeys).toBeUndefined();
  });

  it("throws auth_required naming the variable when the provider has no key", () => {
    expect(() => resolveFallbackEntry(config({}), {}, { provider: "openrouter", model: "m" })).toThrow(/OPENROUTER_API_KEY/);
  });
});

describe("createFallbackChain", () => {
  const main: ResolvedProvider = { provider: "custom", apiMode: "chat_completions", baseUrl: "http://127.0.0.1:9/v1", apiKey: "no-key-required", model: "main-model", source: "test" };
  const provider = (id: string): Provider => ({ id, stream: async function* () {} });

  it("resolves nothing until asked, then each entry once per session", async () => {
    const built: string[] = [];
    const chain = createFallbackChain({
      config: config({ fallback_providers: [{ provider: "openrouter", model: "m" }] }),
      env,
      provider: async (resolved) => {
        built.push(resolved.model);
        return provider(resolved.provider);
      },
    });
    const candidates = chain(main);
    expect(candidates.map((candidate) => candidate.label)).toEqual(["openrouter:m"]);
    expect(built).toEqual([]);
    const model = await candidates[0]?.resolve();
    expect(model).toMatchObject({ model: "m", providerLabel: "openrouter", label: "openrouter:m", keyHint: "OPENROUTER_API_KEY" });
    await chain(main)[0]?.resolve();
    expect(built).toEqual(["m"]);
  });

  it("rejects an entry that is the session's own model, and one that cannot be resolved", async () => {
    const chain = createFallbackChain({
      config: config({ fallback_providers: [{ provider: "custom", model: "main-model" }, { provider: "nous", model: "x" }] }),
      env: {},
      provider: async (resolved) => provider(resolved.provider),
    });
    const [same, unusable] = chain(main);
    await expect(same?.resolve()).rejects.toThrow(/the session's own model/);
    await expect(unusable?.resolve()).rejects.toThrow(/NOUS_API_KEY/);
  });
});
