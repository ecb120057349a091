import { execFile, spawn } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { methods, RequestError } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_BINARY, spawnAgent, type AgentProcess } from "./support/acp-client.js";
import { schemaErrors } from "./support/json-schema.js";
import { startFakeLlm } from "./support/fake-llm.js";
import { createTempHome } from "./support/temp-home.js";

/**
 * How hermes-acp is published: the registry manifest (agent.json + icon.svg) against the
 * registry's vendored schema and its CI's rules, runtime dependencies against what the bundle
 * leaves out, and the package as `npm pack` makes it, installed into an empty folder and run the
 * way the ACP registry's CI and `npx` run it. The packed tests need the build (`npm run build`;
 * `HERMES_TEST_DIST` for a private one) and the npm registry for the dependencies (a fresh npm
 * cache in a temp folder, so the install is a cold one; npx then reuses that cache).
 */
const ROOT = resolve(import.meta.dirname, "..");
const DIST = dirname(BUILT_BINARY);
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; version: string; bin: Record<string, string>; dependencies: Record<string, string>; files: string[] };
const run = promisify(execFile);

describe("registry manifest (agent.json)", () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, "agent.json"), "utf8")) as { id: string; version: string; distribution: { npx?: { package: string; args?: string[] } } };
  const schema = JSON.parse(readFileSync(join(ROOT, "test/fixtures/registry/agent.schema.json"), "utf8")) as Record<string, unknown>;

  it("is valid against the registry's agent schema, and the checker catches a broken entry", () => {
    expect(schemaErrors(schema, manifest)).toEqual([]);
    const broken = { ...manifest, id: "Hermes_ACP", name: "", distribution: { npx: { pkg: "x" } } };
    expect(schemaErrors(schema, broken)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('$.id: "Hermes_ACP" does not match'),
        expect.stringContaining("$.name: shorter than 1"),
        expect.stringContaining('$.distribution.npx: missing required "package"'),
        expect.stringContaining('$.distribution.npx: unexpected property "pkg"'),
      ]),
    );
  });

  it("has its own id, package.json's version, and an npx distribution of exactly that version with no arguments", () => {
    // `hermes-agent` is the Python project's entry.
    expect(manifest.id).toBe("hermes-acp");
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.distribution.npx).toEqual({ package: `${pkg.name}@${pkg.version}` });
  });

  it("has a square 16×16 icon drawn in currentColor only, as the registry's CI requires", () => {
    const icon = readFileSync(join(ROOT, "icon.svg"), "utf8");
    expect(icon).toMatch(/<svg[^>]*\swidth="16"/);
    expect(icon).toMatch(/<svg[^>]*\sheight="16"/);
    expect(icon).toContain("currentColor");
    const colours = [...icon.matchAll(/\b(?:fill|stroke)\s*[=:]\s*["']?([^"';\s>]+)/gi)].map((match) => match[1]!.toLowerCase());
    expect(colours.length).toBeGreaterThan(0);
    for (const colour of colours) expect(["currentcolor", "none", "inherit"]).toContain(colour);
  });
});

describe("package.json", () => {
  it("keeps as runtime dependencies only what the bundle leaves out (externals and createRequire loads)", () => {
    const build = readFileSync(join(ROOT, "scripts/build.mjs"), "utf8");
    const externals = [...(/external:\s*\[([^\]]*)\]/.exec(build)?.[1] ?? "").matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
    const loaded = new Set<string>(externals);
    const sources = (readdirSync(join(ROOT, "src"), { recursive: true }) as string[]).filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"));
    const loads = /(?:createRequire\(import\.meta\.url\)(?:\.resolve)?|loadPackage<[^>]*>|require\.resolve)\(\s*"([^"]+)"\s*\)/g;
    for (const file of sources) {
      for (const match of readFileSync(join(ROOT, "src", file), "utf8").matchAll(loads)) {
        const name = match[1]!;
        if (!name.startsWith("node:") && !name.startsWith(".")) loaded.add(name);
      }
    }
    expect(Object.keys(pkg.dependencies).sort()).toEqual([...loaded].sort());
  });

  it("gives each bin its own entry file", () => {
    expect(pkg.bin).toEqual({ hermes: "dist/hermes.js", "hermes-acp": "dist/hermes-acp.js" });
  });
});

