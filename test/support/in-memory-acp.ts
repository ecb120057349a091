import {
  methods,
  PROTOCOL_VERSION,
  type AnyMessage,
  type ClientConnection,
  type InitializeResponse,
} from "@agentclientprotocol/sdk/unstable";
import { createAgentApp } from "../../src/acp/agent-app.js";
import type { SessionManager } from "../../src/acp/session-manager.js";
import { Runtime } from "../../src/runtime/runtime.js";
import type { AgentProcess } from "./acp-client.js";
import { testClientApp, type ClientAppOptions } from "./client-app.js";

/** Which side wrote a frame. */
export type FrameSide = "client" | "agent";

/** One JSON-RPC message as it crossed the pair, a JSON copy taken at that moment. */
export interface RecordedFrame {
  from: FrameSide;
  message: Record<string, unknown>;
}

/**
 * An in-process agent with the same surface as `AgentProcess` where it makes sense (no child, no
 * stdout, no raw writes), plus `frames`: every message either side wrote, in the order written.
 */
export interface InMemoryAgent extends Pick<AgentProcess, "updates" | "permissions" | "fsRequests" | "terminals"> {
  connection: ClientConnection;
  runtime: Runtime;
  /** The agent app's live sessions. */
  sessions: SessionManager;
  frames: RecordedFrame[];
  initialize(): Promise<InitializeResponse>;
  /**
   * Closes both ends, then every live session (turns cancelled, processes stopped) and, when the
   * pair created it, the runtime's state.db. Resolves once all of that is done; idempotent.
   */
  close(): Promise<void>;
}

export interface InMemoryAgentOptions extends ClientAppOptions {
  /** HERMES_HOME for a runtime the pair creates (and closes); ignored when `runtime` is given. */
  home?: string;
  env?: NodeJS.ProcessEnv;
  /** A runtime to serve; the caller closes its store. */
  runtime?: Runtime;
}

/**
 * A one-way message channel that records a JSON copy of each message and passes that copy on,
 * so the receiver sees exactly what a wire would carry (undefined fields dropped, no shared objects).
 */
function recordingChannel(from: FrameSide, frames: RecordedFrame[]): TransformStream<AnyMessage, AnyMessage> {
  return new TransformStream<AnyMessage, AnyMessage>({
    transform(message, controller) {
      const copy = JSON.parse(JSON.stringify(message)) as Record<string, unknown>;
      frames.push({ from, message: JSON.parse(JSON.stringify(copy)) as Record<string, unknown> });
      controller.enqueue(copy as AnyMessage);
    },
  });
}

/**
 * The agent app of `createAgentApp(runtime)` and the ACP SDK's client app, connected over a pair
 * of in-memory message streams: the same handlers the binary serves, with no build, no child and
 * no stdio framing (the bounded frame reader and the JSON-lines writer of server.ts are not in
 * the path). Permission, fs and terminal requests are answered as `spawnAgent` answers them.
 */
export function connectInMemory(options: InMemoryAgentOptions): InMemoryAgent {
  const ownsRuntime = !options.runtime;
  if (!options.runtime && !options.home) throw new Error("connectInMemory needs a runtime or a home");
  const runtime = options.runtime ?? new Runtime({ home: options.home!, ...(options.env ? { env: options.env } : {}) });
  const { app: agentApp, sessions } = createAgentApp(runtime);

  const frames: RecordedFrame[] = [];
  const { app, record } = testClientApp(options);
  const { updates, permissions, fsRequests, terminals } = record;

  const toAgent = recordingChannel("client", frames);
  const toClient = recordingChannel("agent", frames);
  const agentConnection = agentApp.connect({ readable: toAgent.readable, writable: toClient.writable });
  const connection = app.connect({ readable: toClient.readable, writable: toAgent.writable });
  void agentConnection.closed.then(() => connection.close());
  void connection.closed.then(() => agentConnection.close());

  let closing: Promise<void> | undefined;
  return {
    connection,
    runtime,
    sessions,
    frames,
    updates,
    permissions,
    fsRequests,
    terminals,
    initialize: () =>
      connection.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: options.clientCapabilities ?? {},
        clientInfo: { name: "hermes-test-client", version: "1" },
      }),
    close: () =>
      (closing ??= (async () => {
        connection.close();
        agentConnection.close();
        await Promise.allSettled([connection.closed, agentConnection.closed]);
        await sessions.closeAll();
        terminals?.dispose();
        if (ownsRuntime) runtime.directory.close();
      })()),
  };
}
