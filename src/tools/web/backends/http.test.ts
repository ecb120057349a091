import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { requestJson } from "./http.js";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("requestJson", () => {
  it("never follows a backend's redirect, so its API key stays with the backend", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const elsewhere = await serve((request, response) => {
      seen.push(request.headers);
      response.end("{}");
    });
    const backend = await serve((_request, response) => {
      response.writeHead(307, { location: `${elsewhere}/collect` });
      response.end();
    });
    await expect(requestJson("Exa", `${backend}/search`, { method: "POST", headers: { "x-api-key": "exa-secret-key-0001" }, body: {} }, new AbortController().signal)).rejects.toThrow(
      /redirected to http:\/\/127\.0\.0\.1:\d+; redirects are not followed/,
    );
    expect(seen).toEqual([]);
  });
});
