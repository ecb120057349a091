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
