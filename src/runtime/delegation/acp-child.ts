/**
 * A delegated child that is an external ACP agent (codex-acp, claude-code-acp, another hermes),
 * driven with the ACP SDK's client side. Loaded on first use (the SDK is not part of start-up
 * for sessions that never run such a child).
 *
 * The child is asked nothing but `initialize` (advertising NO fs or terminal capabilities: it
 * reads, writes and runs commands with its own tools, under its own sandboxing — its business,
 * not this agent's, which is why starting it is a decision the user made in
 * `delegation.acp_agents` or allowed when asked), `session/new` in the parent's cwd, and one
 * `session/prompt` with the child task text. Its permission requests go to the parent's user
 * like a native child's (see childApprovalPorts): an edit with diffs as an edit approval, anything
 * else as a one-off "outside the sandbox" approval. Its tool calls are progress lines; its last
 * agent message is its summary. A cancel sends `session/cancel` and waits a little for the turn
 * to end; in every case its process group and every process it started (in its group or not) are
 * stopped at the end (SIGTERM, then SIGKILL).
 */
import { Readable, Writable } from "node:stream";
import {
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type PermissionOption,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionUpdate,
  type ToolCallContent,
} from "@agentclientprotocol/sdk/unstable";
import { errorMessage } from "../../shared/errors.js";
import { log } from "../../shared/logger.js";
import { VERSION } from "../../shared/version.js";
import type { DelegateChildResult, ToolPorts } from "../../tools/ports.js";
import { spawnGroup, terminateGroup, terminateTree } from "../../tools/process/process-group.js";
import { roundSeconds } from "../../tools/delegate/results.js";
import type { ChildRun } from "./types.js";

/** How long a cancelled child gets to end its turn before its process is stopped anyway. */
const CANCEL_GRACE_MS = 3000;
/** SIGTERM → SIGKILL grace for the child's process group. */
const TERMINATE_GRACE_MS = 2000;
/** stderr kept for error messages. */
const STDERR_TAIL = 2000;

export interface AcpAgentSpec {
  /** What the user and the model call it: the `acp_agents` name, or the command. */
  name: string;
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
}

export interface AcpChildInput {
  run: ChildRun;
  agent: AcpAgentSpec;
  /** The one prompt it gets (the child task text: goal, context, workspace). */
  prompt: string;
  approvals: Required<Pick<ToolPorts, "approveCommand" | "approveEdit">>;
  /** Told the prompt and the answer, for the child's stored session. */
  onExchange?: (prompt: string, answer: string | null) => void;
}

/** Runs the external agent to the end of its one turn. Never rejects. */
export async function runAcpChild(input: AcpChildInput): Promise<DelegateChildResult> {
  const started = performance.now();
  const { run, agent } = input;
  const watch = new AcpWatch(run.onProgress);
  let stopReason: string | undefined;
  let failure: string | undefined;
  let stderr = "";
  const child = spawnGroup({ file: agent.command, args: [...agent.args], cwd: run.parent.cwd, env: agent.env, stdin: "pipe" });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
  });
  child.stdin?.on("error", () => undefined);
  const exited = new Promise<string>((resolve) => {
    child.once("error", (error) => resolve(`could not start ${agent.command}: ${error.message}`));
    child.once("exit", (code, signal) => resolve(`${agent.name} exited (${signal ?? `code ${code}`})`));
  });
  let sessionId: string | undefined;
  // Only the child's own session may ask or report: anything else (before session/new answered,
  // or naming another session) is refused without asking the user, and ignored.
  const ours = (id: string): boolean => sessionId !== undefined && id === sessionId;
  const app = client({ name: "hermes-acp" })
    .onRequest(methods.client.session.requestPermission, ({ params }) => (ours(params.sessionId) ? forwardPermission(params, input) : refusedPermission(params, agent.name)))
    .onNotification(methods.client.session.update, ({ params }) => {
      if (ours(params.sessionId)) watch.update(params.update);
    });
  const connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  void exited.then(() => connection.close());
  const onAbort = (): void => {
    if (sessionId) void connection.agent.notify(methods.agent.session.cancel, { sessionId }).catch(() => undefined);
  };
  run.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const early = { cancellationSignal: run.signal, stopWaitingOnCancel: true };
    await connection.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {}, clientInfo: { name: "hermes-acp", version: VERSION } }, early);
    ({ sessionId } = await connection.agent.request(methods.agent.session.new, { cwd: run.parent.cwd, mcpServers: [] }, early));
    if (run.signal.aborted) onAbort();
    const prompt = connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: input.prompt }] });
    const response = await untilCancelGrace(prompt, run.signal);
    stopReason = response?.stopReason ?? "cancelled";
  } catch (error) {
    failure = run.signal.aborted ? undefined : await describeFailure(error, exited, stderr);
  } finally {
    run.signal.removeEventListener("abort", onAbort);
    connection.close();
    child.stdin?.end();
    // An agent starts its commands in groups of their own: they are stopped with it (looked up
    // only while its pid is still its own, i.e. before its exit was seen).
    if (child.pid !== undefined) await (child.exitCode === null && child.signalCode === null ? terminateTree : terminateGroup)(child.pid, TERMINATE_GRACE_MS);
  }
  const summary = watch.summary();
  input.onExchange?.(input.prompt, summary);
  const interrupted = run.signal.aborted || stopReason === "cancelled";
  const status = interrupted ? "interrupted" : summary && !failure ? "completed" : "failed";
  return {
    taskIndex: run.taskIndex,
    goal: run.task.goal,
    status,
    summary,
    ...(status === "failed" ? { error: failure ?? `${agent.name} ended its turn (${stopReason ?? "no stop reason"}) without a response.` } : {}),
    exitReason: interrupted ? "interrupted" : status === "failed" ? "error" : stopReason === "max_turn_requests" ? "max_iterations" : "completed",
    role: "leaf",
    apiCalls: 1,
    durationSeconds: roundSeconds(performance.now() - started),
    agent: agent.name,
    filesChanged: watch.files(),
    toolTrace: watch.trace,
  };
}

