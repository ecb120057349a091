import { describe, expect, it } from "vitest";
import { CONTEXT_OVERFLOW, fittingOutputCap, IMAGES_UNSUPPORTED, parseContextOverflow } from "./error-wording.js";
import { kindForStatus } from "./provider-errors.js";

/** Real error texts of each provider (as their servers send them), with the numbers they state. */
const OVERFLOWS: ReadonlyArray<readonly [string, string, ReturnType<typeof parseContextOverflow>]> = [
  [
    "OpenAI (messages only)",
    "This model's maximum context length is 8192 tokens. However, your messages resulted in 9021 tokens. Please reduce the length of the messages.",
    { limit: 8192, input: 9021 },
  ],
  [
    "OpenAI / DeepSeek (with completion)",
    "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (62000 in the messages, 8000 in the completion). Please reduce the length of the messages or completion.",
    { limit: 65536, input: 62000, output: 8000 },
  ],
  [
    "OpenAI (configured input limit)",
    "Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 300512 tokens. Please reduce the length of the messages.",
    { limit: 272000, input: 300512 },
  ],
  ["OpenAI Responses", "Your input exceeds the context window of this model. Please adjust your input and try again.", {}],
  ["Anthropic", "prompt is too long: 210000 tokens > 200000 maximum", { limit: 200000, input: 210000 }],
  [
    "Anthropic (output cap)",
    "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000, decrease input length or `max_tokens` and try again",
    { limit: 200000, input: 197000, output: 8192 },
  ],
  [
    "vLLM (max_tokens too large)",
    "'max_tokens' or 'max_completion_tokens' is too large: 4096. This model's maximum context length is 8192 tokens and your request has 5000 input tokens (4096 > 8192 - 5000).",
    { limit: 8192, input: 5000, output: 4096 },
  ],
  [
    "vLLM (decoder prompt)",
    "The decoder prompt (length 40000) is longer than the maximum model length of 32768. Make sure that `max_model_len` is no smaller than the number of text tokens.",
    { limit: 32768, input: 40000 },
  ],
  ["llama.cpp", "the request exceeds the available context size, try increasing it", {}],
  ["llama.cpp (older)", "Context size has been exceeded.", {}],
  ["Ollama", "prompt too long; exceeded max context length by 1234 tokens", {}],
  ["Ollama (context length)", "input length exceeds the context length of 4096 tokens", { limit: 4096 }],
  [
    "LM Studio",
    "Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of only 8192 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input",
    { limit: 8192 },
  ],
  [
    "OpenRouter",
    "This endpoint's maximum context length is 131072 tokens. However, you requested about 140000 tokens (130000 of text input, 2000 of tool input, 8000 in the output). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.",
    { limit: 131072, input: 132000, output: 8000 },
  ],
  ["Gemini", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", { limit: 1048576, input: 1200000 }],
  ["Mistral", "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length", { limit: 32768, input: 40000 }],
  ["xAI", "This model's maximum prompt length is 131072 but the request contains 140000 tokens.", { limit: 131072, input: 140000 }],
  [
    "TGI / Together",
    "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8193. Given: 8000 `inputs` tokens and 2000 `max_new_tokens`",
    { limit: 8193, input: 8000, output: 2000 },
  ],
  ["generic", "The conversation exceeds the context window of 32,768 tokens.", { limit: 32768 }],
  ["Bedrock", "Input is too long for requested model.", {}],
];

describe("context overflow wordings", () => {
  it.each(OVERFLOWS)("%s: is a context overflow and states what it states", (_provider, message, facts) => {
    expect(CONTEXT_OVERFLOW.test(message), message).toBe(true);
    expect(kindForStatus(400, message)).toBe("context_overflow");
    expect(parseContextOverflow(message)).toEqual(facts);
  });

  it("leaves other errors alone", () => {
    for (const message of ["Invalid API key provided", "model 'gpt-9' not found", "Rate limit reached for requests", "Invalid value for 'temperature'"]) {
      expect(CONTEXT_OVERFLOW.test(message), message).toBe(false);
      expect(parseContextOverflow(message)).toEqual({});
    }
  });

  it("counts only a 4xx (or a status-less stream error) as an overflow", () => {
    const message = "This model's maximum context length is 8192 tokens.";
    expect(kindForStatus(undefined, message)).toBe("context_overflow");
    expect(kindForStatus(500, message)).toBe("server");
    expect(kindForStatus(413, message)).toBe("payload_too_large");
  });
});

describe("fittingOutputCap", () => {
  it("lowers the cap when the prompt fits but prompt + max_tokens does not", () => {
    expect(fittingOutputCap(parseContextOverflow(OVERFLOWS[5]?.[1] ?? ""))).toBe(200000 - 197000 - 64);
    expect(fittingOutputCap({ limit: 8192, input: 5000, output: 4096 })).toBe(8192 - 5000 - 64);
    expect(fittingOutputCap({ limit: 65536, input: 62000, output: 8000 })).toBe(65536 - 62000 - 64);
  });

  it("answers undefined when the prompt itself is too long, too little would be left, or a number is missing", () => {
    expect(fittingOutputCap({ limit: 200000, input: 210000, output: 8192 })).toBeUndefined();
    expect(fittingOutputCap({ limit: 8192, input: 8000, output: 4096 })).toBeUndefined();
    expect(fittingOutputCap({ limit: 8192, input: 9021 })).toBeUndefined();
    expect(fittingOutputCap({})).toBeUndefined();
  });
});

describe("images-unsupported wordings", () => {
  const REFUSALS = [
    ["OpenAI", "Invalid content type. image_url is only supported by certain models."],
    ["OpenRouter", "No endpoints found that support image input"],
    ["DeepSeek", "Failed to deserialize the JSON body into the target type: messages[1]: unknown variant `image_url`, expected `text` at line 1 column 3096"],
    ["vLLM", "At most 0 image(s) may be provided in one request."],
    ["vLLM (text model)", "Qwen/Qwen2.5-7B-Instruct is not a multimodal model"],
    ["llama.cpp", "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"],
    ["Ollama", 'model "llama3.1:8b" does not support images'],
    ["LM Studio", "Vision is not supported by this model"],
    ["Anthropic (old model)", "'claude-2.1' does not support image input."],
    ["Groq", "image input is not supported for this model"],
    ["generic", "This model does not support multimodal input"],
    ["generic (parts)", "Invalid part type: image_url"],
  ] as const;

  it.each(REFUSALS)("%s: a 4xx saying so is images_unsupported", (_provider, message) => {
    expect(IMAGES_UNSUPPORTED.test(message), message).toBe(true);
    expect(kindForStatus(400, message)).toBe("images_unsupported");
    expect(kindForStatus(404, message)).toBe("images_unsupported");
  });

  it("does not take other errors, or server errors, for an image refusal", () => {
    for (const message of ["Image exceeds 5 MB maximum", "Could not process image", "Invalid API key", "maximum context length is 8192 tokens"]) {
      expect(IMAGES_UNSUPPORTED.test(message), message).toBe(false);
    }
    expect(kindForStatus(500, "image input is not supported")).toBe("server");
  });
});
