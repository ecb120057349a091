import { afterEach, beforeEach } from "vitest";
import { startFakeLlm, type FakeLlm } from "./fake-llm.js";
import { connectInMemory, type InMemoryAgent, type InMemoryAgentOptions } from "./in-memory-acp.js";
import { createTempHome, type TempHome } from "./temp-home.js";

/** What an in-process ACP test works with: set up fresh for each test by `acpPairSuite`. */
export interface AcpPairSuite {
  llm: FakeLlm;
  home: TempHome;
  /** An agent app on `home` connected to the test client, closed after the test; `env` is added to the home's environment. */
  connect(options?: Omit<InMemoryAgentOptions, "home" | "env">, env?: Record<string, string>): InMemoryAgent;
}

/**
 * Registers the `beforeEach` / `afterEach` of a suite that drives the agent app in process over
 * ACP: a scripted model, a temp home configured for it, pairs on it; afterwards every pair is
 * closed, the model stopped and the home removed.
 */
export function acpPairSuite(): AcpPairSuite {
  const pairs: InMemoryAgent[] = [];
  const suite = {} as AcpPairSuite;
  suite.connect = (options = {}, env) => {
    const pair = connectInMemory({ home: suite.home.home, env: suite.home.env(env), ...options });
    pairs.push(pair);
    return pair;
  };
  beforeEach(async () => {
    suite.llm = await startFakeLlm();
    suite.home = createTempHome({ baseUrl: suite.llm.baseUrl });
  });
  afterEach(async () => {
    await Promise.all(pairs.splice(0).map((pair) => pair.close()));
    await suite.llm.close();
    suite.home.cleanup();
  });
  return suite;
}
