import type { ChatMessage } from "../llm/types.js";

/**
 * What tools need from outside the tools layer, implemented by the runtime (bound to the session
 * that owns the turn) and faked in tests. Every approval port fails closed: a missing port, a
 * rejected promise, a timeout or any answer but an explicit allow is a deny.
 */
export interface CommandApprovalRequest {
  /** The tool call asking; the editor shows the request on it. */
  callId: string;
  /** The exact command, as the model wrote it. */
  command: string;
  /** Stable key of the dangerous pattern that matched ("allow for session" remembers it). */
  patternKey: string;
  /** Human description of why the command is dangerous (or needs to leave the sandbox). */
  description: string;
  /**
   * Set when the command asks to run outside the sandbox: always asked, in every mode, never
   * answered by a standing allowance or `command_allowlist`, and an allow covers this run only.
   */
  escalation?: { reason: string; cwd: string };
  /**
   * Set when the smart-approval guardian advised against the command: its reason. The user is
   * still asked, with "allow once" and "deny" only (nothing is remembered).
   */
  guardianDenied?: string;
  /** Set when only the user may answer (never the smart-approval guardian): a whole script about to run outside any sandbox. */
  userOnly?: boolean;
}

export interface FileEdit {
  /** Absolute path of the file the edit changes (for a move: the destination). */
  path: string;
  /** Current content; null when the file does not exist yet. */
  oldText: string | null;
  /** New content; null when the edit deletes the file. */
  newText: string | null;
  /** For a move: the absolute source path. */
  fromPath?: string;
}

/** What a `write_file` / `patch` call is about to change, for a checkpoint taken before it writes. */
export interface CheckpointRequest {
  toolName: string;
  /** Absolute paths the call writes, deletes or moves (sources included). */
  paths: string[];
}

/** One approval for everything a single tool call will change, asked before anything is written. */
export interface EditApprovalRequest {
  callId: string;
  toolName: string;
  edits: FileEdit[];
  /** Who asks when it is not the session's own model (a delegated child: `[child 2: <goal>]`); shown before the title. */
  label?: string;
}

/** A message role as stored (the OpenAI chat roles). */
export type SessionSearchRole = "system" | "user" | "assistant" | "tool";

/** One stored message as `session_search` shows it. Times are epoch milliseconds. */
export interface SessionSearchMessage {
  /** Database id; ascending ids are conversation order, and any id can anchor a scroll. */
  id: number;
  role: SessionSearchRole;
  /** The message's text; null for an assistant message that only calls tools. */
  content: string | null;
  timestamp: number;
  /** Tool messages: the tool that produced the result. */
  toolName?: string;
  /** Tool messages: the call they answer. */
  toolCallId?: string;
  /** Assistant messages: the tools called, arguments as the model wrote them. */
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
}

/** A stored session as `session_search` lists it. */
export interface SessionSearchSession {
  id: string;
  title: string | null;
  /** The session's first user message on one line, cut to about 120 characters ("" when none). */
  preview: string;
  /**
   * Which front end wrote it: `acp`, `cli`, and for sessions of Python Hermes' own history
   * `telegram`, `discord`, `cron`… as Hermes labels them.
   */
  source: string;
  cwd: string | null;
  model: string | null;
  startedAt: number;
  lastActiveAt: number;
  messageCount: number;
  /**
   * Search and browse results: the first session of the conversation this one belongs to (it was
   * forked, branched or continued from it); absent when the session is its own root.
   */
  lineageRootId?: string;
}

/** A message beside a search match, cut short (about 300 characters). */
export interface SessionSearchContextMessage {
  id: number;
  role: SessionSearchRole;
  /** The message's text, or its tool calls as `[name(args)]` for a call-only assistant message. */
  text: string;
  toolName?: string;
  /** True for the matching message itself. */
  isMatch: boolean;
}

/** The best match of one session. */
export interface SessionSearchHit {
  session: SessionSearchSession;
  /** The matching message: anchor for a scroll. */
  messageId: number;
  role: SessionSearchRole;
  /** When the matching message was written. */
  timestamp: number;
  /** The matching text, each match between `>>>` and `<<<`. */
  snippet: string;
  /** A few messages each side of the match and the match, in order. */
  context: SessionSearchContextMessage[];
}

