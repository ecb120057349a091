import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROVIDER_PRESETS } from "../../src/llm/presets.js";

export interface TempHome {
  /** The HERMES_HOME folder. */
  home: string;
  /** A separate folder to use as the session's working directory. */
  workspace: string;
  writeConfig(yaml: string): void;
  /**
   * Environment for a child process: HERMES_HOME set, provider keys from the parent removed,
   * background reviews and title calls off (they would take scripted answers meant for the test;
   * pass `HERMES_BACKGROUND_REVIEW: ""` / `HERMES_TITLE_GENERATION: ""` to let config.yaml decide).
   */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  cleanup(): void;
}

const PROVIDER_ENV = /^(OPENROUTER_|OPENAI_|ANTHROPIC_|HERMES_|NOUS_|CUSTOM_BASE_URL)/;
/** The preset providers' key and base-URL variables (src/llm/presets.ts): auto-detection would pick them up. */
const PRESET_ENV = new Set(PROVIDER_PRESETS.flatMap((preset) => [...preset.keyVariables, ...(preset.baseUrlVariable ? [preset.baseUrlVariable] : [])]));

/** A throwaway HERMES_HOME, optionally configured for a local OpenAI-compatible server. */
export function createTempHome(options: { baseUrl?: string; model?: string } = {}): TempHome {
  const root = mkdtempSync(join(tmpdir(), "hermes-test-"));
  const home = join(root, "home");
  const workspace = join(root, "workspace");
  mkdirs(home, workspace);
  const writeConfig = (yaml: string): void => writeFileSync(join(home, "config.yaml"), yaml);
  if (options.baseUrl) {
    writeConfig(`model:\n  provider: custom\n  base_url: ${options.baseUrl}\n  default: ${options.model ?? "test-model"}\n`);
  }
  return {
    home,
    workspace,
    writeConfig,
    env(extra = {}) {
      const env: NodeJS.ProcessEnv = {};
      for (const [key, value] of Object.entries(process.env)) if (!PROVIDER_ENV.test(key) && !PRESET_ENV.has(key)) env[key] = value;
      return { ...env, HERMES_HOME: home, HERMES_BACKGROUND_REVIEW: "off", HERMES_TITLE_GENERATION: "off", ...extra };
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function mkdirs(...paths: string[]): void {
  for (const path of paths) mkdirSync(path, { recursive: true });
}
