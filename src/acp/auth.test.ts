import { describe, expect, it } from "vitest";
import { HermesError } from "../shared/errors.js";
import { authenticateMethod, buildAuthMethods } from "./auth.js";
import { toRequestError } from "./errors.js";

describe("auth methods", () => {
  it("always offers the terminal setup, and the provider's runtime method when configured", () => {
    expect(buildAuthMethods(undefined).map((method) => method.id)).toEqual(["hermes-setup"]);
    const methods = buildAuthMethods("openrouter");
    expect(methods.map((method) => method.id)).toEqual(["openrouter", "hermes-setup"]);
    expect(methods[1]).toMatchObject({ type: "terminal", args: ["--setup"] });
  });

  it("authenticates only with a configured provider, case-insensitively, and fails closed otherwise", () => {
    expect(authenticateMethod("hermes-setup", undefined)).toBe(false);
    expect(authenticateMethod("openrouter", undefined)).toBe(false);
    expect(authenticateMethod(" OpenRouter ", "openrouter")).toBe(true);
    expect(authenticateMethod("hermes-setup", "openrouter")).toBe(true);
    expect(authenticateMethod("openai", "openrouter")).toBe(false);
    expect(authenticateMethod(42, "openrouter")).toBe(false);
  });
});

describe("error mapping", () => {
  it("maps Hermes errors to ACP codes", () => {
    expect(toRequestError(new HermesError("auth_required", "run setup")).code).toBe(-32000);
    expect(toRequestError(new HermesError("session_not_found", "gone", { sessionId: "s" }))).toMatchObject({ code: -32002, data: { sessionId: "s" } });
    expect(toRequestError(new HermesError("invalid_params", "cwd")).code).toBe(-32602);
    expect(toRequestError(new HermesError("config_invalid", "bad yaml"))).toMatchObject({ code: -32603, message: "bad yaml" });
    expect(toRequestError(new Error("boom"))).toMatchObject({ code: -32603, data: { details: "boom" } });
  });
});