export interface SessionSearchQuery {
  /** Full-text query (FTS5 syntax allowed; anything else is quoted, never an error). */
  query: string;
  /** Sessions wanted, 1–10. */
  limit: number;
  /** Roles searched; default user and assistant. */
  roleFilter?: SessionSearchRole[];
  /** `relevance` (best first, default) or `recent` (newest match first). */
  sort?: "relevance" | "recent";
}

/** A session for reading: whole, or its first and last messages with a count of those skipped. */
export interface SessionSearchTranscript {
  session: SessionSearchSession;
  messages: SessionSearchMessage[];
  /** Messages the session holds. */
  total: number;
  /** Messages left out between head and tail (0 when complete). */
  skipped: number;
  /** When messages were skipped: the id of the last message before the gap. */
  gapAfterId?: number;
}

/**
 * Stored sessions, as `session_search` needs them. Implemented by the runtime over state.db (and
 * Python Hermes' history beside it), bound to the session that owns the turn: `search` and
 * `recent` never return that session (its live messages are already in context) and return one
 * result per conversation (a session and its forks or continuations); `around` and `read` reach
 * any stored session. Methods reject only when the database fails; the tool turns that into an
 * `isError` result.
 */
export interface SessionSearchPort {
  /** One hit per conversation (lineage), best first (or newest match first), at most `limit`. */
  search(query: SessionSearchQuery): Promise<SessionSearchHit[]>;
  /**
   * Up to `window` (1–20) messages each side of `messageId`, and the message itself, in order.
   * Undefined when the session is not stored; `messages` empty when it does not hold that message.
   */
  around(sessionId: string, messageId: number, window: number): Promise<{ session: SessionSearchSession; messages: SessionSearchMessage[] } | undefined>;
  /** The session for reading; undefined when not stored. */
  read(sessionId: string): Promise<SessionSearchTranscript | undefined>;
  /** The most recently active sessions, newest first, at most `limit`. */
  recent(limit: number): Promise<SessionSearchSession[]>;
}

/** One command for the editor's own terminal (ACP `terminal/create`). */
export interface ClientTerminalRequest {
  /** Program to run (for the terminal tool: `bash`). */
  command: string;
  args: string[];
  /** Absolute directory the command starts in. */
  cwd: string;
  /** Variables added to the editor's environment for the command. */
  env?: Record<string, string>;
  /** Output the editor keeps (it drops the beginning past this). */
  outputByteLimit?: number;
  /** Kill the command after this many milliseconds. */
  timeoutMs: number;
  /** Called once the terminal exists, before waiting, so the tool call can embed it. */
  onStarted?: (terminalId: string) => void;
}

/** How a client terminal command ended. */
export interface ClientTerminalOutcome {
  terminalId: string;
  /** What the editor kept of the output, as it gave it (not cleaned or capped). */
  output: string;
  /** True when the editor dropped the beginning of the output. */
  truncated: boolean;
  /** Exit code; 128 + signal number when a signal ended it; -1 when unknown. */
  exitCode: number;
  /** The signal that ended the command, when the editor says. */
  signal?: string;
  timedOut: boolean;
  /** True when `signal` (the turn's cancellation) stopped it. */
  interrupted: boolean;
}

