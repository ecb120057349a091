import { describe, expect, it } from "vitest";
import { DEFAULT_MCP_CONNECT_TIMEOUT_MS, DEFAULT_MCP_TOOL_TIMEOUT_MS, resolveMcpServers, type McpServerInput } from "./server-spec.js";

const stdio: McpServerInput = { name: "demo", transport: "stdio", command: "node", args: ["server.mjs"], env: { A: "1" } };

describe("resolveMcpServers", () => {
  it("takes the editor's servers with the default timeouts", () => {
    const { specs, problems } = resolveMcpServers([stdio], {}, {});
    expect(problems).toEqual([]);
    expect(specs).toEqual([{ ...stdio, source: "editor", timeoutMs: DEFAULT_MCP_TOOL_TIMEOUT_MS, connectTimeoutMs: DEFAULT_MCP_CONNECT_TIMEOUT_MS }]);
  });

  it("reads config.yaml servers in Hermes' format, stdio and http and sse, expanding ${VAR}", () => {
    const { specs } = resolveMcpServers(
      [],
      {
        github: { command: "npx", args: ["-y", "server-github", 3], env: { GITHUB_TOKEN: "${GH}", DEBUG: true, SKIP: null }, timeout: 120, connect_timeout: 5 },
        remote: { url: "https://example.com/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
        legacy: { url: "https://example.com/sse", transport: "sse" },
      },
      { GH: "ghp_secret", TOKEN: "t0ken" },
    );
    expect(specs).toEqual([
      {
        name: "github",
        transport: "stdio",
        command: "npx",
        args: ["-y", "server-github", "3"],
        env: { GITHUB_TOKEN: "ghp_secret", DEBUG: "true" },
        source: "config",
        timeoutMs: 120_000,
        connectTimeoutMs: 5_000,
      },
      {
        name: "remote",
        transport: "http",
        url: "https://example.com/mcp",
        headers: { Authorization: "Bearer t0ken" },
        source: "config",
        timeoutMs: DEFAULT_MCP_TOOL_TIMEOUT_MS,
        connectTimeoutMs: DEFAULT_MCP_CONNECT_TIMEOUT_MS,
      },
      expect.objectContaining({ name: "legacy", transport: "sse", headers: {} }),
    ]);
  });

  it("lets the editor's server win by name while keeping the configured timeout and tool filter", () => {
    const { specs } = resolveMcpServers([stdio], { demo: { command: "other", timeout: 28800, tools: { exclude: ["fail"] } } }, {});
    expect(specs).toEqual([{ ...stdio, source: "editor", timeoutMs: 28_800_000, connectTimeoutMs: DEFAULT_MCP_CONNECT_TIMEOUT_MS, exclude: ["fail"] }]);
  });

  it("keeps names as written (ai.exa/exa), skips disabled entries and reports unusable ones", () => {
    const { specs, problems } = resolveMcpServers([], { "ai.exa/exa": { url: "https://mcp.exa.ai/mcp" }, off: { command: "x", enabled: false }, broken: { args: [] }, odd: "text" }, {});
    expect(specs.map((spec) => spec.name)).toEqual(["ai.exa/exa"]);
    expect(problems).toEqual([
      { name: "broken", reason: "needs `command` (stdio) or `url` (http, sse)" },
      { name: "odd", reason: "expected a map with `command` or `url`" },
    ]);
  });

  it("leaves config.yaml servers out with HERMES_ACP_SKIP_CONFIGURED_MCP=1", () => {
    const { specs } = resolveMcpServers([stdio], { other: { command: "x" } }, { HERMES_ACP_SKIP_CONFIGURED_MCP: "1" });
    expect(specs.map((spec) => spec.name)).toEqual(["demo"]);
  });
});
