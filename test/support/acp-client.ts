import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import {
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type ClientConnection,
  type InitializeResponse,
  type ReadTextFileRequest,
  type RequestPermissionRequest,
  type SessionNotification,
  type WriteTextFileRequest,
} from "@agentclientprotocol/sdk/unstable";
import { ClientTerminalHost } from "./client-terminals.js";
import { testClientApp, type ClientAppOptions } from "./client-app.js";

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
export function spawnAgent(options: ClientAppOptions & {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  command?: string[];
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

  const { app, record } = testClientApp(options);
  const { updates, permissions, fsRequests, terminals } = record;
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