export interface ToolPorts {
  /**
   * Runs a command in the editor's terminal (present only when the editor offers terminals):
   * creates it, reports its id, waits for the exit (killing it on `signal` or the timeout),
   * collects the output and releases it. Rejects only when the terminal could not be created or
   * the editor failed before the command was known to have started.
   */
  runInClientTerminal?: (request: ClientTerminalRequest, signal: AbortSignal) => Promise<ClientTerminalOutcome>;
  /** Reads a text file. The runtime may route this through the editor's buffers. */
  readTextFile?: (path: string) => Promise<string>;
  /** Writes a text file. The runtime may route this through the editor so its buffers stay in sync. */
  writeTextFile?: (path: string, content: string) => Promise<void>;
  /** True only when the user (or a standing allowance) allowed this dangerous command. */
  approveCommand?: (request: CommandApprovalRequest) => Promise<boolean>;
  /** True only when the edit may be written (user approval or the session's edit mode). */
  approveEdit?: (request: EditApprovalRequest) => Promise<boolean>;
  /**
   * Tells the user something they must know about the session (shown as an agent message, e.g.
   * "commands run without a sandbox"). Must not throw; without it the note reaches the model only.
   */
  notifyUser?: (text: string) => void;
  /** Past sessions for `session_search`; without it the tool reports search as unavailable. */
  sessionSearch?: SessionSearchPort;
  /** Side requests to a model (page summaries, questions about an image); absent in sessions without a model. */
  auxiliaryModel?: AuxiliaryModelPort;
  /**
   * The session's tools, callable from inside a running tool call (`execute_code` scripts). Bound
   * by the agent to the outer call; absent inside such inner calls (no recursion) and where no
   * agent runs the tool.
   */
  innerTools?: InnerToolsPort;
  /**
   * Asks the user questions in the editor (ACP form elicitation); present only when the editor
   * offers it. Resolves "declined" for a decline, a cancel or any failure of the editor; rejects
   * only with an AbortError when `signal` fires (the turn's cancel or the caller's timeout).
   */
  askUser?: (request: ClarifyRequest, signal: AbortSignal) => Promise<ClarifyReply>;
  /** Runs `delegate_task` children (subagents); absent where no session can spawn them. */
  delegate?: DelegatePort;
  /**
   * Snapshots the workspace before an approved edit is written (`checkpoints.enabled`; absent
   * otherwise). Called after approval, before the first write. Never rejects: whatever fails, the
   * edit goes on (the runtime tells the user once). `signal` is the call's; a cancel ends it early.
   */
  checkpoint?: (request: CheckpointRequest, signal: AbortSignal) => Promise<void>;
}

/** One question as the editor shows it. `choices` carry the display labels (the first marked "(Recommended)"). */
export interface ClarifyQuestion {
  /** Stable id on the wire (`q0`…). */
  qid: string;
  question: string;
  choices?: string[];
  /** Several choices may be picked. Only with choices. */
  multiSelect: boolean;
}

export interface ClarifyRequest {
  /** The tool call asking; the editor shows the form on it. */
  callId: string;
  questions: ClarifyQuestion[];
}

/** What the user answered, per question id (a label as shown, free text, or a list for multi-select). */
export type ClarifyReply = { outcome: "answered"; answers: Record<string, string | string[]> } | { outcome: "declined" };

/** The side tasks a tool may give a model; each may name its own model in `auxiliary.<task>`. */
export type AuxiliaryTask = "web_extract" | "vision" | "compression" | "title" | "approval";

/**
 * One request to the model for `task`, without tools: `auxiliary.<task>` in config.yaml when it
 * names a model, else the session's current model.
 */
export interface AuxiliaryModelPort {
  /**
   * Sends `messages` and resolves with the answer's text (reasoning and `<think>` blocks left
   * out). Rejects with HermesError `provider_error` naming the provider, HermesError
   * `auth_required` / `config_invalid` when `auxiliary.<task>` cannot be resolved, or an
   * AbortError when `signal` fires. No retries.
   */
  complete(task: AuxiliaryTask, messages: ChatMessage[], options: { signal: AbortSignal; maxTokens: number }): Promise<string>;
  /** Provider and model `task` would use now, for titles and messages (never a key). Never throws. */
  describe(task: AuxiliaryTask): { provider: string; model: string; configured: boolean } | undefined;
}

/** What an inner tool call gave back: the text the tool gave, with the agent's secrets masked. */
export interface InnerToolResult {
  content: string;
  isError: boolean;
}

/**
 * Calls the session's tools on behalf of the tool call that owns the port, with the same checks as
 * a direct call: the session mode's gate (plan mode), argument validation, the tool's own approvals
 * (asked on the outer call) and sandbox. Inner calls are not model tool calls: nothing is added to
 * the history and no tool events are emitted; the owner reports them as its own progress.
 */
