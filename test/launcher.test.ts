import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { methods } from "@agentclientprotocol/sdk/unstable";
import { BUILT_BINARY, spawnAgent, type AgentProcess } from "./support/acp-client.js";
import { startFakeLlm, type FakeLlm } from "./support/fake-llm.js";
import { createTempHome } from "./support/temp-home.js";

/**
 * The built launcher (dist/launcher.js) over a damaged copy of the bundle: a damaged code cache
 * costs speed only; a missing or changed bundle file stops the process at once, naming the file,
 * with nothing on stdout.
 */
const DIST = dirname(BUILT_BINARY);
const INITIALIZE = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`;
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A copy of dist/ and an empty HERMES_HOME. */
function copy(): { dist: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), "hermes-launcher-"));
  folders.push(root);
  cpSync(DIST, join(root, "dist"), { recursive: true });
  return { dist: join(root, "dist"), home: join(root, "home") };
}

function initialize(dist: string, home: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [join(dist, "hermes-acp.js")], { input: INITIALIZE, env: { ...process.env, HERMES_HOME: home }, encoding: "utf8" });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const chunks = (dist: string): string[] => readdirSync(dist).filter((name) => /^hermes-[A-Z0-9]{8}\.cjs$/.test(name));

describe("the launcher over a damaged install", () => {
  it("answers initialize when every code cache is damaged (V8 rejects them by checksum and compiles the source)", () => {
    const { dist, home } = copy();
    for (const name of readdirSync(dist).filter((file) => file.endsWith(".cache"))) {
      const bytes = readFileSync(join(dist, name));
      for (let at = 64; at < bytes.length; at += 97) bytes[at] = (bytes[at] ?? 0) ^ 0x5a;
      writeFileSync(join(dist, name), bytes);
    }
    const run = initialize(dist, home);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout.split("\n")[0] ?? "")).toMatchObject({ id: 1, result: { agentInfo: { name: "hermes-agent" } } });
  });

  it("stops at once, naming the file, when a chunk is missing or truncated, and writes nothing to stdout", () => {
    const missing = copy();
    const gone = chunks(missing.dist).at(-1) as string;
    rmSync(join(missing.dist, gone));
    const first = initialize(missing.dist, missing.home);
    expect(first.status).toBe(1);
    expect(first.stdout).toBe("");
    expect(first.stderr).toContain(`the installation is damaged: cannot load ${join(missing.dist, gone)} (missing)`);

    const truncated = copy();
    const cut = chunks(truncated.dist)[0] as string;
    truncateSync(join(truncated.dist, cut), 10);
    const second = initialize(truncated.dist, truncated.home);
    expect(second.status).toBe(1);
    expect(second.stdout).toBe("");
    expect(second.stderr).toContain(`cannot load ${join(truncated.dist, cut)} (10 bytes, the build wrote`);
  });
});

describe("a bundle file whose evaluation throws", () => {
  it("is evaluated again when next needed, never handed out half-made: a damaged detector refuses every command", async () => {
    const { dist } = copy();
    const detector = chunks(dist).find((name) => readFileSync(join(dist, name), "latin1").includes("recursive delete of the root filesystem")) as string;
    writeFileSync(join(dist, detector), `${readFileSync(join(dist, detector), "utf8")}\nthrow new Error("damaged after its tables");\n`);
    const files = JSON.parse(readFileSync(join(dist, "hermes.files.json"), "utf8")) as Record<string, number>;
    files[detector] = statSync(join(dist, detector)).size;
    writeFileSync(join(dist, "hermes.files.json"), JSON.stringify(files));
    const llm = await startFakeLlm();
    const home = createTempHome({ baseUrl: llm.baseUrl });
    const agent = spawnAgent({ env: home.env(), command: [process.execPath, join(dist, "hermes.js"), "acp"] });
    try {
      await agent.initialize();
      const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] });
      for (const id of ["first", "second"]) {
        llm.push({ tool_calls: [{ id, name: "terminal", arguments: { command: `echo ${id} > ${id}.txt` } }] }, { text: "Done." });
        await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: id }] });
        expect(JSON.stringify(llm.requests.at(-1)?.body.messages.at(-1))).toContain("could not be checked for safety");
        expect(existsSync(join(home.workspace, `${id}.txt`))).toBe(false);
      }
    } finally {
      await agent.close();
      await llm.close();
      home.cleanup();
    }
  });
});

describe("the launcher's code caches", () => {
  it("are all accepted, the bundle's and Node's own modules' alike, through start-up and a first session/new", async () => {
    const llm = await startFakeLlm();
    const home = createTempHome({ baseUrl: llm.baseUrl });
    try {
      // V8 prints a line per cache it deserializes, and one per cache whose checks fail (to stdout).
      const child = spawn(process.execPath, ["--profile-deserialization", join(DIST, "hermes-acp.js")], { env: home.env(), stdio: ["pipe", "pipe", "ignore"] });
      const lines: string[] = [];
      const exited = once(child, "exit");
      let pending = "";
      child.stdout.setEncoding("utf8").on("data", (data: string) => {
        pending += data;
        const complete = pending.split("\n");
        pending = complete.pop() ?? "";
        for (const line of complete) {
          lines.push(line);
          const frame = line.startsWith("{") ? (JSON.parse(line) as { id?: number }) : undefined;
          if (frame?.id === 1) child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: home.workspace, mcpServers: [] } })}\n`);
          if (frame?.id === 2) child.stdin.end();
        }
      });
      child.stdin.write(INITIALIZE);
      const [code] = await exited;
      expect(code).toBe(0);
      const answer = lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { id?: number; result?: unknown }).find((frame) => frame.id === 2);
      expect(answer?.result).toMatchObject({ sessionId: expect.any(String) });
      expect(lines.filter((line) => line.startsWith("[Cached code failed check"))).toEqual([]);
      // The bundle's files (tens of them by session/new) and Node's modules came from caches.
      expect(lines.filter((line) => line.startsWith("[Deserializing from")).length).toBeGreaterThan(40);
    } finally {
      await llm.close();
      home.cleanup();
    }
  });
});

