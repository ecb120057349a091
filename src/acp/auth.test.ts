import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { homePaths } from "../config/paths.js";
import { clearRegisteredSecrets, redactSecrets } from "../config/redact.js";
import { ConfigSource } from "../runtime/config-source.js";
import { HermesError } from "../shared/errors.js";
import { authenticate, buildAuthMethods, clientSupportsTerminalAuth, ENV_METHOD_ID, TERMINAL_SETUP_METHOD_ID } from "./auth.js";
import { toRequestError } from "./errors.js";
import { initializeResponse } from "./initialize.js";

const ids = (options: Parameters<typeof buildAuthMethods>[0]): string[] => buildAuthMethods(options).map((method) => method.id);

describe("auth methods", () => {
  it("offers the terminal setup only to clients that opt in (auth.terminal or _meta terminal-auth)", () => {
    expect(clientSupportsTerminalAuth(undefined)).toBe(false);
    expect(clientSupportsTerminalAuth({})).toBe(false);
    // `terminal` is about the terminal/* methods, not terminal auth.
    expect(clientSupportsTerminalAuth({ terminal: true })).toBe(false);
    expect(clientSupportsTerminalAuth({ auth: { terminal: false } })).toBe(false);
    expect(clientSupportsTerminalAuth({ _meta: { "terminal-auth": "yes" } })).toBe(false);
    expect(clientSupportsTerminalAuth({ auth: { terminal: true } })).toBe(true);
    expect(clientSupportsTerminalAuth({ _meta: { "terminal-auth": true } })).toBe(true);

    expect(ids({ configuredProvider: undefined, clientCapabilities: {} })).toEqual([ENV_METHOD_ID]);
    expect(ids({ configuredProvider: undefined, clientCapabilities: { terminal: true } })).toEqual([ENV_METHOD_ID]);
    expect(ids({ configuredProvider: undefined, clientCapabilities: { auth: { terminal: true } } })).toEqual([ENV_METHOD_ID, TERMINAL_SETUP_METHOD_ID]);
    expect(ids({ configuredProvider: undefined, clientCapabilities: { _meta: { "terminal-auth": true } } })).toEqual([ENV_METHOD_ID, TERMINAL_SETUP_METHOD_ID]);
  });

  it("puts the configured provider's method first, and the agent method always (no type: agent)", () => {
    const methods = buildAuthMethods({ configuredProvider: "openrouter", clientCapabilities: { auth: { terminal: true } } });
    expect(methods.map((method) => method.id)).toEqual(["openrouter", ENV_METHOD_ID, TERMINAL_SETUP_METHOD_ID]);
    expect(methods[0]).not.toHaveProperty("type");
    expect(methods[1]).not.toHaveProperty("type");
    expect(methods[1]?.description).toContain("$HERMES_HOME/.env");
    expect(methods[2]).toMatchObject({ type: "terminal", args: ["--setup"] });
    expect(methods[2]).not.toHaveProperty("_meta");
  });

  it("carries Zed's legacy launch descriptor on the terminal method when the command line is known", () => {
    const setupLaunch = { command: "/usr/bin/node", args: ["/opt/hermes/dist/hermes-acp.js", "--setup"] };
    const [, terminal] = buildAuthMethods({ configuredProvider: undefined, clientCapabilities: { _meta: { "terminal-auth": true } }, setupLaunch });
    expect(terminal).toMatchObject({ id: TERMINAL_SETUP_METHOD_ID, type: "terminal", args: ["--setup"], _meta: { "terminal-auth": { ...setupLaunch, label: "hermes-acp --setup" } } });
    expect(ids({ configuredProvider: undefined, clientCapabilities: {}, setupLaunch })).toEqual([ENV_METHOD_ID]);
  });

  it("initialize answers with the same methods", () => {
    expect(initializeResponse({ configuredProvider: "custom", clientCapabilities: {} }).authMethods?.map((method) => method.id)).toEqual(["custom", ENV_METHOD_ID]);
    expect(initializeResponse({ configuredProvider: undefined, clientCapabilities: { auth: { terminal: true } } }).authMethods?.map((method) => method.id)).toEqual([ENV_METHOD_ID, TERMINAL_SETUP_METHOD_ID]);
  });
});