/** Child environment like the registry's auth check: a fresh empty HOME and HERMES_HOME under `root`, no provider keys. */
function emptyEnvironment(root: string): NodeJS.ProcessEnv {
  const folder = mkdtempSync(join(root, "env-"));
  const home = join(folder, "home");
  const hermesHome = join(folder, "hermes-home");
  mkdirSync(home);
  mkdirSync(hermesHome);
  const scratch = createTempHome();
  const env = scratch.env({ HOME: home, HERMES_HOME: hermesHome, TERM: "dumb" });
  scratch.cleanup();
  return env;
}

/**
 * The registry CI's auth check (`.github/workflows/client.py`): one raw initialize line with
 * `clientCapabilities._meta["terminal-auth"]`, the first stdout line read as the answer, each
 * method's type taken from `type`, else `_meta` `terminal-auth` / `agent-auth`, else "agent".
 */
async function registryAuthCheck(command: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ types: string[]; ids: string[]; firstLine: string }> {
  const [file, ...args] = command as [string, ...string[]];
  const child = spawn(file, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const firstLine = new Promise<string>((done, fail) => {
    let buffered = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const end = buffered.indexOf("\n");
      if (end >= 0) done(buffered.slice(0, end));
    });
    child.once("exit", (code) => fail(new Error(`agent exited (${code}) before answering: ${stderr}`)));
  });
  child.stdin.write(
    `${JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: 1,
        clientInfo: { name: "ACP Registry Validator", version: "1.0.0" },
        clientCapabilities: { terminal: true, fs: { readTextFile: true, writeTextFile: true }, _meta: { terminal_output: true, "terminal-auth": true } },
      },
    })}\n`,
  );
  try {
    const line = await firstLine;
    const answer = JSON.parse(line) as { result?: { authMethods?: Array<{ id: string; type?: string; _meta?: Record<string, unknown> }> } };
    const methodsFound = answer.result?.authMethods ?? [];
    const types = methodsFound.map((method) => method.type ?? (method._meta && "terminal-auth" in method._meta ? "terminal" : method._meta && "agent-auth" in method._meta ? "agent" : "agent"));
    return { types, ids: methodsFound.map((method) => method.id), firstLine: line };
  } finally {
    child.kill("SIGTERM");
  }
}

async function rejection(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (error) {
    return error as RequestError;
  }
  throw new Error("expected the request to fail");
}

