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

/** The provider credential variables commands never see (for environments built elsewhere, e.g. the editor's terminal). */
export function providerCredentialNames(): string[] {
  return [...PROVIDER_CREDENTIALS];
}

/** The environment for a command the model runs: the agent's, minus provider credentials, plus the session id. */
export function childEnv(sessionId: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (!PROVIDER_CREDENTIALS.has(name)) result[name] = value;
  }
  result.HERMES_SESSION_ID = sessionId;
  return result;
}
