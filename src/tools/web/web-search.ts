import { defineTool, type ToolContext, type ToolResult } from "../types.js";
import type { WebSearchResultDetails } from "./details.js";
import { describeWebSearch, webSearchParams, type WebSearchArgs } from "./params.js";

export type { WebSearchDetails, WebSearchResultDetails } from "./details.js";
export type { WebSearchArgs } from "./params.js";

const DESCRIPTION =
  "Search the web for information on any topic. Returns up to 5 relevant results with titles, URLs and descriptions " +
  "(search snippets only: pass the URLs worth reading to web_extract for their content).";

/**
 * `web_search`: one query to the configured backend (see `backend-config.ts`), at most 5 results
 * as `{success: true, data: {web: [{title, url, description, position}]}}` (Hermes' JSON). Offered
 * only where a backend is configured (the `web_search` availability check); a failing backend is
 * an `isError` result `{success: false, error}`. Only cancellation throws. The body
 * (`search-run.ts`) loads on the first call.
 */
export const webSearchTool = defineTool({
  name: "web_search",
  description: DESCRIPTION,
  kind: "fetch",
  mutating: false,
  params: webSearchParams,
  describe: describeWebSearch,
  async execute(args: WebSearchArgs, ctx: ToolContext): Promise<ToolResult<WebSearchResultDetails>> {
    const { runWebSearch } = await import("./search-run.js");
    return runWebSearch(args, ctx);
  },
});
