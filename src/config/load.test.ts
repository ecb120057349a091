import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HermesError } from "../shared/errors.js";
import { loadConfig, tryLoadConfig, tryLoadProviderConfig, type ConfigProblem } from "./load.js";
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

  it("registers every key in the config: pools, custom_providers, fallbacks and auxiliary tasks", () => {
    write(
      [
        "model:\n  api_keys: [plain-pool-key-01]",
        "providers:\n  a:\n    base_url: http://127.0.0.1:1/v1\n    api_keys: [plain-pool-key-02]",
        "custom_providers:\n  - name: b\n    base_url: http://127.0.0.1:2/v1\n    api_key: plain-custom-key-03\n    api_keys: [plain-custom-key-04]",
        "fallback_providers:\n  - provider: c\n    api_key: plain-fallback-key-05",
        "fallback_model:\n  provider: d\n  api_key: plain-fallback-key-06",
        "auxiliary:\n  approval:\n    api_key: plain-guardian-key-07\n  title:\n    api_key: plain-title-key-08",
      ].join("\n") + "\n",
    );
    loadConfig(home);
    const keys = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => `key-0${n}`);
    const text = "plain-pool-key-01 plain-pool-key-02 plain-custom-key-03 plain-custom-key-04 plain-fallback-key-05 plain-fallback-key-06 plain-guardian-key-07 plain-title-key-08";
    const redacted = redactSecrets(text);
    for (const key of keys) expect(redacted).not.toContain(key);
  });
});

describe("loadConfig with Hermes' lists and tables (one bad entry never breaks the file)", () => {
  /** What the logger wrote to stderr while `run` ran. */
  function stderrOf(run: () => void): string {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      run();
    } finally {
      spy.mockRestore();
    }
    return lines.join("");
  }

  it("reads a config.yaml as Hermes writes it: empty auxiliary and fallback fields are unset", () => {
    write(
      [
        "model:\n  default: m\n  provider: openrouter\n  base_url: ''\n  api_key: ''",
        "fallback_model:\n  provider: ''\n  model: ''",
        "auxiliary:",
        ...["vision", "web_extract", "compression", "approval", "title_generation"].map(
          (task) => `  ${task}:\n    provider: auto\n    model: ''\n    base_url: ''\n    api_key: ''\n    timeout: 30\n    extra_body: {}\n    reasoning_effort: ''`,
        ),
      ].join("\n") + "\n",
    );
    const config = loadConfig(home);
    expect(config.model).toEqual({ default: "m", provider: "openrouter" });
    expect(config.auxiliary.approval).toMatchObject({ provider: "auto" });
    expect(config.auxiliary.approval?.model).toBeUndefined();
    expect(config.auxiliary.title_generation?.base_url).toBeUndefined();
    expect(config.fallback_model ?? []).toEqual([]);
  });

  it("skips a custom_providers entry without name or base_url, with a warning naming it, and keeps the rest", () => {
    write(
      "custom_providers:\n  - name: no-url\n  - base_url: http://127.0.0.1:9/v1\n  - name: local\n    base_url: http://127.0.0.1:8/v1\n    model: qwen3:30b\n  - just a string\n",
    );
    let config = defaultConfig();
    const warnings = stderrOf(() => (config = loadConfig(home)));
    expect(config.custom_providers.map((entry) => entry.name)).toEqual(["local"]);
    expect(warnings).toContain("custom_providers[0]");
    expect(warnings).toContain("custom_providers[1]");
    expect(warnings).toContain("custom_providers[3]");
    expect(warnings).toMatch(/base_url/);
  });

  it("reads a single custom_providers or fallback_providers mapping as a one-entry list, and fallback_model as a list", () => {
    write(
      "custom_providers:\n  name: local\n  base_url: http://127.0.0.1:8/v1\nfallback_providers:\n  provider: openrouter\n  model: a/b\nfallback_model:\n  - provider: nous\n    model: c\n  - model: no-provider\n",
    );
    let config = defaultConfig();
    const warnings = stderrOf(() => (config = loadConfig(home)));
    expect(config.custom_providers).toEqual([{ name: "local", base_url: "http://127.0.0.1:8/v1" }]);
    expect(config.fallback_providers).toEqual([{ provider: "openrouter", model: "a/b" }]);
    expect(config.fallback_model).toEqual([{ provider: "nous", model: "c" }]);
    expect(warnings).toContain("fallback_model[1]");
  });

  it("skips a pricing entry that is not a price table, and ignores reasoning_overrides that is not a mapping, with warnings", () => {
    write("pricing:\n  gpt-5: cheap\n  m2:\n    input: -1\n  m1:\n    input: 1\n    output: 2\nagent:\n  reasoning_overrides:\n    - gpt-5\n");
    let config = defaultConfig();
    const warnings = stderrOf(() => (config = loadConfig(home)));
    expect(config.pricing).toEqual({ m1: { input: 1, output: 2 } });
    expect(config.agent.reasoning_overrides).toEqual({});
    expect(warnings).toContain("pricing.gpt-5");
    expect(warnings).toContain("pricing.m2");
    expect(warnings).toContain("agent.reasoning_overrides");
  });

  it("drops reasoning_overrides values that are not text, and key list items that are not keys", () => {
    write(
      "agent:\n  reasoning_overrides:\n    gpt-5: high\n    o3: {level: low}\nmodel:\n  api_keys: [plain-key-aaaa1, ~, '']\nproviders:\n  a:\n    base_url: http://127.0.0.1:1/v1\n    key_env: [KEY_A, '', 5]\n  b:\n    base_url: http://127.0.0.1:2/v1\n    key_env: ''\n",
    );
    const config = loadConfig(home);
    expect(config.agent.reasoning_overrides).toEqual({ "gpt-5": "high" });
    expect(config.model.api_keys).toEqual(["plain-key-aaaa1"]);
    expect(config.providers.a?.key_env).toEqual(["KEY_A"]);
    expect(config.providers.b?.key_env).toBeUndefined();
  });

  it("still rejects custom_providers and fallback_providers that are neither a list nor a mapping, naming the key", () => {
    write("custom_providers: local\n");
    expect(failure().message).toContain("custom_providers");
    write("fallback_providers: 5\n");
    expect(failure().message).toContain("fallback_providers");
  });
});

