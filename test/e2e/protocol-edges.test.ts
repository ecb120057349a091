import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { methods, RequestError } from "@agentclientprotocol/sdk/unstable";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILT_BINARY, spawnAgent } from "../support/acp-client.js";
import { e2eSuite } from "../support/e2e-suite.js";
import { sleepCommands, sleepers } from "../support/processes.js";

/**
 * Protocol edges end to end, with the built binary: frames too big, too deep or invalid are
 * answered with short errors and the server keeps serving; params are type-checked; signals and
 * end of input exit with conventional codes and leave no process behind.
 */
const suite = e2eSuite();

interface Frame {
  id?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

beforeAll(() => {
  if (!existsSync(BUILT_BINARY)) throw new Error(`${BUILT_BINARY} is missing: run npm run build (npm test does it)`);
});


const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

/** The raw stdout line answering `id`, once it has arrived. */
async function rawAnswer(id: string | null, after = 0): Promise<{ line: string; frame: Frame }> {
  for (;;) {
    const lines = suite.agent!.stdoutLines().slice(after);
    for (const line of lines) {
      const frame = JSON.parse(line) as Frame;
      if (frame.id === id && frame.error) return { line, frame };
    }
    await pause();
  }
}

/**
 * Writes past the SDK client and waits until stdin has drained: Node's Writable.toWeb drops a
 * chunk written while the stream needs a drain, so the client's next request would be lost.
 */
async function writeRawDrained(text: string): Promise<void> {
  suite.agent!.writeRaw(text);
  const stdin = suite.agent!.child.stdin!;
  if (stdin.writableNeedDrain) await once(stdin, "drain");
}

async function rejection(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (error) {
    return error as RequestError;
  }
  throw new Error("expected the request to fail");
}

async function stillServes(): Promise<void> {
  const { sessionId } = await suite.agent!.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
  expect(sessionId).toBeTruthy();
}

function exited(): Promise<number | null> {
  return new Promise((resolve) => {
    if (suite.agent!.child.exitCode !== null) resolve(suite.agent!.child.exitCode);
    else suite.agent!.child.once("exit", (code) => resolve(code));
  });
}

describe("oversize, deep and invalid frames", () => {
  it("answers a request nested 6,000 levels deep with a short -32600 to its id and keeps serving", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const deep = "[".repeat(6000) + "]".repeat(6000);
    suite.agent.writeRaw(`{"jsonrpc":"2.0","id":"deep","method":"session/new","params":{"cwd":"/tmp","x":${deep}}}\n`);
    const answer = await rawAnswer("deep");
    expect(answer.frame.error?.code).toBe(-32600);
    expect(answer.line.length).toBeLessThan(300);
    // The shape the issue reported: an invalid message (no method) that the SDK used to echo back.
    const before = suite.agent.stdoutLines().length;
    suite.agent.writeRaw(`{"jsonrpc":"2.0","x":${deep}}\n`);
    const invalid = await rawAnswer(null, before);
    expect(invalid.frame.error?.code).toBe(-32600);
    expect(invalid.line.length).toBeLessThan(300);
    await stillServes();
    expect(await suite.agent.close()).toBe(0);
    suite.agent = undefined;
  });

  it("answers a 40 MiB line with -32600, discards it, and keeps serving", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const pad = "a".repeat(40 * 1024 * 1024);
    await writeRawDrained(`{"jsonrpc":"2.0","id":"big","method":"session/new","params":{"cwd":"/tmp","mcpServers":[],"pad":"${pad}"}}\n`);
    const answer = await rawAnswer("big");
    expect(answer.frame.error?.code).toBe(-32600);
    expect(answer.frame.error?.message).toMatch(/exceeds/);
    expect(answer.line.length).toBeLessThan(300);
    await stillServes();
    expect(await suite.agent.close()).toBe(0);
    suite.agent = undefined;
  });

