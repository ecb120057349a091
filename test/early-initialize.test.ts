import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BUILT_BINARY } from "./support/acp-client.js";
import { startFakeLlm, type FakeLlm } from "./support/fake-llm.js";
import { createTempHome, type TempHome } from "./support/temp-home.js";

/**
 * The built binary's first `initialize`: answered before the ACP SDK loads (by the bundle,
 * src/acp/early-initialize.ts) and, on later starts with the same build, launch, files,
 * variables and params, by the launcher from $HERMES_HOME/cache/acp-initialize.json before any
 * bundle file is evaluated (scripts/initialize-cache.js). Every answer must be the one the normal
 * path gives; requests pipelined behind it must be served.
 */
const DIST = dirname(BUILT_BINARY);
const CACHE = (home: TempHome): string => join(home.home, "cache", "acp-initialize.json");
const chunks = (): string[] => readdirSync(DIST).filter((name) => /^hermes-[A-Z0-9]{8}\.cjs$/.test(name));
/** The chunk holding the ACP SDK's method table. */
const sdkChunk = (): string | undefined => chunks().find((name) => readFileSync(join(DIST, name), "latin1").includes('"providers/disable"'));

type Frame = { id?: unknown; method?: string; result?: { sessionId?: string; authMethods?: Array<{ id: string }> }; error?: { message: string } };
const send = (id: number, method: string, params: unknown): string => `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
const INITIALIZE = (id = 1, clientCapabilities: unknown = {}): string => send(id, "initialize", { protocolVersion: 1, clientCapabilities });

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(): Promise<{ llm: FakeLlm; home: TempHome; root: string }> {
  const llm = await startFakeLlm();
  const home = createTempHome({ baseUrl: llm.baseUrl });
  const root = mkdtempSync(join(tmpdir(), "hermes-early-"));
  cleanups.push(() => llm.close(), () => home.cleanup(), () => rmSync(root, { recursive: true, force: true }));
  return { llm, home, root };
}

interface Started {
  child: ChildProcessWithoutNullStreams;
  frames: Frame[];
  /** Resolves once `count` answers (frames with an id and no method) arrived. */
  answers(count: number): Promise<Frame[]>;
  /** Every file the process read, by name, with `<stdout>` where its first output byte went. */
  reads(): string[];
  exit(): Promise<number | null>;
}

/** The built binary under a preload that records what it reads and when it first writes. */
function start(root: string, env: NodeJS.ProcessEnv, name: string): Started {
  const listed = join(root, `${name}.txt`);
  const script = join(root, `${name}.cjs`);
  writeFileSync(listed, "");
  writeFileSync(
    script,
    `const fs = require("node:fs"); const path = require("node:path"); const note = (line) => fs.appendFileSync(${JSON.stringify(listed)}, line + "\\n");\n` +
      `const read = fs.readFileSync; fs.readFileSync = function (file, ...rest) { if (typeof file === "string") note(path.basename(file)); return read.call(this, file, ...rest); };\n` +
      `const write = process.stdout.write; let first = true; process.stdout.write = function (...args) { if (first) { first = false; note("<stdout>"); } return write.apply(this, args); };\n`,
  );
  const child = spawn(process.execPath, ["-r", script, BUILT_BINARY, "acp"], { env, stdio: ["pipe", "pipe", "pipe"] });
  const frames: Frame[] = [];
  let text = "";
  child.stdout.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
    const lines = text.split("\n");
    text = lines.pop() ?? "";
    frames.push(...lines.map((line) => JSON.parse(line) as Frame));
  });
  const exited = once(child, "exit").then(([code]) => code as number | null);
  cleanups.push(async () => {
    child.stdin.end();
    await exited;
  });
  const answered = (): Frame[] => frames.filter((frame) => frame.id !== undefined && frame.method === undefined);
  return {
    child,
    frames,
    answers: (count) =>
      new Promise((resolve) => {
        const check = (): void => (answered().length >= count ? resolve(answered()) : void setTimeout(check, 10));
        check();
      }),
    reads: () => readFileSync(listed, "utf8").split("\n"),
    exit: () => {
      child.stdin.end();
      return exited;
    },
  };
}

/** Resolves once the agent's preload has recorded a read of the file named `name` (it records a read as it starts). */
function untilRead(agent: Started, name: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const check = (): void => (agent.reads().includes(name) ? resolve() : void setTimeout(check, 2));
    check();
  });
}

/** The first answer of a process given `input`, after which it is closed. */
async function firstAnswer(root: string, env: NodeJS.ProcessEnv, name: string, input: string): Promise<{ answer: Frame; reads: string[] }> {
  const agent = start(root, env, name);
  agent.child.stdin.write(input);
  const [answer] = await agent.answers(1);
  await agent.exit();
  return { answer: answer as Frame, reads: agent.reads() };
}

describe("the launcher's initialize cache", () => {
  it("finds the same $HERMES_HOME as the bundle (src/config/paths.ts), which it refuses to store for otherwise", async () => {
    const { launcherHome } = (await import(join(DIST, "initialize-cache.js"))) as { launcherHome: (env: NodeJS.ProcessEnv) => string };
    const { hermesHome } = await import("../src/config/paths.js");
    for (const value of [undefined, "", "  ", "~", "~/", "~/h", "~/h/", "rel/h", "./rel/../h/", "/abs/h", " /abs/h/ ", "/abs//h/./x/.."]) {
      const env = value === undefined ? {} : { HERMES_HOME: value };
      expect({ value, home: launcherHome(env) }).toEqual({ value, home: hermesHome(env) });
    }
  });
});

describe("the first initialize of the built binary", () => {
  it("is answered before the ACP SDK's chunk is read, and requests sent at once after it are served", async () => {
    expect(sdkChunk()).toBeDefined();
    const { llm, home, root } = await setup();
    const agent = start(root, home.env(), "first");
    // A client that pipelines: session/new and session/list go out in the same write as initialize.
    agent.child.stdin.write(INITIALIZE() + send(2, "session/new", { cwd: home.workspace, mcpServers: [] }) + send(3, "session/list", {}));
    const answers = await agent.answers(3);
    expect(answers[0]?.id).toBe(1);
    expect(answers.map((frame) => frame.id).sort()).toEqual([1, 2, 3]);
    expect(answers.filter((frame) => frame.error !== undefined)).toEqual([]);
    llm.push({ text: "Early and well." });
    agent.child.stdin.write(send(4, "session/prompt", { sessionId: answers.find((frame) => frame.id === 2)?.result?.sessionId, prompt: [{ type: "text", text: "hi" }] }));
    expect((await agent.answers(4)).find((frame) => frame.id === 4)).toMatchObject({ result: { stopReason: "end_turn" } });
    const reads = agent.reads();
    expect(reads.indexOf("<stdout>")).toBeGreaterThan(reads.indexOf("config.yaml"));
    expect(reads.indexOf(sdkChunk() as string)).toBeGreaterThan(reads.indexOf("<stdout>"));
    // The answer is remembered for the next start; the file names no input, only fingerprints.
    expect(existsSync(CACHE(home))).toBe(true);
    expect(readFileSync(CACHE(home), "utf8")).not.toContain(llm.baseUrl);
  });

  it("is answered by the launcher from its cache on the next start, before any bundle file is read, and identically", async () => {
    const { llm, home, root } = await setup();
    const first = await firstAnswer(root, home.env(), "one", INITIALIZE(5));
    const agent = start(root, home.env(), "two");
    agent.child.stdin.write(INITIALIZE(5) + send(6, "session/new", { cwd: home.workspace, mcpServers: [] }));
    const answers = await agent.answers(2);
    expect(answers[0]).toEqual(first.answer);
    expect(answers[1]).toMatchObject({ id: 6, result: { sessionId: expect.any(String) } });
    llm.push({ text: "From the cache." });
    agent.child.stdin.write(send(7, "session/prompt", { sessionId: answers[1]?.result?.sessionId, prompt: [{ type: "text", text: "hi" }] }));
    expect((await agent.answers(3))[2]).toMatchObject({ id: 7, result: { stopReason: "end_turn" } });
    const reads = agent.reads();
    expect(reads.indexOf("<stdout>")).toBeGreaterThanOrEqual(0);
    expect(reads.indexOf("hermes.cjs")).toBeGreaterThan(reads.indexOf("<stdout>"));
  });

  it("is not answered from the cache once config.yaml, .env, a variable detection read or the params change", async () => {
    const { home, root } = await setup();
    const env = home.env();
    await firstAnswer(root, env, "seed", INITIALIZE());
    const fromCache = (run: { reads: string[] }): boolean => run.reads.indexOf("<stdout>") < run.reads.indexOf("hermes.cjs");
    expect(fromCache(await firstAnswer(root, env, "hit", INITIALIZE()))).toBe(true);

    // Other params (a client that opts into terminal auth): answered the normal way, with the terminal method.
    const terminal = await firstAnswer(root, env, "params", INITIALIZE(1, { auth: { terminal: true } }));
    expect(fromCache(terminal)).toBe(false);
    expect(terminal.answer.result?.authMethods?.map((method) => method.id)).toContain("hermes-setup");
    // Both params are remembered now.
    expect(fromCache(await firstAnswer(root, env, "params-again", INITIALIZE(1, { auth: { terminal: true } })))).toBe(true);

    // config.yaml names another provider: the answer follows it.
    writeFileSync(join(home.home, "config.yaml"), "model:\n  provider: openrouter\n  default: some/model\n");
    const noKey = await firstAnswer(root, env, "config", INITIALIZE());
    expect(fromCache(noKey)).toBe(false);
    expect(noKey.answer.result?.authMethods?.map((method) => method.id)).toEqual(["hermes-env"]);
    expect(fromCache(await firstAnswer(root, env, "config-again", INITIALIZE()))).toBe(true);

    // The key detection reads appears, in the environment, then in .env instead.
    const withKey = await firstAnswer(root, { ...env, OPENROUTER_API_KEY: "sk-or-test-key-1" }, "env", INITIALIZE());
    expect(fromCache(withKey)).toBe(false);
    expect(withKey.answer.result?.authMethods?.map((method) => method.id)).toEqual(["openrouter", "hermes-env"]);
    const cached = readFileSync(CACHE(home), "utf8");
    expect(cached).not.toContain("sk-or-test-key-1");
    expect(cached).toContain("OPENROUTER_API_KEY");
    writeFileSync(join(home.home, ".env"), "OPENROUTER_API_KEY=sk-or-test-key-2\n");
    const fromDotenv = await firstAnswer(root, env, "dotenv", INITIALIZE());
    expect(fromCache(fromDotenv)).toBe(false);
    expect(fromDotenv.answer.result?.authMethods?.map((method) => method.id)).toEqual(["openrouter", "hermes-env"]);
    expect(readFileSync(CACHE(home), "utf8")).not.toContain("sk-or-test-key-2");
  });

  it("answers the normal way when the cache file is damaged or its folder cannot be written", async () => {
    const { home, root } = await setup();
    const env = home.env();
    const normal = await firstAnswer(root, env, "seed", INITIALIZE());
    for (const damage of ["", "{", "null", '{"format":1}', readFileSync(CACHE(home), "utf8").replace('"frame":"', '"frame":"x'), readFileSync(CACHE(home), "utf8").replace('"frame":"{', `"frame":"${"[".repeat(100_000)}{`)]) {
      writeFileSync(CACHE(home), damage);
      const run = await firstAnswer(root, env, `damaged-${damage.length}`, INITIALIZE());
      expect(run.answer).toEqual(normal.answer);
    }
    rmSync(join(home.home, "cache"), { recursive: true, force: true });
    writeFileSync(join(home.home, "cache"), "not a folder");
    const blocked = await firstAnswer(root, env, "blocked", INITIALIZE());
    expect(blocked.answer).toEqual(normal.answer);
  });

  it("answers only the very line it answered before: one that parses alike but fails the checks is the normal path's", async () => {
    const { home, root } = await setup();
    const env = home.env();
    const line = (terminal: string): string => `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"terminal":${terminal}}}}\n`;
    await firstAnswer(root, env, "seed", line("null"));
    // 1e400 parses to Infinity, which serializes as null: the same params to JSON.stringify, not to the checks.
    const overflow = await firstAnswer(root, env, "overflow", line("1e400"));
    expect(overflow.answer).toMatchObject({ id: 1, error: { message: expect.stringContaining("clientCapabilities.terminal") } });
  });

  it("hits from the second start when the key detection reads is in .env", async () => {
    const { home, root } = await setup();
    writeFileSync(join(home.home, "config.yaml"), "model:\n  provider: openrouter\n  default: some/model\n");
    writeFileSync(join(home.home, ".env"), "OPENROUTER_API_KEY=sk-or-dotenv-key\n");
    const env = home.env();
    const first = await firstAnswer(root, env, "first", INITIALIZE());
    expect(first.answer.result?.authMethods?.map((method) => method.id)).toEqual(["openrouter", "hermes-env"]);
    const second = await firstAnswer(root, env, "second", INITIALIZE());
    expect(second.reads.indexOf("<stdout>")).toBeLessThan(second.reads.indexOf("hermes.cjs"));
    expect(second.answer).toEqual(first.answer);
  });

  it("exits through the server's shutdown on a SIGTERM right after a cached answer", async () => {
    const { home, root } = await setup();
    const env = home.env();
    await firstAnswer(root, env, "seed", INITIALIZE());
    const agent = start(root, env, "signal-after");
    agent.child.stdin.write(INITIALIZE());
    await agent.answers(1);
    agent.child.kill("SIGTERM");
    const [code] = (await once(agent.child, "exit")) as [number | null];
    expect(code).toBe(143);
  });

  it("leaves any other first line to the normal path, with the cache armed", async () => {
    const { home, root } = await setup();
    const env = home.env();
    await firstAnswer(root, env, "seed", INITIALIZE());
    const list = await firstAnswer(root, env, "list", send(9, "session/list", {}));
    expect(list.answer).toMatchObject({ id: 9, error: { message: expect.stringContaining("must be initialized") } });
    const broken = await firstAnswer(root, env, "broken", "{ not json\n");
    expect(broken.answer).toMatchObject({ id: null, error: { message: "Parse error" } });
  });

  it("exits on SIGTERM that comes while a first start loads (no cache yet), as the server does", async () => {
    const { home, root } = await setup();
    const agent = start(root, home.env(), "signal-first");
    // The bundle's first file is read once the launcher has looked for its cache.
    await untilRead(agent, "hermes.cjs");
    agent.child.kill("SIGTERM");
    const [code] = (await once(agent.child, "exit")) as [number | null];
    expect(code).toBe(143);
  });

  it("still ends on SIGTERM while a config.yaml that is a FIFO blocks the launcher's read", async () => {
    const { home, root } = await setup();
    rmSync(join(home.home, "config.yaml"));
    execFileSync("mkfifo", [join(home.home, "config.yaml")]);
    const agent = start(root, home.env(), "fifo");
    await untilRead(agent, "config.yaml");
    agent.child.kill("SIGTERM");
    const [code, signal] = (await once(agent.child, "exit")) as [number | null, NodeJS.Signals | null];
    expect(code === 143 || signal === "SIGTERM").toBe(true);
  });

  it("exits on SIGTERM while it waits for the first line, as the server does", async () => {
    const { home, root } = await setup();
    const env = home.env();
    await firstAnswer(root, env, "seed", INITIALIZE());
    const agent = start(root, env, "signal");
    // The launcher is waiting on stdin once it has read the cache.
    await untilRead(agent, "acp-initialize.json");
    agent.child.kill("SIGTERM");
    const [code] = (await once(agent.child, "exit")) as [number | null];
    expect(code).toBe(143);
  });
});
