// An esbuild plugin for the model SDKs (openai, @anthropic-ai/sdk): their modules get
// src/llm/fetch-classes.ts's `HttpHeaders` and `SdkFormData` under the names `Headers` and
// `FormData`, in place of the globals, whose first touch evaluates Node's bundled undici, with
// http2, tls and zlib (~40 ms of CPU in a session's first prompt). The SDKs build and read headers
// as before (their `instanceof Headers` tests for the one class they now make); `FormData` is
// still Node's, only the SDKs' `body instanceof FormData` on a plain request body no longer
// loads it. The bundle's other code is left alone. A module that declares either name itself
// fails the build (a duplicate binding).
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/** The SDKs' ES modules (what `import("openai")` and `import("@anthropic-ai/sdk")` bundle). */
export const SDK_MODULE = /[\\/]node_modules[\\/](openai|@anthropic-ai[\\/]sdk)[\\/].*\.mjs$/;

const FETCH_CLASSES = fileURLToPath(new URL("../src/llm/fetch-classes.ts", import.meta.url));

/** fetch-classes.ts's export for each global an SDK module may name. */
const REPLACED = { Headers: "HttpHeaders", FormData: "SdkFormData" };

/** The source of an SDK module with each replaced global it names imported from fetch-classes.ts. */
export function withSdkFetchGlobals(source) {
  const named = Object.entries(REPLACED).filter(([global]) => new RegExp(`\\b${global}\\b`).test(source));
  if (named.length === 0) return source;
  const imports = named.map(([global, local]) => `${local} as ${global}`).join(", ");
  return `import { ${imports} } from ${JSON.stringify(FETCH_CLASSES)};\n${source}`;
}

/** The esbuild plugin. */
export const sdkFetchGlobals = {
  name: "sdk-fetch-globals",
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: SDK_MODULE }, async (args) => ({ contents: withSdkFetchGlobals(await readFile(args.path, "utf8")), loader: "js" }));
  },
};
