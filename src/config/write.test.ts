import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "./load.js";
import { clearRegisteredSecrets, redactRegisteredSecrets } from "./redact.js";
import { addCommandAllowlistEntry, quoteEnvValue, upsertEnvFile, writeConfigModel } from "./write.js";

let root: string;
let home: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-write-"));
  home = join(root, "home");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;
const configFile = () => join(home, "config.yaml");
const envFile = () => join(home, ".env");

describe("writeConfigModel", () => {
  it("creates the home (0700) and config.yaml (0600)", () => {
    writeConfigModel(home, { provider: "openrouter", model: "anthropic/claude-sonnet-4" });
    expect(mode(home)).toBe(0o700);
    expect(mode(configFile())).toBe(0o600);
    expect(loadConfig(home).model).toEqual({ provider: "openrouter", default: "anthropic/claude-sonnet-4" });
  });

  it("preserves other keys and comments, and tightens an existing file to 0600", () => {
    writeConfigModel(home, { provider: "auto", model: "first" });
    writeFileSync(
      configFile(),
      "# my settings\nmodel:\n  default: old # the old one\n  context_length: 32000\n  base_url: http://old/v1\n  model: alias\nagent:\n  max_turns: 7 # fewer\ntoolsets:\n  - hermes-acp\n",
    );
    chmodSync(configFile(), 0o644);
    writeConfigModel(home, { provider: "custom", model: "qwen3", base_url: "http://127.0.0.1:8080/v1" });
    const text = readFileSync(configFile(), "utf8");
    expect(text).toContain("# my settings");
    expect(text).toContain("# fewer");
    expect(text).not.toContain("alias");
    const config = loadConfig(home);
    expect(config.model).toEqual({ provider: "custom", default: "qwen3", context_length: 32000, base_url: "http://127.0.0.1:8080/v1" });
    expect(config.agent.max_turns).toBe(7);
    expect(config.toolsets).toEqual(["hermes-acp"]);
    expect(mode(configFile())).toBe(0o600);
  });

  it("removes a stale base_url and api_key when the new choice has none", () => {
    writeConfigModel(home, { provider: "custom", model: "a", base_url: "http://x/v1", api_key: "k-12345678" });
    writeConfigModel(home, { provider: "openrouter", model: "b" });
    expect(loadConfig(home).model).toEqual({ provider: "openrouter", default: "b" });
  });

  it("turns a bare `model: name` and a comment-only file into a model map", () => {
    writeConfigModel(home, { provider: "auto", model: "x" });
    writeFileSync(configFile(), "model: some/model\nagent: {max_turns: 5}\n");
    writeConfigModel(home, { provider: "openai", model: "gpt-4.1" });
    expect(loadConfig(home).model).toEqual({ provider: "openai", default: "gpt-4.1" });
    writeFileSync(configFile(), "# just a comment\n");
    writeConfigModel(home, { provider: "openai", model: "gpt-4.1" });
    expect(readFileSync(configFile(), "utf8")).toContain("# just a comment");
    expect(loadConfig(home).model.default).toBe("gpt-4.1");
  });

  it("refuses to rewrite a broken config and leaves it untouched", () => {
    writeConfigModel(home, { provider: "auto", model: "x" });
    writeFileSync(configFile(), "model: [oops\n");
    expect(() => writeConfigModel(home, { provider: "openai", model: "gpt-4.1" })).toThrow(
      expect.objectContaining({ code: "config_invalid" }),
    );
    expect(readFileSync(configFile(), "utf8")).toBe("model: [oops\n");
  });

  it("rejects an empty provider or model", () => {
    expect(() => writeConfigModel(home, { provider: " ", model: "x" })).toThrow(expect.objectContaining({ code: "invalid_params" }));
  });
});

describe("upsertEnvFile", () => {
  it("creates .env with mode 0600 in a new 0700 home", () => {
    upsertEnvFile(home, { OPENROUTER_API_KEY: "sk-or-v1-abc" });
    expect(mode(home)).toBe(0o700);
    expect(mode(envFile())).toBe(0o600);
    expect(readFileSync(envFile(), "utf8")).toBe("OPENROUTER_API_KEY=sk-or-v1-abc\n");
  });

  it("updates keys in place, drops their duplicates, appends new ones and keeps other lines", () => {
    upsertEnvFile(home, { X: "1" });
    writeFileSync(envFile(), "# secrets\nexport OPENAI_API_KEY=old\nOTHER=keep me\nOPENAI_API_KEY=older\nPEM=\"line1\nline2\"\n");
    chmodSync(envFile(), 0o644);
    upsertEnvFile(home, { OPENAI_API_KEY: "new", NEW_ONE: "a b", PEM: "single" });
    expect(readFileSync(envFile(), "utf8")).toBe("# secrets\nOPENAI_API_KEY=new\nOTHER=keep me\nPEM=single\nNEW_ONE='a b'\n");
    expect(mode(envFile())).toBe(0o600);
  });

  it("registers every value it writes for redaction, whatever the key is called", () => {
    clearRegisteredSecrets();
    upsertEnvFile(home, { WEBHOOK: "plainvalue123", DB: "mysql://root:pw@localhost/app" });
    expect(redactRegisteredSecrets("plainvalue123 mysql://root:pw@localhost/app")).toBe("*** mysql://root:***@localhost/app");
    clearRegisteredSecrets();
  });

  it("rejects bad names and multi-line values without writing", () => {
    expect(() => upsertEnvFile(home, { "BAD NAME": "x" })).toThrow(expect.objectContaining({ code: "invalid_params" }));
    expect(() => upsertEnvFile(home, { OK: "a\nb" })).toThrow(expect.objectContaining({ code: "invalid_params" }));
  });

  it.each(["plain", "", "with space", "has # hash", "it's", `say "hi" it's`, "a=b", "x\\ny", "$HOME"])(
    "quotes %j so parseEnv reads it back unchanged",
    (value) => {
      expect(parseEnv(`K=${quoteEnvValue(value)}\n`).K).toBe(value);
    },
  );
});

describe("addCommandAllowlistEntry", () => {
  it("appends a pattern key once and keeps other settings", () => {
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "config.yaml"), "# mine\nmodel:\n  default: m\n");
    addCommandAllowlistEntry(home, "rm_recursive");
    addCommandAllowlistEntry(home, "rm_recursive");
    addCommandAllowlistEntry(home, "git_force_push");
    const text = readFileSync(join(home, "config.yaml"), "utf8");
    expect(text).toContain("# mine");
    expect(loadConfig(home).command_allowlist).toEqual(["rm_recursive", "git_force_push"]);
    expect(loadConfig(home).model.default).toBe("m");
    expect(statSync(join(home, "config.yaml")).mode & 0o777).toBe(0o600);
  });
});