describe("the packed package (npm pack, installed into an empty folder)", () => {
  let root: string;
  let tarball: string;
  let installed: string;
  let npmEnv: NodeJS.ProcessEnv;
  const agents: AgentProcess[] = [];

  beforeAll(async () => {
    if (!existsSync(join(DIST, "hermes-acp.js"))) throw new Error(`${join(DIST, "hermes-acp.js")} is missing: run npm run build (npm test does it)`);
    root = realpathSync(mkdtempSync(join(tmpdir(), "hermes-pack-")));
    // Stage what `files` ships, so a private build (HERMES_TEST_DIST) is packed as it is.
    const stage = join(root, "stage");
    mkdirSync(stage);
    copyFileSync(join(ROOT, "package.json"), join(stage, "package.json"));
    copyFileSync(join(ROOT, "README.md"), join(stage, "README.md"));
    cpSync(DIST, join(stage, "dist"), { recursive: true });
    npmEnv = { ...process.env, npm_config_cache: join(root, "npm-cache"), npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
    const packed = await run("npm", ["pack", "--json", "--pack-destination", root], { cwd: stage, env: npmEnv });
    tarball = join(root, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename);
    const app = join(root, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), '{"name":"empty","private":true}\n');
    // Install scripts off: better-sqlite3's downloads a prebuilt addon from GitHub (or compiles
    // one for minutes). The repository's own addon (same version, same Node) is copied in instead.
    await run("npm", ["install", "--ignore-scripts", "--no-package-lock", tarball], { cwd: app, env: npmEnv, timeout: 240_000 });
    installed = join(app, "node_modules", pkg.name);
    const addon = join(ROOT, "node_modules/better-sqlite3/build/Release/better_sqlite3.node");
    const target = join(app, "node_modules/better-sqlite3/build/Release");
    mkdirSync(target, { recursive: true });
    copyFileSync(addon, join(target, "better_sqlite3.node"));
  }, 300_000);

  afterAll(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.close()));
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("ships the entry files and the bundle (start-up file, chunks, their code caches), without source maps or any bundled library", async () => {
    const listed = await run("tar", ["-tzf", tarball]);
    const files = listed.stdout.split("\n").filter(Boolean).map((line) => line.replace(/^package\//, "")).sort();
    const chunk = /^dist\/hermes-[A-Z0-9]{8}\.(cjs|cache)$/;
    expect(files.filter((file) => !chunk.test(file))).toEqual(["README.md", "dist/hermes-acp.js", "dist/hermes.cache", "dist/hermes.cjs", "dist/hermes.files.json", "dist/hermes.js", "dist/initialize-cache.js", "dist/launcher.js", "package.json"]);
    const chunks = files.filter((file) => chunk.test(file));
    expect(chunks.filter((file) => file.endsWith(".cjs")).length).toBeGreaterThan(10);
    // Every code cache belongs to a chunk of the package.
    for (const cache of chunks.filter((file) => file.endsWith(".cache"))) expect(files).toContain(cache.replace(/\.cache$/, ".cjs"));
    const modules = readdirSync(join(installed, ".."), { withFileTypes: true }).map((entry) => entry.name);
    for (const bundled of ["openai", "zod", "yaml", "@anthropic-ai", "@modelcontextprotocol", "diff", "ignore"]) expect(modules).not.toContain(bundled);
  });

  it("passes the registry's auth check: empty HOME and HERMES_HOME, no keys, _meta terminal-auth", async () => {
    const bin = join(installed, "..", ".bin", "hermes-acp");
    const result = await registryAuthCheck([bin], root, emptyEnvironment(root));
    expect(JSON.parse(result.firstLine)).toMatchObject({ jsonrpc: "2.0", id: 1 });
    expect(result.ids).toEqual(["hermes-env", "hermes-setup"]);
    expect(result.types).toEqual(["agent", "terminal"]);
  });

  it("serves ACP from the entry file itself (what npm's Windows .cmd shims run), and names what to set", async () => {
    const entry = join(installed, pkg.bin["hermes-acp"]!);
    const agent = spawnAgent({ env: emptyEnvironment(root), cwd: root, command: [process.execPath, entry], clientCapabilities: { _meta: { "terminal-auth": true } } });
    agents.push(agent);
    const init = await agent.initialize();
    expect(init.authMethods?.map((method) => method.id)).toEqual(["hermes-env", "hermes-setup"]);
    expect(init.authMethods?.[1]).toMatchObject({ type: "terminal", args: ["--setup"], _meta: { "terminal-auth": { command: process.execPath, args: [entry, "--setup"] } } });
    const auth = await rejection(agent.connection.agent.request(methods.agent.authenticate, { methodId: "hermes-env" }));
    expect(auth.code).toBe(-32000);
    expect(auth.message).toContain("OPENROUTER_API_KEY");
    const session = await rejection(agent.connection.agent.request(methods.agent.session.new, { cwd: root, mcpServers: [] }));
    expect(session.code).toBe(-32000);
  });

  it("answers a prompt from the installed package once a provider is configured, storing it in state.db (the native addon)", async () => {
    const llm = await startFakeLlm();
    try {
      const env = emptyEnvironment(root);
      const home = env.HERMES_HOME!;
      writeFileSync(join(home, "config.yaml"), `model:\n  provider: custom\n  base_url: ${llm.baseUrl}\n  default: packed-model\n`);
      const agent = spawnAgent({ env, cwd: root, command: [join(installed, "..", ".bin", "hermes-acp")] });
      agents.push(agent);
      const init = await agent.initialize();
      expect(init.authMethods?.map((method) => method.id)).toEqual(["custom", "hermes-env"]);
      const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: root, mcpServers: [] });
      llm.push({ text: "Packed and working" });
      const answer = await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hello" }] });
      expect(answer.stopReason).toBe("end_turn");
      const listed = await run(join(installed, "..", ".bin", "hermes"), ["sessions", "list", "--json"], { cwd: root, env });
      expect((JSON.parse(listed.stdout) as { sessions: Array<{ id: string }> }).sessions.map((one) => one.id)).toContain(sessionId);
    } finally {
      await llm.close();
    }
  });

  it("`npx hermes-acp` of the tarball (npm exec, nothing else installed) answers initialize with no arguments", async () => {
    const folder = join(root, "npx-cwd");
    mkdirSync(folder);
    // The install above filled this cache; a cold npx (empty cache) is the same plus the downloads.
    const env = { ...emptyEnvironment(root), npm_config_cache: join(root, "npm-cache"), npm_config_update_notifier: "false" };
    const result = await registryAuthCheck(["npm", "exec", "--yes", "--ignore-scripts", "--package", tarball, "--", "hermes-acp"], folder, env);
    expect(result.ids).toEqual(["hermes-env", "hermes-setup"]);
    expect(result.types).toEqual(["agent", "terminal"]);
  }, 240_000);
});
