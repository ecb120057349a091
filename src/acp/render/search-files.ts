import { textContent, truncate, DISPLAY_LIMIT_LARGE } from "./text.js";
import type { ToolRenderer } from "./types.js";

const MAX_FILES = 20;
const MAX_MATCHES = 12;

/** `1 match`, `2 matches`: Hermes' `_plural` (acp_adapter/tools.py). */
export function plural(count: number, word: string, suffix = "s"): string {
  return `${count} ${word}${count === 1 ? "" : suffix}`;
}

/**
 * "Searching for '<pattern>' …" at start; a short list of files or matches at the end, counted as
 * Hermes words it: `Found 1 match; showing 1.`, `Found 2 matches; …`, `Found 3 files; …`.
 */
export const searchFilesRenderer: ToolRenderer<"search_files"> = {
  start(event) {
    const input = event.input;
    if (!input) return [];
    const where = input.path ? ` in ${input.path}` : "";
    return [textContent(`Searching for '${input.pattern}' (${input.target ?? "content"})${where}`)];
  },
  complete(event) {
    const details = event.details;
    if (event.isError || !details) return { content: [textContent(truncate(event.content))] };
    const lines: string[] = [];
    const total = details.total;
    if (details.files) {
      lines.push("File search results", `Found ${plural(total, "file")}; showing ${Math.min(details.files.length, MAX_FILES)}.`);
      for (const file of details.files.slice(0, MAX_FILES)) lines.push(`- ${file}`);
    } else if (details.counts) {
      lines.push("Match counts", `Found matches in ${plural(total, "file")}.`);
      for (const row of details.counts.slice(0, MAX_FILES)) lines.push(`- ${row.path}: ${row.count}`);
    } else if (details.matches) {
      lines.push("Search results", `Found ${plural(total, "match", "es")}; showing ${Math.min(details.matches.length, MAX_MATCHES)}.`);
      for (const match of details.matches.slice(0, MAX_MATCHES)) {
        const snippet = match.text.replace(/\s+/g, " ").trim().slice(0, 300);
        lines.push(`- ${match.path}:${match.line}${snippet ? `  ${snippet}` : ""}`);
      }
    } else {
      return { content: [textContent(truncate(event.content))] };
    }
    if (details.truncated && details.nextOffset !== undefined) lines.push(`More results: use offset=${details.nextOffset}.`);
    return { content: [textContent(truncate(lines.join("\n"), DISPLAY_LIMIT_LARGE))] };
  },
};
