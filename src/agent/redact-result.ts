import { redactRegisteredSecrets } from "../config/redact.js";
import type { ToolResult } from "../tools/types.js";

/** Tool output never carries the secrets the agent holds (to the model, the editor or a script). */
export function redactResult(result: ToolResult): ToolResult {
  return { ...result, content: redactRegisteredSecrets(result.content), details: redactDetails(result.details) };
}

/** Every string inside `details` (diffs, file text, output) with the agent's secrets masked; same shape. */
export function redactDetails<T>(details: T, depth = 0): T {
  if (typeof details === "string") return redactRegisteredSecrets(details) as T;
  if (!details || typeof details !== "object" || depth > 8) return details;
  if (Array.isArray(details)) return details.map((item: unknown) => redactDetails(item, depth + 1)) as T;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) copy[key] = redactDetails(value, depth + 1);
  return copy as T;
}
