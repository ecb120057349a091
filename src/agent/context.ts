import type { ChatMessage, ToolSchema } from "../llm/types.js";

/**
 * Rough token accounting, as Hermes does it: about four characters per token, counted over what
 * is actually sent (message text, tool-call names and arguments, tool results, tool schemas),
 * plus a small per-message overhead. Images count a flat amount, never their base64 length.
 * Pure; deterministic; used for the compression trigger and the editor's context meter, never
 * for billing.
 */

export const CHARS_PER_TOKEN = 4;
/** Tokens one image part is counted as (a ~1 megapixel image on Claude / GPT-4o class models). */
export const IMAGE_TOKENS = 1_600;
/** Role, separators and name fields of one message, in characters. */
const MESSAGE_OVERHEAD_CHARS = 16;
/** Window assumed for a model nothing else knows about. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** Tokens of a plain string. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * Tokens of one message as sent: content, tool calls (name + arguments), tool name. The
 * assistant's stored `reasoning` is not sent back, so it does not count.
 */
export function estimateMessageTokens(message: ChatMessage): number {
  let chars = MESSAGE_OVERHEAD_CHARS;
  let images = 0;
  switch (message.role) {
    case "system":
      chars += message.content.length;
      break;
    case "user":
      if (typeof message.content === "string") chars += message.content.length;
      else
        for (const part of message.content) {
          if (part.type === "text") chars += part.text.length;
          else images += 1;
        }
      break;
    case "assistant":
      chars += message.content?.length ?? 0;
      for (const call of message.tool_calls ?? []) chars += call.id.length + call.function.name.length + call.function.arguments.length + 12;
      break;
    case "tool":
      chars += message.content.length + message.tool_call_id.length + (message.name?.length ?? 0);
      break;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;
}

/** Tokens of a list of messages. */
export function estimateMessagesTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

/** Tokens the tool schemas cost in a request (their JSON, as providers send it). */
export function estimateToolsTokens(tools: readonly ToolSchema[]): number {
  return tools.length === 0 ? 0 : estimateTextTokens(JSON.stringify(tools));
}

/** Tokens of a whole request: system prompt, messages and tool schemas. */
export function estimateRequestTokens(request: { systemPrompt?: string; messages: readonly ChatMessage[]; tools?: readonly ToolSchema[] }): number {
  const system = request.systemPrompt === undefined ? 0 : estimateMessageTokens({ role: "system", content: request.systemPrompt });
  return system + estimateMessagesTokens(request.messages) + estimateToolsTokens(request.tools ?? []);
}

/**
 * What the provider knows about a model's window, when it knows (e.g. a cached `/models`
 * catalog). Must be synchronous and cheap: it is asked on every model call. Answers undefined
 * when unknown.
 */
export type ContextWindowLookup = (model: string) => number | undefined;

export type ContextWindowSource = "config" | "provider" | "table" | "default";

/**
 * The context window of `model`, in tokens, first known wins: `configured`
 * (`model.context_length`), the provider's model list (`lookup`), the built-in table, else
 * 128,000.
 */
export function resolveContextWindow(
  model: string,
  options: { configured?: number | undefined; lookup?: ContextWindowLookup | undefined } = {},
): { tokens: number; source: ContextWindowSource } {
  if (options.configured && options.configured > 0) return { tokens: options.configured, source: "config" };
  const fromProvider = options.lookup?.(model);
  if (fromProvider && fromProvider > 0) return { tokens: fromProvider, source: "provider" };
  const fromTable = knownContextWindow(model);
  if (fromTable) return { tokens: fromTable, source: "table" };
  return { tokens: DEFAULT_CONTEXT_WINDOW, source: "default" };
}

/**
 * Windows of common models, matched in order against the lower-cased model name without its
 * vendor prefix (`anthropic/claude-sonnet-4` → `claude-sonnet-4`); more specific patterns first.
 */
const KNOWN_WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  // Anthropic
  [/claude.*(?:\[1m\]|-1m\b)/, 1_000_000],
  [/claude/, 200_000],
  // OpenAI
  [/gpt-5/, 400_000],
  [/gpt-4\.1/, 1_047_576],
  [/gpt-4o|chatgpt-4o/, 128_000],
  [/gpt-4-turbo|gpt-4-1106|gpt-4-0125/, 128_000],
  [/gpt-4-32k/, 32_768],
  [/gpt-4(?:$|-0[36])/, 8_192],
  [/gpt-3\.5/, 16_385],
  [/gpt-oss/, 131_072],
  [/codex/, 200_000],
  [/^o[134](?:$|-)/, 200_000],
  // Google
  [/gemini-1\.5-pro/, 2_097_152],
  [/gemini/, 1_048_576],
  [/gemma-?3/, 131_072],
  [/gemma/, 8_192],
  // Alibaba
  [/qwen3-coder/, 262_144],
  [/qwen2\.5-coder/, 32_768],
  [/qwen|qwq/, 131_072],
  // Meta
  [/llama-?4.*scout/, 10_000_000],
  [/llama-?4/, 1_048_576],
  [/llama-?3\.[123]/, 131_072],
  [/llama-?3/, 8_192],
  [/llama/, 131_072],
  // Others
  [/deepseek/, 128_000],
  [/codestral/, 256_000],
  [/devstral|mistral-(?:large|medium|small)|magistral/, 128_000],
  [/mixtral|mistral/, 32_768],
  [/kimi-k2-(?:0905|turbo|thinking)/, 262_144],
  [/kimi|moonshot/, 131_072],
  [/glm-4\.[56]/, 200_000],
  [/glm/, 128_000],
  [/grok-4/, 256_000],
  [/grok/, 131_072],
  [/minimax/, 1_000_000],
  [/hermes/, 131_072],
  [/command-[ra]/, 128_000],
];

/** The built-in table's window for `model`, or undefined when no entry matches. */
export function knownContextWindow(model: string): number | undefined {
  const name = model.toLowerCase().split("/").at(-1) ?? "";
  for (const [pattern, tokens] of KNOWN_WINDOWS) if (pattern.test(name)) return tokens;
  return undefined;
}
