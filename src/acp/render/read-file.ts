import { errorText, fenced, textContent, DISPLAY_LIMIT } from "./text.js";
import type { ToolRenderer } from "./types.js";

/**
 * Reads show no start content (the title and location identify them; an empty block would make
 * Zed show an empty Output section). Completion: a header and the numbered lines in a fence.
 */
export const readFileRenderer: ToolRenderer<"read_file"> = {
  start: () => [],
  complete(event) {
    const details = event.details;
    if (event.isError) return { content: [textContent(`Read failed: ${details && "error" in details ? details.error : errorText(event.content)}`)] };
    if (details && "unchanged" in details) return { content: [textContent(`Unchanged since the last read of ${details.path}`)] };
    if (!details || !("content" in details)) return { content: [textContent(event.content)] };
    let header = `Read ${details.path}`;
    if (details.offset > 1) header += ` (from line ${details.offset}, limit ${details.limit})`;
    header += ` — ${details.totalLines} total lines`;
    const budget = DISPLAY_LIMIT - header.length - 200;
    const body = details.content.length > budget ? `${details.content.slice(0, budget)}\n... (truncated for display)` : details.content;
    return { content: [textContent(`${header}\n\n${fenced(body)}`)] };
  },
};
