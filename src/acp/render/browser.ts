import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import type { DetailedToolName, DetailsOf } from "../../tools/details.js";
import { errorText, fenced, textContent, truncate, DISPLAY_LIMIT, DISPLAY_LIMIT_LARGE } from "./text.js";
import type { Completion, ToolEndOf, ToolRenderer } from "./types.js";

/**
 * The browser tools in the editor. Starts say what is about to happen (`Opening …`, `Clicking
 * @e3`, `Typing 12 characters into @e2` — never the typed text, which may be a password).
 * Completions show the page reached (title, URL, element count) with the start of the snapshot
 * in a code block, a short status for actions, the console's messages, and for `browser_vision`
 * the screenshot itself as an image block above the analysis. Failures show the error the model
 * got. Calls without details (older rows) show their text.
 */

type BrowserToolName = Extract<DetailedToolName, `browser_${string}`>;

/** Details every browser tool shares. */
interface PageFacts {
  url?: string;
  title?: string;
  note?: string;
  error?: string;
}

/** Most list entries (images, console lines) shown. */
const MAX_LINES = 30;

function inline(text: string, max = 200): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A failed call's message, or undefined when the call succeeded. */
function failureOf<N extends BrowserToolName>(event: ToolEndOf<N>): string | undefined {
  const details: PageFacts | undefined = event.details;
  if (details?.error) return details.error;
  return event.isError ? errorText(event.content) : undefined;
}

/**
 * The common completion: the failure, or `lines` (with the note under them); the plain text when
 * there are no details.
 */
function complete<N extends BrowserToolName>(event: ToolEndOf<N>, lines: (details: DetailsOf<N>) => string[], limit = DISPLAY_LIMIT): Completion {
  const error = failureOf(event);
  if (error) return { content: [textContent(truncate(`Browser: ${error}`))], failed: true };
  const details = event.details;
  if (!details) return { content: event.content ? [textContent(truncate(event.content))] : [] };
  const body = lines(details);
  const facts: PageFacts = details;
  if (facts.note) body.push("", `_${inline(facts.note, 400)}_`);
  return { content: [textContent(truncate(body.join("\n"), limit))] };
}

function pageLine(details: PageFacts): string {
  const title = details.title ? inline(details.title, 120) : "";
  const url = details.url ?? "";
  return title ? `**${escapeMarkdown(title)}** — ${url}` : url;
}

function snapshotBlock(details: { elementCount?: number; preview?: string; truncated?: boolean; storedPath?: string }): string[] {
  const lines = [`${details.elementCount ?? 0} elements with refs`];
  if (details.truncated) lines[0] += details.storedPath ? ` · snapshot cut at 15,000 chars (whole: ${details.storedPath})` : " · snapshot cut at 15,000 chars";
  if (details.preview) lines.push("", fenced(details.preview.slice(0, DISPLAY_LIMIT - 400), "yaml"));
  return lines;
}

