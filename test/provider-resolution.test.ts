import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { methods } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { providerCheckLines } from "../src/cli/check-command.js";
import { loadConfig } from "../src/config/load.js";
import { ModelCatalog } from "../src/llm/catalog.js";
import { HermesError } from "../src/shared/errors.js";
import { acpPairSuite } from "./support/acp-pair-suite.js";
import { sendJson } from "./support/http-json.js";

/**
 * Provider resolution through the real agent: a local server with no model configured (the
 * scripted model server lists one model, `fake-model`), `--check`'s report of it, named endpoints
 * from `custom_providers:` in `/model` and the picker, over real HTTP on 127.0.0.1.
 */
const suite = acpPairSuite();

function agentText(pair: ReturnType<typeof suite.connect>): string[] {
  return pair.updates.flatMap((n) => (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text" ? [n.update.content.text] : []));
}

/** A server on 127.0.0.1 whose `GET /v1/models` answers `models` (and nothing else). */
async function modelServer(models: string[]): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url === "/v1/models") return sendJson(res, 200, { object: "list", data: models.map((id) => ({ id, object: "model" })) });
    return sendJson(res, 404, { error: { message: "no route" } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe("zero-config local server", () => {
  it("session/new with a base URL and no model uses the only model the endpoint lists, says so first, and serves the session", async () => {
    suite.home.writeConfig(`model:\n  provider: custom\n  base_url: ${suite.llm.baseUrl}\n`);
    const pair = suite.connect();
    await pair.initialize();
    const { sessionId, configOptions } = await pair.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    expect(configOptions?.find((option) => option.id === "model")).toMatchObject({ currentValue: "custom:fake-model" });
    suite.llm.push({ text: "hello from the local model" });
    await pair.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
    const texts = agentText(pair);
    expect(texts[0]).toBe(`No model is configured; using fake-model, the only model ${suite.llm.baseUrl} lists.\n\n`);
    expect(texts.join("")).toContain("hello from the local model");
    expect(suite.llm.requests.at(-1)?.body).toMatchObject({ model: "fake-model" });
  });

  it("OPENAI_BASE_URL alone is enough; --check reports the model it will use", async () => {
    suite.home.writeConfig("");
    const env = suite.home.env({ OPENAI_BASE_URL: suite.llm.baseUrl });
    const lines = await providerCheckLines(loadConfig(suite.home.home), env, suite.home.home, new ModelCatalog());
    expect(lines[0]).toBe(`No model is configured; using fake-model, the only model ${suite.llm.baseUrl} lists.`);
    expect(lines[1]).toMatch(/^provider: custom \(auto; base_url: env OPENAI_BASE_URL; key: none; model: fake-model from .*\/models\), model: fake-model, endpoint: http:\/\/127\.0\.0\.1:\d+\/v1, api: chat_completions$/);
  });

  it("--check never prints a password carried in the base URL", async () => {
    const url = suite.llm.baseUrl.replace("http://", "http://lab:s3cret-pass@");
    suite.home.writeConfig(`model:\n  provider: ollama\n  base_url: ${url}\n  default: test-model\n`);
    const lines = await providerCheckLines(loadConfig(suite.home.home), suite.home.env(), suite.home.home, new ModelCatalog());
    expect(lines.join("\n")).not.toContain("s3cret-pass");
    expect(lines.join("\n")).toContain("lab:***@");
  });

  it("takes the first of several models and says how to choose another", async () => {
    const server = await modelServer(["embed-small", "qwen3-coder", "llama-3.3"]);
    try {
      suite.home.writeConfig(`model:\n  base_url: ${server.baseUrl}\n`);
      const lines = await providerCheckLines(loadConfig(suite.home.home), suite.home.env(), suite.home.home);
      expect(lines[0]).toBe(`No model is configured; using qwen3-coder, the first of the 2 models ${server.baseUrl} lists (set model.default in config.yaml to choose another).`);
    } finally {
      await server.close();
    }
  });

  it("fails naming the URL when the list is empty or unreachable, in session/new and --check", async () => {
    const empty = await modelServer([]);
    const closed = await modelServer([]);
    await closed.close();
    try {
      suite.home.writeConfig(`model:\n  provider: custom\n  base_url: ${empty.baseUrl}\n`);
      const pair = suite.connect();
      await pair.initialize();
      await expect(pair.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] })).rejects.toThrow(`Its model list (${empty.baseUrl}/models) is empty`);

      suite.home.writeConfig(`model:\n  provider: custom\n  base_url: ${closed.baseUrl}\n`);
      const [line] = await providerCheckLines(loadConfig(suite.home.home), suite.home.env(), suite.home.home);
      expect(line).toBe(
        `warning: No model is configured for custom at ${closed.baseUrl}. Its model list (${closed.baseUrl}/models) could not be fetched. Set model.default in ${suite.home.home}/config.yaml.`,
      );
      const runtime = pair.runtime;
      await expect(runtime.sessions.create(suite.home.workspace)).rejects.toBeInstanceOf(HermesError);
    } finally {
      await empty.close();
    }
  });
});

describe("named endpoints from custom_providers:", () => {
  it("switch with Hermes' custom:<name>:<model> and today's <name>:<model>; enabled: false entries are nowhere", async () => {
    const server = await modelServer(["lab-live"]);
    try {
      suite.home.writeConfig(
        [
          "model:",
          "  provider: custom",
          `  base_url: ${suite.llm.baseUrl}`,
          "  default: test-model",
          "custom_providers:",
          "  - name: Home Lab",
          `    base_url: ${suite.llm.baseUrl}`,
          "    model: lab-model",
          "  - name: retired",
          `    base_url: ${server.baseUrl}`,
          "    model: old",
          "    enabled: false",
        ].join("\n"),
      );
      const pair = suite.connect();
      await pair.initialize();
      const runtime = pair.runtime;
      expect(runtime.config.resolveModel("custom:home-lab:lab-2")).toMatchObject({ provider: "Home Lab", model: "lab-2", baseUrl: suite.llm.baseUrl });
      expect(runtime.config.resolveModel("Home Lab:lab-3")).toMatchObject({ provider: "Home Lab", model: "lab-3" });
      expect(() => runtime.config.resolveModel("custom:retired:old")).not.toThrow();
      expect(runtime.config.resolveModel("custom:retired:old")).toMatchObject({ provider: "custom", model: "retired:old" });
      expect(() => runtime.config.resolveModel("retired:old")).not.toThrow();
      expect(runtime.config.resolveModel("retired:old").provider).toBe("custom");
      const catalog = await runtime.catalog();
      expect(catalog.map((entry) => entry.id)).toEqual(["custom:test-model", "custom:fake-model", "custom:home-lab:lab-model", "custom:home-lab:fake-model"]);

      const { sessionId } = await pair.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
      await pair.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/model custom:home-lab:lab-model" }] });
      const live = pair.sessions.get(sessionId);
      expect(live.session.resolved).toMatchObject({ provider: "Home Lab", model: "lab-model" });
    } finally {
      await server.close();
    }
  });
});
