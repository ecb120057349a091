import type { CreateTerminalRequest, TerminalOutputResponse, WaitForTerminalExitResponse } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import type { ClientTerminalRequest } from "../tools/ports.js";
import { clientTerminalPort, exitCodeOf, type TerminalClient, type TerminalLike } from "./client-terminal.js";

/** An editor whose one terminal exits when the test says (or when killed), recording every call. */
function fakeEditor(options: { output?: string; createFails?: boolean } = {}) {
  const calls: string[] = [];
  const created: CreateTerminalRequest[] = [];
  let exit!: (status: WaitForTerminalExitResponse) => void;
  const exited = new Promise<WaitForTerminalExitResponse>((resolve) => (exit = resolve));
  let status: WaitForTerminalExitResponse | undefined;
  const handle: TerminalLike = {
    id: "term-1",
    async currentOutput(): Promise<TerminalOutputResponse> {
      calls.push("output");
      return { output: options.output ?? "hello\n", truncated: false, exitStatus: status ?? null };
    },
    async waitForExit() {
      calls.push("wait");
      return exited;
    },
    async kill() {
      calls.push("kill");
      status = { exitCode: null, signal: "SIGKILL" };
      exit(status);
      return {};
    },
    async release() {
      calls.push("release");
      return {};
    },
  };
  const client: TerminalClient = {
    async createTerminal(params) {
      calls.push("create");
      created.push(params);
      if (options.createFails) throw new Error("no terminals here");
      return handle;
    },
  };
  return {
    client,
    calls,
    created,
    finish(code: number) {
      status = { exitCode: code };
      exit(status);
    },
  };
}

function request(overrides: Partial<ClientTerminalRequest> = {}): ClientTerminalRequest {
  return { command: "bash", args: ["-c", "echo hello"], cwd: "/work", timeoutMs: 60_000, ...overrides };
}

describe("clientTerminalPort", () => {
  it("creates the terminal, reports it, waits for the exit, collects the output and releases it", async () => {
    const editor = fakeEditor();
    const started: string[] = [];
    const port = clientTerminalPort(editor.client, "sess-1");
    const running = port(request({ env: { A: "1" }, outputByteLimit: 1000, onStarted: (id) => started.push(id) }), new AbortController().signal);
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(["term-1"]);
    editor.finish(3);
    expect(await running).toEqual({ terminalId: "term-1", output: "hello\n", truncated: false, exitCode: 3, timedOut: false, interrupted: false });
    expect(editor.created).toEqual([
      { sessionId: "sess-1", command: "bash", args: ["-c", "echo hello"], cwd: "/work", env: [{ name: "A", value: "1" }], outputByteLimit: 1000 },
    ]);
    expect(editor.calls).toEqual(["create", "wait", "output", "release"]);
  });

  it("kills the command when the turn is cancelled, then still collects and releases", async () => {
    const editor = fakeEditor({ output: "partial" });
    const controller = new AbortController();
    const port = clientTerminalPort(editor.client, "sess-1");
    const running = port(request({ onStarted: () => controller.abort() }), controller.signal);
    const outcome = await running;
    expect(outcome).toMatchObject({ terminalId: "term-1", output: "partial", interrupted: true, timedOut: false, signal: "SIGKILL", exitCode: 137 });
    expect(editor.calls).toEqual(["create", "wait", "kill", "output", "release"]);
  });

  it("kills the command at the timeout", async () => {
    const editor = fakeEditor();
    const outcome = await clientTerminalPort(editor.client, "s")(request({ timeoutMs: 1 }), new AbortController().signal);
    expect(outcome).toMatchObject({ timedOut: true, interrupted: false });
    expect(editor.calls).toContain("kill");
    expect(editor.calls.at(-1)).toBe("release");
  });

  it("rejects when the editor cannot create a terminal (nothing to release)", async () => {
    const editor = fakeEditor({ createFails: true });
    await expect(clientTerminalPort(editor.client, "s")(request(), new AbortController().signal)).rejects.toThrow("no terminals here");
    expect(editor.calls).toEqual(["create"]);
  });

  it("maps exit statuses to codes", () => {
    expect(exitCodeOf({ exitCode: 0 })).toBe(0);
    expect(exitCodeOf({ exitCode: null, signal: "SIGTERM" })).toBe(143);
    expect(exitCodeOf(undefined)).toBe(-1);
    expect(exitCodeOf({ signal: "SIGWHAT" })).toBe(-1);
  });
});
