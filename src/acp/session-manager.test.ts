import type { AgentContext } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import type { AgentSession } from "../runtime/session.js";
import { withInterrupted } from "./prompt-turn.js";
import { LiveSession } from "./session-manager.js";

function liveSession(): LiveSession {
  return new LiveSession({ id: "sess-1" } as AgentSession, {} as AgentContext);
}

const text = (value: string) => ({ content: value, text: value, textOnly: true });

describe("LiveSession holds, queue and cancel", () => {
  it("gives the session to one holder at a time", async () => {
    const live = liveSession();
    const first = await live.acquire();
    expect(first).toBeDefined();
    expect(live.isRunning).toBe(true);
    expect(await live.acquire()).toBeUndefined();
    first!.release();
    first!.release();
    expect(live.isRunning).toBe(false);
    expect(await live.acquire()).toBeDefined();
  });

  it("counts as a running turn only between setTurn(text) and setTurn(undefined), until cancelled", async () => {
    const live = liveSession();
    const hold = (await live.acquire())!;
    expect(live.turnActive).toBe(false);
    hold.setTurn("make the change");
    expect(live.turnActive).toBe(true);
    live.cancel();
    expect(live.turnActive).toBe(false);
    expect(hold.signal.aborted).toBe(true);
    expect(live.takeInterrupted()).toBe("make the change");
    expect(live.takeInterrupted()).toBeUndefined();
  });

  it("makes a new holder wait for a cancelled one to unwind instead of refusing it", async () => {
    const live = liveSession();
    const dying = (await live.acquire())!;
    dying.setTurn("slow work");
    live.cancel();
    let acquired = false;
    const next = live.acquire().then((hold) => {
      acquired = true;
      return hold;
    });
    await Promise.resolve();
    expect(acquired).toBe(false);
    dying.release();
    const hold = await next;
    expect(hold).toBeDefined();
    expect(hold!.signal.aborted).toBe(false);
  });

  it("cancels once, keeps nothing to re-send when no turn ran, and ignores an idle cancel", async () => {
    const live = liveSession();
    live.cancel();
    expect(live.takeInterrupted()).toBeUndefined();
    const hold = (await live.acquire())!;
    live.cancel();
    expect(hold.signal.aborted).toBe(true);
    expect(live.takeInterrupted()).toBeUndefined();
  });

  it("cancels a prompt that was waiting for a cancelled turn to unwind when another cancel arrives", async () => {
    const live = liveSession();
    const first = (await live.acquire())!;
    first.setTurn("slow");
    live.cancel();
    const waiting = live.acquire();
    live.cancel();
    first.release();
    const second = (await waiting)!;
    expect(second.signal.aborted).toBe(true);
    second.release();
    const third = (await live.acquire())!;
    expect(third.signal.aborted).toBe(false);
  });

  it("queues in order, with steering left over put first", () => {
    const live = liveSession();
    expect(live.enqueue(text("a"))).toBe(1);
    expect(live.enqueue(text("b"))).toBe(2);
    live.enqueue(text("steer"), { first: true });
    expect(live.queueLength).toBe(3);
    expect([live.dequeue()?.text, live.dequeue()?.text, live.dequeue()?.text, live.dequeue()]).toEqual(["steer", "a", "b", undefined]);
  });

  it("hands steering over once, joined", () => {
    const live = liveSession();
    expect(live.takeSteering()).toBeUndefined();
    live.steer("prefer the simpler fix");
    live.steer("and keep the tests");
    expect(live.takeSteering()).toBe("prefer the simpler fix\nand keep the tests");
    expect(live.takeSteering()).toBeUndefined();
  });
});

describe("LiveSession redirect (Hermes' correction of the running turn)", () => {
  it("takes a correction only while a model turn's loop runs, not cancelled", async () => {
    const live = liveSession();
    expect(live.redirect("use yarn")).toBe(false);
    const hold = (await live.acquire())!;
    expect(live.redirect("use yarn")).toBe(false); // held by a command, no turn
    hold.setTurn("install the deps");
    expect(live.redirect("   ")).toBe(false);
    expect(live.redirect("use yarn")).toBe(true);
    hold.endCorrections();
    expect(live.redirect("too late")).toBe(false);
    hold.setTurn("next turn");
    live.cancel();
    expect(live.redirect("after cancel")).toBe(false);
    expect(live.takeSteering()).toBe("use yarn");
  });

  it("stops the watched model call, joins corrections as Hermes does, and hands them over once", async () => {
    const live = liveSession();
    const hold = (await live.acquire())!;
    hold.setTurn("refactor");
    const port = live.turnRedirect();
    const call = port.watch();
    expect(live.redirect("keep the API")).toBe(true);
    expect(call.aborted).toBe(true);
    expect(live.redirect("and the tests")).toBe(true);
    expect(port.watch().aborted).toBe(true);
    expect(port.take()).toBe("keep the API\n\n[Additional user correction]\nand the tests");
    expect(port.take()).toBeUndefined();
    expect(port.watch().aborted).toBe(false);
  });

  it("hands a correction that arrived during a tool batch over with the steering", async () => {
    const live = liveSession();
    const hold = (await live.acquire())!;
    hold.setTurn("write notes");
    live.steer("be brief");
    live.redirect("call it NOTES.md");
    expect(live.takeSteering()).toBe("be brief\ncall it NOTES.md");
    expect(live.turnRedirect().take()).toBeUndefined();
  });
});

describe("withInterrupted", () => {
  it("sends the cancelled prompt with the correction, as Hermes does", () => {
    expect(withInterrupted("use yarn instead", "install deps")).toBe("install deps\n\nUser correction/guidance after interrupt: use yarn instead");
    expect(withInterrupted([{ type: "image_url", image_url: { url: "data:image/png;base64,AA" } }], "describe it")).toEqual([
      { type: "text", text: "describe it\n\nUser correction/guidance after interrupt:" },
      { type: "image_url", image_url: { url: "data:image/png;base64,AA" } },
    ]);
  });
});
