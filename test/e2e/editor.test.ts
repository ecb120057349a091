import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  methods,
  type ContentBlock,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { spawnAgent, type AgentProcess } from "../support/acp-client.js";
import { e2eSuite } from "../support/e2e-suite.js";
import { sleepers } from "../support/processes.js";

/**
 * Issue 6, the editor-native parts, end to end over stdio with the built binary: rich prompt
 * content, the editor's buffers (`fs/*`) and terminals (`terminal/*`), output streamed into a
 * running tool call, cancellation of our own requests, `$/cancel_request`, and `logout`.
 */
const suite = e2eSuite();

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex");

async function start(options: Omit<Parameters<typeof spawnAgent>[0], "env"> = {}): Promise<{ agent: AgentProcess; sessionId: string }> {
  suite.agent = spawnAgent({ env: suite.home.env(), ...options });
  await suite.agent.initialize();
  const { sessionId } = await suite.agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
  return { agent: suite.agent, sessionId };
}

function prompt(sessionId: string, blocks: ContentBlock[] | string, options: { cancellationSignal?: AbortSignal } = {}) {
  const content: ContentBlock[] = typeof blocks === "string" ? [{ type: "text", text: blocks }] : blocks;
  return suite.agent!.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: content }, options);
}

function toolUpdates(callId: string): SessionUpdate[] {
  return suite.agent!.updates.map((n) => n.update).filter((u) => "toolCallId" in u && u.toolCallId === callId);
}

/** The last user message the model was sent in request `index`. */
function lastUserContent(index: number): unknown {
  const messages = suite.llm.requests[index]?.body.messages as Array<{ role: string; content: unknown }>;
  return messages.filter((message) => message.role === "user").at(-1)?.content;
}

/** The tool result the model was sent in request `index`. */
function toolResult(index: number): string {
  const messages = suite.llm.requests[index]?.body.messages as Array<{ role: string; content: string }>;
  return messages.find((message) => message.role === "tool")?.content ?? "";
}

const allow = (): RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId: "allow_once" } });

describe("initialize", () => {
  it("advertises image and embedded-context prompts (not audio) and logout", async () => {
    suite.agent = spawnAgent({ env: suite.home.env() });
    const response = await suite.agent.initialize();
    expect(response.agentCapabilities?.promptCapabilities).toEqual({ image: true, audio: false, embeddedContext: true });
    expect(response.agentCapabilities?.auth?.logout).toEqual({});
  });
});

describe("prompt content", () => {
  it("sends a linked file's text and an image block to the model as the right parts", async () => {
    const file = join(suite.home.workspace, "notes.md");
    writeFileSync(file, "# Plan\nShip it on Friday.\n");
    const { sessionId } = await start();
    suite.llm.push({ text: "Seen both." });
    const data = PNG.toString("base64");
    const response = await prompt(sessionId, [
      { type: "text", text: "Summarise the notes and describe the picture." },
      { type: "resource_link", uri: pathToFileURL(file).href, name: "notes.md" },
      { type: "image", data, mimeType: "image/png" },
    ]);
    expect(response.stopReason).toBe("end_turn");
    expect(lastUserContent(0)).toEqual([
      { type: "text", text: "Summarise the notes and describe the picture." },
      { type: "text", text: `[Attached file: notes.md]\nURI: ${pathToFileURL(file).href}\n\n# Plan\nShip it on Friday.\n` },
      { type: "image_url", image_url: { url: `data:image/png;base64,${data}` } },
    ]);
  });

  it("keeps a prompt with only text and an embedded text resource a plain string", async () => {
    const { sessionId } = await start();
    suite.llm.push({ text: "ok" });
    await prompt(sessionId, [
      { type: "text", text: "Look:" },
      { type: "resource", resource: { uri: "file:///project/snippet.ts", text: "const x = 1;", mimeType: "text/x-typescript" } },
    ]);
    expect(lastUserContent(0)).toBe("Look:\n[Attached file: snippet.ts]\nURI: file:///project/snippet.ts\n\nconst x = 1;");
  });
});

