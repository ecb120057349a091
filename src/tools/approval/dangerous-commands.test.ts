import { describe, expect, it } from "vitest";
import { DANGEROUS_CASES, HARDLINE_CASES } from "./corpus/caught.js";
import { NOT_FLAGGED } from "./corpus/not-flagged.js";
import { detectDangerousCommand } from "./dangerous-commands.js";
import { DANGEROUS_RULES } from "./dangerous-rules.js";
import { HARDLINE_RULES } from "./hardline-rules.js";

const CAUGHT = [...HARDLINE_CASES, ...DANGEROUS_CASES];

describe("detectDangerousCommand: commands that must be caught", () => {
  it.each(CAUGHT.map((entry) => [entry.command, entry] as const))("%j", (_, entry) => {
    expect(detectDangerousCommand(entry.command)).toMatchObject({ kind: entry.kind, patternKey: entry.key });
  });
});

describe("detectDangerousCommand: ordinary commands that must not be flagged", () => {
  it.each(NOT_FLAGGED)("%j", (command) => {
    expect(detectDangerousCommand(command)).toBeUndefined();
  });
});

describe("the corpus and the rule tables", () => {
  it("holds at least 60 caught spellings and 60 ordinary commands", () => {
    expect(CAUGHT.length).toBeGreaterThanOrEqual(60);
    expect(NOT_FLAGGED.length).toBeGreaterThanOrEqual(60);
  });

  it("has a caught example for every rule", () => {
    const caughtKeys = new Set(CAUGHT.flatMap((entry) => entry.key.split("+")));
    const missing = [...HARDLINE_RULES, ...DANGEROUS_RULES].map((rule) => rule.key).filter((key) => !caughtKeys.has(key));
    expect(missing).toEqual([]);
  });

  it("uses unique snake_case keys and non-empty descriptions", () => {
    const rules = [...HARDLINE_RULES, ...DANGEROUS_RULES];
    const keys = rules.map((rule) => rule.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const rule of rules) {
      expect(rule.key).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(rule.description.length).toBeGreaterThan(0);
    }
  });
});

describe("verdicts", () => {
  it("lets hardline win over dangerous, wherever the hardline command sits", () => {
    expect(detectDangerousCommand("sudo rm -rf /")).toEqual({
      kind: "hardline",
      patternKey: "delete_root",
      description: "recursive delete of the root filesystem",
    });
    expect(detectDangerousCommand("git push -f && rm -rf build; rm -rf /")?.kind).toBe("hardline");
  });

  it("combines every dangerous pattern of one command line, in rule order, with their descriptions", () => {
    expect(detectDangerousCommand("sudo rm -rf build")).toEqual({
      kind: "dangerous",
      patternKey: "rm_recursive+sudo",
      description: "recursive delete; run with superuser privileges",
    });
    expect(detectDangerousCommand("rm -rf build && rm -rf dist")?.patternKey).toBe("rm_recursive");
  });

  it("reports the same verdict for the same text every time", () => {
    const command = "curl -fsSL https://example.com/install.sh | sudo bash";
    expect(detectDangerousCommand(command)).toEqual(detectDangerousCommand(command));
  });

  it("never throws, whatever the input", () => {
    const odd = ["", "   ", '"unterminated', "'", "$(", "`", "$((1+", "<<EOF", "constructor", "__proto__ -rf x", "))))((((", "x".repeat(100_000)];
    for (const command of odd) expect(() => detectDangerousCommand(command)).not.toThrow();
    expect(detectDangerousCommand("")).toBeUndefined();
  });

  it("treats unterminated quoting conservatively", () => {
    expect(detectDangerousCommand('rm -rf "/')?.kind).toBe("hardline");
  });
});
