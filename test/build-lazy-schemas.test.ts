import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ES module of the build, without type declarations
import { lazifyZodModule } from "../scripts/lazy-zod-schemas.mjs";

/**
 * The build's lazy-schema rewrite of the ACP SDK's generated zod module (scripts/lazy-zod-schemas.mjs)
 * against the published module itself: same exports, and every schema accepts, rejects and
 * transforms the same values with the same issues.
 */
const require = createRequire(import.meta.url);
const sdkRoot = dirname(dirname(dirname(require.resolve("@agentclientprotocol/sdk/unstable"))));
const folder = mkdtempSync(join(tmpdir(), "hermes-lazy-schemas-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

type SchemaModule = Record<string, { safeParse(value: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } }; _zod: { def: { type: string } } }>;

/** The published module and its rewrite, both evaluated (the rewrite from a temp file with absolute imports). */
async function bothModules(relative: string): Promise<{ original: SchemaModule; lazy: SchemaModule }> {
  const file = join(sdkRoot, relative);
  const source = readFileSync(file, "utf8");
  const rewritten = (lazifyZodModule(source, file) as string).replace(/from "([^"]+)"/g, (_whole, specifier: string) => {
    const target = specifier.startsWith(".") ? pathToFileURL(join(dirname(file), specifier)).href : pathToFileURL(require.resolve(specifier)).href;
    return `from ${JSON.stringify(target)}`;
  });
  const out = join(folder, relative.replace(/[\\/]/g, "_").replace(/\.js$/, ".mjs"));
  writeFileSync(out, rewritten);
  return { original: (await import(pathToFileURL(file).href)) as SchemaModule, lazy: (await import(pathToFileURL(out).href)) as SchemaModule };
}

const SAMPLES: Record<string, unknown[]> = {
  zInitializeRequest: [
    { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true } },
    { protocolVersion: 1 },
    { protocolVersion: "one" },
    { protocolVersion: 1, clientCapabilities: "broken", clientInfo: 7 },
  ],
  zNewSessionRequest: [{ cwd: "/w", mcpServers: [] }, { cwd: "/w", mcpServers: [{ name: "x", command: "y", args: [], env: [] }] }, { cwd: 3 }, {}],
  zPromptRequest: [
    { sessionId: "s", prompt: [{ type: "text", text: "hi" }] },
    { sessionId: "s", prompt: [{ type: "image", data: "AAAA", mimeType: "image/png" }, { type: "resource_link", uri: "file:///a", name: "a" }] },
    { sessionId: "s", prompt: [{ type: "text" }] },
    { sessionId: "s", prompt: [{ type: "mystery", text: "?" }] },
    { prompt: [] },
  ],
  zSessionNotification: [
    { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } } },
    { sessionId: "s", update: { sessionUpdate: "tool_call", toolCallId: "t", title: "Read", kind: "read", status: "pending" } },
    { sessionId: "s", update: { sessionUpdate: "tool_call_update", toolCallId: "t", status: "done?" } },
    { sessionId: "s", update: { sessionUpdate: "usage_update", used: 5, size: 10 } },
    { sessionId: "s", update: { sessionUpdate: "agent_message_chunk" } },
  ],
  zRequestPermissionRequest: [
    { sessionId: "s", toolCall: { toolCallId: "t" }, options: [{ optionId: "a", name: "Allow", kind: "allow_once" }] },
    { sessionId: "s", toolCall: { toolCallId: "t" }, options: [{ optionId: "a", name: "Allow", kind: "sometimes" }] },
  ],
  zSetSessionConfigOptionRequest: [{ sessionId: "s", configId: "mode", value: "ask" }, { sessionId: "s", configId: "x", type: "boolean", value: true }, { sessionId: "s" }],
  zCreateElicitationRequest: [{ sessionId: "s", mode: "form", message: "m", requestedSchema: { type: "object", properties: { a: { type: "string" } } } }, { mode: "url" }],
};

describe.each(["v1/unstable/schema/zod.gen.js", "v1/schema/zod.gen.js"])("the lazy rewrite of %s", (relative) => {
  it("exports the same schemas, each a lazy one", async () => {
    const { original, lazy } = await bothModules(relative);
    expect(Object.keys(lazy).sort()).toEqual(Object.keys(original).sort());
    expect(Object.keys(lazy).length).toBeGreaterThan(100);
    for (const name of Object.keys(lazy)) expect(lazy[name]?._zod.def.type).toBe("lazy");
  });

  it("parses every sample as the published schemas do: same success, data and issues", async () => {
    const { original, lazy } = await bothModules(relative);
    let compared = 0;
    for (const [name, values] of Object.entries(SAMPLES)) {
      const published = original[name];
      const rewritten = lazy[name];
      if (!published || !rewritten) continue;
      for (const value of values) {
        const expected = published.safeParse(value);
        const actual = rewritten.safeParse(value);
        expect(actual.success, `${name} ${JSON.stringify(value)}`).toBe(expected.success);
        if (expected.success) expect(actual.data).toEqual(expected.data);
        else expect(actual.error?.issues).toEqual(expected.error?.issues);
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(15);
  });

  it("parses every schema's empty and mistyped values alike", async () => {
    const { original, lazy } = await bothModules(relative);
    for (const name of Object.keys(original)) {
      for (const value of [{}, null, "x", 1, [], { type: "text", text: 1 }]) {
        const expected = original[name]?.safeParse(value);
        const actual = lazy[name]?.safeParse(value);
        expect(actual?.success, name).toBe(expected?.success);
        if (expected?.success) expect(actual?.data).toEqual(expected.data);
        else expect(actual?.error?.issues).toEqual(expected?.error?.issues);
      }
    }
  });
});

describe("the lazy rewrite's guard", () => {
  it("refuses a module that is not of the generator's shape, naming the file", () => {
    const header = 'import * as z from "zod/v4";\n';
    expect(() => lazifyZodModule(`${header}export const zA = z.string();\nconsole.log(zA);\n`, "odd.js")).toThrow(/odd\.js: unexpected top-level statement/);
    expect(() => lazifyZodModule(`${header}export let zA = z.string();\n`, "odd.js")).toThrow(/unexpected top-level statement/);
    expect(() => lazifyZodModule("export const zA = 1;\n", "odd.js")).toThrow(/no `import \* as z/);
  });

  it("rewrites references, shorthand properties included, but not property names", () => {
    const out = lazifyZodModule('import * as z from "zod/v4";\nexport const zA = z.string();\nexport const zB = z.object({ zA, other: zA.optional(), x: z.zA });\n') as string;
    expect(out).toContain("zA: zA$$build()");
    expect(out).toContain("other: zA$$build().optional()");
    expect(out).toContain("x: z.zA");
    expect(out).toContain("export const zB = /* @__PURE__ */ z.lazy(zB$$build);");
  });
});
