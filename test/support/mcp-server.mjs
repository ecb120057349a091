// A tiny MCP server for tests, written with the MCP SDK. Plain ESM so a test (or the built agent)
// can start it with `node test/support/mcp-server.mjs` and no compile step; types for TypeScript
// callers are in mcp-server.d.mts.
//
// Tools: echo {text}, add {a, b}, fail {} (an isError result), picture {} (text + image),
// where {} (cwd, pid and $DEMO_GREETING, as JSON), wait {} (answers only when cancelled).
// Run directly, it serves stdio; with $MCP_DEMO_PID_FILE set it first writes its pid there.
// `startHttpMcpServer()` serves streamable HTTP on /mcp and SSE on /sse + /messages at 127.0.0.1.
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/** A fresh server with the demo tools. `onCall` sees every tool call (name and arguments). */
export function createDemoServer(onCall = () => {}) {
  const server = new McpServer({ name: "demo", version: "1.0.0" });
  server.registerTool("echo", { description: "Echoes the text back", inputSchema: { text: z.string().describe("What to echo") } }, async ({ text }) => {
    onCall("echo", { text });
    return { content: [{ type: "text", text: `echo: ${text}` }] };
  });
  server.registerTool(
    "add",
    { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() }, annotations: { readOnlyHint: true } },
    async ({ a, b }) => {
      onCall("add", { a, b });
      return { content: [{ type: "text", text: String(a + b) }] };
    },
  );
  server.registerTool("fail", { description: "Always fails" }, async () => {
    onCall("fail", {});
    return { content: [{ type: "text", text: "boom: the demo tool failed" }], isError: true };
  });
  server.registerTool("picture", { description: "Returns a one-pixel picture" }, async () => {
    onCall("picture", {});
    return { content: [{ type: "text", text: "here it is" }, { type: "image", data: PIXEL_PNG, mimeType: "image/png" }] };
  });
  server.registerTool("where", { description: "Where the server runs" }, async () => {
    onCall("where", {});
    const info = { cwd: process.cwd(), pid: process.pid, greeting: process.env.DEMO_GREETING ?? null, openrouter: process.env.OPENROUTER_API_KEY ?? null };
    return { content: [{ type: "text", text: JSON.stringify(info) }] };
  });
  server.registerTool("wait", { description: "Waits until cancelled" }, async (_args, extra) => {
    onCall("wait", {});
    await new Promise((resolve) => extra.signal.addEventListener("abort", resolve, { once: true }));
    return { content: [{ type: "text", text: "cancelled" }] };
  });
  return server;
}

/**
 * Serves the demo tools over HTTP on 127.0.0.1 (a free port): streamable HTTP (stateless) at
 * `/mcp`, SSE at `/sse` with posts to `/messages`. Records tool calls and request headers.
 */
export async function startHttpMcpServer() {
  const calls = [];
  const headers = [];
  const sseTransports = new Map();
  const onCall = (name, args) => calls.push({ name, args });
  const http = createServer(async (req, res) => {
    headers.push({ method: req.method, url: req.url, headers: req.headers });
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    try {
      if (url.pathname === "/mcp") {
        if (req.method !== "POST") {
          res.writeHead(405, { Allow: "POST" }).end();
          return;
        }
        const server = createDemoServer(onCall);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on("close", () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res);
        return;
      }
      if (url.pathname === "/sse" && req.method === "GET") {
        const transport = new SSEServerTransport("/messages", res);
        sseTransports.set(transport.sessionId, transport);
        res.on("close", () => sseTransports.delete(transport.sessionId));
        await createDemoServer(onCall).connect(transport);
        return;
      }
      if (url.pathname === "/messages" && req.method === "POST") {
        const transport = sseTransports.get(url.searchParams.get("sessionId") ?? "");
        if (!transport) {
          res.writeHead(404).end("unknown session");
          return;
        }
        await transport.handlePostMessage(req, res);
        return;
      }
      res.writeHead(404).end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sseUrl: `http://127.0.0.1:${port}/sse`,
    calls,
    headers,
    close: () =>
      new Promise((resolve) => {
        for (const transport of sseTransports.values()) void transport.close();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** The command that starts the stdio server: `[process.execPath, <this file>]`. */
export const STDIO_SERVER = [process.execPath, fileURLToPath(import.meta.url)];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.env.MCP_DEMO_PID_FILE) writeFileSync(process.env.MCP_DEMO_PID_FILE, String(process.pid));
  if (process.env.MCP_DEMO_STDERR) process.stderr.write(`${process.env.MCP_DEMO_STDERR}\n`);
  if (process.env.MCP_DEMO_CRASH) {
    process.stderr.write("demo server: refusing to start (MCP_DEMO_CRASH)\n");
    process.exit(3);
  }
  await createDemoServer().connect(new StdioServerTransport());
}
