import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../config/schema.js";
import type { CommandApprovalRequest, EditApprovalRequest } from "../../tools/ports.js";
import type { CommandAnswer, EditAnswer, PermissionAsker } from "../approvals.js";
import type { SessionMode } from "../edit-policy.js";
import { childApprovalPorts, childLabel } from "./child-approvals.js";

function recordingAsker(command: CommandAnswer, edit: EditAnswer): PermissionAsker & { commands: CommandApprovalRequest[]; edits: EditApprovalRequest[] } {
  const commands: CommandApprovalRequest[] = [];
  const edits: EditApprovalRequest[] = [];
  return {
    commands,
    edits,
    askCommand: async (request) => (commands.push(request), command),
    askEdit: async (request) => (edits.push(request), edit),
  };
}

function ports(options: { asker?: PermissionAsker; mode?: SessionMode; autoApprove?: boolean; signal?: AbortSignal; allowlist?: string[] } = {}) {
  const config = defaultConfig();
  config.delegation.subagent_auto_approve = options.autoApprove ?? false;
  config.command_allowlist = options.allowlist ?? [];
  return childApprovalPorts({
    label: "[child 2: fix it]",
    callId: "d1",
    asker: () => options.asker,
    signal: options.signal ?? new AbortController().signal,
    cwd: "/w",
    hermesHome: "/h",
    config,
    mode: () => options.mode ?? "default",
  });
}

const dangerous: CommandApprovalRequest = { callId: "t1", command: "rm -rf build", patternKey: "rm_recursive", description: "recursive delete" };
const write: EditApprovalRequest = { callId: "w1", toolName: "write_file", edits: [{ path: "/w/a.txt", oldText: null, newText: "x" }] };

describe("childApprovalPorts", () => {
  it("denies dangerous commands without asking, unless auto-approve or the allowlist says otherwise", async () => {
    const asker = recordingAsker("allow_once", "allow");
    expect(await ports({ asker }).approveCommand(dangerous)).toBe(false);
    expect(await ports({ asker, autoApprove: true }).approveCommand(dangerous)).toBe(true);
    expect(await ports({ asker, allowlist: ["rm -rf build"] }).approveCommand(dangerous)).toBe(true);
    expect(asker.commands).toEqual([]);
  });

  it("asks escalations and edits through the parent's asker, labelled, on the delegate call", async () => {
    const asker = recordingAsker("allow_once", "allow");
    expect(await ports({ asker }).approveCommand({ ...dangerous, escalation: { reason: "needs the network", cwd: "/w" } })).toBe(true);
    expect(asker.commands).toEqual([expect.objectContaining({ callId: "d1", description: "[child 2: fix it] recursive delete" })]);
    expect(await ports({ asker }).approveEdit(write)).toBe(true);
    expect(asker.edits).toEqual([expect.objectContaining({ callId: "d1", label: "[child 2: fix it]", toolName: "write_file" })]);
  });

  it("fails closed: no asker, a denial, a cancelled child, plan mode", async () => {
    const cancelled = new AbortController();
    cancelled.abort();
    expect(await ports({}).approveEdit(write)).toBe(false);
    expect(await ports({}).approveCommand({ ...dangerous, escalation: { reason: "r", cwd: "/w" } })).toBe(false);
    expect(await ports({ asker: recordingAsker("deny", "deny") }).approveEdit(write)).toBe(false);
    expect(await ports({ asker: recordingAsker("allow_once", "allow"), signal: cancelled.signal }).approveEdit(write)).toBe(false);
    expect(await ports({ asker: recordingAsker("allow_once", "allow"), mode: "plan" }).approveEdit(write)).toBe(false);
  });

  it("labels children by number and a short goal", () => {
    expect(childLabel("2", "fix\n the   parser")).toBe("[child 2: fix the parser]");
    expect(childLabel("1.3", "x".repeat(80))).toBe(`[child 1.3: ${"x".repeat(59)}…]`);
  });
});
