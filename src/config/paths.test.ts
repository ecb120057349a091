import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { hermesHome, homePaths } from "./paths.js";

describe("hermesHome", () => {
  it("defaults to ~/.hermes", () => {
    expect(hermesHome({})).toBe(join(homedir(), ".hermes"));
    expect(hermesHome({ HERMES_HOME: "  " })).toBe(join(homedir(), ".hermes"));
  });

  it("uses HERMES_HOME, expanding a leading ~", () => {
    expect(hermesHome({ HERMES_HOME: "/srv/hermes" })).toBe("/srv/hermes");
    expect(hermesHome({ HERMES_HOME: "~/profiles/work" })).toBe(join(homedir(), "profiles", "work"));
    expect(hermesHome({ HERMES_HOME: "~" })).toBe(homedir());
    expect(hermesHome({ HERMES_HOME: "rel/home" })).toBe(resolve("rel/home"));
  });
});

describe("homePaths", () => {
  it("names every file under the home", () => {
    expect(homePaths("/h")).toEqual({
      home: "/h",
      configFile: "/h/config.yaml",
      envFile: "/h/.env",
      stateDb: "/h/state.db",
      logsDir: "/h/logs",
      logFile: "/h/logs/agent.log",
      soulFile: "/h/SOUL.md",
    });
  });
});
