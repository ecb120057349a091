import { canElicitForms } from "./elicitation.js";
import { agent, methods, type AgentApp } from "@agentclientprotocol/sdk/unstable";
import type { RuntimeLoader } from "../runtime/lazy-runtime.js";
import type { Runtime } from "../runtime/runtime.js";
import { newId } from "../shared/ids.js";
import { log } from "../shared/logger.js";
import { authenticate, type SetupLaunch } from "./auth.js";
import { toRequestError } from "./errors.js";
import { initializeResponse } from "./initialize.js";
import { handleLogout } from "./logout.js";
import { parseMcpServers } from "./mcp-params.js";
import { handleSetConfigOption, handleSetMode, handleSetModel, parseSetModelParams, switchSessionModel } from "./config-handlers.js";
import { handleClose, handleDelete, handleFork, handleList, handleLoad, handleResume, opened } from "./session-handlers.js";
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

/** What the process serving ACP knows about itself. */
export interface AgentAppOptions {
  /** The command line that runs this agent's `--setup` (offered to clients that opt into terminal auth). */
  setupLaunch?: SetupLaunch;
}

/**
 * The Hermes ACP agent: every handler, over one runtime. Given a `RuntimeLoader` (the CLI),
 * `initialize` answers without building the runtime and starts its warm-up (`prewarm`) once
 * answered; a request that needs the runtime before it is built waits for it. Once built (or given
 * a Runtime), every handler runs exactly as over a plain Runtime.
 */
export function createAgentApp(source: Runtime | RuntimeLoader, options: AgentAppOptions = {}): { app: AgentApp; sessions: SessionManager } {
  const loader: Pick<RuntimeLoader, "configuredProvider" | "loaded" | "load" | "prewarm"> =
    "load" in source
      ? source
      : { configuredProvider: () => source.config.configuredProvider(), loaded: () => source, load: () => Promise.resolve(source), prewarm: () => undefined };
  /** `body` over the runtime: at once when it is built (as over a plain Runtime), else once the loader has built it. */
  const withRuntime = <R>(body: (runtime: Runtime) => R | Promise<R>): R | Promise<R> => {
    const runtime = loader.loaded();
    return runtime ? body(runtime) : loader.load().then(body);
  };
  const sessions: SessionManager = new SessionManager({
    // `/model`: the command holds the session while it switches.
    switchModel: async (live, value) => withRuntime((runtime) => switchSessionModel(runtime, live, value, { announce: true, held: true })),
  });
  const app = agent({ name: "hermes-agent" })
    .onRequest(
      methods.agent.initialize,
      guarded("initialize", ({ params }) => {
        // Remembered for every session's turns: the editor's buffers and terminals (editor-ports.ts).
        sessions.clientCapabilities = params.clientCapabilities ?? {};
        const answer = initializeResponse({
          configuredProvider: loader.configuredProvider(),
          clientCapabilities: sessions.clientCapabilities,
          setupLaunch: options.setupLaunch,
        });
        // After the answer is written (prewarm's steps are later macrotasks): off the critical path.
        loader.prewarm();
        return answer;
      }),
    )
    .onRequest(methods.agent.logout, guarded("logout", () => withRuntime((runtime) => handleLogout(runtime))))
    .onRequest(
      methods.agent.authenticate,
      guarded("authenticate", ({ params }) =>
        withRuntime((runtime) => {
          authenticate(params.methodId, runtime.config, runtime.paths);
          return {};
        }),
      ),
    )
    .onRequest(
      methods.agent.session.new,
      guarded("session/new", ({ params, client }) => withRuntime(async (runtime) => {
        const mcpServers = parseMcpServers(params.mcpServers);
        const session = await runtime.sessions.create(params.cwd, { mcpServers, canAskUser: canElicitForms(sessions.clientCapabilities) });
        log.info(`session ${session.id} created in ${session.cwd} (${session.providerId}:${session.model})`);
        const live = sessions.add(session, client);
        const answer = { sessionId: session.id, ...opened(runtime, live, { usage: true, capabilities: () => sessions.clientCapabilities }) };
        // The model chosen from the endpoint's list (no model configured) is the session's first update, after the answer.
        const notice = runtime.sessions.takeOpeningNotice(session);
        if (notice) setImmediate(() => live.updates.send({ sessionUpdate: "agent_message_chunk", messageId: newId(), content: { type: "text", text: `${notice}\n\n` } }));
        return answer;
      })),
    )
    .onRequest(methods.agent.session.load, guarded("session/load", ({ params, client }) => withRuntime((runtime) => handleLoad(runtime, sessions, client, params))))
    .onRequest(methods.agent.session.resume, guarded("session/resume", ({ params, client }) => withRuntime((runtime) => handleResume(runtime, sessions, client, params))))
    .onRequest(methods.agent.session.fork, guarded("session/fork", ({ params, client }) => withRuntime((runtime) => handleFork(runtime, sessions, client, params))))
    .onRequest(methods.agent.session.list, guarded("session/list", ({ params }) => withRuntime((runtime) => handleList(runtime, params))))
    .onRequest(methods.agent.session.close, guarded("session/close", ({ params }) => handleClose(sessions, params.sessionId)))
    .onRequest(methods.agent.session.delete, guarded("session/delete", ({ params }) => withRuntime((runtime) => handleDelete(runtime, sessions, params.sessionId))))
    .onRequest(methods.agent.session.setMode, guarded("session/set_mode", ({ params }) => withRuntime((runtime) => handleSetMode(runtime, sessions, params.sessionId, params.modeId))))
    .onRequest(methods.agent.session.setConfigOption, guarded("session/set_config_option", ({ params }) => withRuntime((runtime) => handleSetConfigOption(runtime, sessions, params))))
    .onRequest(
      "session/set_model",
      parseSetModelParams,
      guarded("session/set_model", ({ params }) => withRuntime((runtime) => handleSetModel(runtime, sessions.get(params.sessionId), params.modelId))),
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
