import { canElicitForms } from "./elicitation.js";
import { agent, methods, type AgentApp } from "@agentclientprotocol/sdk/unstable";
import type { RuntimeLoader } from "../runtime/lazy-runtime.js";
import type { Runtime } from "../runtime/runtime.js";
import { newId } from "../shared/ids.js";
import { log } from "../shared/logger.js";
import { authenticate, type SetupLaunch } from "./auth.js";
import { toRequestError } from "./errors.js";
import { initializeResponse } from "./initialize.js";
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { SessionManager } from "./session-manager.js";

type RequestHandlers = typeof import("./request-handlers.js");
let loadedHandlers: RequestHandlers | undefined;
let loadingHandlers: Promise<RequestHandlers> | undefined;
/** The handlers' module (see request-handlers.ts): at once once evaluated, else on its first load; a failed load is tried again. */
function handlers(): RequestHandlers | Promise<RequestHandlers> {
  if (loadedHandlers) return loadedHandlers;
  loadingHandlers ??= import("./request-handlers.js").then((module) => (loadedHandlers = module));
  loadingHandlers.catch(() => (loadingHandlers = undefined));
  return loadingHandlers;
}

/** `body` over the handlers' module: synchronously once it is evaluated. */
function withHandlers<R>(body: (handlers: RequestHandlers) => R | Promise<R>): R | Promise<R> {
  const module = handlers();
  return "then" in module ? module.then(body) : body(module);
}

/** Params of `session/set_model`, checked by hand (the method is not in the SDK's schema). */
function parseSetModelParams(params: unknown): { sessionId: string; modelId: string } {
  const value = params as { sessionId?: unknown; modelId?: unknown } | null;
  if (!value || typeof value.sessionId !== "string" || typeof value.modelId !== "string") {
    throw RequestError.invalidParams(undefined, "session/set_model takes {sessionId, modelId} strings");
  }
  return { sessionId: value.sessionId, modelId: value.modelId };
}

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

/**
 * Counts the requests that restore stored sessions (load, resume, fork, list) while they run, so
 * the warm-up after `initialize` (model SDK, tool schemas, SQLite driver: nothing a replay needs)
 * waits instead of competing with an editor reopening its last session at start (see
 * `RuntimeLoader.prewarm`). `idle()` resolves once none runs (at once when none does).
 */
class RestoresInFlight {
  private count = 0;
  private waiters: Array<() => void> = [];

  /** `handler`, counted while it runs (still called synchronously). */
  wrap<A, R>(handler: (arg: A) => Promise<R> | R): (arg: A) => Promise<R> | R {
    return (arg) => {
      this.count += 1;
      let result: Promise<R> | R;
      try {
        result = handler(arg);
      } catch (error) {
        this.done();
        throw error;
      }
      if (result instanceof Promise) return result.finally(() => this.done());
      this.done();
      return result;
    };
  }

  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  private done(): void {
    this.count -= 1;
    if (this.count === 0) for (const resolve of this.waiters.splice(0)) resolve();
  }
}

/** What the process serving ACP knows about itself. */
export interface AgentAppOptions {
  /** The command line that runs this agent's `--setup` (offered to clients that opt into terminal auth). */
  setupLaunch?: SetupLaunch;
  /**
   * The first `initialize` was answered before the connection (early-initialize.ts, or the
   * launcher's cache) and the connection's answer to it is dropped (server.ts): that one answers
   * without detecting the configured provider again. Later ones detect it as usual.
   */
  firstInitializeAnswered?: boolean;
}

/**
 * The Hermes ACP agent: every handler, over one runtime. Given a `RuntimeLoader` (the CLI),
 * `initialize` answers without building the runtime and starts its warm-up (`prewarm`) once
 * answered; a request that needs the runtime before it is built waits for it. Once built (or given
 * a Runtime), every handler runs exactly as over a plain Runtime.
 */
