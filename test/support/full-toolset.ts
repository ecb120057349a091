import type { ClientCapabilities } from "@agentclientprotocol/sdk/unstable";

/**
 * A config.yaml under which a session gets every tool of `hermes-acp` on any machine: the model
 * takes images (vision_analyze, browser_vision), a SearXNG URL is set (web_search; nothing is
 * asked of it unless the model searches) and `browser.executable_path` names an executable that
 * exists (Node itself: the availability check only looks at the file; no browser is started).
 * execute_code still needs python3 on PATH and terminal / process bash. `model` adds lines to the
 * `model:` section (e.g. `context_length: 100000`), `extra` top-level YAML at the end.
 */
export function fullToolsetConfig(baseUrl: string, options: { model?: readonly string[]; extra?: string } = {}): string {
  return [
    "model:",
    "  provider: custom",
    `  base_url: ${baseUrl}`,
    "  default: test-model",
    "  supports_vision: true",
    ...(options.model ?? []).map((line) => `  ${line}`),
    "web:",
    "  searxng_url: http://127.0.0.1:9",
    "browser:",
    `  executable_path: ${JSON.stringify(process.execPath)}`,
    options.extra ?? "",
  ].join("\n");
}

/** An editor that shows forms, so `clarify` is offered too. */
export const FORM_CAPABLE_CLIENT: ClientCapabilities = { elicitation: { form: {} } };
