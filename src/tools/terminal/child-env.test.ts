import { describe, expect, it } from "vitest";
import { childEnv } from "./child-env.js";

describe("childEnv", () => {
  it("drops the agent's provider credentials, keeps the rest, and sets the session id", () => {
    const env = childEnv("s1", { PATH: "/bin", OPENROUTER_API_KEY: "sk-or-v1-x", OPENAI_API_KEY: "sk-y", GITHUB_TOKEN: "ghp_z", HOME: "/h" });
    expect(env).toEqual({ PATH: "/bin", GITHUB_TOKEN: "ghp_z", HOME: "/h", HERMES_SESSION_ID: "s1" });
  });
});

describe("childEnv with the agent's own credentials", () => {
  it("also hides variables marked as the agent's (from $HERMES_HOME/.env, providers' key_env)", async () => {
    const { markAgentCredentials, markDotenvCredentials } = await import("../../config/agent-credentials.js");
    markDotenvCredentials(["TOGETHER_API_KEY", "EDITOR"]);
    markAgentCredentials(["MY_GATEWAY_SECRET"]);
    const env = childEnv("s2", { TOGETHER_API_KEY: "t", MY_GATEWAY_SECRET: "g", EDITOR: "vim", PATH: "/bin" });
    expect(env).toEqual({ EDITOR: "vim", PATH: "/bin", HERMES_SESSION_ID: "s2" });
  });
});
