import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { EditApprovalRequest, FileEdit } from "../../tools/ports.js";
import { describeTarget, editApprovalToolCall } from "./edit-approval.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "hermes-edit-approval-")));
const workspace = join(root, "workspace");
const outside = join(root, "outside");
mkdirSync(workspace);
mkdirSync(outside);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const request = (...edits: FileEdit[]): EditApprovalRequest => ({ callId: "w1", toolName: "write_file", edits });
const textOf = (call: ReturnType<typeof editApprovalToolCall>): string =>
  (call.content ?? []).map((block) => (block.type === "content" && block.content.type === "text" ? block.content.text : "")).join("\n");

describe("edit permission requests", () => {
  it("shows a plain file as itself, with the diff as prepared and no warning", () => {
    const path = join(workspace, "app.ts");
    writeFileSync(path, "old\n");
    const call = editApprovalToolCall(request({ path, oldText: "old\n", newText: "new\n" }));
    expect(call).toMatchObject({ toolCallId: "w1", kind: "edit", status: "pending", title: `Edit ${path}`, locations: [{ path }] });
    expect(call.content).toEqual([{ type: "diff", path, oldText: "old\n", newText: "new\n" }]);
  });

  it("names the real target of a symlink in the title and location, keeping the diff on the given path", () => {
    const real = join(outside, ".gitconfig");
    writeFileSync(real, "[user]\n");
    const link = join(workspace, "settings.cfg");
    symlinkSync(real, link);
    const call = editApprovalToolCall(request({ path: link, oldText: "[user]\n", newText: "[alias]\n" }));
    expect(call.title).toBe(`Edit ${real} (via ${link})`);
    expect(call.locations).toEqual([{ path: real }]);
    expect(call.content?.[0]).toEqual({ type: "diff", path: link, oldText: "[user]\n", newText: "[alias]\n" });
    expect(textOf(call)).toContain(`this change is written to ${real}`);
  });

  it("shows where a dangling symlink would create its file", () => {
    const link = join(workspace, "new-config");
    symlinkSync(join(outside, "created.conf"), link);
    const call = editApprovalToolCall(request({ path: link, oldText: null, newText: "x\n" }));
    expect(call.title).toBe(`Create ${join(outside, "created.conf")} (via ${link})`);
    expect(call.locations).toEqual([{ path: join(outside, "created.conf") }]);
  });

  it("makes a hard link visible: count in the title and a warning that the other name changes too", () => {
    const shared = join(outside, "shared.txt");
    writeFileSync(shared, "a\n");
    const here = join(workspace, "notes.txt");
    linkSync(shared, here);
    const call = editApprovalToolCall(request({ path: here, oldText: "a\n", newText: "b\n" }));
    expect(call.title).toBe(`Edit ${here} (hard link: 2 links)`);
    expect(textOf(call)).toContain("hard link (2 links)");
    expect(textOf(call)).toContain("changes there too");
  });

  it("combines both notes for a symlink to a hard-linked file", () => {
    const shared = join(outside, "both.txt");
    writeFileSync(shared, "a\n");
    linkSync(shared, join(outside, "both-twin.txt"));
    const link = join(workspace, "both-link");
    symlinkSync(shared, link);
    expect(describeTarget({ given: link, real: shared, links: 2 })).toBe(`${shared} (via ${link}; hard link: 2 links)`);
    expect(editApprovalToolCall(request({ path: link, oldText: "a\n", newText: "b\n" })).title).toBe(`Edit ${shared} (via ${link}; hard link: 2 links)`);
  });

  it("titles moves, deletions and multi-file patches, with real locations and no repeats", () => {
    const from = join(workspace, "a.ts");
    const to = join(workspace, "b.ts");
    const link = join(workspace, "out-dir");
    symlinkSync(outside, link);
    expect(editApprovalToolCall(request({ path: to, fromPath: from, oldText: "x", newText: "x" }))).toMatchObject({
      title: `Move ${from} → ${to}`,
      locations: [{ path: to }, { path: from }],
    });
    expect(editApprovalToolCall(request({ path: from, oldText: "x", newText: null })).title).toBe(`Delete ${from}`);
    const many = editApprovalToolCall(
      request(
        { path: join(workspace, "1.ts"), oldText: null, newText: "1" },
        { path: join(link, "2.ts"), oldText: null, newText: "2" },
        { path: join(workspace, "1.ts"), oldText: "1", newText: "one" },
        { path: join(workspace, "4.ts"), oldText: null, newText: "4" },
      ),
    );
    expect(many.title).toBe(`Edit 4 files: ${join(workspace, "1.ts")}, ${join(outside, "2.ts")} (via ${join(link, "2.ts")}), ${join(workspace, "1.ts")} and 1 more`);
    expect(many.locations).toEqual([{ path: join(workspace, "1.ts") }, { path: join(outside, "2.ts") }, { path: join(workspace, "4.ts") }]);
    expect(many.content?.filter((block) => block.type === "diff")).toHaveLength(4);
  });
});
