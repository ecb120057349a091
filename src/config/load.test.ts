import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HermesError } from "../shared/errors.js";
import { loadConfig, tryLoadConfig, type ConfigProblem } from "./load.js";
import { clearRegisteredSecrets, redactSecrets } from "./redact.js";
import { defaultConfig } from "./schema.js";

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "hermes-load-"));
  clearRegisteredSecrets();
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const write = (text: string) => writeFileSync(join(home, "config.yaml"), text);

function failure(): HermesError {
  const result = tryLoadConfig(home);
  if (result.ok) throw new Error("expected the config to be rejected");
  expect(result.error.code).toBe("config_invalid");
  return result.error;
}

describe("loadConfig", () => {
  it("returns defaults when config.yaml is missing, empty or only comments", () => {
    expect(loadConfig(home)).toEqual(defaultConfig());
    write("");
    expect(loadConfig(home)).toEqual(defaultConfig());
    write("# nothing here yet\n   \n# model:\n#   default: x\n");
    expect(loadConfig(home)).toEqual(defaultConfig());
  });

  it("reads values and keeps unknown keys", () => {
    write("model:\n  default: anthropic/claude-sonnet-4\n  provider: openrouter\nagent:\n  max_turns: 12\nweb:\n  backend: firecrawl\n");
    const config = loadConfig(home);
    expect(config.model).toEqual({ default: "anthropic/claude-sonnet-4", provider: "openrouter" });
    expect(config.agent.max_turns).toBe(12);
    expect(config.approvals.timeout).toBe(300);
    expect(config.web).toMatchObject({ backend: "firecrawl" });
  });

  it("reports a YAML syntax error with the file, line and column", () => {
    write("model:\n  default: x\n  provider: [openrouter\nagent:\n  max_turns: 3\n");
    const error = failure();
    expect(error.message).toMatch(new RegExp(`^Invalid config ${join(home, "config.yaml")}: line \\d+, column \\d+: `));
    const problems = error.data?.problems as ConfigProblem[];
    expect(problems[0]?.line).toBeGreaterThanOrEqual(3);
  });

  it("reports duplicate keys with their line", () => {
    write("agent:\n  max_turns: 3\nagent:\n  max_turns: 4\n");
    expect(failure().message).toContain("line 3, column 1: Map keys must be unique");
  });

  it("reports a wrong type with key path, line and what was expected", () => {
    write("# settings\nagent:\n  max_turns: abc\n");
    expect(failure().message).toBe(
      `Invalid config ${join(home, "config.yaml")}: agent.max_turns (line 3): expected number, got string "abc"`,
    );
  });

  it("lists every problem, in line order", () => {
    write(
      [
        "approvals:",
        "  mode: sometimes",
        "  timeout: -5",
        "compression:",
        "  threshold: 2",
        "providers:",
        "  local:",
        "    key_env: LOCAL_KEY",
        "terminal: 5",
        "agent:",
        "  max_turns: 2.5",
      ].join("\n"),
    );
    const error = failure();
    const lines = error.message.split("\n");
    expect(lines[0]).toBe(`Invalid config ${join(home, "config.yaml")}:`);
    expect(lines.slice(1)).toEqual([
      `  - approvals.mode (line 2): expected one of "manual", "smart", "off", got string "sometimes"`,
      "  - approvals.timeout (line 3): expected a number > 0, got number -5",
      "  - compression.threshold (line 5): expected a number <= 1, got number 2",
      "  - providers.local.base_url (line 8): required, expected string",
      "  - terminal (line 9): expected a mapping, got number 5",
      "  - agent.max_turns (line 11): expected an integer, got number 2.5",
    ]);
    expect((error.data?.problems as ConfigProblem[]).map((p) => p.key)).toContain("providers.local.base_url");
  });

  it("rejects a file that is not a mapping", () => {
    write("- a\n- b\n");
    expect(failure().message).toContain("expected a mapping of settings, got a list");
  });

  it("throws HermesError from loadConfig and wraps it in tryLoadConfig", () => {
    write("agent: [");
    expect(() => loadConfig(home)).toThrow(HermesError);
    expect(tryLoadConfig(home).ok).toBe(false);
  });

  it("reports an unreadable config path", () => {
    mkdirSync(join(home, "config.yaml"));
    expect(failure().message).toContain(`Cannot read config ${join(home, "config.yaml")}`);
  });

  it("registers API keys found in the config for redaction", () => {
    write("model:\n  api_key: plain-config-key-1\nproviders:\n  local:\n    base_url: http://127.0.0.1:8080/v1\n    api_key: plain-config-key-2\n");
    loadConfig(home);
    expect(redactSecrets("plain-config-key-1 / plain-config-key-2")).toBe("*** / ***");
  });
});
