import { describe, expect, it } from "vitest";
import { paramsError } from "./param-validation.js";

describe("paramsError", () => {
  it("names the field of a wrong type without echoing the value", () => {
    const error = paramsError("initialize", { protocolVersion: 1, clientCapabilities: "secret-value" });
    expect(error?.code).toBe(-32602);
    expect(error?.message).toBe("Invalid params: clientCapabilities: expected object, received string");
    expect(error?.data).toEqual({ field: "clientCapabilities" });
    expect(paramsError("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: "yes" } } })?.message).toContain("clientCapabilities.fs.readTextFile");
  });

  it("accepts well-formed params, unknown keys and _meta", () => {
    expect(paramsError("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true }, future: 1 }, _meta: { x: 1 } })).toBeUndefined();
    expect(paramsError("session/new", { cwd: "/work", mcpServers: [] })).toBeUndefined();
    expect(paramsError("session/list", undefined)).toBeUndefined();
    expect(paramsError("x/unknown", "anything")).toBeUndefined();
  });

  it("requires every cwd to be absolute and free of NUL bytes", () => {
    for (const method of ["session/new", "session/load", "session/resume", "session/fork"]) {
      const base = { sessionId: "s", mcpServers: [] };
      expect(paramsError(method, { ...base, cwd: "relative" })?.message, method).toBe("Invalid params: cwd: must be an absolute path");
      expect(paramsError(method, { ...base, cwd: "/a\0b" })?.message, method).toBe("Invalid params: cwd: must not contain a NUL byte");
    }
    expect(paramsError("session/list", { cwd: "rel" })?.data).toEqual({ field: "cwd" });
    expect(paramsError("session/new", { cwd: "/a", additionalDirectories: ["b"] })?.data).toEqual({ field: "additionalDirectories.0" });
  });

  it("rejects params that are not an object", () => {
    expect(paramsError("session/prompt", "x")?.message).toBe("Invalid params: params: expected object, received string");
  });
});
