import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/** A page or a handler, by path. */
export type PageRoute = string | ((req: IncomingMessage, res: ServerResponse) => void);

export interface PageServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Paths requested so far, in order (`/page?x=1`). */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A local HTTP server on 127.0.0.1 serving real pages for the browser tests: each route's HTML
 * as `text/html`, or its handler; anything else 404.
 */
export async function startPageServer(routes: Record<string, PageRoute>): Promise<PageServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? "");
    const route = routes[(req.url ?? "/").split("?")[0]!];
    if (typeof route === "function") return route(req, res);
    if (route === undefined) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(route);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
