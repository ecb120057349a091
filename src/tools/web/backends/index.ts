import type { BackendSettings } from "../backend-config.js";
import { exaBackend } from "./exa.js";
import { firecrawlBackend } from "./firecrawl.js";
import type { WebBackend } from "./http.js";
import { parallelBackend } from "./parallel.js";
import { searxngBackend } from "./searxng.js";
import { tavilyBackend } from "./tavily.js";

export type { BackendPage, SearchHit, WebBackend } from "./http.js";
export { BackendError } from "./http.js";

/** The client for `settings`' backend. Builds nothing until called; never throws. */
export function createBackend(settings: BackendSettings, env: NodeJS.ProcessEnv): WebBackend {
  switch (settings.name) {
    case "firecrawl":
      return firecrawlBackend(settings);
    case "parallel":
      return parallelBackend(settings, env);
    case "tavily":
      return tavilyBackend(settings);
    case "exa":
      return exaBackend(settings);
    case "searxng":
      return searxngBackend(settings);
  }
}