  it("answers a 12 MB invalid frame with a short error, not a copy of it", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    await writeRawDrained(`{"jsonrpc":"2.0","junk":"${"b".repeat(12 * 1024 * 1024)}"}\n`);
    const answer = await rawAnswer(null);
    expect(answer.frame.error?.code).toBe(-32600);
    expect(answer.line.length).toBeLessThan(300);
    await stillServes();
  });

  it("keeps a 1 MB field out of the log and out of the answer", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const huge = "m".repeat(1024 * 1024);
    const error = await rejection(suite.agent.connection.agent.request(methods.agent.authenticate, { methodId: huge }));
    expect(error.code).toBeLessThan(0);
    expect(error.message.length).toBeLessThan(5000);
    expect(await suite.agent.close()).toBe(0);
    suite.agent = undefined;
    const log = readFileSync(join(suite.home.home, "logs", "agent.log"), "utf8");
    expect(log).not.toContain(huge);
    for (const line of log.split("\n")) expect(line.length).toBeLessThan(20_000);
  });
});

describe("params", () => {
  it("rejects wrong types and bad paths with -32602 naming the field", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    const init = await rejection(
      suite.agent.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: "x" as unknown as object }),
    );
    expect(init.code).toBe(-32602);
    expect(init.message).toContain("clientCapabilities");
    await suite.agent.initialize();
    const nul = await rejection(suite.agent.connection.agent.request(methods.agent.session.new, { cwd: `${suite.home.workspace}/a\0b`, mcpServers: [] }));
    expect(nul.code).toBe(-32602);
    expect(nul.message).toMatch(/cwd.*NUL/);
    const list = await rejection(suite.agent.connection.agent.request(methods.agent.session.list, { cwd: "relative" }));
    expect(list.code).toBe(-32602);
    expect(list.message).toContain("cwd");
    const wrongType = await rejection(suite.agent.connection.agent.request(methods.agent.session.new, { cwd: 42 as unknown as string, mcpServers: [] }));
    expect(wrongType.message).toContain("cwd");
    await stillServes();
  });
});

describe("shutdown", () => {
  it("SIGHUP during a running command exits 129 and leaves no process behind; load with a relative cwd is refused while busy", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    const marker = `${7000 + Math.floor(Math.random() * 900)}.${Math.floor(Math.random() * 1e6)}`;
    suite.llm.push({ tool_calls: [{ id: "s1", name: "terminal", arguments: { command: `sleep ${marker} & sleep ${marker}; wait` } }] }, { text: "after" });
    void suite.agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "sleep" }] }).catch(() => undefined);
    while (sleepCommands(marker).length < 2) await pause();

    const load = await rejection(suite.agent.connection.agent.request(methods.agent.session.load, { sessionId, cwd: "relative/dir", mcpServers: [] }));
    expect(load.code).toBe(-32602);
    expect(load.message).toContain("cwd");

    const exit = exited();
    suite.agent.child.kill("SIGHUP");
    expect(await exit).toBe(129);
    while (sleepers(marker).length) await pause();
    expect(sleepers(marker)).toEqual([]);
  });

  it("SIGTERM exits 143 and closing stdin exits 0", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const exit = exited();
    suite.agent.child.kill("SIGTERM");
    expect(await exit).toBe(143);
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    expect(await suite.agent.close()).toBe(0);
    suite.agent = undefined;
  });
});

describe("an editor that is gone", () => {
  it("exits once its stdin ends when its ends of stdout and stderr were closed (EPIPE), and keeps the record in the log file", async () => {
    const child = spawn(process.execPath, [BUILT_BINARY, "acp"], { env: suite.home.env(), stdio: ["pipe", "pipe", "pipe"] });
    try {
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
      await once(child.stdout, "data");
      child.stdout.destroy();
      child.stderr.destroy();
      const exit = once(child, "exit");
      // Answers and log lines now go to closed pipes.
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: suite.home.workspace, mcpServers: [] } })}\n`);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/list", params: {} })}\n`);
      await pause();
      child.stdin.end();
      const [code] = (await exit) as [number | null];
      expect(code).not.toBeNull();
      const logged = readFileSync(join(suite.home.home, "logs", "agent.log"), "utf8");
      expect(logged).toContain("ACP server ready");
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});

describe("a cancel in the same write as its prompt", () => {
  it("cancels the prompt (the turn ends cancelled, not after the model's whole answer)", async () => {
    suite.llm.push({ text: "A long answer", chunks: ["A", " long", " answer"], stallAfterChunks: 1 });
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    const after = suite.agent.stdoutLines().length;
    await writeRawDrained(
      `${JSON.stringify({ jsonrpc: "2.0", id: "p1", method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "start" }] } })}\n` +
        `${JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } })}\n`,
    );
    let answer: { id?: unknown; result?: { stopReason?: string } } | undefined;
    while (!answer) {
      answer = suite.agent.stdoutLines().slice(after).map((line) => JSON.parse(line) as { id?: unknown; result?: { stopReason?: string } }).find((frame) => frame.id === "p1");
      if (!answer) await pause();
    }
    expect(answer.result?.stopReason).toBe("cancelled");
  });
});

