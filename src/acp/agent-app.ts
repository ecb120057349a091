import { agent, methods, RequestError, type AgentApp } from "@agentclientprotocol/sdk/unstable";
import type { Runtime } from "../runtime/runtime.js";
import { log } from "../shared/logger.js";
import { authenticateMethod, TERMINAL_SETUP_METHOD_ID } from "./auth.js";
import { AUTH_REQUIRED, toRequestError } from "./errors.js";
import { initializeResponse } from "./initialize.js";
import { handlePrompt } from "./prompt-handler.js";
import { SessionManager } from "./session-manager.js";

/** Errors leave handlers as JSON-RPC errors with user-facing messages; the server keeps serving. */
function guarded<A, R>(method: string, handler: (arg: A) => Promise<R> | R): (arg: A) => Promise<R> {
  return async (arg) => {
    try {
      return await handler(arg);
    } catch (error) {
      const requestError = toRequestError(error);
      log.warn(`${method} failed: ${requestError.message}`);
      throw requestError;
    }
  };
}

/** The Hermes ACP agent: every handler, over one runtime. */
export function createAgentApp(runtime: Runtime): { app: AgentApp; sessions: SessionManager } {
  const sessions = new SessionManager();
  const app = agent({ name: "hermes-agent" })
    .onRequest(
      methods.agent.initialize,
      guarded("initialize", () => initializeResponse(runtime.configuredProvider())),
    )
    .onRequest(
      methods.agent.authenticate,
      guarded("authenticate", ({ params }) => {
        const provider = runtime.configuredProvider();
        if (!provider) throw toRequestError(runtime.authRequiredError());
        if (!authenticateMethod(params.methodId, provider)) {
          throw new RequestError(AUTH_REQUIRED, `Unknown authentication method ${JSON.stringify(params.methodId)}; use "${provider}" or "${TERMINAL_SETUP_METHOD_ID}".`);
        }
        return {};
      }),
    )
    .onRequest(
      methods.agent.session.new,
      guarded("session/new", async ({ params, client }) => {
        const session = await runtime.createSession(params.cwd);
        sessions.add(session, client);
        log.info(`session ${session.id} created in ${session.cwd} (${session.providerId}:${session.model})`);
        return { sessionId: session.id };
      }),
    )
    .onRequest(
      methods.agent.session.prompt,
      guarded("session/prompt", ({ params, signal }) => handlePrompt(sessions, params, signal)),
    )
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.find(params.sessionId)?.cancel();
    });
  return { app, sessions };
}
