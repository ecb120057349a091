import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isHermesError } from "../shared/errors.js";
import { loadDotenv } from "./dotenv.js";
import { clearRegisteredSecrets, redactRegisteredSecrets, redactSecrets } from "./redact.js";

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

  it("registers every value of 8 characters or more for redaction, whatever its name", () => {
    const path = join(dir, ".env");
    writeFileSync(path, "MY_SERVICE_TOKEN=plainvalue123\nPLAIN=notsecret123\nSHORT=abc1234\n");
    loadDotenv(path, {});
    expect(redactSecrets("got plainvalue123 and notsecret123 and abc1234")).toBe("got *** and *** and abc1234");
    expect(redactRegisteredSecrets(Buffer.from("PLAIN=notsecret123\n").toString("base64"))).toContain("***");
  });

  it("registers values the environment already had too (they are still in the file)", () => {
    const path = join(dir, ".env");
    writeFileSync(path, "SHADOWED=file-value-123\n");
    const env: NodeJS.ProcessEnv = { SHADOWED: "shell" };
    expect(loadDotenv(path, env)).toEqual([]);
    expect(redactRegisteredSecrets("file-value-123")).toBe("***");
  });

  it("shows a credential URL without its password, and registers long passwords on their own", () => {
    const path = join(dir, ".env");
    writeFileSync(path, "DATABASE_URL=postgres://app:pw@db.example/app\nCACHE=redis://:cachepassword9@cache:6379\n");
    loadDotenv(path, {});
    expect(redactRegisteredSecrets("DATABASE_URL=postgres://app:pw@db.example/app")).toBe("DATABASE_URL=postgres://app:***@db.example/app");
    expect(redactRegisteredSecrets("export REDIS_PASSWORD=cachepassword9")).toBe("export REDIS_PASSWORD=***");
  });
});
