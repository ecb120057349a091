/**
 * Misbehaviours shared by the scripted model servers (fake-llm, fake-anthropic): a server that never
 * sends response headers, and one that streams forever. Both end only when the client disconnects
 * (or the server closes), so a test that sees them end has shown that the client gave up.
 */
import type { ServerResponse } from "node:http";

/** A request answered with nothing at all, not even headers. */
export interface HangStep {
  hang: "headers";
}

/**
 * A stream that never finishes: SSE headers, then answer chunks of about `chunkChars` characters
 * (default 4,000) without end, each written once the socket took the previous one.
 */
export interface EndlessStep {
  endless: true;
  chunkChars?: number;
}

/** Resolves when `signal` fires; the response is left untouched. */
export function hangUntilClosed(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/**
 * Writes the SSE headers and then `frame(i)` for i = 0, 1, 2, … until `signal` fires or the response
 * is destroyed. Waits for each write to be flushed, so memory stays flat on the server side.
 */
export async function streamForever(res: ServerResponse, signal: AbortSignal, frame: (index: number) => string): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  for (let index = 0; !signal.aborted && !res.destroyed; index++) {
    // A write to a socket the client dropped may never call back; the signal ends the wait then.
    const flushed = await new Promise<boolean>((resolve) => {
      const onAbort = (): void => resolve(false);
      signal.addEventListener("abort", onAbort, { once: true });
      res.write(frame(index), (error) => {
        signal.removeEventListener("abort", onAbort);
        resolve(!error);
      });
    });
    if (!flushed) return;
  }
}

/** `chars` characters of filler text (words and spaces), the same every time. */
export function fillerText(chars: number): string {
  return "endless ".repeat(Math.ceil(chars / 8)).slice(0, chars);
}
