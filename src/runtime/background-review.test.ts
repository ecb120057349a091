import { describe, expect, it } from "vitest";
import { parseConfigText } from "../config/load.js";
import { ReviewCadence, reviewPrompt, reviewSettings, savedAction, type TurnSummary } from "./background-review.js";

const both = { memory: true, skills: true };
const turn = (iterations: string[][] = [], answered = true, available = both): TurnSummary => ({ iterations, answered, available });

describe("ReviewCadence", () => {
  it("asks for a memory review every N user turns, counting turns that did not answer too", () => {
    const cadence = new ReviewCadence({ memoryInterval: 3, skillInterval: 0 });
    expect(cadence.afterTurn(turn())).toBeUndefined();
    expect(cadence.afterTurn(turn([], false))).toBeUndefined();
    expect(cadence.afterTurn(turn())).toEqual({ memory: true, skills: false });
    expect(cadence.afterTurn(turn())).toBeUndefined();
  });

  it("asks for a skill review after N tool-calling iterations, across turns", () => {
    const cadence = new ReviewCadence({ memoryInterval: 0, skillInterval: 4 });
    expect(cadence.afterTurn(turn([["read_file"], ["terminal", "patch"]]))).toBeUndefined();
    expect(cadence.afterTurn(turn([["read_file"], ["terminal"]]))).toEqual({ memory: false, skills: true });
    expect(cadence.afterTurn(turn([["read_file"]]))).toBeUndefined();
  });

  it("starts over when the model used memory or skill_manage itself", () => {
    const cadence = new ReviewCadence({ memoryInterval: 2, skillInterval: 2 });
    expect(cadence.afterTurn(turn([["memory"]]))).toBeUndefined();
    expect(cadence.afterTurn(turn([["terminal"], ["skill_manage"]]))).toBeUndefined();
    expect(cadence.afterTurn(turn([["terminal"], ["terminal"]]))).toEqual({ memory: true, skills: true });
  });

  it("keeps a due review for the next answered turn, and never asks for tools the session lacks", () => {
    const cadence = new ReviewCadence({ memoryInterval: 1, skillInterval: 1 });
    expect(cadence.afterTurn(turn([["terminal"]], false))).toBeUndefined();
    expect(cadence.afterTurn(turn([], true, { memory: false, skills: true }))).toEqual({ memory: false, skills: true });
  });
});

describe("reviewSettings", () => {
  const config = (yaml: string) => parseConfigText(yaml, "config.yaml");

  it("is on with Hermes' intervals by default", () => {
    expect(reviewSettings(config(""), {})).toEqual({ memoryInterval: 10, skillInterval: 15 });
  });

  it("reads the intervals and is off when switched off in config or the environment", () => {
    expect(reviewSettings(config("memory:\n  nudge_interval: 2\nskills:\n  creation_nudge_interval: 0\n"), {})).toEqual({ memoryInterval: 2, skillInterval: 0 });
    expect(reviewSettings(config("memory:\n  nudge_interval: 0\nskills:\n  creation_nudge_interval: 0\n"), {})).toBeUndefined();
    expect(reviewSettings(config("auxiliary:\n  background_review:\n    enabled: false\n"), {})).toBeUndefined();
    expect(reviewSettings(config(""), { HERMES_BACKGROUND_REVIEW: "off" })).toBeUndefined();
    expect(reviewSettings(config(""), { HERMES_BACKGROUND_REVIEW: "on" })).toBeDefined();
  });
});

describe("savedAction", () => {
  it("names what a successful memory or skill call saved", () => {
    expect(savedAction("memory", { target: "user", action: "add" }, JSON.stringify({ success: true }))).toBe("User profile updated");
    expect(savedAction("memory", { operations: [] }, JSON.stringify({ success: true, target: "memory" }))).toBe("Memory updated");
    expect(savedAction("skill_manage", { action: "create", name: "deploy" }, JSON.stringify({ success: true }))).toBe("Skill 'deploy' created");
  });

  it("says nothing for failures, reads and results that are not JSON", () => {
    expect(savedAction("memory", { target: "user" }, JSON.stringify({ success: false, error: "full" }))).toBeUndefined();
    expect(savedAction("skill_view", { name: "deploy" }, JSON.stringify({ success: true }))).toBeUndefined();
    expect(savedAction("memory", { target: "user" }, "Error: nope")).toBeUndefined();
  });
});

describe("reviewPrompt", () => {
  it("picks the memory, skill or combined review and always offers 'Nothing to save.'", () => {
    for (const kinds of [{ memory: true, skills: false }, { memory: false, skills: true }, both]) expect(reviewPrompt(kinds)).toContain("Nothing to save.");
    expect(reviewPrompt({ memory: true, skills: false })).not.toContain("skill_view");
    expect(reviewPrompt(both)).toContain("memory");
    expect(reviewPrompt(both)).toContain("skill_view");
  });
});
