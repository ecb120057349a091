import { describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import { parseToolArgs, ToolRegistry } from "../registry.js";
import { createMcpTool, formatMcpResult, mcpToolName, type McpCallResult, type McpCallTool } from "./mcp-tool.js";

const echoInfo = {
  name: "echo",
  description: "Echoes the text back",
  inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};

describe("mcpToolName", () => {
  it("is mcp__<server>__<tool> with unusable characters replaced", () => {
    expect(mcpToolName("demo", "echo")).toBe("mcp__demo__echo");
    expect(mcpToolName("ai.exa/exa", "web.search")).toBe("mcp__ai_exa_exa__web_search");
    expect(mcpToolName("my-server", "do-it")).toBe("mcp__my-server__do-it");
  });

  it("keeps long names within 64 characters, distinct and stable", () => {
    const a = mcpToolName("a-very-long-server-name-for-testing", "an_equally_long_tool_name_number_one");
    const b = mcpToolName("a-very-long-server-name-for-testing", "an_equally_long_tool_name_number_two");
    expect(a.length).toBeLessThanOrEqual(64);
    expect(b.length).toBeLessThanOrEqual(64);
    expect(a).not.toBe(b);
    expect(mcpToolName("a-very-long-server-name-for-testing", "an_equally_long_tool_name_number_one")).toBe(a);
  });
});

describe("createMcpTool", () => {
  it("sends the server's JSON schema to the model and accepts any object as arguments", () => {
    const tool = createMcpTool("demo", echoInfo, async () => ({ content: [] }));
    const registry = new ToolRegistry([tool]);
    expect(registry.schemas()).toEqual([
      {
        name: "mcp__demo__echo",
        description: "Echoes the text back",
        parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      },
    ]);
    expect(tool.kind).toBe("other");
    expect(parseToolArgs(tool, '{"text":"hi","extra":1}')).toEqual({ ok: true, args: { text: "hi", extra: 1 } });
    expect(parseToolArgs(tool, "")).toEqual({ ok: true, args: {} });
    expect(parseToolArgs(tool, "[1]").ok).toBe(false);
  });

  it("gives a schema without properties an empty properties object, and a description when the server has none", () => {
    const tool = createMcpTool("demo", { name: "ping" }, async () => ({ content: [] }));
    expect(tool.jsonSchema).toEqual({ type: "object", properties: {} });
    expect(tool.description).toBe("Tool ping of MCP server demo");
  });

  it("is mutating unless the server marks it read-only", () => {
    expect(createMcpTool("demo", echoInfo, async () => ({})).mutating).toBe(true);
    expect(createMcpTool("demo", { ...echoInfo, annotations: { readOnlyHint: true } }, async () => ({})).mutating).toBe(false);
  });

  it("calls the server's tool by its own name with the arguments and the turn's signal", async () => {
    const seen: { name: string; args: unknown; signal: AbortSignal }[] = [];
    const call: McpCallTool = async (name, args, signal) => {
      seen.push({ name, args, signal });
      return { content: [{ type: "text", text: "echo: hi" }] };
    };
    const ctx = toolContext();
    const result = await createMcpTool("demo", echoInfo, call).execute({ text: "hi" }, ctx);
    expect(result).toEqual({ content: "echo: hi", details: { server: "demo", tool: "echo" } });
    expect(seen).toEqual([{ name: "echo", args: { text: "hi" }, signal: ctx.signal }]);
  });

  it("turns a rejected call into an error result, and a cancelled one into a cancellation", async () => {
    const failing = createMcpTool("demo", echoInfo, async () => {
      throw new Error('MCP server "demo" is not connected (closed)');
    });
    expect(await failing.execute({}, toolContext())).toMatchObject({ isError: true, content: expect.stringContaining("not connected") });
    const controller = new AbortController();
    controller.abort();
    expect(await failing.execute({}, toolContext({ signal: controller.signal }))).toMatchObject({ isError: true, content: "Tool call cancelled by the user." });
  });
});

describe("formatMcpResult", () => {
  const format = (result: McpCallResult) => formatMcpResult("demo", "tool", result);

  it("joins text blocks and keeps isError", () => {
    expect(format({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }).content).toBe("a\nb");
    expect(format({ content: [{ type: "text", text: "boom" }], isError: true })).toMatchObject({ content: "boom", isError: true });
    expect(format({ content: [], isError: true })).toMatchObject({ content: "MCP tool tool failed without a message.", isError: true });
    expect(format({ content: [] }).content).toBe("(no output)");
  });

  it("describes images, audio and resources instead of inlining them", () => {
    const text = format({
      content: [
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "inside" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAAAA==" } },
        { type: "resource_link", uri: "file:///c.md", name: "c.md" },
        { type: "hologram" },
      ],
    }).content;
    expect(text.split("\n")).toEqual([
      "[image: image/png, 8 bytes]",
      "[audio: audio/wav, 3 bytes]",
      "[resource: file:///a.txt (text/plain)]",
      "inside",
      "[resource: file:///b.bin, 4 bytes of binary data]",
      "[resource link: c.md <file:///c.md>]",
      "[hologram content]",
    ]);
  });

  it("uses structured content when there is no content, and keeps it in details", () => {
    const result = format({ structuredContent: { sum: 3 } });
    expect(result.content).toBe('{"sum":3}');
    expect(result.details).toEqual({ server: "demo", tool: "tool", structuredContent: { sum: 3 } });
  });

  it("cuts very long output with a note", () => {
    const result = format({ content: [{ type: "text", text: "x".repeat(150_000) }] });
    expect(result.content.length).toBeLessThan(100_100);
    expect(result.content).toContain("[truncated: 150000 chars total]");
  });
});
