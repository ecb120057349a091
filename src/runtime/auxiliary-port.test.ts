import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfigText } from "../config/load.js";
import { createOpenAiChatProvider } from "../llm/openai-chat.js";
import type { ResolvedProvider } from "../llm/types.js";
import { startFakeLlm, type FakeLlm } from "../../test/support/fake-llm.js";
import { createAuxiliaryPort } from "./auxiliary-port.js";

let main: FakeLlm;
let side: FakeLlm;
beforeEach(async () => {
  [main, side] = await Promise.all([startFakeLlm(), startFakeLlm()]);
});
afterEach(async () => {
  await Promise.all([main.close(), side.close()]);
});

const endpoint = (baseUrl: string, model: string): ResolvedProvider => ({ provider: "custom", apiMode: "chat_completions", baseUrl, apiKey: "no-key-required", model, source: "test" });

function port(yaml: string) {
  const resolved = endpoint(main.baseUrl, "main-model");
  const sessionProvider = createOpenAiChatProvider({ id: "custom", baseUrl: main.baseUrl, apiKey: "no-key-required" });
  return createAuxiliaryPort({
    config: parseConfigText(yaml, "config.yaml"),
    session: () => ({ resolved, provider: sessionProvider }),
    resolveModel: (value, on) => ({ ...on, model: value.split(":").at(-1)! }),
    provider: async (target) => createOpenAiChatProvider({ id: target.provider, baseUrl: target.baseUrl, apiKey: target.apiKey }),
  });
}

const ask = (aux: ReturnType<typeof port>) => aux.complete("web_extract", [{ role: "user", content: "summarise" }], { signal: new AbortController().signal, maxTokens: 100 });

describe("auxiliary model port", () => {
  it("uses the session's model when auxiliary.<task> names none", async () => {
    main.push({ text: "<think>hmm</think>the summary" });
    const aux = port("");
    expect(await ask(aux)).toBe("the summary");
    expect(main.requests[0]!.body).toMatchObject({ model: "main-model" });
    expect(aux.describe("web_extract")).toEqual({ provider: "custom", model: "main-model", configured: false });
  });

  it("uses auxiliary.<task>'s own endpoint and model when given", async () => {
    side.push({ text: "from the side model" });
    const aux = port(`auxiliary:\n  web_extract:\n    base_url: ${side.baseUrl}\n    model: small-model\n`);
    expect(await ask(aux)).toBe("from the side model");
    expect(side.requests[0]!.body).toMatchObject({ model: "small-model" });
    expect(main.requests).toHaveLength(0);
    expect(aux.describe("vision")).toMatchObject({ model: "main-model", configured: false });
  });

  it("switches the model on the session's provider for a bare auxiliary model", async () => {
    main.push({ text: "ok" });
    const aux = port(`auxiliary:\n  web_extract:\n    model: cheap-model\n`);
    await ask(aux);
    expect(main.requests[0]!.body).toMatchObject({ model: "cheap-model" });
  });

  it("rejects with the provider's failure, naming it", async () => {
    main.push({ status: 500, body: { error: { message: "boom" } } });
    await expect(ask(port(""))).rejects.toMatchObject({ code: "provider_error" });
  });
});
