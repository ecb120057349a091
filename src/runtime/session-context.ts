import { compressionSettings, ContextCompressor, type Summarize } from "../agent/compression.js";
import type { CompactionEvent } from "../agent/events.js";
import { estimateMessageTokens, estimateToolsTokens, resolveContextWindow, type ContextWindowLookup } from "../agent/context.js";
import type { HermesConfig } from "../config/schema.js";
import type { Provider } from "../llm/types.js";
import { resetReadDedup } from "../tools/file-tracker/file-tracker.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolSessionState } from "../tools/session-state.js";
import { todoStoreOf } from "../tools/todo/todo.js";
import { createSummarizer } from "./summarizer.js";

/** `AgentSession.contextUsage()`: `used`/`size` for ACP `usage_update`, the rest for `/context`. */
export interface SessionContextUsage {
  /** Estimated tokens of the next request. */
  used: number;
  /** The model's context window in tokens. */
  size: number;
  /** Same as `used`. */
  tokens: number;
  /** Same as `size`. */
  window: number;
  /** `compression.threshold`: the fraction of the window at which compression starts. */
  threshold: number;
  /** `compression.enabled`: automatic compression is on. */
  enabled: boolean;
}

/**
 * A model's context window from its provider's model list (a cached catalog), or undefined when
 * unknown. Synchronous and cheap: asked on every model call; never fetches.
 */
export type ModelWindowLookup = (provider: string, model: string) => number | undefined;

export interface SessionContextInput {
  config: HermesConfig;
  /** Read on every call: the session's model and provider may change between turns. */
  model: () => string;
  provider: () => Provider;
  /** Read on every call: a model switch may replace the prompt. */
  systemPrompt: () => string;
  tools: ToolRegistry;
  toolState: ToolSessionState;
  /** The session's provider id; read on every call like `model`. */
  providerId: () => string;
  /** The provider's model list, when known. */
  contextWindowLookup?: ModelWindowLookup | undefined;
  /** Replaces the summary call to the session's provider (tests, an auxiliary model). */
  summarize?: Summarize | undefined;
  /** Hears every compression start and end (the session's compaction listeners). */
  onCompaction?: (event: CompactionEvent) => void;
}

/**
 * The context compressor of one session: window from `model.context_length`, the provider's
 * model list or the built-in table; overhead = system prompt + tool schemas (recomputed only
 * when the prompt or the tool set changes); summaries by the session's own model; the active
 * todo list kept verbatim across compressions; read_file's dedup cache reset after each
 * compression (the earlier results it would point back to are gone from what the model sees).
 */
export function createSessionCompressor(input: SessionContextInput): ContextCompressor {
  let prompt: string | undefined;
  let systemTokens = 0;
  let toolsKey: string | undefined;
  let toolsTokens = 0;
  const overheadTokens = (): number => {
    if (input.systemPrompt() !== prompt) {
      prompt = input.systemPrompt();
      systemTokens = estimateMessageTokens({ role: "system", content: prompt });
    }
    const key = input.tools.names().join("\n");
    if (key !== toolsKey) {
      toolsKey = key;
      toolsTokens = estimateToolsTokens(input.tools.schemas());
    }
    return systemTokens + toolsTokens;
  };
  return new ContextCompressor({
    settings: compressionSettings(input.config.compression),
    contextWindow: () => sessionContextWindow(input.config, input.providerId(), input.model(), input.contextWindowLookup),
    overheadTokens,
    summarize: input.summarize ?? createSummarizer(input.provider, input.model),
    onCompressed: () => resetReadDedup(input.toolState),
    preservedState: () => activeTodos(input.toolState),
    ...(input.onCompaction ? { onCompaction: input.onCompaction } : {}),
  });
}

/**
 * The window of `model`: `model.context_length`, else `lookup` (the runtime's: a window learned
 * from a provider's error, see ContextLengthCache, then the provider's model list), else the
 * built-in table.
 */
export function sessionContextWindow(config: HermesConfig, provider: string, model: string, lookup?: ModelWindowLookup): number {
  const fromProvider: ContextWindowLookup | undefined = lookup ? (name) => lookup(provider, name) : undefined;
  return resolveContextWindow(model, { configured: config.model.context_length, lookup: fromProvider }).tokens;
}

/** The pending and in-progress todo items as lines, or undefined when there are none. */
function activeTodos(state: ToolSessionState): string | undefined {
  const active = todoStoreOf(state)
    .read()
    .filter((item) => item.status === "pending" || item.status === "in_progress");
  return active.length ? active.map((item) => `- [${item.status}] ${item.id}: ${item.content}`).join("\n") : undefined;
}
