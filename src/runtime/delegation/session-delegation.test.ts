import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../config/schema.js";
import type { DelegateChildResult } from "../../tools/ports.js";
import type { CommandApprovalRequest } from "../../tools/ports.js";
import type { PermissionAsker } from "../approvals.js";
import { SessionDelegation } from "./session-delegation.js";
import type { ChildRun, DelegationParent } from "./types.js";

function parentView(): DelegationParent {
  return {
    id: "parent",
    cwd: "/w",
    hermesHome: "/h",
    config: defaultConfig(),
    env: {},
    model: () => {
      throw new Error("not used");
    },
    tools: () => [],
    mode: () => "default",
  };
}

/** A runner whose children end when the test says (or when cancelled). */
function controlledRunner() {
  const waiting = new Map<string, (summary: string) => void>();
  const runs: ChildRun[] = [];
  const runner = (run: ChildRun): Promise<DelegateChildResult> =>
    new Promise((resolve) => {
      runs.push(run);
      const finish = (status: DelegateChildResult["status"], summary: string | null): void =>
        resolve({ taskIndex: run.taskIndex, goal: run.task.goal, status, summary, exitReason: status === "completed" ? "completed" : "interrupted", role: "leaf", apiCalls: 1, durationSeconds: 0, filesChanged: [], toolTrace: [] });
      waiting.set(run.task.goal, (summary) => finish("completed", summary));
      run.signal.addEventListener("abort", () => finish("interrupted", null), { once: true });
    });
  return { runner, runs, finish: (goal: string, summary: string) => waiting.get(goal)?.(summary) };
}

const asker: PermissionAsker = { askCommand: async () => "deny", askEdit: async () => "deny" };
const turn = () => ({ asker, signal: new AbortController().signal });
const options = { callId: "d1", inherit: {} };

describe("SessionDelegation", () => {
  it("runs tasks concurrently and stops them with the call's signal", async () => {
    const { runner, runs } = controlledRunner();
    const delegation = new SessionDelegation({ parent: parentView(), runNative: runner });
    const controller = new AbortController();
    const results = delegation.run([{ goal: "a", role: "leaf" }, { goal: "b", role: "leaf" }], { ...options, signal: controller.signal });
    expect(runs.map((run) => [run.path, run.depth, run.callId])).toEqual([["1", 1, "d1"], ["2", 1, "d1"]]);
    controller.abort();
    expect((await results).map((result) => result.status)).toEqual(["interrupted", "interrupted"]);
  });

  it("delivers a finished background result once, before the next user message, and announces it", async () => {
    const { runner, finish } = controlledRunner();
    const notes: string[] = [];
    const delegation = new SessionDelegation({ parent: parentView(), runNative: runner, background: true });
    const dispatched = delegation.dispatch({ goal: "bg", role: "leaf" }, { callId: "d1", inherit: { notifyUser: (text) => notes.push(text) } });
    if (!("delegationId" in dispatched)) throw new Error(dispatched.error);
    expect(delegation.beginTurn(turn(), "next")).toBe("next");
    expect(delegation.status(dispatched.delegationId)?.status).toBe("running");
    finish("bg", "found it");
    await delegation.dispose();
    expect(notes[0]).toMatch(new RegExp(`Background task ${dispatched.delegationId} finished \\(completed\\)`));
    const content = delegation.beginTurn({ ...turn(), notifyUser: (text) => notes.push(text) }, "what now?");
    expect(content).toMatch(new RegExp(`^\\[ASYNC DELEGATION COMPLETE — ${dispatched.delegationId}\\][\\s\\S]*found it[\\s\\S]*\\n\\nwhat now\\?$`));
    expect(delegation.beginTurn(turn(), "again")).toBe("again");
  });

  it("stops background children when a later turn is cancelled, and refuses past max_async_children", async () => {
    const { runner } = controlledRunner();
    const delegation = new SessionDelegation({ parent: parentView(), runNative: runner, background: true });
    const ids = [1, 2, 3].map((n) => delegation.dispatch({ goal: `bg${n}`, role: "leaf" }, options));
    expect(ids.every((id) => "delegationId" in id)).toBe(true);
    expect(delegation.dispatch({ goal: "bg4", role: "leaf" }, options)).toEqual({ error: expect.stringMatching(/^Async delegation capacity reached \(3 running\)/) });
    const cancelled = new AbortController();
    delegation.beginTurn({ asker, signal: cancelled.signal }, "go on");
    cancelled.abort();
    await delegation.dispose();
    const first = ids[0] as { delegationId: string };
    expect(delegation.status(first.delegationId)?.status).toBe("interrupted");
  });

  it("gives a child's own port no background and numbers its children under it", async () => {
    const { runner, runs } = controlledRunner();
    const delegation = new SessionDelegation({ parent: parentView(), runNative: runner, background: true });
    const controller = new AbortController();
    const pending = delegation.run([{ goal: "orchestrate", role: "orchestrator" }], { ...options, signal: controller.signal });
    const nested = runs[0]!.nested({ ...parentView(), id: "child" }, "1");
    expect(nested.depth).toBe(1);
    expect(nested.dispatch({ goal: "x", role: "leaf" }, options)).toEqual({ error: expect.stringMatching(/only available to the session the user talks to/) });
    const inner = nested.run([{ goal: "leaf work", role: "leaf" }], { ...options, signal: controller.signal });
    expect(runs[1]!.path).toBe("1.1");
    controller.abort();
    await Promise.all([pending, inner]);
  });

  it("starts no external ACP agent in Plan mode", async () => {
    const delegation = new SessionDelegation({ parent: { ...parentView(), mode: () => "plan" } });
    const [result] = await delegation.run([{ goal: "edit things", role: "leaf", acp: { command: "codex-acp", args: [] } }], { ...options, signal: new AbortController().signal });
    expect(result).toMatchObject({ status: "failed", error: expect.stringMatching(/do not run in Plan mode/) });
  });

  it("asks before starting an ACP command nobody configured, and fails when the user says no", async () => {
    const asked: CommandApprovalRequest[] = [];
    const denying: PermissionAsker = { askCommand: async (request) => (asked.push(request), "deny"), askEdit: async () => "deny" };
    const delegation = new SessionDelegation({ parent: parentView() });
    delegation.beginTurn({ asker: denying, signal: new AbortController().signal }, "");
    const [result] = await delegation.run([{ goal: "use copilot", role: "leaf", acp: { command: "copilot", args: ["--acp"] } }], { ...options, signal: new AbortController().signal });
    expect(asked).toEqual([expect.objectContaining({ callId: "d1", command: "copilot --acp", escalation: expect.objectContaining({ cwd: "/w" }) })]);
    expect(asked[0]!.description).toMatch(/^\[child 1: use copilot\] Start an external ACP agent/);
    expect(result).toMatchObject({ status: "failed", error: expect.stringMatching(/did not allow starting copilot --acp/) });
  });
});
