import { randomUUID } from "node:crypto";

export function newId(): string {
  return randomUUID();
}

/** Short id for ACP tool calls when the model gave none (`tc-` + 12 hex). */
export function newToolCallId(): string {
  return `tc-${randomUUID().replace(/-/g, "").slice(0, 12)}`;
}
