/**
 * What providers' error texts say about the request's size and its images: the wordings that mean
 * "does not fit the context window" or "this model takes no images", and the numbers a context
 * error states (the real window, the prompt's tokens, the output cap asked for). Covers the common
 * wordings of OpenAI (and Azure), Anthropic, OpenRouter, Gemini, DeepSeek, Mistral, xAI, vLLM, TGI /
 * Together, llama.cpp, Ollama and LM Studio. Pure; never throws.
 */

/** Server wording that means "the prompt does not fit the model's context window". */
export const CONTEXT_OVERFLOW = new RegExp(
  [
    String.raw`context[ _-]?(length|window|size|limit)`,
    String.raw`maximum context`,
    String.raw`max(imum)? (model|prompt|sequence|input) length`,
    String.raw`too many (input )?tokens`,
    String.raw`prompt (is )?too (long|large)`,
    String.raw`input (is )?too (long|large)`,
    String.raw`exceeds? the (model'?s? )?(maximum|max|limit|available)`,
    String.raw`exceeds? (the )?(maximum|max) (number of )?tokens`,
    String.raw`token limit`,
    String.raw`reduce the length`,
    String.raw`longer than the maximum`,
    String.raw`tokens? to keep from the initial prompt`,
    String.raw`request (is )?too large for model`,
    String.raw`tokens.{0,5} \+ .?max_new_tokens.? must be`,
  ].join("|"),
  "i",
);

/**
 * Server wording that means "this model (or endpoint) does not take image input": OpenAI's
 * "image_url is only supported by certain models", OpenRouter's "No endpoints found that support
 * image input", DeepSeek's "unknown variant `image_url`", vLLM's "not a multimodal model" / "At most
 * 0 image(s)", llama.cpp's "image input is not supported", Ollama's and LM Studio's "does not
 * support images" / "Vision is not supported", and the like.
 */
export const IMAGES_UNSUPPORTED = new RegExp(
  [
    String.raw`(does not|doesn'?t|do not|don'?t|cannot|can'?t|unable to) (support|accept|handle|process|take|read)( the)? (image|vision|multi-?modal|visual)`,
    String.raw`(image|vision|multi-?modal|visual)[ _-]?(input|content|inputs|parts?|data|understanding|capabilit(y|ies))?s? (is |are )?(not|un)[ _-]?(supported|available|allowed|enabled)`,
    String.raw`(no|not) (support|supported) for (image|vision|multi-?modal)`,
    String.raw`support(s|ing)? (image|vision|multi-?modal) (input|content)`,
    String.raw`image_url.{0,40}only supported`,
    String.raw`unknown variant .?image_url`,
    String.raw`invalid (content|part|message)[ _-]?type.{0,40}image`,
    String.raw`image.{0,20}invalid (content|part)[ _-]?type`,
    String.raw`not a (multi-?modal|vision) model`,
    String.raw`at most 0 image`,
    String.raw`mmproj`,
  ].join("|"),
  "i",
);

/** The numbers a context error states, when it states them (tokens). */
export interface ContextOverflowFacts {
  /** The model's (or endpoint's) window: the most the request may hold. */
  limit?: number;
  /** The prompt's tokens, as the server counted them. */
  input?: number;
  /** The output cap the request asked for (`max_tokens`), when the server names it. */
  output?: number;
}

/** A number as servers write them: `8192`, `200,000`, `200_000`. */
const NUM = String.raw`(\d[\d,_]*)`;

/** Wordings that name the window, most specific first; group 1 is the number. */
const LIMIT_PATTERNS: readonly RegExp[] = [
  // OpenAI, DeepSeek, vLLM, OpenRouter, Azure: "maximum context length is 8192 tokens"
  new RegExp(String.raw`maximum context length (?:is|of) (?:only )?${NUM}`, "i"),
  // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
  new RegExp(String.raw`>\s*${NUM}\s*(?:tokens? )?maximum`, "i"),
  // Anthropic output cap: "exceed context limit: 197000 + 8192 > 200000"
  new RegExp(String.raw`context limit:?\s*${NUM}\s*\+\s*${NUM}\s*>\s*${NUM}`, "i"),
  // vLLM: "longer than the maximum model length of 32768"
  new RegExp(String.raw`maximum (?:model|prompt|sequence|input) length (?:is |of )?${NUM}`, "i"),
  // Mistral: "too large for model with 32768 maximum context length"
  new RegExp(String.raw`${NUM} maximum context length`, "i"),
  // Gemini: "exceeds the maximum number of tokens allowed (1048576)" / "allowed 1048576"
  new RegExp(String.raw`maximum number of tokens allowed\s*\(?${NUM}`, "i"),
  // OpenAI (newer): "exceed the configured limit of 272000 tokens"
  new RegExp(String.raw`(?:configured |token )?limit of ${NUM}`, "i"),
  // TGI / Together: "must be <= 8193"
  new RegExp(String.raw`must be <=\s*${NUM}`, "i"),
  // generic: "context window of 32768 tokens", "context length of only 8192 tokens", "n_ctx: 4096", "context size (4096)"
  new RegExp(String.raw`context (?:window|length|size|limit)(?: is| of)?(?: only)?:?\s*\(?${NUM}`, "i"),
  new RegExp(String.raw`n_ctx(?:_slot)?["']?\s*[:=]\s*${NUM}`, "i"),
];

