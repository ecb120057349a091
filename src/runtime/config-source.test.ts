import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { homePaths } from "../config/paths.js";
import { ConfigSource } from "./config-source.js";
import { RuntimeLoader } from "./lazy-runtime.js";

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "hermes-config-source-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const PROVIDER = "model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: m\n";

describe("ConfigSource.configuredProvider", () => {
  it.each([
    ["a valid file", PROVIDER, "custom"],
    ["a problem outside the provider keys", `${PROVIDER}agent:\n  max_turns: lots\nmcp_servers: [1]\n`, "custom"],
    ["a problem in the provider keys", "model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  max_tokens: -1\n", undefined],
    ["a YAML syntax error", "model: [unclosed\n", undefined],
  ])("agrees with what initialize advertises before the runtime exists: %s", (_what, yaml, expected) => {
    writeFileSync(join(home, "config.yaml"), yaml);
    const env = { HERMES_HOME: home };
    const source = new ConfigSource(homePaths(home), env);
    expect(source.configuredProvider()).toBe(expected);
    expect(new RuntimeLoader({ home, env }).configuredProvider()).toBe(expected);
  });

  it("still reports a problem outside the provider keys where the whole file is read", () => {
    writeFileSync(join(home, "config.yaml"), `${PROVIDER}agent:\n  max_turns: lots\n`);
    const source = new ConfigSource(homePaths(home), { HERMES_HOME: home });
    const whole = source.current();
    expect(whole.ok).toBe(false);
    if (!whole.ok) expect(whole.error.message).toContain("agent.max_turns");
  });

  it("follows the file when it changes", () => {
    const path = join(home, "config.yaml");
    writeFileSync(path, "model:\n  provider: auto\n");
    const source = new ConfigSource(homePaths(home), { HERMES_HOME: home });
    expect(source.configuredProvider()).toBeUndefined();
    writeFileSync(path, `${PROVIDER}# now configured, and longer\n`);
    expect(source.configuredProvider()).toBe("custom");
  });
});
