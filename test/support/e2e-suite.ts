import { existsSync } from "node:fs";
import { afterEach, beforeAll, beforeEach } from "vitest";
import { BUILT_BINARY, type AgentProcess } from "./acp-client.js";
import { startFakeLlm, type FakeLlm } from "./fake-llm.js";
import { createTempHome, type TempHome } from "./temp-home.js";

/** What an end-to-end test works with: set up fresh for each test by `e2eSuite`. */
export interface E2eSuite {
  /** The scripted model server on 127.0.0.1. */
  llm: FakeLlm;
  /** A temp HERMES_HOME configured for `llm`, and a workspace beside it. */
  home: TempHome;
  /** The agent the test started, if any; closed after the test. */
  agent: AgentProcess | undefined;
  /** Further agents the test started (push them here); all closed, together, after the test. */
  agents: AgentProcess[];
}

/**
 * Registers the hooks of an end-to-end suite: before all, a check that the built binary exists
 * (the suites drive `dist/`, which `npm test` builds); before each test a fresh scripted model
 * and temp home; afterwards the agents it started are closed, the model stopped and the home
 * removed. Call once at the top of a test file; a file's own `beforeEach` runs after this one's,
 * so it can write config or start an agent.
 */
export function e2eSuite(): E2eSuite {
  const suite = { agent: undefined, agents: [] as AgentProcess[] } as E2eSuite;
  beforeAll(() => {
    if (!existsSync(BUILT_BINARY)) throw new Error(`${BUILT_BINARY} is missing: run npm run build (npm test does it)`);
  });
  beforeEach(async () => {
    suite.llm = await startFakeLlm();
    suite.home = createTempHome({ baseUrl: suite.llm.baseUrl });
  });
  afterEach(async () => {
    await Promise.all([suite.agent?.close(), ...suite.agents.splice(0).map((agent) => agent.close())]);
    suite.agent = undefined;
    await suite.llm.close();
    suite.home.cleanup();
  });
  return suite;
}
