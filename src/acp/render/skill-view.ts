import { errorText, fenced, textContent, DISPLAY_LIMIT } from "./text.js";
import type { ToolRenderer } from "./types.js";

/**
 * `skill_view` shows as a read of the skill's file: no start content (the title names the
 * skill); completion a header naming the file, its text in a fence (cut to the display limit),
 * and the file as the call's location (known only once the skill is resolved).
 */
export const skillViewRenderer: ToolRenderer<"skill_view"> = {
  start: () => [],
  complete(event) {
    const details = event.details;
    if (event.isError) return { content: [textContent(`Skill not loaded: ${details && "error" in details ? details.error : errorText(event.content)}`)], failed: true };
    if (!details || !("content" in details)) return { content: event.content ? [textContent(event.content)] : [] };
    const header = details.file ? `Skill ${details.name}: ${details.file}` : `Skill ${details.name}`;
    const budget = DISPLAY_LIMIT - header.length - 200;
    const body = details.content.length > budget ? `${details.content.slice(0, budget)}\n... (truncated for display)` : details.content;
    return { content: [textContent(`${header}\n\n${fenced(body, details.binary ? "" : "markdown")}`)], locations: [{ path: details.path }] };
  },
};
