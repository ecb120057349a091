import { z } from "zod";
import { orAbsent, stringList, blankAbsent, optionalText, keyList, keyEnvNames, lenientList, lenientTable, capabilityFlag, count, seconds } from "./schema-readers.js";

/**
 * The schema of `config.yaml`. Every key has a default (DESIGN §6), so parsing `{}` yields a
 * complete config. Unknown keys, top-level and inside sections, are accepted and kept: Hermes
 * configs carry many settings this agent does not use. A section written with no body
 * (`agent:` → null) counts as absent.
 */


/** `model:` may be a bare model name (Hermes' older form) or a map; `model.model` is an alias of `model.default`. */
const modelSection = z.preprocess(
  (value) => (value === null ? undefined : typeof value === "string" ? { default: value } : value),
  z
    .looseObject({
      default: optionalText,
      model: optionalText,
      provider: z.preprocess(blankAbsent, z.string().min(1).default("auto")),
      base_url: optionalText,
      api_key: optionalText,
      /** More keys for the configured provider: a credential pool rotated on 429 / 401 / quota errors (`api_key` first). */
      api_keys: keyList,
      /**
       * `chat_completions`, `responses` (Hermes' `codex_responses`) or `anthropic_messages`; other
       * Hermes modes fall back to detection from the URL and model.
       */
      api_mode: optionalText,
      context_length: z.number().int().positive().optional(),
      max_tokens: z.number().int().positive().optional(),
      /**
       * Seconds to wait for a model's response headers before the call counts as timed out (and is retried).
       * Absent = 120 (the providers' DEFAULT_CONNECT_TIMEOUT_MS), kept absent so a rewritten file stays as written.
       */
      connect_timeout: z.number().positive().optional(),
      /**
       * Characters of text, reasoning and tool arguments one model response may have before it is stopped
       * (the turn ends with `max_tokens`). Absent = 1,000,000 (the loop's DEFAULT_MAX_RESPONSE_CHARS).
       */
      max_response_chars: z.number().int().positive().optional(),
      /**
       * Whether the model takes images (Hermes' override of its capability lookup): true offers
       * `vision_analyze` on it, false sends images only to `auxiliary.vision`. Absent = judged from
       * the model's name. YAML spellings (`yes`, `"false"`, 0/1) count; anything else is ignored.
       */
      supports_vision: z.preprocess(capabilityFlag, z.boolean().optional()),
    })
    .prefault({})
    .transform(({ model, ...rest }) => ({ ...rest, default: rest.default ?? model })),
);

/**
 * A named endpoint, selected with `model.provider: <name>` or a `<name>:<model>` model id. OpenAI-compatible
 * unless `api_mode: anthropic_messages` (or a URL path ending in `/anthropic`).
 */
const providerEntry = z.looseObject({
  base_url: z.string().min(1),
  api_key: optionalText,
  /** More keys: the entry's credential pool (`api_key` first), rotated on 429 / 401 / quota errors. */
  api_keys: keyList,
  /** The variable holding the key, or several (a credential pool, in order). */
  key_env: keyEnvNames,
  /** `false` leaves the entry out everywhere (Hermes' `enabled`). */
  enabled: z.preprocess(capabilityFlag, z.boolean().optional()),
  /** Default model of the entry (else its first `models` entry). */
  model: z.string().optional(),
  models: z.array(z.string()).optional(),
  api_mode: optionalText,
});

/** One `custom_providers:` entry (Hermes' legacy list form of `providers:`): the same keys plus its `name`. */
const customProviderEntry = providerEntry.extend({ name: z.string().trim().min(1) });

/** `providers:` — named endpoints by name. */
const providersField = orAbsent(z.record(z.string(), providerEntry).default({}));
/**
 * Hermes' legacy list of named endpoints; read like `providers:` (a `providers:` entry of the same
 * name wins); an entry that cannot be read is skipped with a warning.
 */
const customProvidersField = lenientList("custom_providers", customProviderEntry);

/**
 * The keys that decide which provider is configured (`model`, `providers`, `custom_providers`),
 * read exactly as in `configSchema`: what `initialize` needs, without building the other sections.
 */
export const providerConfigSchema = z.looseObject({ model: modelSection, providers: providersField, custom_providers: customProvidersField });
export type ProviderConfig = z.output<typeof providerConfigSchema>;

/**
 * The whole schema, built on its first parse (constructing every section is most of the cost of
 * reading config.yaml, which the provider-only read before `initialize` answers does not pay).
 */
export const configSchema = z.lazy(buildConfigSchema);

