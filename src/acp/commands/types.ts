import type { CompressionReport } from "../../agent/compression.js";
import type { ChatMessage } from "../../llm/types.js";
import type { SessionCheckpoints } from "../../runtime/checkpoints/session-checkpoints.js";
import type { EditApprovalRequest } from "../../tools/ports.js";
import type { ResolvedToolset } from "../../tools/toolsets.js";
import type { ToolRegistry } from "../../tools/registry.js";

/**
 * What slash commands read or change of a session. `AgentSession` satisfies it; unit tests pass
 * a plain object.
 */
export interface CommandSession {
  readonly id: string;
  readonly cwd: string;
  readonly model: string;
  readonly providerId: string;
  readonly history: readonly ChatMessage[];
  readonly tools: ToolRegistry;
  /** What the session's toolsets left out and why (undefined when not resolved from toolsets). */
  readonly toolset?: Pick<ResolvedToolset, "unavailable" | "unknown"> | undefined;
  readonly currentTitle: string | null;
  /** What the session's model calls cost so far, USD (0 when unknown). */
  readonly costUsd: number;
  readonly approvals: { readonly mode: string };
  /** Filesystem checkpoints of the session's folder (`/rollback`); absent where the session keeps none. */
  readonly checkpoints?: SessionCheckpoints | undefined;
  /** Clears the conversation the model sees (same session id). Only called while the session is held. */
  resetHistory(): void;
  /** How full the model's window is for the next request. */
  contextUsage(): ContextUsage;
  /**
   * Compresses the conversation the model sees now, whatever the threshold. Rejects when the
   * summary call fails (nothing changes) or `signal` fires.
   */
  compress(signal: AbortSignal): Promise<CompressionReport>;
}

/** The context meter `/context` shows. */
export interface ContextUsage {
  /** Estimated tokens of the next request (system prompt, messages, tools). */
  tokens: number;
  /** The model's window in tokens. */
  window: number;
  /** Fraction of the window at which the conversation is compressed (0.5). */
  threshold: number;
  /** Automatic compression is on (`compression.enabled`). */
  enabled: boolean;
}

/** Everything a command may use; built per call by the prompt pipeline. */
export interface CommandContext {
  session: CommandSession;
  /** Every advertised command, in order (for /help). */
  commands: readonly SlashCommand[];
  /** A model turn is running right now (not cancelled): `/steer` reaches it. */
  turnActive: boolean;
  /** Prompts waiting to run after the current or next turn. */
  queueLength: number;
  /** Queues a text prompt for after the current (or next) turn; answers how many are queued. */
  enqueue(text: string): number;
  /** Hands guidance to the running turn; only meaningful when `turnActive`. */
  steer(text: string): void;
  /** Forgets the prompt of a cancelled turn (after /reset it belongs to nothing). */
  clearInterrupted(): void;
  /**
   * Switches the session's model from its next turn (`provider:model`, or a model on the current
   * provider); answers what it now uses. Rejects naming what was wrong, the session unchanged.
   */
  switchModel(value: string): Promise<{ model: string; provider: string }>;
  /**
   * Asks the user to allow the file changes shown (`session/request_permission` with the edit
   * options and one diff per file), whatever the session's edit mode. True only for an explicit
   * allow; a deny, a cancel or a failed request is false. Absent where nobody can be asked.
   */
  confirmEdits?(request: EditApprovalRequest): Promise<boolean>;
  /** Fires when the session is cancelled while the command runs. */
  signal: AbortSignal;
}

/**
 * What a command asks for: a reply shown as the agent's message (the turn then ends without the
 * model), or a prompt to run as if the user had sent `prompt` (the interrupt rewrite applies).
 */
export type CommandResult = { reply: string } | { prompt: string };

export interface SlashCommand {
  /** Without the slash, lower case. */
  name: string;
  /** Advertised in `available_commands_update`. */
  description: string;
  /** The line /help shows; defaults to `description`. */
  help?: string;
  /** Advertised input hint; a command without one takes no input. */
  hint?: string;
  /**
   * True when this call changes the session (history, model): it then runs only while holding
   * the session, never beside a running turn, and prompts arriving meanwhile are queued.
   */
  exclusive?(args: string): boolean;
  /** May throw; the dispatcher turns an error into the reply `Error executing /<name>: <message>`. */
  run(args: string, ctx: CommandContext): CommandResult | Promise<CommandResult>;
}

/** A known command named at the start of a prompt, with the rest of the text as its arguments. */
export interface SlashInvocation {
  command: SlashCommand;
  args: string;
}
