import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ES module of the build, without type declarations
import { SDK_MODULE, withSdkFetchGlobals } from "../scripts/sdk-fetch-globals.mjs";

/** The build's rewrite of the model SDKs' modules (scripts/sdk-fetch-globals.mjs). */
describe("withSdkFetchGlobals", () => {
  it("imports fetch-classes.ts's classes for exactly the globals a module names, and leaves the rest of it as it was", () => {
    const source = "const h = new Headers();\nif (body instanceof FormData) send(body);\n";
    const [first, ...rest] = (withSdkFetchGlobals(source) as string).split("\n");
    expect(first).toMatch(/^import \{ HttpHeaders as Headers, SdkFormData as FormData \} from ".*[\\/]src[\\/]llm[\\/]fetch-classes\.ts";$/);
    expect(rest.join("\n")).toBe(source);
    expect((withSdkFetchGlobals("new Headers(x)") as string).split("\n")[0]).toMatch(/^import \{ HttpHeaders as Headers \} from /);
    expect(withSdkFetchGlobals("const HeadersLike = 1; // FormDataish")).toBe("const HeadersLike = 1; // FormDataish");
  });

  it("applies to the openai and Anthropic SDKs' ES modules only", () => {
    expect((SDK_MODULE as RegExp).test("/x/node_modules/openai/internal/headers.mjs")).toBe(true);
    expect((SDK_MODULE as RegExp).test("/x/node_modules/@anthropic-ai/sdk/client.mjs")).toBe(true);
    expect((SDK_MODULE as RegExp).test("/x/node_modules/@modelcontextprotocol/sdk/client.mjs")).toBe(false);
    expect((SDK_MODULE as RegExp).test("/x/src/llm/http-fetch.ts")).toBe(false);
  });
});
