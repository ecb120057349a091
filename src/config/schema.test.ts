import { describe, expect, it } from "vitest";
import { configSchema, defaultConfig } from "./schema.js";

describe("configSchema", () => {
  it("supplies every default", () => {
    expect(defaultConfig()).toEqual({
      model: { provider: "auto" },
      agent: { max_turns: 90, api_max_retries: 3, disabled_toolsets: [], reasoning_overrides: {} },
      approvals: { mode: "manual", timeout: 300 },
      terminal: { timeout: 180, max_timeout: 600, output_cap: 50_000 },
      sandbox: { mode: "workspace-write", network: true, required: false, writable_roots: [], deny_read: [] },
      read_file: { default_lines: 500, max_lines: 2_000, max_chars: 100_000, max_line_length: 2_000 },
      search_files: { limit: 50 },
      prompt: { max_attachment_bytes: 524_288 },
      display: { tool_result_min: 5_000, tool_result_max: 7_000 },
      sessions: { page_size: 50 },
      compression: { enabled: true, threshold: 0.5, protect_first_n: 3, protect_last_n: 20 },
      providers: {},
      custom_providers: [],
      fallback_providers: [],
      pricing: {},
      mcp_servers: {},
      platform_toolsets: {},
      memory: { memory_enabled: true, user_profile_enabled: true, memory_char_limit: 2200, user_char_limit: 1375, nudge_interval: 10 },
      skills: { external_dirs: [], disabled: [], platform_disabled: {}, trusted_project_dirs: [], project_discovery: true, creation_nudge_interval: 15 },
      auxiliary: { background_review: { enabled: true } },
      web: { allow_private_urls: false, blocked_domains: [] },
      browser: { allow_localhost: true, allow_private_urls: false, headless: true, command_timeout: 30, inactivity_timeout: 120 },
      delegation: { max_concurrent_children: 3, max_spawn_depth: 1, max_iterations: 50, max_async_children: 3, subagent_auto_approve: false, orchestrator_enabled: true, acp_agents: {} },
      checkpoints: { enabled: false, max_snapshots: 20, max_total_size_mb: 500, max_file_size_mb: 10 },
      command_allowlist: [],
    });
  });

  it("returns a fresh object each time", () => {
    const a = defaultConfig();
    a.agent.max_turns = 1;
    expect(defaultConfig().agent.max_turns).toBe(90);
  });

  it("fills defaults around partial sections and keeps unknown keys", () => {
    const config = configSchema.parse({
      agent: { max_turns: 10, custom_flag: true },
      terminal: null,
      toolsets: ["hermes-acp"],
      memory: { memory_enabled: true },
    });
    expect(config.agent).toEqual({ max_turns: 10, api_max_retries: 3, disabled_toolsets: [], reasoning_overrides: {}, custom_flag: true });
    expect(config.terminal.timeout).toBe(180);
    expect(config.toolsets).toEqual(["hermes-acp"]);
    expect(config.memory).toEqual({ memory_enabled: true, user_profile_enabled: true, memory_char_limit: 2200, user_char_limit: 1375, nudge_interval: 10 });
  });

  it("reads skills: with Hermes' spellings (a single string, a JSON-array string, unknown keys kept)", () => {
    const skills = configSchema.parse({ skills: { external_dirs: "~/team-skills", disabled: '["a", "b"]', platform_disabled: { acp: ["c"] }, config: { x: 1 } } }).skills;
    expect(skills).toMatchObject({ external_dirs: ["~/team-skills"], disabled: ["a", "b"], platform_disabled: { acp: ["c"] }, project_discovery: true, config: { x: 1 } });
  });

  it("accepts model as a string and model.model as an alias of model.default", () => {
    expect(configSchema.parse({ model: "openai/gpt-4.1" }).model).toEqual({ default: "openai/gpt-4.1", provider: "auto" });
    expect(configSchema.parse({ model: { model: "m1", provider: "openrouter" } }).model.default).toBe("m1");
    expect(configSchema.parse({ model: { model: "m1", default: "m2" } }).model.default).toBe("m2");
  });

  it("reads model.connect_timeout (seconds, fractions allowed) and model.max_response_chars, rejecting nonsense", () => {
    const model = configSchema.parse({ model: { connect_timeout: 0.2, max_response_chars: 5_000 } }).model;
    expect(model).toMatchObject({ connect_timeout: 0.2, max_response_chars: 5_000 });
    expect(configSchema.safeParse({ model: { connect_timeout: 0 } }).success).toBe(false);
    expect(configSchema.safeParse({ model: { max_response_chars: 1.5 } }).success).toBe(false);
    expect(configSchema.safeParse({ model: { max_response_chars: 0 } }).success).toBe(false);
  });

  it("reads YAML 1.1 `mode: off` (false) as off", () => {
    expect(configSchema.parse({ approvals: { mode: false } }).approvals.mode).toBe("off");
  });

  it("validates providers entries", () => {
    const config = configSchema.parse({ providers: { local: { base_url: "http://x/v1", key_env: "K", api_mode: "chat" } } });
    expect(config.providers.local).toEqual({ base_url: "http://x/v1", key_env: "K", api_mode: "chat" });
    expect(configSchema.safeParse({ providers: { local: { api_key: "k" } } }).success).toBe(false);
  });
});