export interface InnerToolsPort {
  /** The session's tool names, in the order the model sees them. */
  names(): string[];
  /**
   * Runs one call. Never rejects: an unknown tool, a refusal, invalid arguments and a tool's
   * exception are results with `isError`. `signal` cancels it (the owner passes one that fires with
   * the turn's cancellation and when the owner stops). The owning tool itself cannot be called.
   */
  invoke(name: string, args: unknown, signal: AbortSignal): Promise<InnerToolResult>;
}

/** Asks a port and fails closed: no port, a throw, or anything but `true` is a deny. */
export async function askPort<R>(port: ((request: R) => Promise<boolean>) | undefined, request: R): Promise<boolean> {
  if (!port) return false;
  try {
    return (await port(request)) === true;
  } catch {
    return false;
  }
}

/** One child task as `delegate_task` hands it over (validated, defaults applied). */
export interface DelegateTaskSpec {
  goal: string;
  context?: string;
  /** Toolsets asked for; intersected with the parent's tools, the blocked ones stripped. Absent: the parent's. */
  toolsets?: string[];
  role: "leaf" | "orchestrator";
  /** Run the child as an external ACP agent: a name from `delegation.acp_agents`, or a command line. */
  acp?: { agent: string } | { command: string; args: string[] };
}

export type DelegateChildStatus = "completed" | "failed" | "interrupted" | "error";

/** What one child reported back. Its summary is the child's own account: a self-report, not a verified fact. */
export interface DelegateChildResult {
  taskIndex: number;
  goal: string;
  status: DelegateChildStatus;
  /** The child's final answer; null when it gave none. */
  summary: string | null;
  error?: string;
  /** `completed`, `max_iterations`, `interrupted` or `error`. */
  exitReason: "completed" | "max_iterations" | "interrupted" | "error";
  /** The role it ran with (an orchestrator past the depth limit runs as a leaf). */
  role: "leaf" | "orchestrator";
  apiCalls: number;
  durationSeconds: number;
  model?: string;
  /** The external agent, for an ACP child (its `acp_agents` name or command). */
  agent?: string;
  /** Absolute paths the child wrote, patched, deleted or moved (an ACP child: the diffs it reported). */
  filesChanged: string[];
  /** The tools it called, in order, with whether each failed. */
  toolTrace: Array<{ tool: string; ok: boolean }>;
  /** Its stored session (source `subagent`, parent: the session that delegated). */
  sessionId?: string;
}

/** A background delegation as a status query sees it. Times are epoch milliseconds. */
export interface DelegationRecord {
  delegationId: string;
  goal: string;
  status: "running" | DelegateChildStatus;
  dispatchedAt: number;
  completedAt?: number;
  result?: DelegateChildResult;
}

export interface DelegateRunOptions {
  /** The delegate_task call: children's approval requests are shown on it. */
  callId: string;
  /** Fires with the parent's cancel: every child stops (an ACP child gets `session/cancel`, then its process ends). */
  signal: AbortSignal;
  /** The parent turn's ports: children read and write through the same editor buffers and notify the same user. */
  inherit: ToolPorts;
  /** One line per thing a child does (`read: src/a.ts`), as it happens. Must not throw. */
  onProgress?: (taskIndex: number, line: string) => void;
}

/**
 * Runs delegated children for the session that owns the turn (the runtime implements it; see
 * src/runtime/delegation/). Children's approvals go to that session's user, labelled with the
 * child's goal; their dangerous commands are denied unless `delegation.subagent_auto_approve`.
 */
export interface DelegatePort {
  /** How deep the asking session is: 0 for a session the user started, 1 for its children, … */
  readonly depth: number;
  /** Runs the tasks concurrently; one result per task, in task order. Never rejects; a cancel makes the unfinished ones `interrupted`. */
  run(tasks: DelegateTaskSpec[], options: DelegateRunOptions): Promise<DelegateChildResult[]>;
  /**
   * Starts one task in the background and answers at once. Its result reaches the parent with
   * the user's next message (or a status query). Refused (an error text) at capacity.
   */
  dispatch(task: DelegateTaskSpec, options: Omit<DelegateRunOptions, "signal" | "onProgress">): { delegationId: string } | { error: string };
  /** A background delegation of this session; answering its result here means it is not delivered again. */
  status(delegationId: string): DelegationRecord | undefined;
}
