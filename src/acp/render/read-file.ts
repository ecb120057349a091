import { errorText, fenced, isRecord, textContent, DISPLAY_LIMIT } from "./text.js";
import type { ToolRenderer } from "./types.js";

/**
 * Reads show no start content (the title and location identify them; an empty block would make
 * Zed show an empty Output section). Completion: a header and the numbered lines in a fence.
 */
export const readFileRenderer: ToolRenderer = {
  start: () => [],
  complete(event) {
    if (event.isError) return { content: [textContent(`Read failed: ${errorText(event.content)}`)] };
    const details = event.details;
    if (isRecord(details) && details.unchanged === true) {
      return { content: [textContent(`Unchanged since the last read of ${String(details.path)}`)] };
    }
    if (!isRecord(details) || typeof details.content !== "string") return { content: [textContent(event.content)] };
    let header = `Read ${String(details.path)}`;
    const offset = typeof details.offset === "number" ? details.offset : 1;
    if (offset > 1) header += ` (from line ${offset}, limit ${String(details.limit)})`;
    if (typeof details.totalLines === "number") header += ` — ${details.totalLines} total lines`;
    const budget = DISPLAY_LIMIT - header.length - 200;
    const body = details.content.length > budget ? `${details.content.slice(0, budget)}\n... (truncated for display)` : details.content;
    return { content: [textContent(`${header}\n\n${fenced(body)}`)] };
  },
};
