import type { UserContentPart } from "../../llm/types.js";
import { errorMessage } from "../../shared/errors.js";
import { newId } from "../../shared/ids.js";
import { log } from "../../shared/logger.js";
import { roundSeconds } from "../../tools/delegate/results.js";
import { providerCredentialNames } from "../../tools/terminal/child-env.js";
import type { DelegateChildResult, DelegatePort, DelegateRunOptions, DelegateTaskSpec, DelegationRecord } from "../../tools/ports.js";
import type { PermissionAsker } from "../approvals.js";
import type { AcpAgentSpec } from "./acp-child.js";
import { BackgroundDelegations, withDelivered } from "./background.js";
import { childApprovalPorts, childLabel } from "./child-approvals.js";
import { childTaskText } from "./child-prompt.js";
import { ChildRecord } from "./child-record.js";
import { runNativeChild } from "./native-child.js";
import type { ChildRun, ChildRunner, DelegationParent } from "./types.js";

export interface SessionDelegationOptions {
  parent: DelegationParent;
  /** The delegating session's depth: 0 for the user's session. */
  depth?: number;
  /** Put before children's numbers: `1.` for the children of child 1. */
  path?: string;
  /** The asker to use (children of a child use their top-level session's); default: the latest turn's. */
  asker?: () => PermissionAsker | undefined;
  /** Whether `dispatch` may start background children (the user's session only). */
  background?: boolean;
  /** Replaces the native runner (tests). */
  runNative?: ChildRunner;
}

/** What a turn tells delegation when it starts (see `beginTurn`). */
export interface DelegationTurn {
  asker: PermissionAsker;
  signal: AbortSignal;
  notifyUser?: (text: string) => void;
}

/**
 * A session's delegation: the `delegate` port its tools get, and the hooks its turns call.
 *
 * Children run concurrently, each with its own AbortController tied to the delegate_task call's
 * signal (the parent's cancel), and are stopped by `cancel` / `dispose` too. Background children
 * outlive the call: they are stopped when a later turn of the session is cancelled (as Hermes'
 * ACP adapter interrupts a session's async delegations on `session/cancel`) or the session
 * closes; finished ones are delivered with the next user message (`beginTurn`). Approvals of all
 * children go to the session's own asker (the one its latest turn used), so a question can reach
 * only this session's editor, and a cancelled child withdraws its question. No method throws;
 * `run` never rejects.
 */
export class SessionDelegation implements DelegatePort {
  readonly depth: number;
  private latestAsker: PermissionAsker | undefined;
  private readonly live = new Set<{ controller: AbortController; done: Promise<unknown> }>();
  private readonly background = new BackgroundDelegations();

  constructor(private readonly options: SessionDelegationOptions) {
    this.depth = options.depth ?? 0;
  }

  run(tasks: DelegateTaskSpec[], options: DelegateRunOptions): Promise<DelegateChildResult[]> {
    return Promise.all(tasks.map((task, index) => this.child(task, index, options)));
  }

  dispatch(task: DelegateTaskSpec, options: Omit<DelegateRunOptions, "signal" | "onProgress">): { delegationId: string } | { error: string } {
    if (!this.options.background) return { error: "background=true is only available to the session the user talks to, not to a subagent: run the task synchronously." };
    const max = this.options.parent.config.delegation.max_async_children;
    if (this.background.running() >= max) {
      return {
        error: `Async delegation capacity reached (${max} running). Wait for one to finish (its result will re-enter the chat), or run this task synchronously (background=false). Raise delegation.max_async_children in config.yaml to allow more concurrent background subagents.`,
      };
    }
    const notify = options.inherit.notifyUser;
    const delegationId = this.background.start(
      task,
      (signal) => this.child(task, 0, { ...options, signal }),
      (record) => notify?.(`🔀 Background task ${record.delegationId} finished (${record.status}): ${oneLine(record.goal)}. Its result goes to the model with your next message.`),
    );
    log.info(`dispatched background delegation ${delegationId}: ${task.goal.slice(0, 80)}`);
    return { delegationId };
  }

  status(delegationId: string): DelegationRecord | undefined {
    return this.background.status(delegationId);
  }

  /**
   * Called as a turn starts: its asker becomes the one children ask through, its cancel stops the
   * background children, and the results of background children that finished since are put
   * before the user's `content` (announced to the user). Answers the content to send. Never throws.
   */
  beginTurn(turn: DelegationTurn, content: string | UserContentPart[]): string | UserContentPart[] {
    this.latestAsker = turn.asker;
    turn.signal.addEventListener("abort", () => this.background.cancel(), { once: true });
    const finished = this.background.takeFinished();
    if (!finished) return content;
    turn.notifyUser?.(`↳ With the result of background task${finished.ids.length === 1 ? "" : "s"} ${finished.ids.join(", ")}.`);
    return withDelivered(content, finished.text);
  }

  /** Stops every child, foreground and background. */
  cancel(): void {
    this.background.cancel();
    for (const child of this.live) child.controller.abort();
  }

  /** Stops every child and resolves once they have ended (ACP processes stopped). Never rejects. */
  async dispose(): Promise<void> {
    this.cancel();
    await Promise.allSettled([...[...this.live].map((child) => child.done), this.background.settled()]);
  }

  private asker(): PermissionAsker | undefined {
    return this.options.asker ? this.options.asker() : this.latestAsker;
  }