export function createAgentApp(source: Runtime | RuntimeLoader, options: AgentAppOptions = {}): { app: AgentApp; sessions: SessionManager } {
  const restores = new RestoresInFlight();
  const loader: Pick<RuntimeLoader, "configuredProvider" | "loaded" | "load" | "prewarm"> =
    "load" in source
      ? source
      : { configuredProvider: () => source.config.configuredProvider(), loaded: () => source, load: () => Promise.resolve(source), prewarm: () => undefined };
  /**
   * `body` over the runtime and the handlers: at once when both are ready (as over a plain
   * Runtime), else once the loader has built the runtime and the handlers' module is evaluated.
   */
  const withRuntime = <R>(body: (runtime: Runtime, handlers: RequestHandlers) => R | Promise<R>): R | Promise<R> => {
    const runtime = loader.loaded();
    if (runtime && loadedHandlers) return body(runtime, loadedHandlers);
    return Promise.all([runtime ?? loader.load(), handlers()]).then(([built, module]) => body(built, module));
  };
  // Over a plain Runtime nothing waits for `initialize`: the handlers load now, before the first request.
  if (!("load" in source)) void Promise.resolve(handlers()).catch(() => undefined);
  const sessions: SessionManager = new SessionManager({
    // `/model`: the command holds the session while it switches.
    switchModel: async (live, value) => withRuntime((runtime, h) => h.switchSessionModel(runtime, live, value, { announce: true, held: true })),
  });
  let answeredBefore = options.firstInitializeAnswered === true;
  const app = agent({ name: "hermes-agent" })
    .onRequest(
      methods.agent.initialize,
      guarded("initialize", ({ params }) => {
        // Remembered for every session's turns: the editor's buffers and terminals (editor-ports.ts).
        sessions.clientCapabilities = params.clientCapabilities ?? {};
        const dropped = answeredBefore;
        answeredBefore = false;
        const answer = initializeResponse({
          configuredProvider: dropped ? undefined : loader.configuredProvider(),
          clientCapabilities: sessions.clientCapabilities,
          setupLaunch: options.setupLaunch,
        });
        // After the answer is written (prewarm's steps are later macrotasks): off the critical path.
        loader.prewarm(() => handlers(), () => restores.idle());
        return answer;
      }),
    )
    .onRequest(methods.agent.logout, guarded("logout", () => withRuntime((runtime, h) => h.handleLogout(runtime))))
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
      guarded("session/new", ({ params, client }) => withRuntime(async (runtime, h) => {
        const mcpServers = h.parseMcpServers(params.mcpServers);
        const session = await runtime.sessions.create(params.cwd, { mcpServers, canAskUser: canElicitForms(sessions.clientCapabilities) });
        log.info(`session ${session.id} created in ${session.cwd} (${session.providerId}:${session.model})`);
        const live = sessions.add(session, client);
        const answer = { sessionId: session.id, ...h.opened(runtime, live, { usage: true, capabilities: () => sessions.clientCapabilities }) };
        // The model chosen from the endpoint's list (no model configured) is the session's first update, after the answer.
        const notice = runtime.sessions.takeOpeningNotice(session);
        if (notice) setImmediate(() => live.updates.send({ sessionUpdate: "agent_message_chunk", messageId: newId(), content: { type: "text", text: `${notice}\n\n` } }));
        // state.db opens in the idle time before the first prompt, once this answer is written
        // (the writer flushes it in an immediate queued after this one).
        setImmediate(() => setImmediate(() => runtime.prepareStore()));
        return answer;
      })),
    )
    .onRequest(methods.agent.session.load, guarded("session/load", restores.wrap(({ params, client }) => withRuntime((runtime, h) => h.handleLoad(runtime, sessions, client, params)))))
    .onRequest(methods.agent.session.resume, guarded("session/resume", restores.wrap(({ params, client }) => withRuntime((runtime, h) => h.handleResume(runtime, sessions, client, params)))))
    .onRequest(methods.agent.session.fork, guarded("session/fork", restores.wrap(({ params, client }) => withRuntime((runtime, h) => h.handleFork(runtime, sessions, client, params)))))
    .onRequest(methods.agent.session.list, guarded("session/list", restores.wrap(({ params }) => withRuntime((runtime, h) => h.handleList(runtime, params)))))
    .onRequest(methods.agent.session.close, guarded("session/close", ({ params }) => withHandlers((h) => h.handleClose(sessions, params.sessionId))))
    .onRequest(methods.agent.session.delete, guarded("session/delete", ({ params }) => withRuntime((runtime, h) => h.handleDelete(runtime, sessions, params.sessionId))))
    .onRequest(methods.agent.session.setMode, guarded("session/set_mode", ({ params }) => withRuntime((runtime, h) => h.handleSetMode(runtime, sessions, params.sessionId, params.modeId))))
    .onRequest(methods.agent.session.setConfigOption, guarded("session/set_config_option", ({ params }) => withRuntime((runtime, h) => h.handleSetConfigOption(runtime, sessions, params))))
    .onRequest(
      "session/set_model",
      parseSetModelParams,
      guarded("session/set_model", ({ params }) => withRuntime((runtime, h) => h.handleSetModel(runtime, sessions.get(params.sessionId), params.modelId))),
    )
    .onRequest(
      methods.agent.session.prompt,
      guarded("session/prompt", ({ params, signal }) => withHandlers((h) => h.handlePrompt(sessions, params, signal))),
    )
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.find(params.sessionId)?.cancel();
    });
  return { app, sessions };
}
