/**
 * Hermes' self-improvement review: after some turns, a copy of the conversation is shown to the
 * session's own model with a review prompt and only the memory and skill tools, and whatever it
 * saves lands in MEMORY.md / USER.md / the skill library. The review never writes into the
 * session's history or state.db, never asks the user anything, and never delays a turn: it starts
 * after the turn has answered and a new turn (or closing the session) cancels it.
 *
 * Cadence (Hermes' `agent_init` / `turn_finalizer`): a memory review every
 * `memory.nudge_interval` user turns (default 10) and a skill review after
 * `skills.creation_nudge_interval` tool-calling iterations (default 15); the model using
 * `memory` / `skill_manage` itself resets its counter. Only after a turn that answered (not
 * cancelled, not failed), only when the session has the tools, and never when
 * `auxiliary.background_review.enabled` is false or `HERMES_BACKGROUND_REVIEW=off`.
 */
import { runTurn } from "../agent/loop.js";
import type { ToolGate } from "../agent/tool-runner.js";
import type { HermesConfig } from "../config/schema.js";
import type { ChatMessage, Provider, TokenUsage } from "../llm/types.js";
import { errorMessage } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { log } from "../shared/logger.js";
import type { ToolRegistry } from "../tools/registry.js";
import { ToolSessionState } from "../tools/session-state.js";
import type { ToolContext } from "../tools/types.js";
import { REVIEW_PROMPTS } from "./background-review-prompts.js";
import { nextTurn } from "../shared/next-turn.js";

/** The tools a review may run (Hermes' dispatch whitelist); the model still sees the session's whole tool list, so its prompt cache holds. */
export const REVIEW_TOOLS: ReadonlySet<string> = new Set(["memory", "skills_list", "skill_view", "skill_manage"]);
/** Tool-calling iterations one review may take (Hermes' `_REVIEW_MAX_ITERATIONS`). */
export const REVIEW_MAX_ITERATIONS = 16;

export interface ReviewSettings {
  /** User turns between memory reviews; 0 = never. */
  memoryInterval: number;
  /** Tool-calling iterations between skill reviews; 0 = never. */
  skillInterval: number;
}

export interface ReviewKinds {
  memory: boolean;
  skills: boolean;
}

/**
 * The review settings of `config`, or undefined when reviews are off (`auxiliary.background_review.enabled:
 * false`, both intervals 0, or `HERMES_BACKGROUND_REVIEW` = `off` / `0` / `false` in `env`). Never throws.
 */
export function reviewSettings(config: HermesConfig, env: NodeJS.ProcessEnv): ReviewSettings | undefined {
  if (/^(off|0|false|no)$/i.test(env.HERMES_BACKGROUND_REVIEW?.trim() ?? "")) return undefined;
  if (!config.auxiliary.background_review.enabled) return undefined;
  const skillInterval = config.skills.creation_nudge_interval;
  const memoryInterval = config.memory.nudge_interval;
  if (memoryInterval === 0 && skillInterval === 0) return undefined;
  return { memoryInterval, skillInterval };
}

/** What one finished turn did, as the cadence counts it. */
export interface TurnSummary {
  /** The tool names each tool-calling model response of the turn asked for, in order. */
  iterations: readonly (readonly string[])[];
  /** True when the turn ended with an answer (not cancelled, not failed). */
  answered: boolean;
  /** Whether the session has the tools each review needs. */
  available: ReviewKinds;
}

/**
 * What the messages a turn added say for the cadence: the tools each tool-calling response asked
 * for, whether it ended with an answer (stop reason `end_turn`, a text-only last message), and
 * which reviews the session's tools (`toolNames`) can serve. Pure.
 */
export function turnSummary(added: readonly ChatMessage[], stopReason: string, toolNames: Iterable<string>): TurnSummary {
  const iterations = added.flatMap((message) => (message.role === "assistant" && message.tool_calls?.length ? [message.tool_calls.map((call) => call.function.name)] : []));
  const last = added.at(-1);
  const answered = stopReason === "end_turn" && last?.role === "assistant" && typeof last.content === "string" && last.content.trim() !== "" && !last.tool_calls?.length;
  const names = new Set(toolNames);
  return { iterations, answered, available: { memory: names.has("memory"), skills: names.has("skill_manage") } };
}

