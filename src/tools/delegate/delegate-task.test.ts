import { describe, expect, it } from "vitest";
import { defaultConfig, type HermesConfig } from "../../config/schema.js";
import { toolContext } from "../../../test/support/tool-context.js";
import type { DelegateChildResult, DelegatePort, DelegateRunOptions, DelegateTaskSpec, DelegationRecord } from "../ports.js";
import type { ToolContext } from "../types.js";
import { delegateTaskTool } from "./delegate-task.js";
import type { DelegateDetails, DelegateProgress } from "./details.js";
import { ProgressFeed } from "./progress-feed.js";
import { delegateTasks } from "./tasks.js";

function done(task: DelegateTaskSpec, taskIndex: number): DelegateChildResult {
  return {
    taskIndex,
    goal: task.goal,
    status: "completed",
    summary: `did ${task.goal}`,
    exitReason: "completed",
    role: task.role,
    apiCalls: 1,
    durationSeconds: 0.5,
    model: "m",
    filesChanged: ["/w/a.ts"],
    toolTrace: [{ tool: "read_file", ok: true }],
  };
}

/** A port that records what it was asked and answers at once. */
function fakePort(depth = 0): DelegatePort & { runs: DelegateTaskSpec[][]; dispatched: DelegateTaskSpec[]; records: Map<string, DelegationRecord> } {
  const runs: DelegateTaskSpec[][] = [];
  const dispatched: DelegateTaskSpec[] = [];
  const records = new Map<string, DelegationRecord>();
  return {
    depth,
    runs,
    dispatched,
    records,
    async run(tasks: DelegateTaskSpec[], options: DelegateRunOptions) {
      runs.push(tasks);
      tasks.forEach((_, index) => options.onProgress?.(index, "read: a.ts"));
      return tasks.map(done);
    },
    dispatch(task) {
      dispatched.push(task);
      return { delegationId: "deleg_1" };
    },
    status: (id) => records.get(id),
  };
}

async function call(args: Record<string, unknown>, port: DelegatePort | undefined, config: HermesConfig = defaultConfig(), progress?: DelegateProgress[]) {
  const ctx = toolContext({ config, ports: port ? { delegate: port } : {} }) as ToolContext<DelegateProgress>;
  if (progress) ctx.reportProgress = (details) => progress.push(details);
  const parsed = delegateTaskTool.params.parse(args);
  const result = await delegateTaskTool.execute(parsed, ctx);
  return { ...result, json: JSON.parse(result.content) as Record<string, unknown>, details: result.details as DelegateDetails };
}

