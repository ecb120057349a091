/**
 * The loop against a model server that refuses the request as it is: the output cap too large for
 * the window, a conversation too long, images to a text-only model. Real HTTP to the scripted
 * server; the compression hook here is a plain input callback (the session's real compressor is
 * exercised in test/context-overflow.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { shownText, testTurn } from "../../test/support/agent-turn.js";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import type { ChatMessage } from "../llm/types.js";
import { imageOmittedNote, type ContextOverflowInfo } from "./call-recovery.js";
import { runTurn } from "./loop.js";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.close();
});

const refusal = (message: string, status = 400) => ({ status, body: { error: { message, type: "invalid_request_error", code: null } } });
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request JSON
const sentParts = (n: number): any[] => (llm.requests[n]?.body.messages as { content: unknown }[]).flatMap((message) => (Array.isArray(message.content) ? message.content : []));
const IMAGE = { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } } as const;

describe("an output cap that does not fit the window", () => {
  it("lowers max_tokens to what fits and sends the same messages again, without compressing", async () => {
    llm.push(refusal("input length and `max_tokens` exceed context limit: 7000 + 4096 > 8192, decrease input length or `max_tokens` and try again"), { text: "fits now" });
    const overflows: ContextOverflowInfo[] = [];
    const limits: number[] = [];
    const { input, events } = testTurn(llm, {
      maxTokens: 4096,
      onContextOverflow: async (_history, info) => (overflows.push(info), undefined),
      onContextLimit: (tokens) => limits.push(tokens),
    });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[0]?.body.max_tokens).toBe(4096);
    expect(llm.requests[1]?.body.max_tokens).toBe(8192 - 7000 - 64);
    expect(llm.requests[1]?.body.messages).toEqual(llm.requests[0]?.body.messages);
    expect(overflows).toEqual([]);
    expect(limits).toEqual([8192]);
    expect(shownText(events)).toBe("fits now");
  });
});

describe("a conversation too long for the window", () => {
  it("sends the messages the overflow hook answers, and reports the window the error stated", async () => {
    llm.push(refusal("This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages."), { text: "after compression" });
    const earlier: ChatMessage[] = [
      { role: "user", content: "old question ".repeat(500) },
      { role: "assistant", content: "old answer ".repeat(500) },
    ];
    const infos: ContextOverflowInfo[] = [];
    const limits: number[] = [];
    const { input, history } = testTurn(llm, {
      history: [...earlier],
      onContextLimit: (tokens) => limits.push(tokens),
      onContextOverflow: async (all, info) => {
        infos.push(info);
        expect(limits).toEqual([8192]); // the window is known before compressing
        return [{ role: "user", content: "SUMMARY of earlier turns" }, all.at(-1) as ChatMessage];
      },
    });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(infos).toEqual([{ kind: "context_overflow", attempt: 1, limitTokens: 8192, promptTokens: 9000, message: expect.stringContaining("maximum context length") }]);
    const [first, second] = [JSON.stringify(llm.requests[0]?.body.messages), JSON.stringify(llm.requests[1]?.body.messages)];
    expect(second.length).toBeLessThan(first.length / 4);
    expect(second).toContain("SUMMARY of earlier turns");
    expect(history.slice(0, 2)).toEqual(earlier); // the history itself is whole
  });

  it("compresses up to three times, then ends the turn suggesting /compress or a new session", async () => {
    const tooLong = refusal("prompt is too long: 210000 tokens > 200000 maximum");
    llm.push(tooLong, tooLong, tooLong, tooLong);
    let attempts = 0;
    const { input, events } = testTurn(llm, { onContextOverflow: async (all) => (attempts++, [...all]) });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(attempts).toBe(3);
    expect(llm.requests).toHaveLength(4);
    expect(shownText(events)).toMatch(/no longer fits test-model's context window even after compressing it 3 times; run \/compress .*new session/);
  });

  it("ends the turn at once when nothing can be compressed", async () => {
    llm.push(refusal("the request exceeds the available context size, try increasing it"));
    const { input, events } = testTurn(llm, { onContextOverflow: async () => undefined });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(llm.requests).toHaveLength(1);
    expect(shownText(events)).toMatch(/^Error: 400 from custom: the conversation no longer fits test-model's context window; run \/compress/);
  });

  it("retries a 413 without its images when compression cannot help, for that call only", async () => {
    llm.push(refusal("Request Entity Too Large", 413), { text: "seen as text" }, { text: "next turn" });
    const { input, history } = testTurn(llm, { user: { role: "user", content: [{ type: "text", text: "look" }, IMAGE] } });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(sentParts(1).some((part) => part.type === "image_url")).toBe(false);
    expect(sentParts(1)).toContainEqual({ type: "text", text: imageOmittedNote("test-model") });
    // not a text-only model: the next turn sends the image again
    const next = testTurn(llm, { history, text: "again" });
    await runTurn(next.input);
    expect(sentParts(2).some((part) => part.type === "image_url")).toBe(true);
  });
});

describe("images to a model that takes none", () => {
  it("retries the call with every image as a note, remembers the model is text-only, and strips up front from then on", async () => {
    llm.push(refusal("No endpoints found that support image input", 404), { text: "I cannot see images" }, { text: "still text" });
    let textOnly = false;
    const memory = { known: () => textOnly, mark: () => void (textOnly = true) };
    const user: ChatMessage = { role: "user", content: [{ type: "text", text: "what is in this picture?" }, IMAGE, IMAGE] };
    const { input, history } = testTurn(llm, { user: user as Extract<ChatMessage, { role: "user" }>, textOnly: memory });
    expect((await runTurn(input)).stopReason).toBe("end_turn");
    expect(textOnly).toBe(true);
    expect(llm.requests).toHaveLength(2);
    expect(sentParts(0).filter((part) => part.type === "image_url")).toHaveLength(2);
    expect(sentParts(1).some((part) => part.type === "image_url")).toBe(false);
    expect(sentParts(1)).toEqual([
      { type: "text", text: "what is in this picture?" },
      { type: "text", text: "[image omitted: the model test-model does not accept images]" },
      { type: "text", text: "[image omitted: the model test-model does not accept images]" },
    ]);
    expect(history[0]).toEqual(user); // stored history keeps the images

    const later = testTurn(llm, { history, text: "and now?", textOnly: memory });
    expect((await runTurn(later.input)).stopReason).toBe("end_turn");
    expect(llm.requests).toHaveLength(3); // no refusal needed: stripped before sending
    expect(sentParts(2).some((part) => part.type === "image_url")).toBe(false);
    expect(sentParts(2)).toContainEqual({ type: "text", text: imageOmittedNote("test-model") });
  });

  it("does not loop when the model refuses a request that has no images", async () => {
    llm.push(refusal("image input is not supported"));
    const { input } = testTurn(llm);
    await runTurn(input);
    expect(llm.requests).toHaveLength(1);
  });
});
