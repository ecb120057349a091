import type { AgentContext } from "@agentclientprotocol/sdk/unstable";
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
