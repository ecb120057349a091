/**
 * One agent under measurement: the fake model server, a temp HERMES_HOME configured for it, and the
 * built binary (`node dist/hermes.js acp`) driven by the ACP SDK client app over real stdio.
 * All timestamps in the bench are `performance.now()` of this process, the same clock the fake
 * server stamps its requests with.
 */
import { methods, type ClientCapabilities, type PromptResponse, type SessionNotification } from "@agentclientprotocol/sdk/unstable";
import { spawnAgent, type AgentProcess } from "../test/support/acp-client.js";
import { startFakeLlm, type FakeLlm } from "../test/support/fake-llm.js";
import { createTempHome, type TempHome } from "../test/support/temp-home.js";

export interface BenchAgent {
  llm: FakeLlm;
  home: TempHome;
  agent: AgentProcess;
  /** Opens a session in the temp workspace and answers its id. */
  newSession(): Promise<string>;
  /** Sends one text prompt; throws unless the turn ends with `end_turn`. */
  prompt(sessionId: string, text: string): Promise<PromptResponse>;
}

/**
 * Runs `body` against a freshly spawned, initialized agent, then closes the agent and the fake
 * server and removes the temp home, whether `body` succeeded or not. `config` replaces the temp
 * home's config.yaml before the spawn; `clientCapabilities` are what the client advertises.
 */
export async function withBenchAgent<T>(
  body: (bench: BenchAgent) => Promise<T>,
  options: {
    onUpdate?: (notification: SessionNotification) => void;
    /** config.yaml for the fake server's base URL (default: just the model). */
    config?: (baseUrl: string) => string;
    clientCapabilities?: ClientCapabilities;
  } = {},
): Promise<T> {
  const llm = await startFakeLlm();
  const home = createTempHome({ baseUrl: llm.baseUrl });
  if (options.config) home.writeConfig(options.config(llm.baseUrl));
  const agent = spawnAgent({
    env: home.env(),
    ...(options.onUpdate ? { onUpdate: options.onUpdate } : {}),
    ...(options.clientCapabilities ? { clientCapabilities: options.clientCapabilities } : {}),
  });
  const bench: BenchAgent = {
    llm,
    home,
    agent,
    newSession: async () => {
      const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] });
      return sessionId;
    },
    prompt: async (sessionId, text) => {
      const response = await agent.connection.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text }],
      });
      if (response.stopReason !== "end_turn") throw new Error(`prompt ended with ${response.stopReason}`);
      return response;
    },
  };
  try {
    await agent.initialize();
    return await body(bench);
  } catch (error) {
    const stderr = agent.stderr().trim();
    if (stderr && error instanceof Error) error.message += `\nagent stderr:\n${stderr.slice(-2000)}`;
    throw error;
  } finally {
    await agent.close();
    await llm.close();
    home.cleanup();
  }
}
