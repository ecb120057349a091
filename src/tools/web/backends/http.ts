/**
 * JSON over HTTP to a web backend's public API (plain `fetch`), and the tolerant readers its
 * answers go through: backend JSON is untrusted input, so a missing or mistyped field reads as
 * empty rather than throwing.
 */
import { abortError, isAbortError } from "../../../shared/abort.js";

/** A backend call that failed; the message names the backend and says what happened. */
export class BackendError extends Error {
  constructor(
    message: string,
    /** HTTP status, when the backend answered. */
    readonly status?: number,
  ) {
    super(message);
    this.name = "BackendError";
  }
}

/** One normalised search result, in Hermes' shape and key order. */
export interface SearchHit {
  title: string;
  url: string;
  description: string;
  position: number;
}

/** One page a backend extracted: its text (usually markdown), or why it failed. */
export interface BackendPage {
  url: string;
  title: string;
  content: string;
  error?: string;
}

export interface WebBackend {
  label: string;
  /** At most `limit` results. Rejects with BackendError, or an AbortError when `signal` fires. */
  search(query: string, limit: number, signal: AbortSignal): Promise<SearchHit[]>;
  /** Absent for search-only backends. Per-URL failures are pages with `error`; rejects like `search` when the whole call fails. */
  extract?(urls: string[], signal: AbortSignal): Promise<BackendPage[]>;
}

export interface BackendRequest {
  method: "GET" | "POST";
  headers?: Record<string, string>;
  /** JSON body for POST. */
  body?: unknown;
  /** Per-call limit (Hermes uses 60 s for every backend call). */
  timeoutMs?: number;
}

const MAX_RESPONSE_BYTES = 20 * 1024 * 1024;

/**
 * Sends the request and parses the JSON answer. Rejects with BackendError for a non-2xx status
 * (the message carries the start of the body), an unparseable or oversized body, a network error
 * or a timeout; with an AbortError when `signal` fires.
 */
export async function requestJson(label: string, url: string, request: BackendRequest, signal: AbortSignal): Promise<unknown> {
  const timeoutMs = request.timeoutMs ?? 60_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: request.method,
      headers: { accept: "application/json", ...(request.body === undefined ? {} : { "content-type": "application/json" }), ...request.headers },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      signal: AbortSignal.any([signal, timeout]),
      // Never followed: the API key header would go along to wherever the redirect points.
      redirect: "manual",
    });
    text = await readText(response);
  } catch (error) {
    if (signal.aborted) throw abortError();
    if (error instanceof BackendError) throw error;
    if (timeout.aborted || isAbortError(error)) throw new BackendError(`${label} did not answer within ${Math.round(timeoutMs / 1000)} s`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new BackendError(`Could not reach ${label} at ${new URL(url).origin}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
  }
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get("location");
    throw new BackendError(`${label} redirected${location ? ` to ${safeOrigin(location, url)}` : ""}; redirects are not followed (the API key would go along) — set its URL to the final address`, response.status);
  }
  if (!response.ok) {
    const detail = text.replace(/\s+/g, " ").trim().slice(0, 300);
    throw new BackendError(`${label} returned HTTP ${response.status}${detail ? `: ${detail}` : ""}`, response.status);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BackendError(`${label} answered something that is not JSON (${response.headers.get("content-type") ?? "no content type"})`, response.status);
  }
}

function safeOrigin(location: string, base: string): string {
  try {
    return new URL(location, base).origin;
  } catch {
    return "an invalid address";
  }
}

async function readText(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new BackendError(`answer larger than ${MAX_RESPONSE_BYTES / (1024 * 1024)} MB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** `value` as a plain object, or an empty one. */
export function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** `value` as an array, or an empty one. */
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** `value` as a string ("" for anything else; numbers are written out). */
export function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return "";
}

/** The strings of a list, joined. */
export function joined(value: unknown, separator: string): string {
  return list(value)
    .map(text)
    .filter((part) => part.trim())
    .join(separator);
}

/** Hits numbered from 1, capped at `limit`. */
export function numbered(rows: Array<Omit<SearchHit, "position">>, limit: number): SearchHit[] {
  return rows.slice(0, limit).map((row, index) => ({ title: row.title, url: row.url, description: row.description, position: index + 1 }));
}
