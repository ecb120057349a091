import { afterEach, beforeEach } from "vitest";
import { Runtime } from "../../src/runtime/runtime.js";
import type { AgentSession } from "../../src/runtime/session.js";
import { startFakeLlm, type FakeLlm } from "./fake-llm.js";
import { createTempHome, type TempHome } from "./temp-home.js";

/** What an in-process runtime test works with: set up fresh for each test by `runtimeSuite`. */
export interface RuntimeSuite {
  llm: FakeLlm;
  home: TempHome;
  /** A runtime on `home` (more can be made with `newRuntime`, e.g. for a restart). */
  runtime: Runtime;
  newRuntime(): Runtime;
  /** A new session in the workspace, disposed after the test. */
  open(): Promise<AgentSession>;
  /** Registers a session to dispose after the test. */
  track(session: AgentSession): AgentSession;
  /** One prompt with every approval denied. */
  ask(session: AgentSession, text: string): ReturnType<AgentSession["prompt"]>;
}

/**
 * Registers the `beforeEach` / `afterEach` of a suite that drives the real runtime in process: a
 * scripted model, a temp home configured for it, runtimes on it; afterwards every session is
 * disposed, every state.db closed, the model stopped and the home removed.
 */
export function runtimeSuite(): RuntimeSuite {
  const runtimes: Runtime[] = [];
  const sessions: AgentSession[] = [];
  const suite = {} as RuntimeSuite;
  suite.newRuntime = () => {
    const runtime = new Runtime({ home: suite.home.home, env: suite.home.env() });
    runtimes.push(runtime);
    return runtime;
  };
  suite.track = (session) => {
    sessions.push(session);
    return session;
  };
  suite.open = async () => suite.track(await suite.runtime.sessions.create(suite.home.workspace));
  suite.ask = (session, text) =>
    session.prompt(text, { emit: () => {}, signal: new AbortController().signal, asker: { ask: async () => ({ outcome: "deny" }) } as never });
  beforeEach(async () => {
    suite.llm = await startFakeLlm();
    suite.home = createTempHome({ baseUrl: suite.llm.baseUrl });
    suite.runtime = suite.newRuntime();
  });
  afterEach(async () => {
    for (const session of sessions.splice(0)) await session.dispose();
    for (const runtime of runtimes.splice(0)) runtime.directory.close();
    await suite.llm.close();
    suite.home.cleanup();
  });
  return suite;
}
