import { isAbortError, throwIfAborted } from "../../shared/abort.js";
import { errorMessage } from "../../shared/errors.js";
import type { ToolContext, ToolResult } from "../types.js";
import { selectBackend, webEnv } from "./backend-config.js";
import { createBackend } from "./backends/index.js";
import type { WebSearchDetails, WebSearchResultDetails } from "./details.js";
import { WEB_SEARCH_LIMIT, type WebSearchArgs } from "./params.js";

/** Longest description kept in `details` (the model gets the whole one). */
const DETAIL_DESCRIPTION_CHARS = 400;

/** `web_search`'s body (see `webSearchTool`). Rejects only with an AbortError. */
export async function runWebSearch(args: WebSearchArgs, ctx: ToolContext): Promise<ToolResult<WebSearchResultDetails>> {
  throwIfAborted(ctx.signal);
  const query = args.query.trim();
  if (!query) return failure("query is empty: pass the words to search for");
  const env = webEnv(process.env, ctx.hermesHome);
  const choice = selectBackend(ctx.config, env);
  if (!choice.backend) return failure(`Web search is not available: ${choice.reason}`);
  const backend = createBackend(choice.backend, env);
  try {
    const hits = await backend.search(query, WEB_SEARCH_LIMIT, ctx.signal);
    const details: WebSearchDetails = {
      query,
      backend: backend.label,
      results: hits.map(({ title, url, description }) => ({ title, url, description: description.slice(0, DETAIL_DESCRIPTION_CHARS) })),
    };
    return { content: JSON.stringify({ success: true, data: { web: hits } }, null, 2), details };
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error;
    return failure(`Error searching web: ${errorMessage(error)}`);
  }
}

function failure(error: string): ToolResult<WebSearchResultDetails> {
  return { content: JSON.stringify({ success: false, error }), details: { error }, isError: true };
}
