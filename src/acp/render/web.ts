import type { WebExtractPage } from "../../tools/web/details.js";
import { hostPath } from "../../tools/web/params.js";
import { errorText, fenced, textContent, truncate, DISPLAY_LIMIT, DISPLAY_LIMIT_LARGE } from "./text.js";
import type { ToolRenderer } from "./types.js";

/** Longest description under a search result, and page preview under an extracted page. */
const MAX_DESCRIPTION = 300;
const MAX_PREVIEW = 800;

/**
 * `web_search` in the editor. Start: `Searching the web for: <q>`. Completion: a heading naming
 * the query and backend, then one numbered line per result, `[title](url)`, its description
 * (≤ 300 chars) below; 7,000 chars at most. Failures show the error; calls without details their text.
 */
export const webSearchRenderer: ToolRenderer<"web_search"> = {
  start(event) {
    const query = event.input?.query?.trim();
    return query ? [textContent(`Searching the web for: ${query}`)] : [];
  },
  complete(event) {
    const details = event.details;
    if (event.isError) {
      const error = details && "error" in details ? details.error : errorText(event.content);
      return { content: [textContent(truncate(`Web search failed: ${error}`))], failed: true };
    }
    if (!details || "error" in details) return { content: event.content ? [textContent(truncate(event.content))] : [] };
    const lines = [`Web search results for ${code(details.query)} (${details.backend})`, ""];
    if (details.results.length === 0) lines.push("No results.");
    details.results.forEach((row, index) => {
      lines.push(`${index + 1}. ${link(row.title || row.url, row.url)}`);
      const description = row.description.replace(/\s+/g, " ").trim();
      if (description) lines.push(`   ${description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION - 1)}…` : description}`);
    });
    return { content: [textContent(truncate(lines.join("\n"), DISPLAY_LIMIT_LARGE))] };
  },
};

/**
 * `web_extract` in the editor. Start: the URLs being read. Completion: how many pages were read
 * and how (directly or through the backend), then per page a heading with its title and URL,
 * its size and whether it came whole, summarised or cut, and the start of what the model got in
 * a fence (≤ 800 chars); a failed page shows its error. 7,000 chars at most. The call fails only
 * when no page could be read.
 */
export const webExtractRenderer: ToolRenderer<"web_extract"> = {
  start(event) {
    const urls = (event.input?.urls ?? []).map((url) => url.trim()).filter(Boolean);
    return urls.length ? [textContent(`Reading ${urls.map((url) => `<${url}>`).join(", ")}`)] : [];
  },
  complete(event) {
    const details = event.details;
    if (!details || "error" in details) {
      if (event.isError) return { content: [textContent(truncate(`Extract failed: ${details && "error" in details ? details.error : errorText(event.content)}`))], failed: true };
      return { content: event.content ? [textContent(truncate(event.content))] : [] };
    }
    const read = details.pages.filter((page) => !page.error).length;
    const via = details.via === "direct" ? "fetched directly" : `via ${details.via}`;
    const sections = [`Read ${read} of ${details.pages.length} page${details.pages.length === 1 ? "" : "s"} (${via})`, ...details.pages.map(pageSection)];
    return { content: [textContent(truncate(sections.join("\n\n"), DISPLAY_LIMIT_LARGE))], ...(read === 0 ? { failed: true } : {}) };
  },
};

function pageSection(page: WebExtractPage): string {
  const heading = `### ${page.title ? link(page.title, page.url) : `<${page.url}>`}`;
  if (page.error) return `${heading}\nFailed: ${page.error}`;
  const treatment = page.treatment === "summarized" ? "summarised by the model" : page.treatment === "cut" ? "cut to its first 5,000 characters" : "whole";
  const facts = `${hostPath(page.url)} · ${page.chars.toLocaleString("en-US")} chars · ${treatment}`;
  const preview = page.preview ?? "";
  const shown = preview.length > MAX_PREVIEW ? `${preview.slice(0, MAX_PREVIEW)}\n…` : preview;
  return shown ? `${heading}\n${facts}\n${fenced(shown.slice(0, DISPLAY_LIMIT), "markdown")}` : `${heading}\n${facts}`;
}

/** `[text](url)` with the text's brackets escaped and the URL's parentheses encoded. */
function link(text: string, url: string): string {
  const label = text.replace(/\s+/g, " ").trim().replace(/([[\]\\])/g, "\\$1");
  return `[${label}](${url.replace(/\(/g, "%28").replace(/\)/g, "%29").replace(/\s/g, "%20")})`;
}

/** Inline code with a backtick run longer than any inside `text`. */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}
