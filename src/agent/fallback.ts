/**
 * The fallback chain (Hermes' `fallback_providers`, reference §3.4): when a model call still fails
 * after its retries on a provider-side error, the same request goes to the next model of the chain,
 * with retries of its own.
 *
 * Which failures fall back (`fallsBack`): rate limits, server errors, timeouts, dropped connections,
 * a rejected key (`auth`) and a spent quota or credit (`isQuotaError`, e.g. HTTP 402): another
 * provider may well answer. Never a cancel; never a request the provider rejected as bad
 * (`bad_request`: the same request would fail anywhere, and hiding a wrong model name behind another
 * model would leave the user's config broken unseen); never `context_overflow` or
 * `payload_too_large` (compression is the cure, and it belongs to the loop); never a content filter
 * (asking another provider to say what one refused is not this agent's call); never `unknown`.
 *
 * The chain lives for one turn. A fallback that answered stays the turn's model for its later calls
 * (the failing model is not asked again after every tool round); the next turn starts on the
 * session's own model again, which never changes. Each switch is told to the user in one message
 * line naming the model that answers and why (`fallbackNotice`); the line is not part of history.
 */
import { isQuotaError } from "../llm/credential-pool.js";
import type { Provider, ProviderErrorKind } from "../llm/types.js";
import { log } from "../shared/logger.js";
import type { EmitAgentEvent } from "./events.js";
import type { ModelCallOutcome } from "./model-call.js";
import { runModelStep, type ModelStepInput, type ModelStepResult } from "./model-step.js";
import { addUsage } from "./usage.js";

/** A model a turn's calls may go to: the session's own or a fallback. */
export interface TurnModel {
  provider: Provider;
  model: string;
  /** The provider id as the user knows it (`openrouter`, a `providers:` name), for failure messages. */
  providerLabel: string;
  /** `provider:model`, named in the fallback notice and the logs. */
  label: string;
  /** Where its API key comes from (`OPENROUTER_API_KEY`), named when the provider rejects it. */
  keyHint?: string;
  /** Whether the turn's reasoning effort is sent to it; when false, requests go without one. */
  reasoningEffort: boolean;
}

/** One `fallback_providers` entry, resolved only when the chain reaches it. */
export interface FallbackCandidate {
  /** The entry as config.yaml names it (`provider:model`), for the log line when it cannot be used. */
  label: string;
  /**
   * The entry's model and wire provider. Rejects when the entry cannot be used (no key, unknown
   * provider, bad URL); the chain then skips it and logs the rejection's message, which must name no
   * key. Called at most once per turn, and only when the chain reaches the entry.
   */
  resolve(): Promise<TurnModel>;
}

/** What a chained step produced, and which model produced its outcome. */
export interface ChainStepResult extends ModelStepResult {
  /** The model whose call gave `outcome`: the turn's current model, or the fallback that answered or failed last. */
  answeredBy: TurnModel;
}

const FALLBACK_KINDS: ReadonlySet<ProviderErrorKind> = new Set(["rate_limit", "server", "timeout", "network", "auth"]);

/** Whether a step that ended with `outcome` goes on to the next model of the chain (see the module doc). Pure. */
export function fallsBack(outcome: ModelCallOutcome): boolean {
  if (outcome.kind !== "error") return false;
  return FALLBACK_KINDS.has(outcome.errorKind) || isQuotaError(outcome);
}

const REASONS: Readonly<Partial<Record<ProviderErrorKind, string>>> = {
  rate_limit: "rate limited",
  server: "server error",
  timeout: "timed out",
  network: "connection failed",
  auth: "API key rejected",
};

/** The one line shown when the chain moves on: which model answers now, and why. Pure. */
export function fallbackNotice(from: TurnModel, to: TurnModel, outcome: Extract<ModelCallOutcome, { kind: "error" }>, attempts: number): string {
  const what = isQuotaError(outcome) ? "quota or credit used up" : (REASONS[outcome.errorKind] ?? outcome.errorKind);
  const status = outcome.status !== undefined ? `, HTTP ${outcome.status}` : "";
  const tries = attempts > 1 ? `, ${attempts} attempts` : "";
  return `↪ Answering with ${to.label} (fallback: ${from.label} failed: ${what}${status}${tries})`;
}

