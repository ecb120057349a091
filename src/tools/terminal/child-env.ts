import { agentCredentialNames } from "../../config/agent-credentials.js";

/**
 * Credentials the agent itself uses to reach model providers. Commands the model runs never see
 * them (a `printenv` must not leak the user's OpenRouter key into the conversation); everything
 * else in the environment is passed through, so project tooling keeps working.
 */
const PROVIDER_CREDENTIALS = new Set([
  "OPENROUTER_API_KEY",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "NOUS_API_KEY",
  "HERMES_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "DEEPSEEK_API_KEY",
  "XAI_API_KEY",
  "GROQ_API_KEY",
  "MISTRAL_API_KEY",
  "DASHSCOPE_API_KEY",
  "KIMI_API_KEY",
]);

/**
 * The credential variables commands never see: the well-known provider keys plus what the agent
 * marked as its own (secrets from `$HERMES_HOME/.env`, providers' `key_env`). Also used for
 * environments built elsewhere, e.g. the editor's terminal.
 */
export function providerCredentialNames(): string[] {
  return [...new Set([...PROVIDER_CREDENTIALS, ...agentCredentialNames()])];
}

/** The environment for a command the model runs: the agent's, minus its credentials, plus the session id. */
export function childEnv(sessionId: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const hidden = new Set(providerCredentialNames());
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (!hidden.has(name)) result[name] = value;
  }
  result.HERMES_SESSION_ID = sessionId;
  return result;
}
