import { describe, expect, it } from "vitest";
import { ToolSessionState } from "../session-state.js";
import { FileTracker, fileTracker, hashText, resetReadDedup, sameStamp, staleWarning } from "./file-tracker.js";

describe("sameStamp", () => {
  it("compares by hash when both have one, else by mtime and size, else cannot tell", () => {
    expect(sameStamp({ hash: "a", mtimeMs: 1 }, { hash: "a", mtimeMs: 2 })).toBe(true);
    expect(sameStamp({ hash: "a" }, { hash: "b" })).toBe(false);
    expect(sameStamp({ mtimeMs: 1, size: 2 }, { mtimeMs: 1, size: 2, hash: "x" })).toBe(true);
    expect(sameStamp({ mtimeMs: 1, size: 2 }, { mtimeMs: 1, size: 3 })).toBe(false);
    expect(sameStamp({ mtimeMs: 1 }, { hash: "x" })).toBeUndefined();
  });
});

describe("FileTracker", () => {
  const stamp = { mtimeMs: 10, size: 4, hash: hashText("abc\n") };

  it("deduplicates the same range of an unchanged file only", () => {
    const tracker = new FileTracker();
    expect(tracker.isUnchangedRead("/f", 1, 500, stamp)).toBe(false);
    tracker.recordRead("/f", 1, 500, stamp);
    expect(tracker.isUnchangedRead("/f", 1, 500, stamp)).toBe(true);
    expect(tracker.isUnchangedRead("/f", 1, 100, stamp)).toBe(false);
    expect(tracker.isUnchangedRead("/f", 1, 500, { ...stamp, hash: hashText("changed") })).toBe(false);
    expect(tracker.isUnchangedRead("/f", 1, 500, {})).toBe(false);
  });

  it("stops deduplicating after the agent writes the file, and knows the written stamp", () => {
    const tracker = new FileTracker();
    tracker.recordRead("/f", 1, 500, stamp);
    const written = { mtimeMs: 11, size: 5, hash: hashText("abcd\n") };
    tracker.recordWrite("/f", written);
    expect(tracker.isUnchangedRead("/f", 1, 500, stamp)).toBe(false);
    expect(tracker.known("/f")).toEqual(written);
    expect(tracker.changedSinceSeen("/f", written)).toBe(false);
  });

  it("reports a file changed since the agent saw it, never an unknown one", () => {
    const tracker = new FileTracker();
    expect(tracker.changedSinceSeen("/f", stamp)).toBe(false);
    tracker.recordRead("/f", 1, 500, stamp);
    expect(tracker.changedSinceSeen("/f", { ...stamp, hash: "other" })).toBe(true);
    tracker.forget("/f");
    expect(tracker.changedSinceSeen("/f", { ...stamp, hash: "other" })).toBe(false);
  });

  it("lives in the session state, and resetReadDedup clears ranges but keeps stamps", () => {
    const state = new ToolSessionState();
    const tracker = fileTracker(state);
    expect(fileTracker(state)).toBe(tracker);
    tracker.recordRead("/f", 1, 500, stamp);
    resetReadDedup(state);
    expect(tracker.isUnchangedRead("/f", 1, 500, stamp)).toBe(false);
    expect(tracker.known("/f")).toEqual(stamp);
    resetReadDedup(new ToolSessionState());
  });

  it("words the stale warnings per tool", () => {
    expect(staleWarning("/f", "overwrite")).toMatch(/^\/f was modified since you last read it.*replaced those changes/);
    expect(staleWarning("/f", "edit")).toMatch(/applied to the current content/);
  });
});