/** The built binary fed `text`; `next` (given each stdout frame) may write more; stdin ends once `next` says so. Answers every frame and the exit code. */
async function untilInputEnds(text: string, next: (frame: AnswerFrame, write: (more: string) => void) => boolean = () => true): Promise<{ frames: AnswerFrame[]; code: number | null }> {
  const child = spawn(process.execPath, [BUILT_BINARY, "acp"], { env: suite.home.env(), stdio: ["pipe", "pipe", "ignore"] });
  const frames: AnswerFrame[] = [];
  let buffered = "";
  let ended = false;
  const exit = once(child, "exit");
  const write = (more: string): void => void child.stdin.write(more);
  const end = (): void => {
    if (!ended) child.stdin.end();
    ended = true;
  };
  try {
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      buffered += chunk;
      for (let at = buffered.indexOf("\n"); at >= 0; at = buffered.indexOf("\n")) {
        const frame = JSON.parse(buffered.slice(0, at)) as AnswerFrame;
        buffered = buffered.slice(at + 1);
        frames.push(frame);
        if (!ended && next(frame, write)) end();
      }
    });
    write(text);
    if (next({}, write)) end();
    const [code] = (await exit) as [number | null];
    return { frames, code };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

interface AnswerFrame {
  id?: unknown;
  method?: string;
  result?: { sessionId?: string; stopReason?: string; protocolVersion?: number };
  error?: { code: number; message: string };
}

const line = (frame: Record<string, unknown>, newline = true): string => `${JSON.stringify({ jsonrpc: "2.0", ...frame })}${newline ? "\n" : ""}`;
const initializeLine = (newline = true): string => line({ id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }, newline);

describe("the end of input", () => {
  it("answers a last request that has no newline, on a first start and from the initialize cache", async () => {
    for (let start = 0; start < 3; start += 1) {
      const { frames, code } = await untilInputEnds(initializeLine(false));
      expect(code).toBe(0);
      expect(frames.map((frame) => [frame.id, frame.result?.protocolVersion])).toEqual([[0, 1]]);
    }
    const { frames, code } = await untilInputEnds(initializeLine() + line({ id: 1, method: "session/new", params: { cwd: suite.home.workspace, mcpServers: [] } }, false));
    expect(code).toBe(0);
    expect(frames.find((frame) => frame.id === 1)?.result?.sessionId).toBeTruthy();
  });

  it("answers every request already read before it exits, whatever it is", async () => {
    const requests = [
      line({ id: 1, method: "session/new", params: { cwd: suite.home.workspace, mcpServers: [] } }),
      line({ id: 2, method: "session/list", params: {} }),
      line({ id: 3, method: "session/load", params: { sessionId: "no-such-session", cwd: suite.home.workspace, mcpServers: [] } }),
      line({ id: 4, method: "no/such/method", params: {} }),
    ];
    const { frames, code } = await untilInputEnds(initializeLine() + requests.join(""));
    expect(code).toBe(0);
    expect(frames.map((frame) => frame.id).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(frames.find((frame) => frame.id === 3)?.error?.code).toBe(-32002);
    expect(frames.find((frame) => frame.id === 4)?.error?.code).toBe(-32601);
  });

  it("cancels a turn still running when input ends (the client has gone), answers it cancelled and exits", async () => {
    suite.llm.push({ text: "A long answer", chunks: ["A", " long", " answer"], stallAfterChunks: 1 });
    const { frames, code } = await untilInputEnds(initializeLine() + line({ id: 1, method: "session/new", params: { cwd: suite.home.workspace, mcpServers: [] } }), (frame, write) => {
      if (frame.id !== 1) return false;
      write(line({ id: "p1", method: "session/prompt", params: { sessionId: frame.result?.sessionId, prompt: [{ type: "text", text: "start" }] } }));
      return true;
    });
    expect(code).toBe(0);
    expect(frames.find((frame) => frame.id === "p1")?.result?.stopReason).toBe("cancelled");
  });
});
