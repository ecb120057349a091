import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { answeredBeforeEnd, CLIENT_GONE, RequestsInFlight } from "./input-drain.js";

const request = (id: string | number | null): AnyMessage => ({ jsonrpc: "2.0", id, method: "session/new", params: {} });
const result = (id: string | number | null): AnyMessage => ({ jsonrpc: "2.0", id, result: {} });

function source(messages: AnyMessage[]): ReadableStream<AnyMessage> {
  return new ReadableStream<AnyMessage>({
    start(controller) {
      for (const message of messages) controller.enqueue(message);
      controller.close();
    },
  });
}

/** Reads `stream` to its end; answers what it gave. */
async function readAll(stream: ReadableStream<AnyMessage>): Promise<AnyMessage[]> {
  const seen: AnyMessage[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) seen.push(next.value);
  return seen;
}

describe("RequestsInFlight", () => {
  it("counts the client's requests by id, a reused id once per request, and ignores notifications and responses to nothing", () => {
    const inFlight = new RequestsInFlight();
    inFlight.received(request(1));
    inFlight.received(request(1));
    inFlight.received(request(null));
    inFlight.received({ jsonrpc: "2.0", method: "session/cancel", params: {} });
    inFlight.received(result(7));
    inFlight.answered(result(99));
    expect(inFlight.size).toBe(2);
    inFlight.answered(result(1));
    inFlight.answered({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "bad" } });
    expect(inFlight.done).toBe(false);
    inFlight.answered(result(1));
    expect(inFlight.size).toBe(0);
    expect(inFlight.done).toBe(true);
  });

  it("keeps the agent's requests to the client apart: a client response settles one of them, never a client request", () => {
    const inFlight = new RequestsInFlight();
    inFlight.received(request(0));
    inFlight.answered({ jsonrpc: "2.0", id: 0, method: "session/request_permission", params: {} });
    inFlight.answered({ jsonrpc: "2.0", id: 4, method: "terminal/kill", params: {} });
    inFlight.answered({ jsonrpc: "2.0", id: 4, method: "terminal/kill", params: {} });
    inFlight.received(result(0));
    expect(inFlight.size).toBe(1);
    expect(inFlight.takeAsked()).toEqual([4, 4]);
    expect(inFlight.takeAsked()).toEqual([]);
  });

  it("wakes changed() waiters on a change and on release, after which it is done whatever is open", async () => {
    const inFlight = new RequestsInFlight();
    inFlight.received(request("a"));
    const changed = inFlight.changed();
    inFlight.answered({ jsonrpc: "2.0", id: 9, method: "fs/read_text_file", params: {} });
    await changed;
    const released = inFlight.changed();
    inFlight.release();
    await released;
    expect(inFlight.done).toBe(true);
    expect(inFlight.size).toBe(1);
  });
});

describe("answeredBeforeEnd", () => {
  it("passes every message on and closes at once when nothing is in flight at the end, without calling atEnd", async () => {
    const inFlight = new RequestsInFlight();
    let ends = 0;
    const messages: AnyMessage[] = [{ jsonrpc: "2.0", method: "session/cancel", params: {} }, result(5)];
    expect(await readAll(answeredBeforeEnd(source(messages), inFlight, () => (ends += 1), 60_000))).toEqual(messages);
    expect(ends).toBe(0);
  });

  it("at the end of input calls atEnd once and closes only after the last request read is answered", async () => {
    const inFlight = new RequestsInFlight();
    let ends = 0;
    const reader = answeredBeforeEnd(source([request(1), request(2)]), inFlight, () => (ends += 1), 60_000).getReader();
    expect((await reader.read()).value).toEqual(request(1));
    expect((await reader.read()).value).toEqual(request(2));
    let closed = false;
    const end = reader.read().then((next) => (closed = next.done));
    inFlight.answered(result(1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    expect(ends).toBe(1);
    inFlight.answered(result(2));
    await end;
    expect(closed).toBe(true);
    expect(ends).toBe(1);
  });

  it("after the end, answers each of the agent's requests to the client with CLIENT_GONE at once, also one sent later", async () => {
    const inFlight = new RequestsInFlight();
    const reader = answeredBeforeEnd(source([request("p")]), inFlight, () => undefined, 60_000).getReader();
    expect((await reader.read()).value).toEqual(request("p"));
    inFlight.answered({ jsonrpc: "2.0", id: 0, method: "terminal/wait_for_exit", params: {} });
    expect((await reader.read()).value).toEqual({ jsonrpc: "2.0", id: 0, error: CLIENT_GONE });
    const later = reader.read();
    inFlight.answered({ jsonrpc: "2.0", id: 1, method: "terminal/kill", params: {} });
    expect((await later).value).toEqual({ jsonrpc: "2.0", id: 1, error: CLIENT_GONE });
    const end = reader.read();
    inFlight.answered(result("p"));
    expect((await end).done).toBe(true);
  });

  it("closes after drainMs when a request is never answered", async () => {
    const inFlight = new RequestsInFlight();
    expect(await readAll(answeredBeforeEnd(source([request("never")]), inFlight, () => undefined, 10))).toEqual([request("never")]);
    expect(inFlight.size).toBe(1);
  });

  it("closes once released (the connection closed) while it waits", async () => {
    const inFlight = new RequestsInFlight();
    const seen = readAll(answeredBeforeEnd(source([request(3)]), inFlight, () => undefined, 60_000));
    await new Promise((resolve) => setImmediate(resolve));
    inFlight.release();
    expect(await seen).toEqual([request(3)]);
  });

  it("cancelling it cancels the source", async () => {
    let reason: unknown;
    const upstream = new ReadableStream<AnyMessage>({ cancel: (why) => void (reason = why) });
    await answeredBeforeEnd(upstream, new RequestsInFlight(), () => undefined).cancel("gone");
    expect(reason).toBe("gone");
  });
});
