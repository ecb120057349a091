import { describe, expect, it } from "vitest";
import { withoutExecEntries } from "./git-tripwire.js";

describe("withoutExecEntries", () => {
  it("drops entries that run programs, with their continuation lines, and keeps the rest", () => {
    const config = [
      "[core]",
      "\trepositoryformatversion = 0",
      "\tfsmonitor = touch /tmp/x \\",
      "\t  && echo more",
      "\tbare = false",
      '[alias "x"]',
      "[alias]",
      "\tst = status",
      "\tboom = !rm -rf ~",
      '[filter "lfs"]',
      "\tclean = evil %f",
      '[includeIf "gitdir:~/"]',
      "\tpath = /tmp/evil.config",
      "[user]",
      "\tname = me",
    ].join("\n");
    const { text, removed } = withoutExecEntries(config);
    expect(removed).toEqual(["core.fsmonitor", "alias.boom", "filter.lfs.clean", "includeif.gitdir:~/.path"]);
    expect(text).toContain("repositoryformatversion = 0");
    expect(text).toContain("bare = false");
    expect(text).toContain("st = status");
    expect(text).toContain("name = me");
    expect(text).not.toContain("echo more");
    expect(text).not.toContain("rm -rf");
    expect(text).not.toContain("/tmp/evil.config");
  });
});
