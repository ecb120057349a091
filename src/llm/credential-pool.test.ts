/** The credential pool against a real scripted server: which key each call uses, rests, and what is logged. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import { log } from "../shared/logger.js";
import { createCredentialPool, CREDENTIAL_REST_MS, isQuotaError, RATE_LIMIT_REST_MS, type CredentialPool } from "./credential-pool.js";
import { createOpenAiChatProvider } from "./openai-chat.js";
import type { ModelRequest, Provider, ProviderEvent } from "./types.js";

const KEYS = ["sk-pool-key-AAAA-1111", "sk-pool-key-BBBB-2222", "sk-pool-key-CCCC-3333"];
const REQUEST: ModelRequest = { model: "test-model", messages: [{ role: "user", content: "hi" }] };

let llm: FakeLlm;
let stderr: string[];
let clock: number;

beforeEach(async () => {
  llm = await startFakeLlm();
  stderr = [];
  clock = 1_000_000;
  log.configure({ level: "debug" });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  log.configure({ level: "info" });
  await llm.close();
});

function pool(keys: readonly string[] = KEYS.slice(0, 2)): CredentialPool {
  return createCredentialPool({
    id: "custom",
    keys,
    create: (apiKey) => createOpenAiChatProvider({ id: "custom", baseUrl: llm.baseUrl, apiKey }),
    now: () => clock,
  });
}

async function collect(provider: Provider): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.stream(REQUEST, new AbortController().signal)) events.push(event);
  return events;
}

const text = (events: ProviderEvent[]) => events.flatMap((event) => (event.type === "text_delta" ? [event.text] : [])).join("");
/** Which pool key (by position, 0-based) each request to the server carried. */
const keysUsed = () => llm.requests.map((request) => KEYS.findIndex((key) => request.headers.authorization === `Bearer ${key}`));
/** Everything the pool and the providers put on stderr, and every event's message. */
const expectNoKeyIn = (...texts: string[]) => {
  for (const key of KEYS) for (const written of [...stderr, ...texts]) expect(written).not.toContain(key);
};