/** The prompt's response; after a cancel, at most CANCEL_GRACE_MS more, then undefined. Rejects like the request. */
async function untilCancelGrace<T>(request: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const grace = new Promise<undefined>((resolve) => {
    onAbort = () => {
      timer = setTimeout(() => resolve(undefined), CANCEL_GRACE_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([request, grace]);
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

async function describeFailure(error: unknown, exited: Promise<string>, stderr: string): Promise<string> {
  const gone = await Promise.race([exited, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 200))]);
  const tail = stderr.trim().split("\n").slice(-5).join("\n");
  return [gone ?? errorMessage(error), tail ? `stderr: ${tail}` : ""].filter(Boolean).join("\n");
}

/**
 * The child's permission request, asked of the parent's user. Fails closed: a denial, a
 * cancelled child or an allow without an `allow_once` option answers a reject option (or
 * `cancelled` when there is none).
 */
async function forwardPermission(params: RequestPermissionRequest, input: AcpChildInput): Promise<RequestPermissionResponse> {
  const { run, agent, approvals } = input;
  const call = params.toolCall;
  const diffs = (call.content ?? []).flatMap((content) => (content.type === "diff" ? [content] : []));
  const title = call.title ?? call.kind ?? "an action";
  let allowed = false;
  try {
    if (diffs.length > 0) {
      allowed = await approvals.approveEdit({ callId: run.callId, toolName: agent.name, edits: diffs.map((diff) => ({ path: diff.path, oldText: diff.oldText ?? null, newText: diff.newText })) });
    } else {
      allowed = await approvals.approveCommand({
        callId: run.callId,
        command: commandOf(call.rawInput) ?? title,
        patternKey: "acp_agent",
        description: `${agent.name} (an external ACP agent) asks: ${title}`,
        escalation: { reason: `${agent.name} runs outside this agent's sandbox, with its own tools and your permissions`, cwd: run.parent.cwd },
      });
    }
  } catch (error) {
    log.warn(`permission request of ACP child ${agent.name} failed; denying`, error);
  }
  const option = pickOption(params.options, allowed);
  return option ? { outcome: { outcome: "selected", optionId: option.optionId } } : { outcome: { outcome: "cancelled" } };
}

/** The answer to a permission request that is not the child's own session's: rejected, never asked. */
function refusedPermission(params: RequestPermissionRequest, agentName: string): RequestPermissionResponse {
  log.warn(`ACP child ${agentName} asked permission for session ${params.sessionId}, which is not its own; rejected without asking`);
  const option = pickOption(params.options, false);
  return option ? { outcome: { outcome: "selected", optionId: option.optionId } } : { outcome: { outcome: "cancelled" } };
}

function pickOption(options: readonly PermissionOption[], allowed: boolean): PermissionOption | undefined {
  const kinds = allowed ? ["allow_once"] : ["reject_once", "reject_always"];
  for (const kind of kinds) {
    const option = options.find((candidate) => candidate.kind === kind);
    if (option) return option;
  }
  return undefined;
}

function commandOf(rawInput: unknown): string | undefined {
  if (typeof rawInput !== "object" || rawInput === null) return undefined;
  const command = (rawInput as { command?: unknown }).command;
  if (typeof command === "string") return command;
  if (Array.isArray(command) && command.every((part) => typeof part === "string")) return command.join(" ");
  return undefined;
}

/** Characters of one agent message kept (the start; a longer one is cut with a note). */
export const MAX_MESSAGE_CHARS = 100_000;
/** Agent messages kept (the latest). */
const MAX_MESSAGES = 50;
/** Tool calls followed, and files noted as changed; later ones are not tracked. */
const MAX_TRACKED = 1000;
/** Characters of a tool call's title kept for progress lines and the trace. */
const MAX_TITLE_CHARS = 200;

/**
 * What the parent learns from the child's `session/update`s. Bounded whatever the child sends:
 * at most `MAX_MESSAGES` messages of `MAX_MESSAGE_CHARS` each, `MAX_TRACKED` calls and files.
 */
class AcpWatch {
  readonly trace: Array<{ tool: string; ok: boolean }> = [];
  private readonly calls = new Map<string, { title: string; kind: string; paths: Set<string>; done: boolean }>();
  private readonly changed = new Set<string>();
  /** Agent message text, one segment per message (a tool call starts the next one). */
  private readonly segments: Array<{ text: string; cut: boolean }> = [];
  private open = false;
  private messageId: string | undefined;

  constructor(private readonly onProgress: (line: string) => void) {}

  update(update: SessionUpdate): void {
    switch (update.sessionUpdate) {
      case "agent_message_chunk": {
        if (update.content.type !== "text") return;
        const id = update.messageId ?? undefined;
        if (!this.open || (id !== undefined && id !== this.messageId)) {
          this.segments.push({ text: "", cut: false });
          if (this.segments.length > MAX_MESSAGES) this.segments.shift();
        }
        this.open = true;
        this.messageId = id;
        const segment = this.segments[this.segments.length - 1]!;
        const room = MAX_MESSAGE_CHARS - segment.text.length;
        if (update.content.text.length > room) segment.cut = true;
        if (room > 0) segment.text += update.content.text.slice(0, room);
        return;
      }
      case "tool_call": {
        this.open = false;
        if (this.calls.size >= MAX_TRACKED) return;
        const title = clip(update.title);
        const entry = { title, kind: update.kind ?? "other", paths: new Set<string>(), done: false };
        this.calls.set(update.toolCallId, entry);
        this.onProgress(title);
        this.note(entry, update.content, update.status ?? undefined);
        return;
      }
      case "tool_call_update": {
        const entry = this.calls.get(update.toolCallId);
        if (!entry) return;
        if (update.title) entry.title = clip(update.title);
        if (update.kind) entry.kind = update.kind;
        this.note(entry, update.content ?? undefined, update.status ?? undefined);
        return;
      }
      default:
        return;
    }
  }

  private note(entry: { title: string; kind: string; paths: Set<string>; done: boolean }, content: ToolCallContent[] | undefined, status: string | undefined): void {
    for (const item of content ?? []) if (item.type === "diff" && entry.paths.size < MAX_TRACKED) entry.paths.add(item.path);
    if (entry.done || (status !== "completed" && status !== "failed")) return;
    entry.done = true;
    this.trace.push({ tool: entry.title, ok: status === "completed" });
    if (status === "completed") for (const path of entry.paths) if (this.changed.size < MAX_TRACKED) this.changed.add(path);
  }

  files(): string[] {
    return [...this.changed];
  }

  /** The last non-empty agent message, or null. Warnings after the answer (`⚠ …`, as hermes-acp sends them) are skipped. */
  summary(): string | null {
    const texts = this.segments
      .map((segment) => ({ text: segment.text.trim(), cut: segment.cut }))
      .filter((segment) => segment.text)
      .map((segment) => (segment.cut ? `${segment.text}\n[… cut: the agent's message was longer than ${MAX_MESSAGE_CHARS} characters]` : segment.text));
    const answers = texts.filter((text) => !text.startsWith("⚠"));
    return answers.at(-1) ?? texts.at(-1) ?? null;
  }
}

function clip(title: string): string {
  const line = title.replace(/\s+/g, " ").trim();
  return line.length > MAX_TITLE_CHARS ? `${line.slice(0, MAX_TITLE_CHARS - 1)}…` : line;
}
