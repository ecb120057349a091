import type { AgentContext, RequestPermissionRequest } from "@agentclientprotocol/sdk/unstable";
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PermissionBridge } from "./permission-bridge.js";

/** An editor that never answers a permission request by itself; it records how each one was sent. */
function silentEditor() {
  const sent: Array<{ method: string; options: { cancellationSignal?: AbortSignal; stopWaitingOnCancel?: boolean } }> = [];
  const client = {
    request: (method: string, _params: unknown, options: { cancellationSignal?: AbortSignal; stopWaitingOnCancel?: boolean }) => {
      sent.push({ method, options });
      return new Promise((_resolve, reject) => {
        // What the SDK does with stopWaitingOnCancel: `$/cancel_request` goes out and the wait ends.
        options.cancellationSignal?.addEventListener("abort", () => reject(new Error("Request cancelled")), { once: true });
      });
    },
  } as unknown as AgentContext;
  return { client, sent };
}

const command = { callId: "t1", command: "rm -rf build", patternKey: "rm-rf", description: "recursive delete" };

describe("PermissionBridge and cancellation", () => {
  it("cancels our pending request when the turn is cancelled (session/cancel) and answers deny", async () => {
    const editor = silentEditor();
    const bridge = new PermissionBridge(editor.client, "s1", () => 300_000);
    const turn = new AbortController();
    const answer = bridge.askCommand(command, turn.signal);
    await Promise.resolve();
    expect(editor.sent).toHaveLength(1);
    const { cancellationSignal, stopWaitingOnCancel } = editor.sent[0]!.options;
    expect(editor.sent[0]!.method).toBe("session/request_permission");
    expect(stopWaitingOnCancel).toBe(true);
    expect(cancellationSignal?.aborted).toBe(false);
    turn.abort();
    expect(cancellationSignal?.aborted).toBe(true);
    expect(await answer).toBe("deny");
  });

  it("does not even ask once the turn is cancelled, and the next turn asks again", async () => {
    const editor = silentEditor();
    const bridge = new PermissionBridge(editor.client, "s1", () => 300_000);
    const cancelled = new AbortController();
    cancelled.abort();
    expect(await bridge.askEdit({ callId: "w1", toolName: "write_file", edits: [] }, cancelled.signal)).toBe("deny");
    expect(editor.sent).toHaveLength(0);
    const next = new AbortController();
    const pending = bridge.askCommand(command, next.signal);
    await Promise.resolve();
    await Promise.resolve();
    expect(editor.sent).toHaveLength(1);
    next.abort();
    expect(await pending).toBe("deny");
  });
});

describe("PermissionBridge edit requests", () => {
  it("sends the real target of a symlinked write, in the title and the location, and honours the answer", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "hermes-bridge-")));
    try {
      const real = join(root, "outside.txt");
      writeFileSync(real, "a\n");
      const link = join(root, "link.txt");
      symlinkSync(real, link);
      const asked: RequestPermissionRequest[] = [];
      const client = {
        request: async (_method: string, params: RequestPermissionRequest) => {
          asked.push(params);
          return { outcome: { outcome: "selected", optionId: "allow_once" } };
        },
      } as unknown as AgentContext;
      const bridge = new PermissionBridge(client, "s1", () => 300_000);
      const answer = await bridge.askEdit({ callId: "w1", toolName: "write_file", edits: [{ path: link, oldText: "a\n", newText: "b\n" }] }, new AbortController().signal);
      expect(answer).toBe("allow");
      expect(asked[0]?.toolCall).toMatchObject({ toolCallId: "w1", kind: "edit", status: "pending", title: `Edit ${real} (via ${link})`, locations: [{ path: real }] });
      expect(asked[0]?.toolCall.content?.[0]).toEqual({ type: "diff", path: link, oldText: "a\n", newText: "b\n" });
      expect(asked[0]?.options.map((option) => option.optionId)).toEqual(["allow_once", "deny"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
