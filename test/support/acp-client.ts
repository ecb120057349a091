import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import {
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type ClientCapabilities,
  type ClientConnection,
  type InitializeResponse,
  type ReadTextFileRequest,
  type ReadTextFileResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type WriteTextFileRequest,
} from "@agentclientprotocol/sdk/unstable";
import { ClientTerminalHost } from "./client-terminals.js";

/** The built entry under test: dist/hermes.js, or `$HERMES_TEST_DIST/hermes.js` for a private build. */
export const BUILT_BINARY = resolve(process.env.HERMES_TEST_DIST ?? resolve(import.meta.dirname, "../../dist"), "hermes.js");

export interface AgentProcess {
  child: ChildProcess;
  connection: ClientConnection;
  /** Every session/update the agent sent, in arrival order. */
  updates: SessionNotification[];
  /** Every permission request the agent made, in arrival order. */
  permissions: RequestPermissionRequest[];
  /** Every `fs/read_text_file` / `fs/write_text_file` request, in arrival order (only with the fs handlers). */
  fsRequests: Array<{ method: "fs/read_text_file"; params: ReadTextFileRequest } | { method: "fs/write_text_file"; params: WriteTextFileRequest }>;
  /** The editor's terminals (only with `terminals: true`). */
  terminals: ClientTerminalHost | undefined;
  /** Every line the agent wrote to stdout, verbatim. */
  stdoutLines(): string[];
  stderr(): string;
  /** Writes bytes straight to the agent's stdin, bypassing the SDK (for malformed input). */
  writeRaw(text: string): void;
  initialize(): Promise<InitializeResponse>;
  /** Closes stdin and waits for the process to exit; resolves with its exit code. */
  close(): Promise<number | null>;
}

/**
 * Spawns the built binary (`node dist/hermes.js acp` unless `command` is given) and connects
 * the ACP SDK's client app to it over real stdio. `onUpdate`, when given, is called with each
 * session/update as the client app receives it, right after it is added to `updates`.
 */
export function spawnAgent(options: {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  command?: string[];
  onUpdate?: (notification: SessionNotification) => void;
  /**
   * Answers `session/request_permission` as a user would. Without it every request is answered
   * "cancelled" (which the agent must treat as a deny). Every request is recorded in `permissions`.
   */
  onPermission?: (
    request: RequestPermissionRequest,
    context: { signal: AbortSignal },
  ) => RequestPermissionResponse | Promise<RequestPermissionResponse>;
  /** What `initialize` advertises (default: nothing). */
  clientCapabilities?: ClientCapabilities;
  /** Serves `fs/read_text_file` (an editor's buffer, unsaved changes included). */
  onReadTextFile?: (request: ReadTextFileRequest) => ReadTextFileResponse | Promise<ReadTextFileResponse>;
  /** Serves `fs/write_text_file`; the default handler only records the request. */
  onWriteTextFile?: (request: WriteTextFileRequest) => void | Promise<void>;
  /** Serves `terminal/*` with real processes (see ClientTerminalHost). */
  terminals?: boolean;
}): AgentProcess {
  const command = options.command ?? [process.execPath, BUILT_BINARY, "acp"];
  const [file, ...args] = command as [string, ...string[]];
  const child = spawn(file, args, { env: options.env, cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const tee = new PassThrough();
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stdout!.pipe(tee);
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));

  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const fsRequests: AgentProcess["fsRequests"] = [];
  const terminals = options.terminals ? new ClientTerminalHost() : undefined;
  let app = client({ name: "hermes-test-client" })
    .onRequest(methods.client.session.requestPermission, async ({ params, signal }) => {
      permissions.push(params);
      return options.onPermission ? options.onPermission(params, { signal }) : { outcome: { outcome: "cancelled" } };
    })
    .onNotification(methods.client.session.update, ({ params }) => {
    updates.push(params);
    options.onUpdate?.(params);
  });
  if (options.onReadTextFile) {
    const serve = options.onReadTextFile;
    app = app.onRequest(methods.client.fs.readTextFile, async ({ params }) => {
      fsRequests.push({ method: "fs/read_text_file", params });
      return serve(params);
    });
  }
  if (options.onReadTextFile || options.onWriteTextFile || options.clientCapabilities?.fs?.writeTextFile) {
    app = app.onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
      fsRequests.push({ method: "fs/write_text_file", params });
      await options.onWriteTextFile?.(params);
      return {};
    });
  }
  if (terminals) {
    app = app
      .onRequest(methods.client.terminal.create, ({ params }) => terminals.create(params))
      .onRequest(methods.client.terminal.output, ({ params }) => terminals.output(params.terminalId))
      .onRequest(methods.client.terminal.waitForExit, ({ params }) => terminals.waitForExit(params.terminalId))
      .onRequest(methods.client.terminal.kill, ({ params }) => terminals.kill(params.terminalId))
      .onRequest(methods.client.terminal.release, ({ params }) => terminals.release(params.terminalId));
  }
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(tee) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);

  return {
    child,
    connection,
    updates,
    permissions,
    fsRequests,
    terminals,
    stdoutLines: () => stdout.split("\n").filter((line) => line.length > 0),
    stderr: () => stderr,
    writeRaw: (text) => {
      child.stdin!.write(text);
    },
    initialize: () =>
      connection.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: options.clientCapabilities ?? {},
        clientInfo: { name: "hermes-test-client", version: "1" },
      }),
    close: async () => {
      connection.close();
      child.stdin!.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      terminals?.dispose();
      return code;
    },
  };
}