/**
 * The models of one turn: the session's model first, then the fallback candidates in order. Create
 * one per turn. Never throws.
 */
export class TurnModels {
  /** Index into `models` of the model the next step starts on. */
  private active = 0;
  /** Resolved models by position (0 = the main one); `null` = the candidate could not be used. */
  private readonly models: (TurnModel | null | undefined)[];

  constructor(
    main: TurnModel,
    private readonly candidates: readonly FallbackCandidate[] = [],
    private readonly newMessageId: () => string,
  ) {
    this.models = [main, ...candidates.map(() => undefined)];
  }

  /** The model the next step starts on. */
  get current(): TurnModel {
    return this.models[this.active] as TurnModel;
  }

  /**
   * One assistant message (see `runModelStep`), on the turn's current model, then, while the outcome
   * `fallsBack`, on each next usable candidate in turn, each with its own retries. `input.provider`
   * and `input.request.model` are replaced by each model's own; the reasoning effort goes only to a
   * model that takes it. Visible text a failed model already showed is kept: the next one resumes
   * from it. `text`, `reasoning` and `usage` cover every model tried; `attempts` is the last model's.
   * Before each fallback call one notice message (its own message id, not part of history) names the
   * model that answers. A cancel ends the chain at once. A fallback that answered becomes the
   * current model for the rest of the turn. Never throws.
   */
  async step(input: ModelStepInput): Promise<ChainStepResult> {
    let index = this.active;
    let model = this.current;
    let step = await runModelStep(onModel(input, model));
    while (step.outcome.kind === "error" && fallsBack(step.outcome) && !input.signal.aborted) {
      const next = await this.nextUsable(index);
      if (!next || input.signal.aborted) break;
      const failed = step.outcome;
      const status = failed.status !== undefined ? `, HTTP ${failed.status}` : "";
      log.warn(`model call to ${model.label} failed (${failed.errorKind}${status}); falling back to ${next.model.label}`);
      this.notice(input.emit, `${step.text ? "\n\n" : ""}${fallbackNotice(model, next.model, failed, step.attempts)}\n\n`);
      const previous = step;
      const retried = await runModelStep({ ...onModel(input, next.model), resumeFrom: previous.text });
      step = { ...retried, reasoning: previous.reasoning + retried.reasoning, usage: addUsage(previous.usage, retried.usage) };
      [index, model] = [next.index, next.model];
    }
    if (step.outcome.kind === "done") this.active = index;
    return { ...step, answeredBy: model };
  }

  /** The first candidate after position `after` that resolves; unusable ones are logged once and skipped. */
  private async nextUsable(after: number): Promise<{ index: number; model: TurnModel } | undefined> {
    for (let index = after + 1; index < this.models.length; index++) {
      let model = this.models[index];
      if (model === undefined) {
        const candidate = this.candidates[index - 1] as FallbackCandidate;
        try {
          model = await candidate.resolve();
        } catch (error) {
          log.warn(`fallback ${candidate.label} skipped: ${error instanceof Error ? error.message : String(error)}`);
          model = null;
        }
        this.models[index] = model;
      }
      if (model) return { index, model };
    }
    return undefined;
  }

  private notice(emit: EmitAgentEvent, text: string): void {
    const messageId = this.newMessageId();
    emit({ type: "message_delta", messageId, text });
    emit({ type: "message_end", messageId });
  }
}

/** `input` aimed at `model`: its provider, its model name, and the reasoning effort only where it is taken. */
function onModel(input: ModelStepInput, model: TurnModel): ModelStepInput {
  const request = { ...input.request, model: model.model };
  if (!model.reasoningEffort) delete request.reasoningEffort;
  return { ...input, provider: model.provider, request };
}