describe("tryLoadProviderConfig (what initialize reads)", () => {
  const PROVIDERS = [
    "model:\n  provider: work\n  default: m1\n  api_key: sk-model-key-123456\n",
    "providers:\n  work:\n    base_url: http://127.0.0.1:9/v1\n    api_key: sk-named-key-123456\n",
    "custom_providers:\n  - name: Lab Box\n    base_url: http://10.0.0.2/v1\n    api_keys: [sk-pool-key-123456]\n  - base_url: http://nameless/v1\n",
  ].join("");

  it("reads model, providers and custom_providers exactly as the whole load does", () => {
    write(PROVIDERS);
    const partial = tryLoadProviderConfig(home);
    const whole = loadConfig(home);
    if (!partial.ok) throw partial.error;
    expect(partial.config.model).toEqual(whole.model);
    expect(partial.config.providers).toEqual(whole.providers);
    expect(partial.config.custom_providers).toEqual(whole.custom_providers);
  });

  it("registers the keys it read for redaction", () => {
    write(PROVIDERS);
    expect(tryLoadProviderConfig(home).ok).toBe(true);
    expect(redactSecrets("sk-model-key-123456 sk-named-key-123456 sk-pool-key-123456")).not.toMatch(/sk-(model|named|pool)-key/);
  });

  it("is not stopped by a problem in another section, which the whole load still reports", () => {
    write(`${PROVIDERS}agent:\n  max_turns: lots\n`);
    expect(tryLoadProviderConfig(home).ok).toBe(true);
    expect(failure().message).toContain("agent.max_turns");
  });

  it("reports a problem in the keys it reads, with key and line, and a YAML syntax error", () => {
    write("model:\n  provider: work\n  max_tokens: -5\n");
    const bad = tryLoadProviderConfig(home);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.message).toMatch(/model\.max_tokens \(line 3\)/);
    write("model: [unclosed\n");
    const broken = tryLoadProviderConfig(home);
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.error.code).toBe("config_invalid");
  });

  it("gives the defaults when there is no config.yaml", () => {
    const result = tryLoadProviderConfig(home);
    if (!result.ok) throw result.error;
    expect(result.config).toMatchObject({ model: defaultConfig().model, providers: {}, custom_providers: [] });
  });
});
