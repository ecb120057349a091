import { runTurn, type TurnResult } from "../../agent/loop.js";
import type { AgentEvent } from "../../agent/events.js";
import type { ChatMessage } from "../../llm/types.js";
import { errorMessage } from "../../shared/errors.js";
import { newId } from "../../shared/ids.js";
import { log } from "../../shared/logger.js";
import { sandboxSettings } from "../../tools/exec/sandbox/settings.js";
import type { DelegateChildResult, ToolPorts } from "../../tools/ports.js";
import { ToolRegistry } from "../../tools/registry.js";
import { ToolSessionState } from "../../tools/session-state.js";
import type { TypedToolOutcome } from "../../tools/typed-call.js";
import { keyHint } from "../key-hint.js";
import { planModeGate } from "../plan-mode.js";
import { childApprovalPorts, childLabel } from "./child-approvals.js";
import { childSystemPrompt } from "./child-prompt.js";
import { ChildRecord } from "./child-record.js";
import { childTools } from "./child-toolset.js";
import { roundSeconds } from "../../tools/delegate/results.js";
import type { ChildRun, DelegationParent } from "./types.js";

/** Ports of the parent's turn a native child shares: the editor's buffers, past sessions, side requests. */
const SHARED_PORTS = ["readTextFile", "writeTextFile", "sessionSearch", "auxiliaryModel"] as const;

/**
 * Runs one native child (Hermes' `_build_child_agent` + `_run_single_child`): a fresh agent run
 * on the parent's model with no parent history, the focused child prompt as its system prompt,
 * the goal as its one user message, a restricted toolset, its own ToolSessionState (file-read
 * tracking, terminal, background processes; released when it ends) and its own iteration budget
 * of `delegation.max_iterations` (Hermes gives each child a fresh budget rather than a share of
 * the parent's). It works in the parent's cwd, with the parent's sandbox settings and session
 * mode, and asks through the parent's asker (see childApprovalPorts). Every message is stored
 * in the child's own `subagent` session. Never rejects; a cancel (`run.signal`) ends it as
 * `interrupted` with whatever it had said.
 */
