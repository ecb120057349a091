/**
 * Our OpenAI-shaped history → a Responses API request body (`instructions`, `input` items, tools,
 * output cap, reasoning). Stateless by construction: `store: false`, never `previous_response_id`.
 * Pure; never throws; the input is never modified.
 */
import type { ResponseCreateParamsStreaming, ResponseInputContent, ResponseInputItem } from "openai/resources/responses/responses";
import type { ChatMessage, ModelRequest } from "./types.js";

/**
 * The request body: system messages joined as `instructions` (the same bytes every call, so the
 * prompt cache holds), the rest of the history as `input` items, `store: false`, no
 * `previous_response_id`. A reasoning effort adds `reasoning` (`none` is sent as `minimal`) with
 * automatic summaries, and asks for the encrypted reasoning content so it can be sent back.
 */
export function toResponsesRequest(request: ModelRequest): ResponseCreateParamsStreaming {
  const instructions = request.messages
    .filter((message): message is Extract<ChatMessage, { role: "system" }> => message.role === "system")
    .map((message) => message.content)
    .filter((text) => text !== "")
    .join("\n\n");
  const body: ResponseCreateParamsStreaming = {
    model: request.model,
    input: toResponsesInput(request.messages),
    store: false,
    stream: true,
  };
  if (instructions !== "") body.instructions = instructions;
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: false,
    }));
  }
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.reasoningEffort) {
    body.reasoning = { effort: request.reasoningEffort === "none" ? "minimal" : request.reasoningEffort, summary: "auto" };
    body.include = ["reasoning.encrypted_content"];
  }
  return body;
}

/**
 * History (system messages aside) as Responses API input items. An assistant message becomes its
 * reasoning items (only those with `encrypted_content`: with `store: false` an id alone cannot be
 * looked up), then its text as an `output_text` message when non-empty, then one `function_call`
 * per tool call; a tool message becomes a `function_call_output`. Pure; the input is not modified.
 */
export function toResponsesInput(history: readonly ChatMessage[]): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const message of history) {
    switch (message.role) {
      case "system":
        break;
      case "user":
        items.push({ role: "user", content: toInputContent(message.content) });
        break;
      case "tool":
        items.push({ type: "function_call_output", call_id: message.tool_call_id, output: message.content });
        break;
      case "assistant": {
        for (const item of message.codex_reasoning_items ?? []) {
          if (!item.encrypted_content) continue;
          const sent = { type: "reasoning", ...(item.id ? { id: item.id } : {}), encrypted_content: item.encrypted_content, summary: item.summary };
          items.push(sent as ResponseInputItem);
        }
        if (message.content) {
          const text = { type: "message", role: "assistant", content: [{ type: "output_text", text: message.content }] };
          items.push(text as ResponseInputItem);
        }
        for (const call of message.tool_calls ?? []) {
          items.push({ type: "function_call", call_id: call.id, name: call.function.name, arguments: call.function.arguments });
        }
        break;
      }
    }
  }
  return items;
}

function toInputContent(content: Extract<ChatMessage, { role: "user" }>["content"]): ResponseInputContent[] {
  if (typeof content === "string") return [{ type: "input_text", text: content }];
  return content.map((part) =>
    part.type === "text"
      ? { type: "input_text", text: part.text }
      : { type: "input_image", image_url: part.image_url.url, detail: "auto" },
  );
}
