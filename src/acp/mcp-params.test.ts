import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { parseMcpServers } from "./mcp-params.js";

const SECRETS = ["/usr/bin/secret-server", "--token=abc", "ENV_SECRET_VALUE", "https://user:pw@mcp.example.com/x", "Bearer hdr-secret"];

const stdio = { name: "demo", command: "/usr/bin/secret-server", args: ["--token=abc"], env: [{ name: "API_KEY", value: "ENV_SECRET_VALUE" }] };
const http = { type: "http", name: "remote", url: "https://user:pw@mcp.example.com/x", headers: [{ name: "Authorization", value: "Bearer hdr-secret" }] };

function thrown(fn: () => unknown): RequestError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RequestError) return error;
    throw error;
  }
  throw new Error("expected a RequestError");
}

describe("parseMcpServers", () => {
  it("converts ACP stdio, http and sse servers", () => {
    expect(parseMcpServers([stdio, http, { ...http, type: "sse", name: "legacy", headers: [] }])).toEqual([
      { name: "demo", transport: "stdio", command: "/usr/bin/secret-server", args: ["--token=abc"], env: { API_KEY: "ENV_SECRET_VALUE" } },
      { name: "remote", transport: "http", url: "https://user:pw@mcp.example.com/x", headers: { Authorization: "Bearer hdr-secret" } },
      { name: "legacy", transport: "sse", url: "https://user:pw@mcp.example.com/x", headers: {} },
    ]);
    expect(parseMcpServers(undefined)).toEqual([]);
    expect(parseMcpServers([])).toEqual([]);
  });

  it("rejects duplicate names with -32602 naming the duplicate and nothing else", () => {
    const error = thrown(() => parseMcpServers([stdio, http, { ...http, name: "demo" }]));
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^Invalid params/);
    expect(error.data).toEqual({ serverName: "demo" });
    const wire = JSON.stringify(error.toResult());
    for (const secret of SECRETS) expect(wire).not.toContain(secret);
  });

  it("names the server and field of a malformed entry without its values", () => {
    const missingCommand = thrown(() => parseMcpServers([{ name: "x", args: ["--token=abc"], env: [] }]));
    expect(missingCommand.data).toEqual({ serverName: "x", field: "command" });
    const badUrl = thrown(() => parseMcpServers([{ ...http, url: "ftp://secret-host/ENV_SECRET_VALUE" }]));
    expect(badUrl.data).toEqual({ serverName: "remote", field: "url" });
    expect(JSON.stringify(badUrl.toResult())).not.toContain("ENV_SECRET_VALUE");
    const badEnv = thrown(() => parseMcpServers([{ ...stdio, env: [{ name: "A", value: 1 }] }]));
    expect(badEnv.data).toEqual({ serverName: "demo", field: "env" });
  });

  it("skips transports it does not advertise", () => {
    expect(parseMcpServers([{ type: "acp", name: "inline", id: "x" }, stdio]).map((server) => server.name)).toEqual(["demo"]);
  });
});
