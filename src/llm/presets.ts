/**
 * Providers Hermes knows by name (its `PROVIDER_REGISTRY` and provider profiles): id, other
 * spellings, endpoint, the variables holding the key (tried in Hermes' order), the variable that
 * replaces the endpoint, the model used when `model.default` is not set (the first of Hermes'
 * curated list for the provider), the wire API and whether the endpoint lists its models
 * (`GET /models`, for the picker and zero-config discovery). Data only; pure.
 *
 * openrouter, openai, anthropic, nous and ollama are resolved by their own code in resolve.ts (they
 * predate the table and have extra rules); the others go through the generic preset path.
 */
import type { ApiMode } from "./types.js";

export interface ProviderPreset {
  /** Hermes' provider id (`model.provider: <id>`). */
  id: string;
  /** What Hermes calls it (for messages and the picker). */
  name: string;
  /** Other spellings Hermes accepts for the id. */
  aliases: readonly string[];
  baseUrl: string;
  /** Variables holding the key, in the order they are tried; the first set one is used. */
  keyVariables: readonly string[];
  /** The variable that replaces `baseUrl` when set. */
  baseUrlVariable?: string;
  /** Model used when `model.default` is not set; absent = ask the endpoint (`listsModels`). */
  defaultModel?: string;
  apiMode: ApiMode;
  /** The endpoint answers `GET /models` (OpenAI style, or Anthropic style for `anthropic_messages`). */
  listsModels: boolean;
  /** The endpoint works without a key (local servers). */
  keyOptional?: boolean;
}

export const OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1";
export const OPENAI_BASE_URL = "https://api.openai.com/v1";
/** The Anthropic SDK's own convention: no `/v1` (it appends `/v1/messages`). */
export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";
/** Nous Portal's OpenAI-compatible inference API. */
export const NOUS_BASE_URL = "https://inference-api.nousresearch.com/v1";
export const OLLAMA_BASE_URL = "http://localhost:11434/v1";
/** Kimi Code's endpoint, used instead of Moonshot's for `sk-kimi-` keys (Hermes' `_resolve_kimi_base_url`). */
export const KIMI_CODE_BASE_URL = "https://api.kimi.com/coding/v1";

