import { isRecord, textContent, truncate, DISPLAY_LIMIT_LARGE } from "./text.js";
import type { ToolRenderer } from "./types.js";

const MAX_FILES = 20;
const MAX_MATCHES = 12;

/** "Searching for '<pattern>' …" at start; a short list of files or matches at the end. */
export const searchFilesRenderer: ToolRenderer = {
  start(event) {
    if (!isRecord(event.args)) return [];
    const target = event.args.target === "files" ? "files" : "content";
    const where = typeof event.args.path === "string" && event.args.path ? ` in ${event.args.path}` : "";
    return [textContent(`Searching for '${String(event.args.pattern ?? "")}' (${target})${where}`)];
  },
  complete(event) {
    const details = event.details;
    if (event.isError || !isRecord(details)) return { content: [textContent(truncate(event.content))] };
    const lines: string[] = [];
    const total = typeof details.total === "number" ? details.total : 0;
    if (Array.isArray(details.files)) {
      const files = details.files as unknown[];
      lines.push("File search results", `Found ${total} file(s); showing ${Math.min(files.length, MAX_FILES)}.`);
      for (const file of files.slice(0, MAX_FILES)) lines.push(`- ${String(file)}`);
    } else if (Array.isArray(details.counts)) {
      lines.push("Match counts", `Found matches in ${total} file(s).`);
      for (const row of (details.counts as unknown[]).slice(0, MAX_FILES)) {
        if (isRecord(row)) lines.push(`- ${String(row.path)}: ${String(row.count)}`);
      }
    } else if (Array.isArray(details.matches)) {
      const matches = details.matches as unknown[];
      lines.push("Search results", `Found ${total} match(es); showing ${Math.min(matches.length, MAX_MATCHES)}.`);
      for (const match of matches.slice(0, MAX_MATCHES)) {
        if (!isRecord(match)) continue;
        const snippet = String(match.text ?? "").replace(/\s+/g, " ").trim().slice(0, 300);
        lines.push(`- ${String(match.path)}:${String(match.line)}${snippet ? `  ${snippet}` : ""}`);
      }
    } else {
      return { content: [textContent(truncate(event.content))] };
    }
    if (details.truncated && typeof details.nextOffset === "number") lines.push(`More results: use offset=${details.nextOffset}.`);
    return { content: [textContent(truncate(lines.join("\n"), DISPLAY_LIMIT_LARGE))] };
  },
};
