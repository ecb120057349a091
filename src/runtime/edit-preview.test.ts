import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolStartEvent } from "../agent/events.js";
import { defaultConfig } from "../config/schema.js";
import { prepareToolCall } from "../tools/prepared-call.js";
import { ToolRegistry } from "../tools/registry.js";
import { hermesAcpTools } from "../tools/toolsets.js";
import { SessionApprovals } from "./approvals.js";
import type { SessionMode } from "./edit-policy.js";
import { withAutoApprovedEdits } from "./edit-preview.js";

const TOOLS = new ToolRegistry(hermesAcpTools());
let cwd: string;

beforeEach(() => {
  cwd = realpathSync(mkdtempSync(join(tmpdir(), "hermes-preview-")));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

function startOf(name: string, args: unknown) {
  return toolStartEvent(prepareToolCall({ id: "c1", type: "function", function: { name, arguments: JSON.stringify(args) } }, TOOLS, { cwd }));
}

function inMode(mode: SessionMode): SessionApprovals {
  const approvals = new SessionApprovals({ cwd, hermesHome: join(cwd, ".hermes-home"), config: defaultConfig(), persistAllowed: () => undefined });
  approvals.mode = mode;
  return approvals;
}

describe("withAutoApprovedEdits", () => {
  it("previews write_file and replace-mode patch edits the mode approves, as the tool would write them", () => {
    writeFileSync(join(cwd, "a.txt"), "\uFEFFone\r\ntwo\r\n");
    const patched = withAutoApprovedEdits(startOf("patch", { path: "a.txt", old_string: "two\n", new_string: "2\n" }), inMode("accept_edits"), cwd);
    expect(patched.edits).toEqual([{ path: join(cwd, "a.txt"), oldText: "\uFEFFone\r\ntwo\r\n", newText: "\uFEFFone\r\n2\r\n" }]);
    const written = withAutoApprovedEdits(startOf("write_file", { path: "sub/new.txt", content: "hi\n" }), inMode("dont_ask"), cwd);
    expect(written.edits).toEqual([{ path: join(cwd, "sub/new.txt"), oldText: null, newText: "hi\n" }]);
  });

  it("adds nothing when the edit will be asked about or cannot be known before it runs", () => {
    writeFileSync(join(cwd, "a.txt"), "one\n");
    writeFileSync(join(cwd, ".env"), "KEY=1\n");
    mkdirSync(join(cwd, "dir"));
    const cases = [
      withAutoApprovedEdits(startOf("write_file", { path: "a.txt", content: "two\n" }), inMode("default"), cwd),
      withAutoApprovedEdits(startOf("write_file", { path: "a.txt", content: "two\n" }), inMode("plan"), cwd),
      withAutoApprovedEdits(startOf("write_file", { path: ".env", content: "KEY=2\n" }), inMode("accept_edits"), cwd),
      withAutoApprovedEdits(startOf("write_file", { path: "/etc/hermes-preview-outside", content: "x" }), inMode("accept_edits"), cwd),
      withAutoApprovedEdits(startOf("write_file", { path: "a.txt", content: "one\n" }), inMode("accept_edits"), cwd),
      withAutoApprovedEdits(startOf("write_file", { path: "dir", content: "x" }), inMode("accept_edits"), cwd),
      withAutoApprovedEdits(startOf("patch", { path: "a.txt", old_string: "absent", new_string: "x" }), inMode("accept_edits"), cwd),
      withAutoApprovedEdits(startOf("patch", { mode: "patch", patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch" }), inMode("accept_edits"), cwd),
      withAutoApprovedEdits(startOf("read_file", { path: "a.txt" }), inMode("accept_edits"), cwd),
    ];
    for (const event of cases) expect(event.edits).toBeUndefined();
  });
});
