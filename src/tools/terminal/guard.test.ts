import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import { defaultConfig } from "../../config/schema.js";
import type { CommandApprovalRequest } from "../ports.js";
import { guardCommand, type DangerDetector } from "./guard.js";
import { terminalTool } from "./terminal.js";

const detect: DangerDetector = (command) => {
  if (command.includes("mkfs")) return { kind: "hardline", patternKey: "mkfs", description: "format a filesystem" };
  if (command.includes("rm -r")) return { kind: "dangerous", patternKey: "recursive_delete", description: "recursive delete" };
  return undefined;
};

function asked(answer: boolean | Error) {
  const requests: CommandApprovalRequest[] = [];
  const approveCommand = async (request: CommandApprovalRequest): Promise<boolean> => {
    requests.push(request);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { requests, approveCommand };
}

describe("guardCommand", () => {
  it("runs ordinary commands without asking", async () => {
    const port = asked(false);
    const verdict = await guardCommand("ls -la", toolContext({ ports: { approveCommand: port.approveCommand } }), detect);
    expect(verdict).toEqual({ action: "run" });
    expect(port.requests).toHaveLength(0);
  });

  it("refuses hardline commands without asking, even when the user would allow", async () => {
    const port = asked(true);
    const verdict = await guardCommand("mkfs.ext4 /dev/sda", toolContext({ ports: { approveCommand: port.approveCommand } }), detect);
    expect(verdict).toMatchObject({ action: "refuse", reason: "hardline", message: "blocked: format a filesystem; this command is never run" });
    expect(port.requests).toHaveLength(0);
  });

  it("asks for dangerous commands with the call id, exact command, pattern and description", async () => {
    const port = asked(true);
    const ctx = toolContext({ callId: "call_7", ports: { approveCommand: port.approveCommand } });
    const verdict = await guardCommand("rm -rf build", ctx, detect);
    expect(port.requests).toEqual([
      { callId: "call_7", command: "rm -rf build", patternKey: "recursive_delete", description: "recursive delete" },
    ]);
    expect(verdict).toEqual({ action: "run", approval: { patternKey: "recursive_delete", description: "recursive delete", via: "user" } });
  });

  it("refuses when the user denies, telling the model not to retry or work around it", async () => {
    const port = asked(false);
    const verdict = await guardCommand("rm -rf build", toolContext({ ports: { approveCommand: port.approveCommand } }), detect);
    expect(verdict.action).toBe("refuse");
    if (verdict.action !== "refuse") return;
    expect(verdict.reason).toBe("denied");
    expect(verdict.message).toMatch(/user denied/);
    expect(verdict.message).toMatch(/Do not retry/);
    expect(verdict.message).toMatch(/another way/);
  });

  it("fails closed: no port or a failing port is a deny", async () => {
    expect((await guardCommand("rm -rf build", toolContext(), detect)).action).toBe("refuse");
    const port = asked(new Error("bridge down"));
    expect((await guardCommand("rm -rf build", toolContext({ ports: { approveCommand: port.approveCommand } }), detect)).action).toBe(
      "refuse",
    );
  });

  it("fails closed when the detector throws", async () => {
    const broken: DangerDetector = () => {
      throw new Error("boom");
    };
    expect((await guardCommand("ls", toolContext(), broken)).action).toBe("refuse");
  });

  it("skips the question for pattern keys in command_allowlist", async () => {
    const port = asked(false);
    const config = { ...defaultConfig(), command_allowlist: ["recursive_delete"] };
    const verdict = await guardCommand("rm -rf build", toolContext({ config, ports: { approveCommand: port.approveCommand } }), detect);
    expect(verdict).toMatchObject({ action: "run", approval: { via: "allowlist" } });
    expect(port.requests).toHaveLength(0);
  });

  it("never lets the allowlist unlock a hardline command", async () => {
    const config = { ...defaultConfig(), command_allowlist: ["mkfs"] };
    expect((await guardCommand("mkfs /dev/sda", toolContext({ config }), detect)).action).toBe("refuse");
  });

  it("refuses as cancelled when the turn is cancelled while the question is open", async () => {
    const controller = new AbortController();
    let asking!: () => void;
    const askedPromise = new Promise<void>((resolve) => (asking = resolve));
    const approveCommand = (): Promise<boolean> => {
      asking();
      return new Promise<boolean>(() => {});
    };
    const pending = guardCommand("rm -rf build", toolContext({ signal: controller.signal, ports: { approveCommand } }), detect);
    await askedPromise;
    controller.abort();
    expect(await pending).toMatchObject({ action: "refuse", reason: "cancelled" });
  });
});

describe("a script written in an earlier call", () => {
  it("asks before a shell runs it when there is no sandbox", async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "guard-written-")));
    const asked: string[] = [];
    const base = toolContext({ cwd, ports: { approveCommand: async (request) => (asked.push(request.patternKey), false) } });
    const context = { ...base, sandbox: { ...base.sandbox, mode: "off" as const } };
    await terminalTool.execute(terminalTool.params.parse({ command: "echo 'echo hi' > c.sh" }), context);
    const result = await terminalTool.execute(terminalTool.params.parse({ command: "bash c.sh" }), context);
    expect(asked).toContain("run_written_script");
    expect(result.isError).toBe(true);
  });
});