/** The per-session counters that decide when a review is due. Pure state, no I/O. */
export class ReviewCadence {
  private turnsSinceMemory = 0;
  private itersSinceSkill = 0;

  constructor(private readonly settings: ReviewSettings) {}

  /** Counts one turn; returns the reviews now due (their counters reset), or undefined. */
  afterTurn(turn: TurnSummary): ReviewKinds | undefined {
    this.turnsSinceMemory += 1;
    for (const names of turn.iterations) {
      this.itersSinceSkill += 1;
      if (names.includes("memory")) this.turnsSinceMemory = 0;
      if (names.includes("skill_manage")) this.itersSinceSkill = 0;
    }
    if (!turn.answered) return undefined;
    const { memoryInterval, skillInterval } = this.settings;
    const memory = turn.available.memory && memoryInterval > 0 && this.turnsSinceMemory >= memoryInterval;
    const skills = turn.available.skills && skillInterval > 0 && this.itersSinceSkill >= skillInterval;
    if (memory) this.turnsSinceMemory = 0;
    if (skills) this.itersSinceSkill = 0;
    return memory || skills ? { memory, skills } : undefined;
  }
}

/** Everything a review needs from its session, captured when the turn ended. */
export interface ReviewInput {
  kinds: ReviewKinds;
  provider: Provider;
  model: string;
  providerLabel: string;
  /** The session's system prompt, byte for byte (the provider's prompt cache). */
  systemPrompt: string;
  /** The session's tools (their schemas are sent unchanged; only REVIEW_TOOLS run). */
  tools: ToolRegistry;
  /** What the model was last sent of the conversation, ending with its answer. Copied. */
  conversation: readonly ChatMessage[];
  /** Tool context of the session; the review gets its own tool state and no approval ports. */
  toolContext: Pick<ToolContext, "sessionId" | "cwd" | "hermesHome" | "config" | "sandbox">;
  /** The session's own gate as it stands when each call runs (Plan mode), applied to the review's tools too. */
  sessionGate?: ToolGate;
  maxTokens?: number;
  /** Told the review's token usage once it ends (added to the session's totals). Must not throw. */
  onUsage?: (usage: TokenUsage) => void;
}

/**
 * Runs at most one review at a time for a session. `schedule` starts one on the next event-loop
 * turn (after the turn's answer has gone out); `cancel` stops a scheduled or running one at once
 * (a tool call already under way still finishes, and what it saved is still told); `close` does
 * too and refuses every later `schedule`. What a review saved is kept as one line for
 * `takeNotice`. Never throws; failures are logged.
 */
export class BackgroundReviewer {
  private timer: NodeJS.Immediate | undefined;
  private run: { controller: AbortController; actions: string[]; done: Promise<void> } | undefined;
  /** Cancelled runs whose last tool call has not returned yet. */
  private readonly draining = new Set<Promise<void>>();
  private readonly saved: string[] = [];
  private closed = false;

  /** Starts a review soon, unless one is already running (Hermes skips it then) or the session has closed. */
  schedule(input: ReviewInput): void {
    if (this.closed || this.run || this.timer) return;
    // the conversation as it is now: the session's history may change before the review starts (/reset)
    const copy = { ...input, conversation: [...input.conversation] };
    this.timer = setImmediate(() => {
      this.timer = undefined;
      this.start(copy);
    });
  }