  private async child(task: DelegateTaskSpec, taskIndex: number, options: DelegateRunOptions): Promise<DelegateChildResult> {
    const started = performance.now();
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    if (options.signal.aborted) stop();
    else options.signal.addEventListener("abort", stop, { once: true });
    const path = `${this.options.path ?? ""}${taskIndex + 1}`;
    const run: ChildRun = {
      parent: this.options.parent,
      task,
      taskIndex,
      path,
      depth: this.depth + 1,
      callId: options.callId,
      signal: controller.signal,
      inherit: options.inherit,
      onProgress: (line) => options.onProgress?.(taskIndex, line),
      asker: () => this.asker(),
      nested: (parent, childPath) => new SessionDelegation({ parent, depth: this.depth + 1, path: `${childPath}.`, asker: () => this.asker(), ...(this.options.runNative ? { runNative: this.options.runNative } : {}) }),
    };
    const running = task.acp ? this.runAcp(run, task.acp) : (this.options.runNative ?? runNativeChild)(run);
    const entry = { controller, done: running };
    this.live.add(entry);
    try {
      return await running;
    } catch (error) {
      log.warn(`delegated child ${path} failed`, error);
      return failedResult(run, "error", errorMessage(error), started);
    } finally {
      options.signal.removeEventListener("abort", stop);
      this.live.delete(entry);
    }
  }

  /** An external ACP agent as the child (see acp-child.ts); a command nobody configured is asked first; none in Plan mode. */
  private async runAcp(run: ChildRun, acp: NonNullable<DelegateTaskSpec["acp"]>): Promise<DelegateChildResult> {
    const started = performance.now();
    const { parent } = run;
    const label = childLabel(run.path, run.task.goal);
    const approvals = childApprovalPorts({ label, callId: run.callId, asker: run.asker, signal: run.signal, cwd: parent.cwd, hermesHome: parent.hermesHome, config: parent.config, mode: parent.mode });
    // Plan mode's checks cannot reach an agent that works with its own tools: it does not start.
    if (parent.mode() === "plan") return failedResult(run, "failed", "External ACP agents do not run in Plan mode: they act with their own tools, outside Plan mode's checks.", started);
    const agent = acpAgent(parent, acp);
    if (!agent) return failedResult(run, "failed", `no ACP agent named '${"agent" in acp ? acp.agent : acp.command}' in delegation.acp_agents`, started);
    if (!agent.configured) {
      const commandLine = [agent.command, ...agent.args].join(" ");
      const allowed = await approvals.approveCommand({
        callId: run.callId,
        command: commandLine,
        patternKey: "acp_agent_start",
        description: "Start an external ACP agent as a subagent",
        escalation: { reason: "delegate_task wants to start an ACP agent that is not in delegation.acp_agents; it runs outside the sandbox, with your permissions", cwd: parent.cwd },
      });
      if (!allowed) return failedResult(run, run.signal.aborted ? "interrupted" : "failed", `The user did not allow starting ${commandLine}. Add it to delegation.acp_agents in config.yaml to run it without asking.`, started);
    }
    const id = newId();
    const record = new ChildRecord(parent, { id, model: agent.name, provider: "acp", systemPrompt: "", goal: run.task.goal });
    const { runAcpChild } = await import("./acp-child.js");
    const result = await runAcpChild({
      run,
      agent,
      prompt: childTaskText({ goal: run.task.goal, ...(run.task.context ? { context: run.task.context } : {}), workspace: parent.cwd }),
      approvals,
      onExchange: (prompt, answer) => record.appendAll([{ role: "user", content: prompt }, ...(answer ? [{ role: "assistant" as const, content: answer }] : [])]),
    });
    await record.finish();
    return { ...result, sessionId: id };
  }
}

/**
 * The agent to start: a configured `acp_agents` entry by name, or a command line (configured when
 * an entry has that command and args). Its environment is the agent's minus the credentials
 * Hermes keeps for itself (the well-known provider keys, its `.env` secrets and providers'
 * `key_env` variables: what commands never see either), plus the entry's `env`.
 */
function acpAgent(parent: DelegationParent, acp: NonNullable<DelegateTaskSpec["acp"]>): (AcpAgentSpec & { configured: boolean }) | undefined {
  const agents = parent.config.delegation.acp_agents;
  const byCommand = "command" in acp ? Object.entries(agents).find(([, entry]) => entry.command === acp.command && entry.args.join("\0") === acp.args.join("\0")) : undefined;
  const [name, entry] = "agent" in acp ? [acp.agent, agents[acp.agent]] : (byCommand ?? [acp.command, undefined]);
  const hidden = new Set(providerCredentialNames());
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(parent.env).filter(([key]) => !hidden.has(key)));
  if (entry) return { name, command: entry.command, args: entry.args, env: { ...env, ...entry.env }, configured: true };
  if ("agent" in acp) return undefined;
  return { name: acp.command, command: acp.command, args: acp.args, env, configured: false };
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

function failedResult(run: ChildRun, status: DelegateChildResult["status"], error: string, started: number): DelegateChildResult {
  return {
    taskIndex: run.taskIndex,
    goal: run.task.goal,
    status,
    summary: null,
    error,
    exitReason: status === "interrupted" ? "interrupted" : "error",
    role: "leaf",
    apiCalls: 0,
    durationSeconds: roundSeconds(performance.now() - started),
    filesChanged: [],
    toolTrace: [],
  };
}