describe("the editor's buffers", () => {
  it("reads through the editor when it advertises fs, so unsaved changes reach the model", async () => {
    const file = join(suite.home.workspace, "app.txt");
    writeFileSync(file, "saved on disk\n");
    const { sessionId } = await start({
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      onReadTextFile: (request) => ({ content: request.path === file ? "unsaved in the editor\n" : "" }),
    });
    suite.llm.push({ tool_calls: [{ id: "r1", name: "read_file", arguments: { path: "app.txt" } }] }, { text: "read it" });
    await prompt(sessionId, "read app.txt");
    expect(suite.agent!.fsRequests).toContainEqual({ method: "fs/read_text_file", params: { sessionId, path: file } });
    expect(toolResult(1)).toContain("unsaved in the editor");
    expect(toolResult(1)).not.toContain("saved on disk");
  });

  it("writes through the editor (and not to disk) when it advertises fs.writeTextFile", async () => {
    const { sessionId } = await start({ clientCapabilities: { fs: { writeTextFile: true } }, onPermission: allow });
    suite.llm.push({ tool_calls: [{ id: "w1", name: "write_file", arguments: { path: "new.txt", content: "hello editor\n" } }] }, { text: "written" });
    await prompt(sessionId, "write new.txt");
    const file = join(suite.home.workspace, "new.txt");
    expect(suite.agent!.fsRequests).toEqual([{ method: "fs/write_text_file", params: { sessionId, path: file, content: "hello editor\n" } }]);
    expect(existsSync(file)).toBe(false);
    expect(toolUpdates("w1").at(-1)).toMatchObject({ status: "completed" });
  });

  it("uses local disk when the client advertises nothing", async () => {
    writeFileSync(join(suite.home.workspace, "disk.txt"), "from disk\n");
    const { sessionId } = await start({ onReadTextFile: () => ({ content: "never" }) });
    suite.llm.push({ tool_calls: [{ id: "r1", name: "read_file", arguments: { path: "disk.txt" } }] }, { text: "ok" });
    await prompt(sessionId, "read");
    expect(suite.agent!.fsRequests).toEqual([]);
    expect(toolResult(1)).toContain("from disk");
  });
});

describe("the editor's terminals", () => {
  it("runs the command in a client terminal, embeds it in the tool call, collects the output and releases it", async () => {
    const { sessionId } = await start({ clientCapabilities: { terminal: true }, terminals: true });
    suite.llm.push({ tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "echo from-editor-terminal; pwd" } }] }, { text: "ran" });
    expect((await prompt(sessionId, "run it")).stopReason).toBe("end_turn");
    const host = suite.agent!.terminals!;
    expect(host.created).toHaveLength(1);
    expect(host.created[0]).toMatchObject({ sessionId, command: "env", cwd: suite.home.workspace });
    expect(host.calls).toEqual(["create editor-term-1", "wait_for_exit editor-term-1", "output editor-term-1", "release editor-term-1"]);
    const embedded = { type: "terminal", terminalId: "editor-term-1" };
    expect(toolUpdates("t1")).toContainEqual({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "in_progress", content: [embedded], _meta: { hermes: { toolName: "terminal" } } });
    expect(toolUpdates("t1").at(-1)).toMatchObject({ status: "completed", content: [embedded, { type: "content" }] });
    expect(JSON.parse(toolResult(1))).toMatchObject({ output: `from-editor-terminal\n${suite.home.workspace}`, exit_code: 0 });
  });

  it("kills and releases the client terminal when the turn is cancelled", async () => {
    const marker = `${4000 + Math.floor(Math.random() * 900)}.${Math.floor(Math.random() * 1e6)}`;
    const { sessionId } = await start({ clientCapabilities: { terminal: true }, terminals: true });
    suite.llm.push({ tool_calls: [{ id: "t1", name: "terminal", arguments: { command: `sleep ${marker}` } }] }, { text: "after" });
    const running = prompt(sessionId, "sleep");
    while (!suite.agent!.terminals!.calls.includes("wait_for_exit editor-term-1")) await new Promise((resolve) => setTimeout(resolve, 20));
    await suite.agent!.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await running).stopReason).toBe("cancelled");
    expect(suite.agent!.terminals!.calls).toEqual(expect.arrayContaining(["kill editor-term-1", "release editor-term-1"]));
    while (sleepers(marker).length) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(toolUpdates("t1").at(-1)).toMatchObject({ status: "failed" });
  });

  it("without the capability, streams a slow command's output into the running tool call before it finishes", async () => {
    const gate = join(suite.home.workspace, "gate");
    let streamed: SessionUpdate | undefined;
    const onUpdate = ({ update }: SessionNotification): void => {
      if (streamed || update.sessionUpdate !== "tool_call_update" || update.status !== "in_progress") return;
      if (!JSON.stringify(update.content ?? []).includes("first half")) return;
      streamed = update;
      writeFileSync(gate, "");
    };
    const { sessionId } = await start({ onUpdate });
    const command = `echo first half; while [ ! -e ${gate} ]; do sleep 0.05; done; echo second half`;
    suite.llm.push({ tool_calls: [{ id: "t1", name: "terminal", arguments: { command } }] }, { text: "done" });
    await prompt(sessionId, "run slowly");
    expect(streamed).toBeDefined();
    expect(JSON.stringify(streamed)).not.toContain("second half");
    const updates = toolUpdates("t1");
    expect(updates.indexOf(streamed!)).toBeLessThan(updates.length - 1);
    expect(updates.at(-1)).toMatchObject({ status: "completed" });
    expect(JSON.stringify(updates.at(-1))).toContain("second half");
  });
});

