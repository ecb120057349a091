import { describe, expect, it } from "vitest";
import { explainExitCode, lastCommandName } from "./exit-codes.js";

describe("lastCommandName", () => {
  it.each([
    ["grep foo file", "grep"],
    ["cat x | grep foo", "grep"],
    ["make && ./run-tests", "run-tests"],
    ["false || diff a b", "diff"],
    ["cd src; rg todo", "rg"],
    ["LC_ALL=C FOO=1 /usr/bin/grep x", "grep"],
    ["sudo -n test -f x", "test"],
    ["[ -f package.json ]", "["],
    ["", undefined],
  ])("%s → %s", (command, name) => {
    expect(lastCommandName(command)).toBe(name);
  });
});

describe("explainExitCode", () => {
  it.each([
    ["grep foo file", 1, "No matches found (not an error)"],
    ["git log | rg fix", 1, "No matches found (not an error)"],
    ["diff -u a b", 1, "Files differ (expected, not an error)"],
    ["test -d build", 1, "Condition is false (not an error)"],
    ["[ -f x ]", 1, "Condition is false (not an error)"],
    ["./script.sh", 126, "Command found but not executable (permission denied, or not a program)"],
    ["nosuch", 127, "Command not found (check the spelling and PATH, or install it)"],
    ["sleep 10", 130, "Interrupted (SIGINT / Ctrl-C)"],
    ["node big.js", 137, "Killed (SIGKILL; often out of memory or a forced stop)"],
    ["timeout 5 make", 124, "The command hit the `timeout` utility's limit and was stopped"],
    ["curl https://nope.invalid", 6, "Could not resolve host"],
  ])("%s exit %i", (command, code, meaning) => {
    expect(explainExitCode(command, code)).toBe(meaning);
  });

  it("says nothing for success or unremarkable codes", () => {
    expect(explainExitCode("grep foo file", 0)).toBeUndefined();
    expect(explainExitCode("make", 1)).toBeUndefined();
  });

  it("names other fatal signals", () => {
    expect(explainExitCode("./a.out", 128 + 10)).toBe("Killed by signal 10 (SIGUSR1)");
  });
});
