import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { BUILT_BINARY, spawnAgent } from "../support/acp-client.js";
import { e2eSuite } from "../support/e2e-suite.js";
import { createTempHome } from "../support/temp-home.js";

/** The CLI surface of the built binary: flags, chat, setup, logs. */
const suite = e2eSuite();

/** Runs the binary to completion without blocking the event loop (the fake server lives in this process). */
function run(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BUILT_BINARY, ...args], { env: options.env ?? suite.home.env(), cwd: options.cwd ?? suite.home.workspace });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

describe("hermes CLI", () => {
  it("prints the version for `hermes --version` and `hermes acp --version`", async () => {
    const version = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")).version;
    expect(await run(["--version"])).toMatchObject({ code: 0, stdout: `${version}\n` });
    expect(await run(["acp", "--version"])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it("--check passes on a valid config and fails naming the problem on a broken one", async () => {
    const ok = await run(["acp", "--check"]);
    expect(ok).toMatchObject({ code: 0, stdout: "Hermes ACP check OK\n" });

    suite.home.writeConfig("model:\n  provider: [unclosed\n");
    const broken = await run(["acp", "--check"]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe("");
    expect(broken.stderr).toContain(join(suite.home.home, "config.yaml"));
    expect(broken.stderr).toMatch(/line \d+/);
  });

  it("--setup refuses to run without a terminal", async () => {
    const result = await run(["acp", "--setup"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("needs a terminal");
    expect(existsSync(join(suite.home.home, ".env"))).toBe(false);
  });

  it("--setup in a terminal writes config.yaml and .env with mode 0600, without echoing the key", async () => {
    const fresh = createTempHome();
    try {
      // `script` gives the child a real pseudo-terminal; each answer is typed after its prompt appears.
      const child = spawn("script", ["-qec", `${process.execPath} ${BUILT_BINARY} acp --setup`, "/dev/null"], { env: fresh.env() });
      let screen = "";
      const answers: Array<[string, string]> = [
        ["Provider [1-3", "1\r"],
        ["OPENROUTER_API_KEY (input hidden)", "sk-or-v1-setupsecret1234567890\r"],
        ["Model [anthropic/claude-sonnet-4]", "\r"],
      ];
      child.stdout.on("data", (chunk: Buffer) => {
        screen += chunk.toString();
        const next = answers[0];
        if (next && screen.includes(next[0])) {
          answers.shift();
          child.stdin.write(next[1]);
        }
      });
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect(screen).toContain("Saved. Provider openrouter");
      expect(code).toBe(0);
      expect(screen).not.toContain("setupsecret");
      const env = readFileSync(join(fresh.home, ".env"), "utf8");
      expect(env).toContain("OPENROUTER_API_KEY=");
      expect(env).toContain("sk-or-v1-setupsecret1234567890");
      const config = readFileSync(join(fresh.home, "config.yaml"), "utf8");
      expect(config).toContain("provider: openrouter");
      expect(config).toContain("default: anthropic/claude-sonnet-4");
      expect(statSync(join(fresh.home, ".env")).mode & 0o777).toBe(0o600);
      expect(statSync(join(fresh.home, "config.yaml")).mode & 0o777).toBe(0o600);
    } finally {
      fresh.cleanup();
    }
  });

  it("`hermes chat -q` streams the answer to stdout and tool activity to stderr", async () => {
    writeFileSync(join(suite.home.workspace, "hello.txt"), "hello world\n");
    suite.llm.push({ tool_calls: [{ id: "c1", name: "read_file", arguments: { path: "hello.txt" } }] }, { text: "It says hello world." });
    const result = await run(["chat", "-q", "What does hello.txt say?"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("It says hello world.\n");
    expect(result.stderr).toContain("read: hello.txt");
    expect(suite.llm.requests.at(-1)?.body.messages.at(-1).content).toContain("1|hello world");
  });

  it("`hermes chat` without a provider explains how to configure one", async () => {
    suite.home.writeConfig("");
    const result = await run(["chat", "-q", "hi"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("hermes acp --setup");
  });

  it("logs to stderr and $HERMES_HOME/logs/agent.log with API keys redacted", async () => {
    const key = "sk-test-0123456789abcdefSECRET";
    suite.home.writeConfig(`model:\n  provider: custom\n  base_url: ${suite.llm.baseUrl}\n  default: test-model\n  api_key: ${key}\n`);
    suite.llm.push({ status: 401, body: { error: { message: `Incorrect API key provided: ${key}` } } });
    const agent = spawnAgent({ env: suite.home.env() });
    await agent.initialize();
    const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    const response = await agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(response.stopReason).toBe("end_turn");
    await agent.close();

    expect(suite.llm.requests.at(-1)?.headers.authorization).toBe(`Bearer ${key}`);
    const logFile = readFileSync(join(suite.home.home, "logs", "agent.log"), "utf8");
    expect(logFile).toContain("model call failed");
    expect(agent.stderr()).toContain("model call failed");
    for (const text of [logFile, agent.stderr(), agent.stdoutLines().join("\n")]) expect(text).not.toContain(key);
  });
});