describe("delegate_task", () => {
  it("runs one goal, or a batch with per-task role, toolsets and agents beating the top-level ones", async () => {
    const port = fakePort();
    const config = defaultConfig();
    config.delegation.acp_agents = { codex: { command: "codex-acp", args: [], env: {} } };
    const progress: DelegateProgress[] = [];
    const single = await call({ goal: "fix it", context: "in a.ts", toolsets: ["file"] }, port, config, progress);
    expect(port.runs[0]).toEqual([{ goal: "fix it", context: "in a.ts", toolsets: ["file"], role: "leaf" }]);
    expect(single.json).toMatchObject({ results: [{ task_index: 0, status: "completed", summary: "did fix it", files_changed: ["/w/a.ts"], tool_trace: [{ tool: "read_file", status: "ok" }] }] });
    expect(single.json.note).toMatch(/SELF-REPORTS/);
    expect(progress.at(-1)).toEqual({ lines: ["[child 1] read: a.ts"], dropped: 0 });
    expect(single.details).toMatchObject({ mode: "run", results: [{ goal: "fix it", tools: ["read_file"] }] });

    await call({ role: "orchestrator", toolsets: ["web"], agent: "codex", tasks: [{ goal: "a" }, { goal: "b", role: "leaf", toolsets: ["file"], acp_command: "x", acp_args: ["--acp"] }] }, port, config);
    expect(port.runs[1]).toEqual([
      { goal: "a", toolsets: ["web"], role: "orchestrator", acp: { agent: "codex" } },
      { goal: "b", toolsets: ["file"], role: "leaf", acp: { agent: "codex" } },
    ]);
    await call({ tasks: [{ goal: "c", acp_command: "copilot", acp_args: ["--acp", "--stdio"] }] }, port, config);
    expect(port.runs[2]).toEqual([{ goal: "c", role: "leaf", acp: { command: "copilot", args: ["--acp", "--stdio"] } }]);
  });

  it("refuses what Hermes refuses, before any child runs", async () => {
    const port = fakePort();
    const refused = async (args: Record<string, unknown>, target: DelegatePort | null = port) => {
      const result = await call(args, target ?? undefined);
      expect(result.isError).toBe(true);
      return String(result.json.error);
    };
    expect(await refused({ tasks: [1, 2, 3, 4].map((n) => ({ goal: `t${n}` })) })).toMatch(/^Too many tasks: 4 provided, but max_concurrent_children is 3/);
    expect(await refused({ tasks: [{ goal: "a" }, { goal: "b" }], background: true })).toMatch(/^background=true is single-task only/);
    expect(await refused({})).toBe("Provide either 'goal' (single task) or 'tasks' (batch).");
    expect(await refused({ tasks: [{ goal: "a" }, { goal: " " }] })).toBe("Task 1 is missing a 'goal'.");
    expect(await refused({ goal: "a", agent: "nope" })).toMatch(/no ACP agent named 'nope'.*none is configured/);
    expect(await refused({ goal: "a" }, fakePort(1))).toMatch(/^Delegation depth limit reached \(depth=1, max_spawn_depth=1\)/);
    expect(await refused({ goal: "a" }, null)).toMatch(/not available here/);
    expect(await refused({ delegation_id: "deleg_x" })).toMatch(/No background delegation 'deleg_x'/);
    expect(port.runs).toEqual([]);
  });

  it("dispatches in the background and answers status queries", async () => {
    const port = fakePort();
    const dispatched = await call({ goal: "long job", background: true }, port);
    expect(dispatched.json).toMatchObject({ status: "dispatched", delegation_id: "deleg_1", goal: "long job", mode: "background" });
    expect(dispatched.details).toEqual({ mode: "dispatched", delegationId: "deleg_1", goal: "long job", status: "running" });
    port.records.set("deleg_1", { delegationId: "deleg_1", goal: "long job", status: "running", dispatchedAt: 0 });
    expect((await call({ delegation_id: "deleg_1" }, port)).json).toMatchObject({ status: "running", note: expect.stringMatching(/do not poll/) });
    port.records.set("deleg_1", { delegationId: "deleg_1", goal: "long job", status: "completed", dispatchedAt: 0, completedAt: 1000, result: done({ goal: "long job", role: "leaf" }, 0) });
    const status = await call({ delegation_id: "deleg_1" }, port);
    expect(status.json).toMatchObject({ status: "completed", result: { summary: "did long job" } });
    expect(status.details).toMatchObject({ mode: "status", result: { summary: "did long job" } });
  });

  it("titles calls as Hermes does", () => {
    const title = (args: Record<string, unknown>) => delegateTaskTool.describe(delegateTaskTool.params.parse(args), { cwd: "/w" }).title;
    expect(title({ tasks: [{ goal: "a" }, { goal: "b" }] })).toBe("delegate batch (2 tasks)");
    expect(title({ goal: "x".repeat(70) })).toBe(`delegate: ${"x".repeat(57)}...`);
    expect(title({})).toBe("delegate task");
    expect(title({ delegation_id: "deleg_1" })).toBe("delegate status: deleg_1");
  });

  it("drops a model-supplied max_iterations (the config value is authoritative)", () => {
    expect(delegateTaskTool.params.parse({ goal: "a", max_iterations: 3 })).toEqual({ goal: "a" });
    expect(delegateTasks({ goal: "a" }, defaultConfig().delegation, 0)).toEqual({ tasks: [{ goal: "a", role: "leaf" }] });
  });
});

describe("ProgressFeed", () => {
  it("reports the first line at once, then at most once per interval with the latest lines", () => {
    let now = 0;
    const reports: DelegateProgress[] = [];
    const feed = new ProgressFeed((progress) => reports.push(progress), 250, () => now);
    feed.push("one");
    feed.push("two");
    expect(reports).toEqual([{ lines: ["one"], dropped: 0 }]);
    feed.stop();
    now = 1000;
    feed.push("three");
    expect(reports).toHaveLength(1);
  });
});