export async function runNativeChild(run: ChildRun): Promise<DelegateChildResult> {
  const started = performance.now();
  const { parent, task } = run;
  const { config } = parent;
  const limits = config.delegation;
  const role = task.role === "orchestrator" && limits.orchestrator_enabled && run.depth < limits.max_spawn_depth ? "orchestrator" : "leaf";
  const { resolved, provider, reasoningEffort, fallbacks } = parent.model();
  const tools = new ToolRegistry(childTools(parent.tools(), { ...(task.toolsets ? { toolsets: task.toolsets } : {}), role, config, env: parent.env }));
  const id = newId();
  const systemPrompt = childSystemPrompt({
    goal: task.goal,
    ...(task.context ? { context: task.context } : {}),
    workspace: parent.cwd,
    role,
    childDepth: run.depth,
    maxSpawnDepth: limits.max_spawn_depth,
    autoApprove: limits.subagent_auto_approve,
  });
  const record = new ChildRecord(parent, { id, model: resolved.model, provider: resolved.provider, baseUrl: resolved.baseUrl, systemPrompt, goal: task.goal });
  const label = childLabel(run.path, task.goal);
  const state = new ToolSessionState();
  const asChild: DelegationParent = { ...parent, id, tools: () => tools.list() };
  const ports: ToolPorts = {
    ...Object.fromEntries(SHARED_PORTS.flatMap((name) => (run.inherit[name] ? [[name, run.inherit[name]]] : []))),
    ...(run.inherit.notifyUser ? { notifyUser: (text: string) => run.inherit.notifyUser?.(`${label} ${text}`) } : {}),
    ...childApprovalPorts({ label, callId: run.callId, asker: run.asker, signal: run.signal, cwd: parent.cwd, hermesHome: parent.hermesHome, config, mode: parent.mode }),
    ...(role === "orchestrator" ? { delegate: run.nested(asChild, run.path) } : {}),
  };
  const watch = new ChildWatch(run.onProgress);
  const history: ChatMessage[] = [];
  const hint = keyHint(resolved);
  let result: TurnResult | undefined;
  try {
    result = await runTurn({
      provider,
      model: resolved.model,
      systemPrompt,
      tools,
      history,
      user: { role: "user", content: task.goal },
      maxTurns: limits.max_iterations,
      ...(config.model.max_tokens ? { maxTokens: config.model.max_tokens } : {}),
      ...(config.model.max_response_chars ? { maxResponseChars: config.model.max_response_chars } : {}),
      ...(reasoningEffort ? { reasoningEffort } : {}),
      providerLabel: resolved.provider,
      ...(hint ? { keyHint: hint } : {}),
      retry: { maxAttempts: config.agent.api_max_retries },
      ...(fallbacks ? { fallbacks } : {}),
      toolContext: {
        sessionId: id,
        cwd: parent.cwd,
        hermesHome: parent.hermesHome,
        config,
        ports,
        state,
        get sandbox() {
          return sandboxSettings(config, parent.mode() === "plan");
        },
      },
      signal: run.signal,
      emit: (event) => watch.event(event),
      onAppend: (message, outcome) => {
        record.append(message, outcome);
        watch.appended(message, outcome);
      },
      newMessageId: newId,
      toolGate: (tool) => (parent.mode() === "plan" ? planModeGate(tool, { sandboxed: config.sandbox.mode !== "off" }) : undefined),
    });
  } catch (error) {
    // runTurn never throws; a callback that did must not take the parent's turn down.
    log.warn(`delegated child ${run.path} failed: ${errorMessage(error)}`);
  } finally {
    await Promise.resolve(state.dispose()).catch(() => undefined);
    await record.finish(result?.usage);
  }
  const summary = lastAnswer(history);
  const stop = result?.stopReason;
  const interrupted = stop === "cancelled" || run.signal.aborted;
  const status = interrupted ? "interrupted" : summary ? "completed" : "failed";
  return {
    taskIndex: run.taskIndex,
    goal: task.goal,
    status,
    summary,
    ...(status === "failed" ? { error: watch.notice() ?? "Subagent did not produce a response." } : {}),
    exitReason: interrupted ? "interrupted" : !summary ? "error" : stop === "max_turn_requests" ? "max_iterations" : "completed",
    role,
    apiCalls: watch.apiCalls,
    durationSeconds: roundSeconds(performance.now() - started),
    model: resolved.model,
    filesChanged: [...watch.files],
    toolTrace: watch.trace,
    sessionId: id,
  };
}

/** The child's final answer: its last assistant message with text and no tool calls. */
function lastAnswer(history: readonly ChatMessage[]): string | null {
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index];
    if (message?.role !== "assistant") continue;
    if (message.tool_calls?.length) return null;
    const text = typeof message.content === "string" ? message.content.trim() : "";
    return text || null;
  }
  return null;
}

/** What the parent learns of a running child: progress lines, the tool trace, files changed, its last notice. */
class ChildWatch {
  readonly trace: Array<{ tool: string; ok: boolean }> = [];
  readonly files = new Set<string>();
  apiCalls = 0;
  private readonly texts = new Map<string, string>();
  private lastNotice: string | undefined;

  constructor(private readonly onProgress: (line: string) => void) {}

  event(event: AgentEvent): void {
    if (event.type === "tool_start") this.onProgress(event.title || event.name);
    else if (event.type === "tool_end") this.trace.push({ tool: event.name, ok: !event.isError });
    else if (event.type === "message_delta") this.texts.set(event.messageId, (this.texts.get(event.messageId) ?? "") + event.text);
    else if (event.type === "message_end") {
      const text = this.texts.get(event.messageId);
      this.texts.delete(event.messageId);
      if (text?.trim() && /^\s*Error: /.test(text)) this.lastNotice = text.trim();
    }
  }

  appended(message: ChatMessage, outcome: TypedToolOutcome | undefined): void {
    if (message.role === "assistant") this.apiCalls += 1;
    if (!outcome || outcome.isError) return;
    if (outcome.tool === "write_file" && outcome.details && "newText" in outcome.details && outcome.details.diff !== "") this.files.add(outcome.details.path);
    if (outcome.tool === "patch" && outcome.details && "files" in outcome.details) {
      for (const file of outcome.details.files) {
        this.files.add(file.path);
        if (file.fromPath) this.files.add(file.fromPath);
      }
    }
  }

  /** The last error notice the loop gave (a failed model call), for a child that gave no answer. */
  notice(): string | undefined {
    return this.lastNotice?.replace(/^\s*Error: /, "");
  }
}