/** Every preset, in the order the picker lists keyed providers (Hermes' registry order after the original four). */
export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  {
    id: "openrouter",
    name: "OpenRouter",
    aliases: [],
    baseUrl: OPENROUTER_BASE_URL,
    keyVariables: ["OPENROUTER_API_KEY"],
    baseUrlVariable: "OPENROUTER_BASE_URL",
    defaultModel: "anthropic/claude-sonnet-4",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "openai",
    name: "OpenAI",
    aliases: ["openai-api"],
    baseUrl: OPENAI_BASE_URL,
    keyVariables: ["OPENAI_API_KEY"],
    baseUrlVariable: "OPENAI_BASE_URL",
    defaultModel: "gpt-4.1",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "anthropic",
    name: "Anthropic",
    aliases: ["claude"],
    baseUrl: ANTHROPIC_BASE_URL,
    keyVariables: ["ANTHROPIC_API_KEY", "ANTHROPIC_TOKEN"],
    baseUrlVariable: "ANTHROPIC_BASE_URL",
    defaultModel: "claude-sonnet-4-6",
    apiMode: "anthropic_messages",
    listsModels: true,
  },
  {
    id: "nous",
    name: "Nous Portal",
    aliases: ["nous-portal", "nousresearch"],
    baseUrl: NOUS_BASE_URL,
    keyVariables: ["NOUS_API_KEY"],
    baseUrlVariable: "NOUS_BASE_URL",
    defaultModel: "Hermes-4-70B",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "gemini",
    name: "Google AI Studio",
    aliases: ["google", "google-gemini", "google-ai-studio"],
    baseUrl: "https://generativelanguage.googleapis.com/v1beta/openai",
    keyVariables: ["GOOGLE_API_KEY", "GEMINI_API_KEY"],
    baseUrlVariable: "GEMINI_BASE_URL",
    defaultModel: "gemini-3.1-pro-preview",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "zai",
    name: "Z.AI / GLM",
    aliases: ["glm", "z-ai", "z.ai", "zhipu"],
    baseUrl: "https://api.z.ai/api/paas/v4",
    keyVariables: ["GLM_API_KEY", "ZAI_API_KEY", "Z_AI_API_KEY"],
    baseUrlVariable: "GLM_BASE_URL",
    defaultModel: "glm-5.3",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "kimi-coding",
    name: "Kimi / Moonshot",
    aliases: ["kimi", "moonshot", "kimi-for-coding"],
    baseUrl: "https://api.moonshot.ai/v1",
    keyVariables: ["KIMI_API_KEY", "KIMI_CODING_API_KEY"],
    baseUrlVariable: "KIMI_BASE_URL",
    defaultModel: "kimi-k3",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "kimi-coding-cn",
    name: "Kimi / Moonshot (China)",
    aliases: ["kimi-cn", "moonshot-cn"],
    baseUrl: "https://api.moonshot.cn/v1",
    keyVariables: ["KIMI_CN_API_KEY"],
    defaultModel: "kimi-k3",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "minimax",
    name: "MiniMax",
    aliases: ["mini-max"],
    baseUrl: "https://api.minimax.io/anthropic",
    keyVariables: ["MINIMAX_API_KEY"],
    baseUrlVariable: "MINIMAX_BASE_URL",
    defaultModel: "MiniMax-M3",
    apiMode: "anthropic_messages",
    listsModels: false,
  },
  {
    id: "minimax-cn",
    name: "MiniMax (China)",
    aliases: ["minimax-china", "minimax_cn"],
    baseUrl: "https://api.minimaxi.com/anthropic",
    keyVariables: ["MINIMAX_CN_API_KEY"],
    baseUrlVariable: "MINIMAX_CN_BASE_URL",
    defaultModel: "MiniMax-M3",
    apiMode: "anthropic_messages",
    listsModels: false,
  },
  {
    id: "alibaba",
    name: "Qwen Cloud (DashScope)",
    aliases: ["dashscope", "alibaba-cloud", "qwen-dashscope", "aliyun"],
    baseUrl: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
    keyVariables: ["DASHSCOPE_API_KEY"],
    baseUrlVariable: "DASHSCOPE_BASE_URL",
    defaultModel: "qwen3.8-max",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "deepseek",
    name: "DeepSeek",
    aliases: ["deepseek-chat"],
    baseUrl: "https://api.deepseek.com/v1",
    keyVariables: ["DEEPSEEK_API_KEY"],
    baseUrlVariable: "DEEPSEEK_BASE_URL",
    defaultModel: "deepseek-v4-pro",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "xai",
    name: "xAI",
    aliases: ["grok", "x-ai", "x.ai"],
    baseUrl: "https://api.x.ai/v1",
    keyVariables: ["XAI_API_KEY"],
    baseUrlVariable: "XAI_BASE_URL",
    defaultModel: "grok-4.6",
    apiMode: "responses",
    listsModels: true,
  },
  {
    id: "nvidia",
    name: "NVIDIA NIM",
    aliases: ["nvidia-nim", "nim"],
    baseUrl: "https://integrate.api.nvidia.com/v1",
    keyVariables: ["NVIDIA_API_KEY"],
    baseUrlVariable: "NVIDIA_BASE_URL",
    defaultModel: "nvidia/nemotron-3-super-120b-a12b",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "mistral",
    name: "Mistral AI",
    aliases: ["mistral-ai", "mistralai"],
    baseUrl: "https://api.mistral.ai/v1",
    keyVariables: ["MISTRAL_API_KEY"],
    baseUrlVariable: "MISTRAL_BASE_URL",
    defaultModel: "mistral-small-latest",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "groq",
    name: "Groq",
    aliases: ["groqcloud"],
    baseUrl: "https://api.groq.com/openai/v1",
    keyVariables: ["GROQ_API_KEY"],
    defaultModel: "meta-llama/llama-4-scout-17b-16e-instruct",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "together",
    name: "Together AI",
    aliases: ["together-ai", "togetherai"],
    baseUrl: "https://api.together.xyz/v1",
    keyVariables: ["TOGETHER_API_KEY"],
    defaultModel: "meta-llama/Llama-3.3-70B-Instruct-Turbo",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "fireworks",
    name: "Fireworks AI",
    aliases: ["fireworks-ai", "fw"],
    baseUrl: "https://api.fireworks.ai/inference/v1",
    keyVariables: ["FIREWORKS_API_KEY"],
    defaultModel: "accounts/fireworks/models/minimax-m3",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "huggingface",
    name: "Hugging Face",
    aliases: ["hf", "hugging-face", "huggingface-hub"],
    baseUrl: "https://router.huggingface.co/v1",
    keyVariables: ["HF_TOKEN"],
    baseUrlVariable: "HF_BASE_URL",
    defaultModel: "moonshotai/Kimi-K2.5",
    apiMode: "chat_completions",
    listsModels: true,
  },
  {
    id: "lmstudio",
    name: "LM Studio",
    aliases: ["lm-studio"],
    baseUrl: "http://127.0.0.1:1234/v1",
    keyVariables: ["LM_API_KEY"],
    baseUrlVariable: "LM_BASE_URL",
    apiMode: "chat_completions",
    listsModels: true,
    keyOptional: true,
  },
];

/** Ids resolved by their own code in resolve.ts rather than the generic preset path. */
export const SPECIAL_PRESETS: ReadonlySet<string> = new Set(["openrouter", "openai", "anthropic", "nous"]);

const BY_NAME = new Map<string, ProviderPreset>();
for (const preset of PROVIDER_PRESETS) {
  for (const name of [preset.id, ...preset.aliases]) BY_NAME.set(name.toLowerCase(), preset);
}

/** The preset `name` (an id or an alias, any case) names; undefined for anything else. */
export function findPreset(name: string): ProviderPreset | undefined {
  return BY_NAME.get(name.trim().toLowerCase());
}

/** The preset whose default endpoint is on `host` (lower case), if any. */
export function presetForHost(host: string): ProviderPreset | undefined {
  if (!host) return undefined;
  return PROVIDER_PRESETS.find((preset) => {
    try {
      return new URL(preset.baseUrl).hostname === host && !preset.keyOptional;
    } catch {
      return false;
    }
  });
}