function buildConfigSchema() {
  const agentSection = z
    .looseObject({
      max_turns: count(90),
      api_max_retries: z.number().int().min(0).default(3),
      reasoning_effort: z.string().optional(),
      /**
       * Reasoning effort per model, over `reasoning_effort`: keys are model ids (matched without case,
       * with or without the `vendor/` prefix; a trailing `*` matches a prefix), values effort levels.
       */
      reasoning_overrides: lenientTable("agent.reasoning_overrides", z.string()),
      /** Toolsets taken away from whatever is enabled (Hermes' `agent.disabled_toolsets`), e.g. `[terminal]`, `[mcp-github]`. */
      disabled_toolsets: z.array(z.string()).default([]),
    })
    .prefault({});

  /** YAML 1.1 readers (Python Hermes) read `mode: off` as `false`; accept that spelling too. */
  const approvalMode = z.preprocess(
    (value) => (value === false ? "off" : value),
    z.enum(["manual", "smart", "off"]).default("manual"),
  );

  const approvalsSection = z.looseObject({ mode: approvalMode, timeout: seconds(300) }).prefault({});

  const terminalSection = z
    .looseObject({ timeout: seconds(180), max_timeout: seconds(600), output_cap: count(50_000) })
    .prefault({});

  /**
   * `sandbox:` — how commands are confined (see `src/tools/exec/sandbox/policy.ts`). `mode` is the
   * policy outside plan mode (plan mode is always read-only); `network: false` cuts the network;
   * `required: true` refuses commands where no sandbox exists; the lists add writable folders,
   * replace the tool-cache list, and add hidden paths.
   */
  const sandboxSection = z
    .looseObject({
      mode: z.preprocess((value) => (value === false ? "off" : value), z.enum(["workspace-write", "read-only", "off"]).default("workspace-write")),
      network: z.boolean().default(true),
      required: z.boolean().default(false),
      writable_roots: z.array(z.string().min(1)).default([]),
      tool_caches: z.array(z.string().min(1)).optional(),
      deny_read: z.array(z.string().min(1)).default([]),
    })
    .prefault({});

  const readFileSection = z
    .looseObject({
      default_lines: count(500),
      max_lines: count(2_000),
      max_chars: count(100_000),
      max_line_length: count(2_000),
    })
    .prefault({});

  const compressionSection = z
    .looseObject({
      enabled: z.boolean().default(true),
      threshold: z.number().gt(0).max(1).default(0.5),
      protect_first_n: z.number().int().min(0).default(3),
      protect_last_n: z.number().int().min(0).default(20),
    })
    .prefault({});

  /** One `auxiliary.<task>` entry: which model does the side task (Hermes' keys); `enabled: false` turns the task off where it can be. */
  const auxiliaryTask = z.looseObject({
    provider: z.preprocess(blankAbsent, z.string().min(1).default("auto")),
    model: optionalText,
    base_url: optionalText,
    api_key: optionalText,
    api_mode: optionalText,
    enabled: z.preprocess(capabilityFlag, z.boolean().optional()),
  });

  /** One `fallback_providers:` entry: the model tried when the session's model keeps failing (Hermes' keys). */
  const fallbackEntry = z.looseObject({
    provider: z.string().trim().min(1),
    model: z.preprocess(blankAbsent, z.string().trim().min(1).optional()),
    base_url: optionalText,
    api_key: optionalText,
    api_mode: optionalText,
  });

  /** USD per million tokens for one model (`pricing.<model>`). */
  const modelPrice = z.looseObject({
    input: z.number().min(0).default(0),
    output: z.number().min(0).default(0),
    /** Cached prompt tokens; absent = `input`. */
    cache_read: z.number().min(0).optional(),
    /** Prompt tokens written to the cache; absent = `input`. */
    cache_write: z.number().min(0).optional(),
  });

  return z.looseObject({
    model: modelSection,
    agent: orAbsent(agentSection),
    approvals: orAbsent(approvalsSection),
    terminal: orAbsent(terminalSection),
    sandbox: orAbsent(sandboxSection),
    read_file: orAbsent(readFileSection),
    search_files: orAbsent(z.looseObject({ limit: count(50) }).prefault({})),
    prompt: orAbsent(z.looseObject({ max_attachment_bytes: count(524_288) }).prefault({})),
    display: orAbsent(z.looseObject({ tool_result_min: count(5_000), tool_result_max: count(7_000) }).prefault({})),
    sessions: orAbsent(z.looseObject({ page_size: count(50) }).prefault({})),
    compression: orAbsent(compressionSection),
    /** The `memory` tool and the memory snapshot in the system prompt (Hermes' keys and defaults). */
    memory: orAbsent(
      z
        .looseObject({
          memory_enabled: z.boolean().default(true),
          user_profile_enabled: z.boolean().default(true),
          memory_char_limit: count(2200),
          user_char_limit: count(1375),
          /** User turns between background memory reviews (Hermes' `memory.nudge_interval`); 0 = never. */
          nudge_interval: z.number().int().min(0).default(10),
        })
        .prefault({}),
    ),
    /**
     * Side tasks that may use another model (Hermes' `auxiliary`). `background_review.enabled`
     * switches the review after turns that saves memories and skills (on, as in Hermes).
     * `vision` / `web_extract` name the model for image questions and page summaries (absent or
     * `provider: auto` without a model: the session's model).
     */
    auxiliary: orAbsent(
      z
        .looseObject({
          background_review: orAbsent(z.looseObject({ enabled: z.boolean().default(true) }).prefault({})),
          vision: orAbsent(auxiliaryTask.optional()),
          web_extract: orAbsent(auxiliaryTask.optional()),
          /** Context-compression summaries. */
          compression: orAbsent(auxiliaryTask.optional()),
          /** Generated session titles (`enabled: false`: titles stay derived from the first prompt). */
          title: orAbsent(auxiliaryTask.optional()),
          /** Hermes' name for `title` (read when `title` is absent); `model_upgrade_enabled: false` also keeps derived titles. */
          title_generation: orAbsent(auxiliaryTask.extend({ model_upgrade_enabled: z.preprocess(capabilityFlag, z.boolean().optional()) }).optional()),
          /** The smart-approval guardian (`approvals.mode: smart`). */
          approval: orAbsent(auxiliaryTask.optional()),
        })
        .prefault({}),
    ),
    /**
     * The skills toolset and the `## Skills` index (Hermes' `skills:` keys and defaults): extra
     * read-only skill folders, skills turned off (everywhere, or for this agent under
     * `platform_disabled.acp`), and the project roots whose `.hermes/skills` / `.agents/skills`
     * load (`trusted_project_dirs`; `project_discovery: false` turns project skills off).
     */
    skills: orAbsent(
      z
        .looseObject({
          external_dirs: stringList,
          disabled: stringList,
          platform_disabled: orAbsent(z.record(z.string(), stringList).default({})),
          trusted_project_dirs: stringList,
          project_discovery: z.boolean().default(true),
          /** Tool-calling steps between background skill reviews (Hermes' shipped default 15); 0 = never. */
          creation_nudge_interval: z.number().int().min(0).default(15),
        })
        .prefault({}),
    ),
    /**
     * The web toolset (`web_search`, `web_extract`; see `src/tools/web/`). `backend` picks the
     * search/extract service (`firecrawl`, `parallel`, `tavily`, `exa`, `searxng`; absent = the first
     * whose key or URL is set, in Hermes' order). `*_api_url` replace a service's base URL (self-hosted
     * Firecrawl, proxies); `searxng_url` is the self-hosted SearXNG instance. `allow_private_urls`
     * lets pages on private/loopback addresses be fetched (cloud-metadata addresses never are);
     * `blocked_domains` are refused with their subdomains.
     */
    web: orAbsent(
      z
        .looseObject({
          backend: z.string().trim().toLowerCase().optional(),
          searxng_url: z.string().min(1).optional(),
          firecrawl_api_url: z.string().min(1).optional(),
          parallel_api_url: z.string().min(1).optional(),
          tavily_api_url: z.string().min(1).optional(),
          exa_api_url: z.string().min(1).optional(),
          allow_private_urls: z.boolean().default(false),
          blocked_domains: stringList,
        })
        .prefault({}),
    ),
    /**
     * The browser toolset (`src/tools/browser/`): the system's Chromium or Chrome, headless, driven
     * by playwright-core (never a downloaded browser). `executable_path` names it (else
     * `CHROME_PATH` / `PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH`, then the usual install paths).
     * Every request a page makes follows the web URL policy; `allow_localhost` (on) also lets pages
     * reach loopback (your dev servers), `allow_private_urls` (Hermes' key, like
     * `web.allow_private_urls`) other private addresses; metadata addresses never. `command_timeout`
     * (s) bounds each action (navigation gets at least 60 s); `inactivity_timeout` (s) closes an idle
     * browser (0 = never).
     */
    browser: orAbsent(
      z
        .looseObject({
          executable_path: z.string().trim().min(1).optional(),
          allow_localhost: z.boolean().default(true),
          allow_private_urls: z.boolean().default(false),
          headless: z.boolean().default(true),
          /** Hermes floors it at 5 s. */
          command_timeout: z.number().positive().default(30).transform((value) => Math.max(value, 5)),
          inactivity_timeout: z.number().min(0).default(120),
        })
        .prefault({}),
    ),
    /**
     * `delegate_task` subagents (Hermes' `delegation:` keys and defaults; see src/runtime/delegation/):
     * tasks one call may run at once, how deep delegation may nest (1 = children never delegate),
     * each child's own iteration budget, background children at once, and whether children's
     * dangerous commands are allowed without asking (off: denied). `acp_agents` names external ACP
     * agents a task may run as (`agent: <name>`): `{ command, args, env }`, started in the session's
     * folder outside the sandbox (they use their own tools and their own sandboxing).
     */
    delegation: orAbsent(
      z
        .looseObject({
          max_concurrent_children: count(3),
          max_spawn_depth: count(1),
          max_iterations: count(50),
          max_async_children: count(3),
          subagent_auto_approve: z.preprocess(capabilityFlag, z.boolean().default(false)),
          orchestrator_enabled: z.preprocess(capabilityFlag, z.boolean().default(true)),
          acp_agents: orAbsent(
            z
              .record(
                z.string(),
                z.looseObject({
                  command: z.string().min(1),
                  args: stringList,
                  env: orAbsent(z.record(z.string(), z.string()).default({})),
                  description: z.string().optional(),
                }),
              )
              .default({}),
          ),
        })
        .prefault({}),
    ),
    /**
     * Filesystem checkpoints before `write_file` / `patch` and `/rollback` (Hermes' `checkpoints:`
     * keys and defaults; see src/runtime/checkpoints/): off unless enabled; snapshots kept per
     * workspace, the store's total size, and the largest file a snapshot holds (0 = no limit).
     */
    checkpoints: orAbsent(
      z
        .looseObject({
          enabled: z.preprocess(capabilityFlag, z.boolean().default(false)),
          max_snapshots: count(20),
          max_total_size_mb: z.number().min(0).default(500),
          max_file_size_mb: z.number().min(0).default(10),
        })
        .prefault({}),
    ),
    providers: providersField,
    /**
     * Hermes' legacy list of named endpoints; read like `providers:` (a `providers:` entry of the same
     * name wins). Read entry by entry (`lenientList`): one without `name` or `base_url` is skipped with
     * a warning, as Hermes skips it.
     */
    custom_providers: customProvidersField,
    /**
     * Models tried in order when a model call still fails after its retries on a provider-side error
     * (rate limit, 5xx, timeout, network, auth, quota); never on a cancel or a request the provider
     * rejected as bad. Read entry by entry (`lenientList`: an entry without `provider` is skipped with
     * a warning; one mapping is a one-entry chain).
     */
    fallback_providers: lenientList("fallback_providers", fallbackEntry),
    /**
     * Hermes' older spelling, tried after `fallback_providers`: one entry or a list, read like it;
     * absent when nothing usable is there (Hermes' default `{provider: '', model: ''}` is off).
     */
    fallback_model: z.preprocess((value) => (value === null ? undefined : value), lenientList("fallback_model", fallbackEntry).optional()).transform((list) => (list && list.length > 0 ? list : undefined)),
    /**
     * Per-model prices in USD per million tokens, for `cost` in usage updates when the provider reports
     * none. Keys as in `agent.reasoning_overrides`. A value that is no price table is skipped with a warning.
     */
    pricing: lenientTable("pricing", modelPrice),
    mcp_servers: orAbsent(z.record(z.string(), z.unknown()).default({})),
    /**
     * Toolsets enabled per platform (Hermes' `platform_toolsets`); this agent reads `acp`. Absent =
     * `[hermes-acp]`. `no_mcp` in the list leaves every MCP server out.
     */
    platform_toolsets: orAbsent(z.record(z.string(), z.array(z.string())).default({})),
    /**
     * Commands the user allowed always ("Allow always"), normalized; never asked again. Entries that
     * are rule keys (what Python Hermes writes) allow that whole rule and are still honoured.
     */
    command_allowlist: orAbsent(z.array(z.string()).default([])),
  });
}

export type HermesConfig = z.output<typeof configSchema>;
export type ProviderEntry = z.output<typeof providerEntry>;

/** A complete config with every default, as an empty `config.yaml` yields. Returns a fresh object. */
export function defaultConfig(): HermesConfig {
  return configSchema.parse({});
}