describe("authenticate", () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  function home(): { config: ConfigSource; paths: ReturnType<typeof homePaths>; env: NodeJS.ProcessEnv } {
    root = mkdtempSync(join(tmpdir(), "hermes-auth-"));
    const paths = homePaths(root);
    const env: NodeJS.ProcessEnv = { HERMES_HOME: root };
    return { config: new ConfigSource(paths, env), paths, env };
  }

  function failure(run: () => void): HermesError {
    try {
      run();
    } catch (error) {
      if (error instanceof HermesError) return error;
      throw error;
    }
    throw new Error("authenticate succeeded");
  }

  it("fails with -32000 naming the variables and the .env file when nothing is configured", () => {
    const { config, paths } = home();
    const error = failure(() => authenticate(ENV_METHOD_ID, config, paths));
    const answer = toRequestError(error);
    expect(answer.code).toBe(-32000);
    expect(answer.message).toContain("OPENROUTER_API_KEY");
    expect(answer.message).toContain(paths.envFile);
    expect(answer.message).toContain(paths.configFile);
    expect(answer.data).toMatchObject({ envFile: paths.envFile, variables: expect.arrayContaining(["OPENROUTER_API_KEY"]) });
  });

  it("succeeds with a key in the environment, by the agent method or the provider's id", () => {
    const { config, paths, env } = home();
    env.OPENROUTER_API_KEY = "sk-or-test-environment-key";
    expect(() => authenticate(ENV_METHOD_ID, config, paths)).not.toThrow();
    expect(() => authenticate(" OpenRouter ", config, paths)).not.toThrow();
    expect(() => authenticate(TERMINAL_SETUP_METHOD_ID, config, paths)).not.toThrow();
  });

  it("re-reads $HERMES_HOME/.env: a key written after start-up is found, and masked from then on", () => {
    const { config, paths, env } = home();
    expect(toRequestError(failure(() => authenticate(ENV_METHOD_ID, config, paths))).code).toBe(-32000);
    writeFileSync(paths.envFile, "ANTHROPIC_API_KEY=sk-ant-written-later-0123456789\n");
    authenticate(ENV_METHOD_ID, config, paths);
    expect(env.ANTHROPIC_API_KEY).toBe("sk-ant-written-later-0123456789");
    expect(config.configuredProvider()).toBe("anthropic");
    expect(redactSecrets("key sk-ant-written-later-0123456789")).not.toContain("written-later");
  });

  it("never lets .env override a variable already set", () => {
    const { config, paths, env } = home();
    env.OPENAI_API_KEY = "sk-from-the-editor-environment";
    writeFileSync(paths.envFile, "OPENAI_API_KEY=sk-from-the-dotenv-file-000000\n");
    authenticate(ENV_METHOD_ID, config, paths);
    expect(env.OPENAI_API_KEY).toBe("sk-from-the-editor-environment");
  });

  it("names config.yaml's own problem when it names a provider without a key", () => {
    const { config, paths } = home();
    writeFileSync(paths.configFile, "model:\n  provider: anthropic\n");
    const error = failure(() => authenticate(ENV_METHOD_ID, config, paths));
    expect(toRequestError(error).code).toBe(-32000);
    expect(error.message).toContain("ANTHROPIC_API_KEY");
  });

  it("rejects unknown ids and non-strings with -32000 naming the ids to use", () => {
    const { config, paths, env } = home();
    env.OPENROUTER_API_KEY = "sk-or-test-environment-key";
    const unknown = failure(() => authenticate("openai", config, paths));
    expect(toRequestError(unknown).code).toBe(-32000);
    expect(unknown.message).toContain('"openrouter" or "hermes-env"');
    expect(toRequestError(failure(() => authenticate(42, config, paths))).code).toBe(-32000);
  });
});

describe("authenticate with odd input", () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
    clearRegisteredSecrets();
  });

  function home(): { config: ConfigSource; paths: ReturnType<typeof homePaths>; env: NodeJS.ProcessEnv } {
    root = mkdtempSync(join(tmpdir(), "hermes-auth-"));
    const paths = homePaths(root);
    const env: NodeJS.ProcessEnv = { HERMES_HOME: root };
    return { config: new ConfigSource(paths, env), paths, env };
  }

  function message(run: () => void): string {
    try {
      run();
    } catch (error) {
      return toRequestError(error).message;
    }
    throw new Error("authenticate succeeded");
  }

  it("never echoes a key the agent holds when a client sends it as the method id", () => {
    const { config, paths } = home();
    writeFileSync(paths.envFile, "OPENROUTER_API_KEY=or-dotenv-value-0123456789abcdef\nDATABASE_URL=postgres://app:dbpassword99@db/app\n");
    authenticate(ENV_METHOD_ID, config, paths);
    for (const id of ["or-dotenv-value-0123456789abcdef", " or-dotenv-value-0123456789abcdef ", "postgres://app:dbpassword99@db/app", "sk-ant-api03-unregistered-key-0123456789"]) {
      const text = message(() => authenticate(id, config, paths));
      expect(text, id).toContain("Unknown authentication method");
      expect(text, id).not.toContain("or-dotenv-value-0123456789abcdef");
      expect(text, id).not.toContain("dbpassword99");
      expect(text, id).not.toContain("unregistered-key-0123456789");
    }
  });

  it("reads a .env saved with a byte-order mark (Windows editors): its first variable counts", () => {
    const { config, paths, env } = home();
    writeFileSync(paths.envFile, "\uFEFFOPENROUTER_API_KEY=sk-or-bom-file-key-0123456789\r\nOTHER=1\r\n");
    expect(() => authenticate(ENV_METHOD_ID, config, paths)).not.toThrow();
    expect(env.OPENROUTER_API_KEY).toBe("sk-or-bom-file-key-0123456789");
    expect(config.configuredProvider()).toBe("openrouter");
  });
});

describe("error mapping", () => {
  it("maps Hermes errors to ACP codes", () => {
    expect(toRequestError(new HermesError("auth_required", "run setup")).code).toBe(-32000);
    expect(toRequestError(new HermesError("session_not_found", "gone", { sessionId: "s" }))).toMatchObject({ code: -32002, data: { sessionId: "s" } });
    expect(toRequestError(new HermesError("invalid_params", "cwd")).code).toBe(-32602);
    expect(toRequestError(new HermesError("config_invalid", "bad yaml"))).toMatchObject({ code: -32603, message: "bad yaml" });
    expect(toRequestError(new Error("boom"))).toMatchObject({ code: -32603, data: { details: "boom" } });
  });
});