function escapeMarkdown(text: string): string {
  return text.replace(/([*_`\\[\]])/g, "\\$1");
}

function started(text: string): ToolCallContent[] {
  return [textContent(text)];
}

export const browserNavigateRenderer: ToolRenderer<"browser_navigate"> = {
  start: (event) => started(`Opening ${event.input?.url ?? "a page"}`),
  complete: (event) => complete(event, (details) => [pageLine(details), ...(details.elementCount !== undefined ? snapshotBlock(details) : [])]),
};

export const browserSnapshotRenderer: ToolRenderer<"browser_snapshot"> = {
  start: (event) => started(event.input?.full ? "Reading the whole page" : "Reading the page"),
  complete: (event) => complete(event, (details) => [pageLine(details), ...snapshotBlock(details)]),
};

export const browserClickRenderer: ToolRenderer<"browser_click"> = {
  start: (event) => started(`Clicking ${event.input?.ref ?? "an element"}`),
  complete: (event) => complete(event, (details) => [`Clicked ${details.ref ?? event.input?.ref ?? ""}`.trim()]),
};

export const browserTypeRenderer: ToolRenderer<"browser_type"> = {
  start: (event) => started(`Typing ${event.input?.text.length ?? 0} characters into ${event.input?.ref ?? "a field"}`),
  complete: (event) => complete(event, (details) => [`Typed ${details.chars ?? 0} characters into ${details.ref ?? "the field"}`]),
};

export const browserScrollRenderer: ToolRenderer<"browser_scroll"> = {
  start: (event) => started(`Scrolling ${event.input?.direction ?? ""}`.trim()),
  complete: (event) => complete(event, (details) => [`Scrolled ${details.direction ?? event.input?.direction ?? ""}`.trim()]),
};

export const browserBackRenderer: ToolRenderer<"browser_back"> = {
  start: () => started("Going back"),
  complete: (event) => complete(event, (details) => [`Back at ${pageLine(details)}`]),
};

export const browserPressRenderer: ToolRenderer<"browser_press"> = {
  start: (event) => started(`Pressing ${event.input?.key ?? "a key"}`),
  complete: (event) => complete(event, (details) => [`Pressed ${details.key ?? event.input?.key ?? ""}`.trim()]),
};

export const browserGetImagesRenderer: ToolRenderer<"browser_get_images"> = {
  start: () => started("Listing the page's images"),
  complete: (event) =>
    complete(event, (details) => {
      const images = details.images ?? [];
      const lines = [`${details.count ?? images.length} images on ${details.url ?? "the page"}`];
      for (const image of images.slice(0, MAX_LINES)) lines.push(`- ${image.alt ? `${inline(image.alt, 80)} — ` : ""}${inline(image.src, 300)} (${image.width}×${image.height})`);
      if (images.length > MAX_LINES) lines.push(`- … ${images.length - MAX_LINES} more`);
      return lines;
    }),
};

/** The screenshot (when the details carry one) above the analysis or the failure. */
export const browserVisionRenderer: ToolRenderer<"browser_vision"> = {
  start: (event) => started(`Looking at the page: ${inline(event.input?.question ?? "", 300)}`),
  complete(event) {
    const details = event.details;
    const image: ToolCallContent[] = details?.image ? [{ type: "content", content: { type: "image", data: details.image.data, mimeType: details.image.mimeType } }] : [];
    const error = failureOf(event);
    if (error) return { content: [...image, textContent(truncate(`Browser: ${error}`))], failed: true };
    if (!details) return { content: event.content ? [textContent(truncate(event.content))] : [] };
    const lines = [`**Vision analysis**${details.model ? ` (${details.model})` : ""} of ${pageLine(details)}`, "", details.analysis ?? ""];
    if (details.screenshotPath) lines.push("", `Screenshot: ${details.screenshotPath}`);
    if (details.note) lines.push("", `_${inline(details.note, 400)}_`);
    return { content: [...image, textContent(truncate(lines.join("\n"), DISPLAY_LIMIT_LARGE))] };
  },
};

export const browserConsoleRenderer: ToolRenderer<"browser_console"> = {
  start(event) {
    const expression = event.input?.expression;
    if (expression !== undefined) return started(`Evaluating in the page:\n\n${fenced(truncate(expression, 1200), "js")}`);
    return started(event.input?.clear ? "Reading and clearing the browser console" : "Reading the browser console");
  },
  complete: (event) =>
    complete(
      event,
      (details) => {
        if (details.expression !== undefined) return [`Result (${details.resultType ?? "?"}):`, "", fenced(details.result ?? "", "json")];
        const messages = details.messages ?? [];
        const errors = details.errors ?? [];
        const blocked = details.blocked ?? [];
        const lines = [`${details.totalMessages ?? messages.length} console messages, ${details.totalErrors ?? errors.length} errors${blocked.length ? `, ${blocked.length} blocked requests` : ""}${details.cleared ? " (cleared)" : ""}`];
        for (const message of messages.slice(-MAX_LINES)) lines.push(`- [${message.type}] ${inline(message.text)}`);
        for (const error of errors.slice(-MAX_LINES)) lines.push(`- uncaught: ${inline(error)}`);
        for (const request of blocked.slice(-MAX_LINES)) lines.push(`- blocked ${inline(request.url, 120)}: ${inline(request.reason)}`);
        return lines;
      },
      DISPLAY_LIMIT_LARGE,
    ),
};
