import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isHermesError } from "../shared/errors.js";
import { loadDotenv } from "./dotenv.js";
import { clearRegisteredSecrets, redactSecrets } from "./redact.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hermes-dotenv-"));
  clearRegisteredSecrets();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("loadDotenv", () => {
  it("sets variables from the file and returns their names", () => {
    const path = join(dir, ".env");
    writeFileSync(path, "# keys\nOPENROUTER_API_KEY=abc123\nexport MODEL_NAME='x y'\nQUOTED=\"a # b\" # comment\n");
    const env: NodeJS.ProcessEnv = {};
    expect(loadDotenv(path, env).sort()).toEqual(["MODEL_NAME", "OPENROUTER_API_KEY", "QUOTED"]);
    expect(env).toEqual({ OPENROUTER_API_KEY: "abc123", MODEL_NAME: "x y", QUOTED: "a # b" });
  });

  it("never overrides variables already set, even empty ones", () => {
    const path = join(dir, ".env");
    writeFileSync(path, "A=from-file\nB=from-file\nC=from-file\n");
    const env: NodeJS.ProcessEnv = { A: "from-shell", B: "" };
    expect(loadDotenv(path, env)).toEqual(["C"]);
    expect(env).toEqual({ A: "from-shell", B: "", C: "from-file" });
  });

  it("treats a missing file as empty", () => {
    const env: NodeJS.ProcessEnv = {};
    expect(loadDotenv(join(dir, "nope", ".env"), env)).toEqual([]);
    expect(env).toEqual({});
  });

  it("throws config_invalid when the path cannot be read", () => {
    const path = join(dir, "a-folder");
    mkdirSync(path);
    expect(() => loadDotenv(path, {})).toThrow(expect.objectContaining({ code: "config_invalid" }));
    try {
      loadDotenv(path, {});
    } catch (error) {
      expect(isHermesError(error, "config_invalid")).toBe(true);
      expect((error as Error).message).toContain(path);
    }
  });

  it("registers secret-named values for redaction", () => {
    const path = join(dir, ".env");
    writeFileSync(path, "MY_SERVICE_TOKEN=plainvalue123\nPLAIN=notsecret123\n");
    loadDotenv(path, {});
    expect(redactSecrets("got plainvalue123 and notsecret123")).toBe("got *** and notsecret123");
  });
});
