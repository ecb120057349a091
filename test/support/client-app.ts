import {
  client,
  methods,
  type ClientCapabilities,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type ReadTextFileRequest,
  type ReadTextFileResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type WriteTextFileRequest,
} from "@agentclientprotocol/sdk/unstable";
import { ClientTerminalHost } from "./client-terminals.js";

/** How the test editor answers the agent (shared by the stdio and the in-memory clients). */
export interface ClientAppOptions {
  onUpdate?: (notification: SessionNotification) => void;
  /**
   * Answers `session/request_permission` as a user would. Without it every request is answered
   * "cancelled" (which the agent must treat as a deny). Every request is recorded in `permissions`.
   */
  onPermission?: (
    request: RequestPermissionRequest,
    context: { signal: AbortSignal },
  ) => RequestPermissionResponse | Promise<RequestPermissionResponse>;
  clientCapabilities?: ClientCapabilities;
  /** Serves `fs/read_text_file` (an editor's buffer, unsaved changes included). */
  onReadTextFile?: (request: ReadTextFileRequest) => ReadTextFileResponse | Promise<ReadTextFileResponse>;
  /** Serves `fs/write_text_file`; the default handler only records the request. */
  onWriteTextFile?: (request: WriteTextFileRequest) => void | Promise<void>;
  /** Serves `terminal/*` with real processes (see ClientTerminalHost). */
  terminals?: boolean;
  /** Answers `elicitation/create` (advertise `elicitation: { form: {} }` too); every request is recorded in `elicitations`. */
  onElicitation?: (request: CreateElicitationRequest) => CreateElicitationResponse | Promise<CreateElicitationResponse>;
}

export type FsRequest = { method: "fs/read_text_file"; params: ReadTextFileRequest } | { method: "fs/write_text_file"; params: WriteTextFileRequest };

/** What the test editor saw, in arrival order. */
export interface ClientRecord {
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  fsRequests: FsRequest[];
  terminals: ClientTerminalHost | undefined;
  elicitations: CreateElicitationRequest[];
}

/** The SDK client app of the test editor, recording into the returned lists; connect it to any transport. */
export function testClientApp(options: ClientAppOptions): { app: ReturnType<typeof client>; record: ClientRecord } {
  const record: ClientRecord = { updates: [], permissions: [], fsRequests: [], terminals: options.terminals ? new ClientTerminalHost() : undefined, elicitations: [] };
  let app = client({ name: "hermes-test-client" })
    .onRequest(methods.client.session.requestPermission, async ({ params, signal }) => {
      record.permissions.push(params);
      return options.onPermission ? options.onPermission(params, { signal }) : { outcome: { outcome: "cancelled" } };
    })
    .onNotification(methods.client.session.update, ({ params }) => {
      record.updates.push(params);
      options.onUpdate?.(params);
    });
  if (options.onReadTextFile) {
    const serve = options.onReadTextFile;
    app = app.onRequest(methods.client.fs.readTextFile, async ({ params }) => {
      record.fsRequests.push({ method: "fs/read_text_file", params });
      return serve(params);
    });
  }
  if (options.onReadTextFile || options.onWriteTextFile || options.clientCapabilities?.fs?.writeTextFile) {
    app = app.onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
      record.fsRequests.push({ method: "fs/write_text_file", params });
      await options.onWriteTextFile?.(params);
      return {};
    });
  }
  if (options.onElicitation) {
    const answer = options.onElicitation;
    app = app.onRequest(methods.client.elicitation.create, async ({ params }) => {
      record.elicitations.push(params);
      return answer(params);
    });
  }
  const terminals = record.terminals;
  if (terminals) {
    app = app
      .onRequest(methods.client.terminal.create, ({ params }) => terminals.create(params))
      .onRequest(methods.client.terminal.output, ({ params }) => terminals.output(params.terminalId))
      .onRequest(methods.client.terminal.waitForExit, ({ params }) => terminals.waitForExit(params.terminalId))
      .onRequest(methods.client.terminal.kill, ({ params }) => terminals.kill(params.terminalId))
      .onRequest(methods.client.terminal.release, ({ params }) => terminals.release(params.terminalId));
  }
  return { app, record };
}