  /** Stops a scheduled or running review; what it already saved is kept for the notice. */
  cancel(reason: string): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = undefined;
    const run = this.run;
    if (!run) return;
    this.run = undefined;
    this.keep(run.actions);
    this.draining.add(run.done);
    void run.done.finally(() => this.draining.delete(run.done));
    if (!run.controller.signal.aborted) {
      log.info(`background review cancelled: ${reason}`);
      run.controller.abort();
    }
  }

  /** For a session that closed: cancels what runs and never starts another review. */
  close(): void {
    this.closed = true;
    this.cancel("the session closed");
  }

  /** One line naming what reviews saved since the last call, or undefined. */
  takeNotice(): string | undefined {
    if (this.saved.length === 0) return undefined;
    const line = `💾 Background review: ${[...new Set(this.saved.splice(0))].join(" · ")}`;
    return line;
  }

  /** Resolves when no review is scheduled, running or finishing a cancelled tool call (for tests and shutdown). Never rejects. */
  async idle(): Promise<void> {
    while (this.timer || this.run || this.draining.size > 0) {
      if (this.run) await this.run.done;
      else if (this.draining.size > 0) await Promise.all(this.draining);
      else await nextTurn();
    }
  }

  private start(input: ReviewInput): void {
    const controller = new AbortController();
    const actions: string[] = [];
    const run = { controller, actions, done: Promise.resolve() };
    run.done = this.execute(input, controller.signal, actions).finally(() => {
      if (this.run === run) this.run = undefined;
      // also after a cancel: a tool call that was under way may have saved something since
      this.keep(actions);
    });
    this.run = run;
  }

  private keep(actions: string[]): void {
    this.saved.push(...actions.splice(0));
  }

  private async execute(input: ReviewInput, signal: AbortSignal, actions: string[]): Promise<void> {
    const state = new ToolSessionState();
    const history = [...input.conversation];
    const calls = new Map<string, { name: string; args: unknown }>();
    try {
      const result = await runTurn({
        provider: input.provider,
        model: input.model,
        systemPrompt: input.systemPrompt,
        tools: input.tools,
        history,
        user: { role: "user", content: reviewPrompt(input.kinds) },
        maxTurns: REVIEW_MAX_ITERATIONS,
        ...(input.maxTokens ? { maxTokens: input.maxTokens } : {}),
        providerLabel: input.providerLabel,
        retry: { maxAttempts: 1 },
        toolContext: { ...input.toolContext, ports: {}, state },
        signal,
        emit: () => {},
        newMessageId: newId,
        toolGate: (tool) =>
          REVIEW_TOOLS.has(tool.name) ? input.sessionGate?.(tool) : `${tool.name} is not available during a background review: only memory and skill tools run here.`,
        onAppend: (message) => {
          if (message.role === "assistant") {
            for (const call of message.tool_calls ?? []) calls.set(call.id, { name: call.function.name, args: parseArgs(call.function.arguments) });
          } else if (message.role === "tool") {
            const call = calls.get(message.tool_call_id);
            const action = call && savedAction(call.name, call.args, message.content);
            if (action) actions.push(action);
          }
        },
      });
      if (result.usage && !signal.aborted) input.onUsage?.(result.usage);
      log.info(`background review (${kindsLabel(input.kinds)}) ended: ${result.stopReason}; ${actions.length ? actions.join(", ") : "nothing saved"}`);
    } catch (error) {
      log.warn(`background review failed: ${errorMessage(error)}`);
    } finally {
      await Promise.resolve(state.dispose()).catch(() => undefined);
    }
  }
}

/** The review's instruction for `kinds` (Hermes' memory, skill or combined review prompt). */
export function reviewPrompt(kinds: ReviewKinds): string {
  if (kinds.memory && kinds.skills) return REVIEW_PROMPTS.combined;
  return kinds.memory ? REVIEW_PROMPTS.memory : REVIEW_PROMPTS.skills;
}

/**
 * What a successful memory / skill_manage call saved, as the user is told it (Hermes'
 * `summarize_background_review_actions`: "User profile updated", "Skill 'x' created"), or
 * undefined for reads, failures and anything else.
 */
export function savedAction(tool: string, args: unknown, result: string): string | undefined {
  const parsed = parseArgs(result);
  if (!isRecord(parsed) || parsed.success !== true) return undefined;
  const input = isRecord(args) ? args : {};
  if (tool === "memory") {
    const target = typeof input.target === "string" ? input.target : typeof parsed.target === "string" ? parsed.target : "memory";
    return target === "user" ? "User profile updated" : "Memory updated";
  }
  if (tool === "skill_manage") {
    const verbs: Record<string, string> = { create: "created", edit: "rewritten", patch: "patched", delete: "deleted", write_file: "file written", remove_file: "file removed" };
    const verb = typeof input.action === "string" ? verbs[input.action] : undefined;
    const name = typeof input.name === "string" ? input.name.slice(0, 64) : undefined;
    return verb && name ? `Skill '${name}' ${verb}` : undefined;
  }
  return undefined;
}

function kindsLabel(kinds: ReviewKinds): string {
  return [kinds.memory ? "memory" : "", kinds.skills ? "skills" : ""].filter(Boolean).join(" + ");
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
