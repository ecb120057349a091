import { describe, expect, it } from "vitest";
import { decodeToolOutcome, typeCall, typeDetails } from "./typed-call.js";

const terminal = { command: "make", cwd: "/w", exitCode: 0, output: "built" };

describe("typed calls", () => {
  it("tags built-in tools by name and leaves other tools' details opaque", () => {
    expect(typeCall("terminal", { command: "make" }, terminal)).toEqual({ tool: "terminal", input: { command: "make" }, details: terminal });
    expect(typeCall("mcp__demo__add", { a: 1 }, { sum: 3 })).toEqual({ tool: null, details: { sum: 3 } });
    expect(typeDetails("read_file", undefined)).toEqual({ tool: "read_file" });
  });
});

describe("decodeToolOutcome", () => {
  it("keeps stored details that fit the tool's type, dropping unknown fields", () => {
    expect(decodeToolOutcome("terminal", { isError: false, details: { ...terminal, extra: 1 } })).toEqual({ tool: "terminal", isError: false, details: terminal });
  });

  it("drops details that do not fit (older rows), so the call replays as plain text, and never throws", () => {
    expect(decodeToolOutcome("terminal", { isError: true, details: { command: "make", exitCode: "0" } })).toEqual({ tool: "terminal", isError: true });
    expect(decodeToolOutcome("todo", { isError: false, details: "a string" })).toEqual({ tool: "todo", isError: false });
    expect(decodeToolOutcome("read_file", undefined)).toEqual({ tool: "read_file", isError: false });
  });

  it("keeps another tool's stored details as they are", () => {
    expect(decodeToolOutcome("mcp__demo__add", { isError: false, details: { server: "demo" } })).toEqual({ tool: null, isError: false, details: { server: "demo" } });
  });
});
