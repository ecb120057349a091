import type { AgentContext, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { UpdateSender } from "./update-sender.js";

/**
 * The connection's side of `session/update`: records each update's text in the order written,
 * one microtask after it was sent, or, while `hold` is set, once `release()` is called (a client
 * that stopped reading).
 */
function recordingClient() {
  const written: string[] = [];
  const pending: Array<() => void> = [];
  const client = {
    written,
    hold: false,
    notify: (_method: string, params: { update: SessionUpdate }): Promise<void> => {
      const text = params.update.sessionUpdate === "agent_message_chunk" && params.update.content.type === "text" ? params.update.content.text : "?";
      if (!client.hold) return Promise.resolve().then(() => void written.push(text));
      return new Promise<void>((resolve) => pending.push(resolve)).then(() => void written.push(text));
    },
    release: () => {
      client.hold = false;
      for (const resolve of pending.splice(0)) resolve();
    },
  };
  return client;
}

const chunk = (text: string): SessionUpdate => ({ sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text } });
const turns = async (count: number): Promise<void> => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("UpdateSender.sendAll", () => {
  it("sends a long run in order, drawing it slice by slice as the slices are written", async () => {
    const client = recordingClient();
    const sender = new UpdateSender(client as unknown as AgentContext, "s");
    let drawn = 0;
    function* run(): Generator<SessionUpdate> {
      for (let i = 0; i < 1000; i++) {
        drawn++;
        yield chunk(String(i));
      }
    }
    const done = sender.sendAll(run());
    expect(drawn).toBeLessThan(1000);
    await done;
    expect(client.written).toEqual(Array.from({ length: 1000 }, (_, i) => String(i)));
  });

  it("keeps other updates of the session out of a run: they follow its last update, and flushed() waits for them", async () => {
    const client = recordingClient();
    const sender = new UpdateSender(client as unknown as AgentContext, "s");
    client.hold = true;
    const done = sender.sendAll(Array.from({ length: 600 }, (_, i) => chunk(`r${i}`)));
    sender.send(chunk("live 1"));
    void sender.sendAll([chunk("second run")]);
    sender.send(chunk("live 2"));
    let flushed = false;
    const flushing = sender.flushed().then(() => (flushed = true));
    await turns(3);
    expect(flushed).toBe(false);
    client.release();
    await turns(1);
    client.release();
    await done;
    client.release();
    await flushing;
    expect(client.written).toEqual([...Array.from({ length: 600 }, (_, i) => `r${i}`), "live 1", "second run", "live 2"]);
    sender.send(chunk("after"));
    await sender.flushed();
    expect(client.written.at(-1)).toBe("after");
  });

  it("sends what a failing run gave and what was held, then rejects", async () => {
    const client = recordingClient();
    const sender = new UpdateSender(client as unknown as AgentContext, "s");
    function* failing(): Generator<SessionUpdate> {
      for (let i = 0; i < 300; i++) yield chunk(String(i));
      throw new Error("bad history");
    }
    const done = sender.sendAll(failing());
    sender.send(chunk("held"));
    await expect(done).rejects.toThrow("bad history");
    await sender.flushed();
    expect(client.written).toEqual([...Array.from({ length: 300 }, (_, i) => String(i)), "held"]);
  });
});
