import { describe, expect, it } from "vitest";
import { childEnv } from "./child-env.js";

describe("childEnv", () => {
  it("drops the agent's provider credentials, keeps the rest, and sets the session id", () => {
    const env = childEnv("s1", { PATH: "/bin", OPENROUTER_API_KEY: "sk-or-v1-x", OPENAI_API_KEY: "sk-y", GITHUB_TOKEN: "ghp_z", HOME: "/h" });
    expect(env).toEqual({ PATH: "/bin", GITHUB_TOKEN: "ghp_z", HOME: "/h", HERMES_SESSION_ID: "s1" });
  });
});
