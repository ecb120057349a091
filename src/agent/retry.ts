/**
 * When and how long the loop waits before calling the model again after a failed attempt
 * (hermes-agent-core §3.4). Pure, except `sleep`, which is the one place the loop waits.
 */
import type { ProviderErrorKind } from "../llm/types.js";
import { sleep } from "../shared/abort.js";

export interface RetryPolicy {
  /** Attempts per model call, the first included (`agent.api_max_retries`; below 1 counts as 1). */
  maxAttempts: number;
  /** First backoff step; doubles per failed attempt. */
  baseDelayMs: number;
  /** Longest backoff without a `Retry-After`. */
  maxDelayMs: number;
  /** Longest wait a server's `Retry-After` may ask for. */
  maxRetryAfterMs: number;
  /** Waits `ms` or rejects as soon as `signal` fires. Tests may replace it to record the waits. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for jitter. */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 2_000,
  maxDelayMs: 60_000,
  maxRetryAfterMs: 600_000,
  sleep,
  random: Math.random,
};

/** The policy with `overrides` applied and `maxAttempts` at least 1. */
export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  return { ...policy, maxAttempts: Math.max(1, Math.floor(policy.maxAttempts)) };
}

const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set(["rate_limit", "server", "timeout", "network"]);

/**
 * Whether another attempt may succeed: rate limits, server errors, timeouts (including a stalled stream)
 * and dropped connections. Auth, bad requests, context overflow, oversized payloads, content filters,
 * aborts and unclassified errors are final.
 */
export function isRetryable(kind: ProviderErrorKind): boolean {
  return RETRYABLE.has(kind);
}

/**
 * The wait before attempt `failedAttempts + 1`. A server's `Retry-After` is honoured exactly, capped at
 * `maxRetryAfterMs`; otherwise exponential backoff `baseDelayMs × 2^(failedAttempts−1)`, capped at
 * `maxDelayMs`, with "equal jitter" (between half and all of that step).
 */
export function backoffDelayMs(failedAttempts: number, retryAfterMs: number | undefined, policy: RetryPolicy): number {
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
    return Math.min(Math.round(retryAfterMs), policy.maxRetryAfterMs);
  }
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failedAttempts - 1));
  return Math.round(step / 2 + (step / 2) * policy.random());
}