describe("credential pool", () => {
  it("moves a rate-limited call to the next key at once, and keeps the next call there", async () => {
    llm.push({ status: 429, headers: { "retry-after": "30" } }, { text: "from B" }, { text: "B again" });
    const provider = pool();
    const first = await collect(provider);
    expect(text(first)).toBe("from B");
    expect(first.some((event) => event.type === "error")).toBe(false);
    expect(provider.resting()).toEqual([30_000, 0]);
    expect(text(await collect(provider))).toBe("B again");
    expect(keysUsed()).toEqual([0, 1, 1]);
    expect(stderr.join("")).toMatch(/custom: key 1 of 2 rate-limited \(HTTP 429\), resting 30 s; trying key 2 of 2/);
    expectNoKeyIn();
  });

  it("rests a rate-limited key 60 s without Retry-After, then uses it again", async () => {
    llm.push({ status: 429 }, { text: "B" }, { text: "A is back" });
    const provider = pool();
    await collect(provider);
    expect(provider.resting()).toEqual([RATE_LIMIT_REST_MS, 0]);
    clock += RATE_LIMIT_REST_MS;
    expect(text(await collect(provider))).toBe("A is back");
    expect(keysUsed()).toEqual([0, 1, 0]);
  });

  it("moves to the next key when the first is rejected (401) and rests it for an hour", async () => {
    llm.push({ status: 401, body: { error: { message: "Invalid API key" } } }, { text: "B works" });
    const provider = pool();
    expect(text(await collect(provider))).toBe("B works");
    expect(keysUsed()).toEqual([0, 1]);
    expect(provider.resting()).toEqual([CREDENTIAL_REST_MS, 0]);
    expect(stderr.join("")).toMatch(/key 1 of 2 rejected \(HTTP 401\), resting 60 min; trying key 2 of 2/);
  });

  it("treats a spent quota as a credential problem: the key rests for an hour, whatever Retry-After says", async () => {
    llm.push({ status: 429, headers: { "retry-after": "1" }, body: { error: { message: "You exceeded your current quota", code: "insufficient_quota" } } }, { text: "B" });
    const provider = pool();
    expect(text(await collect(provider))).toBe("B");
    expect(provider.resting()).toEqual([CREDENTIAL_REST_MS, 0]);
    expect(stderr.join("")).toMatch(/key 1 of 2 quota or billing \(HTTP 429\)/);
  });

  it("moves on after a 402 (billing), which the wire provider calls a bad request", async () => {
    llm.push({ status: 402, body: { error: { message: "Insufficient credits" } } }, { text: "paid for" });
    expect(text(await collect(pool()))).toBe("paid for");
    expect(keysUsed()).toEqual([0, 1]);
  });

  it("lets the error out once every key was refused, and then tries the key whose rest ends first", async () => {
    llm.push(
      { status: 429, headers: { "retry-after": "50" } },
      { status: 429, headers: { "retry-after": "20" } },
      { status: 429, headers: { "retry-after": "40" } },
      { text: "finally" },
    );
    const provider = pool(KEYS);
    const events = await collect(provider);
    const error = events.at(-1);
    expect(events).toHaveLength(1);
    expect(error).toMatchObject({ type: "error", kind: "rate_limit", status: 429, retryAfterMs: 40_000 });
    expect(error?.type === "error" && error.message).toMatch(/all 3 keys of the credential pool are resting/);
    expect(keysUsed()).toEqual([0, 1, 2]);
    expect(text(await collect(provider))).toBe("finally");
    expect(keysUsed()).toEqual([0, 1, 2, 1]);
    expect(stderr.join("")).toMatch(/every key of the credential pool is resting; trying key 2 of 3/);
    expectNoKeyIn(...events.map((event) => (event.type === "error" ? event.message : "")));
  });

  it("passes other errors on without rotating (a server error is the loop's to retry)", async () => {
    llm.push({ status: 503 }, { text: "unused" });
    const provider = pool();
    const events = await collect(provider);
    expect(events).toEqual([expect.objectContaining({ type: "error", kind: "server", status: 503 })]);
    expect(keysUsed()).toEqual([0]);
    expect(provider.resting()).toEqual([0, 0]);
  });

  it("never rotates after the stream yielded something: what was shown cannot be taken back", async () => {
    const calls: string[] = [];
    const scripted = (apiKey: string): Provider => ({
      id: "scripted",
      async *stream() {
        calls.push(apiKey);
        yield { type: "text_delta", text: "half" };
        yield { type: "error", kind: "rate_limit", message: "scripted: HTTP 429: slow down", status: 429 };
      },
    });
    const provider = createCredentialPool({ id: "scripted", keys: KEYS, create: scripted, now: () => clock });
    const events = await collect(provider);
    expect(events.map((event) => event.type)).toEqual(["text_delta", "error"]);
    expect(calls).toEqual([KEYS[0]]);
  });

  it("ends a call whose key cannot be built with an error event naming no key", async () => {
    const provider = createCredentialPool({
      id: "broken",
      keys: KEYS,
      create: () => {
        throw new Error("module missing");
      },
    });
    const events = await collect(provider);
    expect(events).toEqual([{ type: "error", kind: "unknown", message: "broken: the provider could not be loaded" }]);
    expectNoKeyIn();
  });
});

describe("isQuotaError", () => {
  it("knows 402, and 429 / 403 that speak of quota, billing or credit", () => {
    expect(isQuotaError({ status: 402, message: "Payment Required" })).toBe(true);
    expect(isQuotaError({ status: 429, message: "insufficient_quota" })).toBe(true);
    expect(isQuotaError({ status: 403, message: "Your credit balance is too low" })).toBe(true);
    expect(isQuotaError({ status: 429, message: "Rate limit reached, slow down" })).toBe(false);
    expect(isQuotaError({ status: 403, message: "Forbidden" })).toBe(false);
    expect(isQuotaError({ status: 400, message: "quota" })).toBe(false);
  });
});
