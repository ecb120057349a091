import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forgetStoredCredentials, isProviderCredential } from "./forget-credentials.js";

let root: string;
let home: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-forget-"));
  home = join(root, "home");
  mkdirSync(home);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const envFile = () => join(home, ".env");
const configFile = () => join(home, "config.yaml");

describe("forgetStoredCredentials", () => {
  it("removes provider keys from .env and this process, keeping every other line", () => {
    writeFileSync(
      envFile(),
      "# my env\nOPENROUTER_API_KEY=sk-or-v1-aaaa\nexport OPENAI_API_KEY='sk-bbb'\nOPENAI_BASE_URL=http://localhost:8080/v1\nGITHUB_TOKEN=ghp_keep\nMULTI=\"a\nb\"\nMY_KEY=from-key-env\n",
    );
    writeFileSync(configFile(), "model:\n  provider: mine\nproviders:\n  mine:\n    base_url: http://x/v1\n    key_env: MY_KEY\n");
    const env: NodeJS.ProcessEnv = { OPENROUTER_API_KEY: "sk-or-v1-aaaa", OPENAI_API_KEY: "sk-from-shell", MY_KEY: "from-key-env", PATH: "/bin" };
    const report = forgetStoredCredentials(home, env);
    expect(readFileSync(envFile(), "utf8")).toBe("# my env\nOPENAI_BASE_URL=http://localhost:8080/v1\nGITHUB_TOKEN=ghp_keep\nMULTI=\"a\nb\"\n");
    expect(statSync(envFile()).mode & 0o777).toBe(0o600);
    expect(report.forgotten).toEqual([
      `OPENROUTER_API_KEY (removed from ${envFile()})`,
      `OPENAI_API_KEY (removed from ${envFile()})`,
      `MY_KEY (removed from ${envFile()})`,
    ]);
    // Loaded from .env → gone; set in the shell with another value → kept and reported.
    expect(env).toEqual({ OPENAI_API_KEY: "sk-from-shell", PATH: "/bin" });
    expect(report.kept).toEqual(["OPENAI_API_KEY in the environment (set outside Hermes; unset it where it is set)"]);
    expect(JSON.stringify(report)).not.toContain("sk-");
  });

  it("removes model.api_key from config.yaml, keeping comments, and reports hand-written provider keys as kept", () => {
    writeFileSync(
      configFile(),
      "# settings\nmodel:\n  provider: custom\n  base_url: http://127.0.0.1:8080/v1 # local\n  api_key: secret-value\nproviders:\n  work:\n    base_url: http://w/v1\n    api_key: other-secret\n",
    );
    const report = forgetStoredCredentials(home, {});
    const text = readFileSync(configFile(), "utf8");
    expect(text).not.toContain("secret-value");
    expect(text).toContain("# local");
    expect(text).toContain("other-secret");
    expect(report.forgotten).toEqual([`model.api_key (removed from ${configFile()})`]);
    expect(report.kept).toEqual([`providers.work.api_key in ${configFile()} (hand-written configuration; remove it there to forget it)`]);
  });

  it("forgets nothing, changes nothing and does not fail when nothing is stored or config is broken", () => {
    expect(forgetStoredCredentials(home, {})).toEqual({ forgotten: [], kept: [] });
    writeFileSync(configFile(), "model: [unclosed\n");
    writeFileSync(envFile(), "OTHER=1\n");
    const report = forgetStoredCredentials(home, {});
    expect(report.forgotten).toEqual([]);
    expect(report.kept).toEqual([`${configFile()} (not valid YAML settings; not changed)`]);
    expect(readFileSync(envFile(), "utf8")).toBe("OTHER=1\n");
  });

  it("knows provider credential names", () => {
    expect(isProviderCredential("DEEPSEEK_API_KEY")).toBe(true);
    expect(isProviderCredential("CLAUDE_CODE_OAUTH_TOKEN")).toBe(true);
    expect(isProviderCredential("GITHUB_TOKEN")).toBe(false);
    expect(isProviderCredential("OPENAI_BASE_URL")).toBe(false);
    expect(isProviderCredential("MY_KEY", new Set(["MY_KEY"]))).toBe(true);
  });
});