/**
 * Runs `body` against the built binary started with a preload (`preload(listed)`: its source,
 * given the file it may record into), after `initialize`, `session/new` and one text turn.
 */
async function withPreloadedAgent(
  preload: (listed: string) => string,
  body: (run: { agent: AgentProcess; llm: FakeLlm; sessionId: string; listed: () => string[] }) => Promise<void>,
): Promise<void> {
  const llm = await startFakeLlm();
  const home = createTempHome({ baseUrl: llm.baseUrl });
  const root = mkdtempSync(join(tmpdir(), "hermes-preload-"));
  folders.push(root);
  const script = join(root, "preload.cjs");
  const listed = join(root, "listed.txt");
  writeFileSync(listed, "");
  writeFileSync(script, preload(listed));
  const agent = spawnAgent({ env: home.env(), command: [process.execPath, "-r", script, BUILT_BINARY, "acp"] });
  try {
    await agent.initialize();
    const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: home.workspace, mcpServers: [] });
    llm.push({ text: "Hello there." });
    const answer = await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(answer.stopReason).toBe("end_turn");
    await body({ agent, llm, sessionId, listed: () => readFileSync(listed, "utf8").split("\n") });
  } finally {
    await agent.close();
    await llm.close();
    home.cleanup();
  }
}

describe("the early initialize answer", () => {
  /** The chunk holding the ACP SDK's method table: loaded only after the early answer. */
  const sdkChunk = (): string | undefined => chunks(DIST).find((name) => readFileSync(join(DIST, name), "latin1").includes('"providers/disable"'));

  it("is written before the ACP SDK's chunk is read, and requests sent at once after it are served", async () => {
    expect(sdkChunk()).toBeDefined();
    const llm = await startFakeLlm();
    const home = createTempHome({ baseUrl: llm.baseUrl });
    const root = mkdtempSync(join(tmpdir(), "hermes-early-"));
    folders.push(root);
    const listed = join(root, "listed.txt");
    const script = join(root, "preload.cjs");
    // Every file read, by name, and a marker where the first byte goes to stdout.
    writeFileSync(
      script,
      `const fs = require("node:fs"); const path = require("node:path"); const note = (line) => fs.appendFileSync(${JSON.stringify(listed)}, line + "\\n");\n` +
        `const read = fs.readFileSync; fs.readFileSync = function (file, ...rest) { if (typeof file === "string") note(path.basename(file)); return read.call(this, file, ...rest); };\n` +
        `const write = process.stdout.write; let first = true; process.stdout.write = function (...args) { if (first) { first = false; note("<stdout>"); } return write.apply(this, args); };\n`,
    );
    const child = spawn(process.execPath, ["-r", script, BUILT_BINARY, "acp"], { env: home.env(), stdio: ["pipe", "pipe", "pipe"] });
    try {
      let text = "";
      const frames: Array<{ id?: unknown; result?: { sessionId?: string }; error?: unknown }> = [];
      const waitFor = (count: number): Promise<void> =>
        new Promise((resolve) => {
          const check = (): void => (frames.filter((frame) => frame.id !== undefined).length >= count ? resolve() : void setTimeout(check, 10));
          check();
        });
      child.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
        const lines = text.split("\n");
        text = lines.pop() ?? "";
        frames.push(...lines.map((line) => JSON.parse(line) as (typeof frames)[number]));
      });
      // A client that pipelines: session/new and session/list go out in the same write as initialize.
      const send = (id: number, method: string, params: unknown): string => `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
      child.stdin.write(send(1, "initialize", { protocolVersion: 1, clientCapabilities: {} }) + send(2, "session/new", { cwd: home.workspace, mcpServers: [] }) + send(3, "session/list", {}));
      await waitFor(3);
      const answers = frames.filter((frame) => frame.id !== undefined);
      expect(answers.map((frame) => frame.id).sort()).toEqual([1, 2, 3]);
      expect(answers[0]?.id).toBe(1);
      expect(answers.filter((frame) => frame.error !== undefined)).toEqual([]);
      llm.push({ text: "Early and well." });
      child.stdin.write(send(4, "session/prompt", { sessionId: answers.find((frame) => frame.id === 2)?.result?.sessionId, prompt: [{ type: "text", text: "hi" }] }));
      await waitFor(4);
      expect(frames.find((frame) => frame.id === 4)).toMatchObject({ result: { stopReason: "end_turn" } });
      const reads = readFileSync(listed, "utf8").split("\n");
      expect(reads.indexOf("<stdout>")).toBeGreaterThan(reads.indexOf("config.yaml"));
      expect(reads.indexOf(sdkChunk() as string)).toBeGreaterThan(reads.indexOf("<stdout>"));
    } finally {
      child.stdin.end();
      await once(child, "exit");
      await llm.close();
      home.cleanup();
    }
  });
});

describe("the bundle's first turn", () => {
  it("loads the dangerous-command detector on the first command checked, not for a session or a text turn", async () => {
    const detectorChunk = chunks(DIST).find((name) => readFileSync(join(DIST, name), "latin1").includes("recursive delete of the root filesystem"));
    expect(detectorChunk).toBeDefined();
    // Every file the process reads, by name, as it reads it.
    const recordReads = (listed: string): string =>
      `const fs = require("node:fs"); const read = fs.readFileSync; fs.readFileSync = function (file, ...rest) { if (typeof file === "string") fs.appendFileSync(${JSON.stringify(listed)}, require("node:path").basename(file) + "\\n"); return read.call(this, file, ...rest); };\n`;
    await withPreloadedAgent(recordReads, async ({ agent, llm, sessionId, listed }) => {
      expect(listed()).toContain("hermes.cjs");
      expect(listed()).not.toContain(detectorChunk);
      llm.push({ tool_calls: [{ id: "call_1", name: "terminal", arguments: { command: "echo lazy" } }] }, { text: "Done." });
      const answer = await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "run it" }] });
      expect(answer.stopReason).toBe("end_turn");
      expect(JSON.stringify(llm.requests.at(-1)?.body.messages.at(-1))).toContain("lazy");
      expect(listed()).toContain(detectorChunk);
    });
  });

  it("streams an answer without loading Node's fetch (undici) or the http2, tls and zlib modules it brings", async () => {
    // The modules Node loaded, written when the process exits.
    const recordModules = (listed: string): string =>
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(listed)}, process.moduleLoadList.join("\\n")));\n`;
    let listedAfter: (() => string[]) | undefined;
    await withPreloadedAgent(recordModules, async ({ llm, listed }) => {
      expect(llm.requests).toHaveLength(1);
      listedAfter = listed;
    });
    const modules = listedAfter?.() ?? [];
    expect(modules).toContain("NativeModule http");
    expect(modules.filter((name) => /undici|http2|\btls\b|zlib/.test(name))).toEqual([]);
  });
});
