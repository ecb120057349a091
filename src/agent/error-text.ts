/**
 * The one line a user sees when the model could not be reached: what failed, where, and what to do
 * about it. Pure; never includes a stack trace or a key (the provider already redacted its message).
 */
import type { ProviderErrorKind } from "../llm/types.js";

export interface ModelFailure {
  errorKind: ProviderErrorKind;
  /** The provider's one-line message, usually `<provider>: HTTP <status>: <server's words>`. */
  message: string;
  status?: number;
}

export interface FailureContext {
  /** The provider id as the user knows it (`openrouter`, `openai`, a `providers:` name…). */
  providerLabel: string;
  /** The provider object's own id, when it differs from the label (its messages start with it). */
  providerId?: string;
  /** Where the API key comes from (`OPENROUTER_API_KEY`, `model.api_key in config.yaml`), when known. */
  keyHint?: string;
  model: string;
  /** Attempts made, retries included. */
  attempts: number;
  /** Compressions made for this call after the provider said the request was too long (0 when none). */
  compressions?: number;
}

const MAX_DETAIL = 200;

/** e.g. `401 from openrouter: check OPENROUTER_API_KEY (server said: User not found.)`. */
export function failureText(failure: ModelFailure, ctx: FailureContext): string {
  const { providerLabel: label, attempts } = ctx;
  const from = failure.status !== undefined ? `${failure.status} from ${label}` : label;
  const detail = serverDetail(failure.message, [label, ctx.providerId ?? label]);
  const said = detail ? ` (server said: ${detail})` : "";
  const tries = attempts > 1 ? ` after ${attempts} attempts` : "";
  switch (failure.errorKind) {
    case "auth":
      return `${from}: check ${ctx.keyHint ?? `the API key for ${label}`}${said}`;
    case "rate_limit":
      return `${from}: rate limited${tries}; wait a minute and try again, or switch to another model${said}`;
    case "server":
      return `${from}: the provider failed${tries}; try again later or switch to another model${said}`;
    case "timeout":
      return `${label} timed out${tries} (${detail || "no response"}); try again, or switch to another model`;
    case "network":
      return `cannot reach ${label}${tries} (${detail || "connection failed"}); check the network and the provider's base_url`;
    case "context_overflow":
      return `${from}: the conversation no longer fits ${ctx.model}'s context window${compressed(ctx)}; run /compress to shrink it further, or start a new session (/new, or /reset to clear this one)${said}`;
    case "payload_too_large":
      return `${from}: the request is too large${compressed(ctx)}; remove large attachments, run /compress, or start a new session (/new)${said}`;
    case "images_unsupported":
      return `${from}: ${ctx.model} does not accept images; send the request without them or switch to a model with vision${said}`;
    case "content_filter":
      return `${from}: the provider's content filter blocked the answer${said}`;
    case "bad_request":
      return `${from}: the request was rejected; check the model name (${ctx.model}) and the provider settings in config.yaml${said}`;
    default:
      return `${from}: the model call failed${tries}${said}`;
  }
}

function compressed(ctx: FailureContext): string {
  const count = ctx.compressions ?? 0;
  return count === 0 ? "" : ` even after compressing it${count > 1 ? ` ${count} times` : ""}`;
}

/** The server's own words: the message without the `<provider>: ` and `HTTP <status>: ` prefixes, shortened. */
function serverDetail(message: string, prefixes: string[]): string {
  let detail = message.replace(/\s+/g, " ").trim();
  const prefix = prefixes.find((name) => detail.startsWith(`${name}: `));
  if (prefix !== undefined) detail = detail.slice(prefix.length + 2);
  detail = detail.replace(/^HTTP \d{3}: /, "");
  return detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL - 1)}…` : detail;
}
