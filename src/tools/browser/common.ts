/**
 * What every browser tool shares: running on the session's browser, Hermes' result shape
 * (`{"success": true, …}` / `{"success": false, "error": …}` as JSON for the model, typed details
 * for the editor), page text redaction, and the `browser: …` titles.
 */
import { redactSecrets } from "../../config/redact.js";
import { isAbortError } from "../../shared/abort.js";
import type { ToolContext, ToolResult } from "../types.js";
import type { ActionScope, BrowserSession, RunOptions } from "./browser-session.js";
import { BrowserUsageError, firstLine } from "./errors.js";

/** What a tool's body produces: the model's JSON (without `success`) and the editor's details. */
export interface BrowserOutcome<D> {
  payload: Record<string, unknown>;
  details: D;
  /** A failure the model can fix (`success: false`). */
  failed?: boolean;
}

/**
 * Runs `body` on the session's browser and shapes its result: `note` (a restart, a new tab) is
 * added to the model's JSON and the details; a BrowserUsageError or a Playwright error becomes
 * `{"success": false, "error": …}` through `onError`. Rethrows only an AbortError.
 */
export async function runBrowserTool<D extends { note?: string }>(
  ctx: ToolContext,
  options: RunOptions,
  body: (scope: ActionScope & { session: BrowserSession }) => Promise<BrowserOutcome<D>>,
  onError: (message: string) => D,
): Promise<ToolResult<D>> {
  try {
    const session = await browserSession(ctx);
    const outcome = await session.run(ctx, (scope) => body({ ...scope, session }).then((result) => ({ result, note: joinNotes(scope.note, session.takeNotes()) })), options);
    const { result, note } = outcome;
    if (note) {
      result.payload.note = note;
      result.details.note = note;
    }
    return result.failed ? failure(String(result.payload.error ?? "failed"), result.details, result.payload) : success(result.payload, result.details);
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error;
    const message = error instanceof BrowserUsageError ? error.message : firstLine(error);
    return failure(message, onError(message));
  }
}

/**
 * The session's browser object (not started until it runs something). Loads the browser modules
 * on first use, so start-up never pays for them.
 */
export async function browserSession(ctx: ToolContext): Promise<BrowserSession> {
  const { browserSessionOf } = await import("./browser-session.js");
  return browserSessionOf(ctx.state);
}

function joinNotes(...notes: Array<string | undefined>): string | undefined {
  const present = notes.filter((note): note is string => Boolean(note));
  return present.length ? present.join(" ") : undefined;
}

export function success<D>(payload: Record<string, unknown>, details: D): ToolResult<D> {
  return { content: JSON.stringify({ success: true, ...payload }), details };
}

export function failure<D>(error: string, details: D, extra: Record<string, unknown> = {}): ToolResult<D> {
  return { content: JSON.stringify({ ...extra, success: false, error }), details, isError: true };
}

/** Page-originated text for the model, with secrets masked (Hermes forces this on browser output). */
export function pageText(text: string): string {
  return redactSecrets(text);
}

/** `host/path` of a URL for titles (`127.0.0.1:3000/login`), cut to 80 chars. */
export function shortUrl(raw: string): string {
  let shown = raw.trim();
  try {
    const url = new URL(shown);
    if (url.protocol === "http:" || url.protocol === "https:") shown = `${url.host}${url.pathname === "/" ? "" : url.pathname}${url.search}`;
  } catch {
    // show it as written
  }
  return shown.length > 80 ? `${shown.slice(0, 79)}…` : shown;
}

/** One line of free text (a question, an expression) for a title, cut to 60 chars. */
export function oneLine(text: string, max = 60): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