/** Wordings that name the prompt's tokens; group 1 is the number. */
const INPUT_PATTERNS: readonly RegExp[] = [
  // OpenAI / DeepSeek / vLLM: "(5000 in the messages, 4000 in the completion)"
  new RegExp(String.raw`\(${NUM} in the messages`, "i"),
  // OpenAI: "your messages resulted in 9000 tokens"
  new RegExp(String.raw`messages resulted in ${NUM}`, "i"),
  // Anthropic: "prompt is too long: 210000 tokens"
  new RegExp(String.raw`too long:\s*${NUM}`, "i"),
  // vLLM: "your request has 5000 input tokens", "(length 40000)"
  new RegExp(String.raw`has ${NUM} input tokens`, "i"),
  new RegExp(String.raw`prompt \(length ${NUM}\)`, "i"),
  // Mistral: "Prompt contains 40000 tokens"; xAI: "the request contains 140000 tokens"
  new RegExp(String.raw`contains ${NUM} tokens`, "i"),
  // Gemini: "The input token count (1200000)"
  new RegExp(String.raw`input token count\s*\(?${NUM}`, "i"),
  // TGI / Together: "Given: 8000 `inputs` tokens"
  new RegExp(String.raw`given:?\s*${NUM}\s*.?inputs.? tokens`, "i"),
  // llama.cpp JSON fields, Ollama
  new RegExp(String.raw`n_prompt_tokens["']?\s*[:=]\s*${NUM}`, "i"),
];

/** Wordings that name the output cap asked for; group 1 is the number. */
const OUTPUT_PATTERNS: readonly RegExp[] = [
  new RegExp(String.raw`${NUM} in the (?:completion|output)`, "i"),
  new RegExp(String.raw`${NUM} of (?:text )?output`, "i"),
  // vLLM: "'max_tokens' or 'max_completion_tokens' is too large: 4096"
  new RegExp(String.raw`max_(?:completion_)?tokens.{0,40}?too large:?\s*${NUM}`, "i"),
  // TGI: "and 2000 `max_new_tokens`"
  new RegExp(String.raw`${NUM}\s*.?max_new_tokens`, "i"),
];

/** Numbers outside this range are not token counts of a real window. */
export const MIN_WINDOW = 256;
export const MAX_WINDOW = 100_000_000;

/**
 * The numbers `message` states about the window, the prompt and the output cap (each only when a
 * known wording names it). Anthropic's `A + B > C` output-cap form fills all three; OpenRouter's
 * "(X of text input, Y of tool input, Z in the output)" sums the inputs.
 */
export function parseContextOverflow(message: string): ContextOverflowFacts {
  const facts: ContextOverflowFacts = {};
  const sum = new RegExp(String.raw`context limit:?\s*${NUM}\s*\+\s*${NUM}\s*>\s*${NUM}`, "i").exec(message);
  if (sum) {
    const [input, output, limit] = [toNumber(sum[1]), toNumber(sum[2]), toNumber(sum[3])];
    if (limit !== undefined && limit >= MIN_WINDOW && limit <= MAX_WINDOW) facts.limit = limit;
    if (input !== undefined) facts.input = input;
    if (output !== undefined) facts.output = output;
    return facts;
  }
  const limit = firstNumber(message, LIMIT_PATTERNS);
  if (limit !== undefined && limit >= MIN_WINDOW && limit <= MAX_WINDOW) facts.limit = limit;
  const openRouter = new RegExp(String.raw`${NUM} of text input(?:, ${NUM} of tool input)?`, "i").exec(message);
  const input = openRouter ? (toNumber(openRouter[1]) ?? 0) + (toNumber(openRouter[2]) ?? 0) : firstNumber(message, INPUT_PATTERNS);
  if (input !== undefined) facts.input = input;
  const output = firstNumber(message, OUTPUT_PATTERNS);
  if (output !== undefined) facts.output = output;
  return facts;
}

/** Tokens kept free below the window when the output cap is lowered (the servers' counts differ slightly). */
export const OUTPUT_CAP_MARGIN = 64;
/** An output cap lowered below this is useless: the prompt itself must shrink instead. */
export const MIN_USEFUL_OUTPUT_TOKENS = 256;

/**
 * The output cap that would make the request fit, when the error is about the OUTPUT cap: the
 * prompt fits the window (`input < limit`) but prompt + `max_tokens` does not. Undefined when the
 * error does not say so, or when what is left would be under `MIN_USEFUL_OUTPUT_TOKENS` (then the
 * prompt must be compressed instead).
 */
export function fittingOutputCap(facts: ContextOverflowFacts): number | undefined {
  const { limit, input, output } = facts;
  if (limit === undefined || input === undefined || output === undefined) return undefined;
  if (input >= limit || input + output <= limit) return undefined;
  const available = limit - input - OUTPUT_CAP_MARGIN;
  return available >= MIN_USEFUL_OUTPUT_TOKENS && available < output ? available : undefined;
}

function firstNumber(message: string, patterns: readonly RegExp[]): number | undefined {
  for (const pattern of patterns) {
    const match = pattern.exec(message);
    const value = toNumber(match?.[1]);
    if (value !== undefined) return value;
  }
  return undefined;
}

function toNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text.replace(/[,_]/g, ""));
  return Number.isSafeInteger(value) ? value : undefined;
}