describe("cancellation and logout", () => {
  it("session/cancel withdraws our pending permission request and denies the command", async () => {
    mkdirSync(join(suite.home.workspace, "build"));
    let withdrawn = false;
    const { sessionId } = await start({
      onPermission: async (_request, { signal }) => {
        await suite.agent!.connection.agent.notify(methods.agent.session.cancel, { sessionId });
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        withdrawn = true;
        return { outcome: { outcome: "cancelled" } };
      },
    });
    suite.llm.push({ tool_calls: [{ id: "t1", name: "terminal", arguments: { command: "rm -rf build" } }] }, { text: "never" });
    expect((await prompt(sessionId, "clean")).stopReason).toBe("cancelled");
    expect(withdrawn).toBe(true);
    expect(existsSync(join(suite.home.workspace, "build"))).toBe(true);
  });

  it("$/cancel_request for a running prompt cancels its turn", async () => {
    const marker = `${5000 + Math.floor(Math.random() * 900)}.${Math.floor(Math.random() * 1e6)}`;
    const { sessionId } = await start();
    suite.llm.push({ tool_calls: [{ id: "s1", name: "terminal", arguments: { command: `sleep ${marker}` } }] }, { text: "after" });
    const controller = new AbortController();
    const running = prompt(sessionId, "sleep", { cancellationSignal: controller.signal });
    while (!sleepers(marker).length) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    expect((await running).stopReason).toBe("cancelled");
    while (sleepers(marker).length) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(toolUpdates("s1").at(-1)).toMatchObject({ status: "failed" });
    expect(suite.llm.requests).toHaveLength(1);
  });

  it("logout forgets the provider keys Hermes stored and says what it forgot", async () => {
    writeFileSync(join(suite.home.home, ".env"), "OPENROUTER_API_KEY=sk-or-v1-0123456789abcdef0123\nKEEP_ME=1\n");
    suite.agent = spawnAgent({ env: suite.home.env() });
    await suite.agent.initialize();
    const response = await suite.agent.connection.agent.request(methods.agent.logout, {});
    const meta = response._meta?.hermes as { forgotten: string[]; kept: string[]; message: string };
    expect(meta.forgotten).toEqual([`OPENROUTER_API_KEY (removed from ${join(suite.home.home, ".env")})`]);
    expect(meta.message).toMatch(/^Logged out/);
    expect(JSON.stringify(response)).not.toContain("sk-or-v1");
    expect(readFileSync(join(suite.home.home, ".env"), "utf8")).toBe("KEEP_ME=1\n");
    const again = await suite.agent.connection.agent.request(methods.agent.logout, {});
    expect((again._meta?.hermes as { forgotten: string[] }).forgotten).toEqual([]);
  });
});
