import { afterEach, beforeEach } from "vitest";
import type { AgentProcess } from "./acp-client.js";
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
}

/**
 * Registers the `beforeEach` / `afterEach` of an end-to-end suite: each test gets a fresh scripted
 * model and temp home; afterwards the agent it started is closed, the model stopped and the home
 * removed. Call once at the top of a test file.
 */
export function e2eSuite(): E2eSuite {
  const suite = { agent: undefined } as E2eSuite;
  beforeEach(async () => {
    suite.llm = await startFakeLlm();
    suite.home = createTempHome({ baseUrl: suite.llm.baseUrl });
  });
  afterEach(async () => {
    await suite.agent?.close();
    suite.agent = undefined;
    await suite.llm.close();
    suite.home.cleanup();
  });
  return suite;
}
