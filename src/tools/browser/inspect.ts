import { z } from "zod";
import { defineTool, type ToolResult } from "../types.js";
import { oneLine, pageText, runBrowserTool } from "./common.js";
import {
  browserImageSchema,
  CONSOLE_DETAILS_MAX,
  IMAGE_DETAILS_MAX,
  SNAPSHOT_PREVIEW_CHARS,
  type BrowserConsoleDetails,
  type BrowserGetImagesDetails,
  type BrowserImage,
  type BrowserSnapshotDetails,
} from "./details.js";
import { IMAGES_SCRIPT } from "./page-scripts.js";
import { takeSnapshot } from "./snapshot.js";

/** Most images `browser_get_images` returns (the count says how many there were). */
const MAX_IMAGES = 200;
/** Longest evaluation result the model gets. */
const MAX_EVAL_CHARS = 50_000;

const snapshotParams = z.lazy(() => z.object({
  full: z.boolean().optional().describe("Whole page text and link URLs instead of the compact view"),
}));
export type BrowserSnapshotArgs = z.infer<typeof snapshotParams>;

const imagesParams = z.lazy(() => z.object({}));
export type BrowserGetImagesArgs = z.infer<typeof imagesParams>;

const consoleParams = z.lazy(() => z.object({
  clear: z.boolean().optional().describe("Empty the buffers after reading"),
  expression: z.string().optional().describe("JavaScript to evaluate in the page, e.g. 'document.title'"),
}));
export type BrowserConsoleArgs = z.infer<typeof consoleParams>;

/** `browser_snapshot`: the page's accessibility tree with fresh refs (see snapshot.ts). */
export const browserSnapshotTool = defineTool({
  name: "browser_snapshot",
  description:
    "Accessibility-tree snapshot of the current page with element refs (@e1…) for browser_click and browser_type. " +
    "Over 15000 chars it is cut and saved whole for read_file. Refs change with every snapshot and navigation.",
  kind: "read",
  mutating: false,
  params: snapshotParams,
  describe: (args) => ({ title: args.full ? "browser: snapshot (full)" : "browser: snapshot", locations: [] }),
  execute(args, ctx): Promise<ToolResult<BrowserSnapshotDetails>> {
    const full = args.full === true;
    return runBrowserTool<BrowserSnapshotDetails>(
      ctx,
      { requirePage: true },
      async ({ page }) => {
        const snapshot = await takeSnapshot(page, full, ctx.hermesHome);
        const url = page.url();
        const title = await page.title().catch(() => "");
        return {
          payload: { snapshot: snapshot.text, element_count: snapshot.elementCount },
          details: {
            full,
            url,
            title,
            elementCount: snapshot.elementCount,
            preview: snapshot.text.slice(0, SNAPSHOT_PREVIEW_CHARS),
            ...(snapshot.truncated ? { truncated: true } : {}),
            ...(snapshot.storedPath ? { storedPath: snapshot.storedPath } : {}),
          },
        };
      },
      (error) => ({ error }),
    );
  },
});

/** `browser_get_images`: the page's images, as Hermes lists them (data: URLs left out). */
export const browserGetImagesTool = defineTool({
  name: "browser_get_images",
  description: "List the page's images (URL, alt text, size).",
  kind: "read",
  mutating: false,
  params: imagesParams,
  describe: () => ({ title: "browser: images", locations: [] }),
  execute(_args, ctx): Promise<ToolResult<BrowserGetImagesDetails>> {
    return runBrowserTool<BrowserGetImagesDetails>(
      ctx,
      { requirePage: true },
      async ({ page }) => {
        const raw: unknown = await page.evaluate(`(${IMAGES_SCRIPT})(${MAX_IMAGES})`);
        const found = raw && typeof raw === "object" ? (raw as { images?: unknown; total?: unknown }) : {};
        const images: BrowserImage[] = (Array.isArray(found.images) ? found.images : []).flatMap((image) => {
          const parsed = browserImageSchema.safeParse(image);
          return parsed.success ? [{ ...parsed.data, src: pageText(parsed.data.src), alt: pageText(parsed.data.alt) }] : [];
        });
        const total = typeof found.total === "number" ? found.total : images.length;
        const payload: Record<string, unknown> = { images, count: images.length };
        if (total > images.length) payload.warning = `The page has ${total} images; the first ${images.length} are listed.`;
        return { payload, details: { url: page.url(), count: total, images: images.slice(0, IMAGE_DETAILS_MAX) } };
      },
      (error) => ({ error }),
    );
  },
});

/**
 * `browser_console`: Hermes' console read — messages (`console.*`, dialogs), uncaught errors and,
 * beyond Hermes, the requests the URL policy refused, all since the browser started or the last
 * `clear`. With `expression`, evaluates it in the page instead (its network requests are held to
 * the same policy by the proxy) and returns `{result, result_type}` with Python's type names, as
 * Hermes does.
 */
export const browserConsoleTool = defineTool({
  name: "browser_console",
  description:
    "Console messages, uncaught JavaScript errors and blocked requests since the browser started or the last clear. " +
    "With expression: evaluates JavaScript in the page and returns the result.",
  kind: "read",
  mutating: false,
  params: consoleParams,
  describe: (args) => ({
    title: args.expression !== undefined ? `browser: eval ${oneLine(args.expression)}` : args.clear ? "browser: console (clear)" : "browser: console",
    locations: [],
  }),
  execute(args, ctx): Promise<ToolResult<BrowserConsoleDetails>> {
    const expression = args.expression;
    if (expression !== undefined) {
      return runBrowserTool<BrowserConsoleDetails>(
        ctx,
        { requirePage: true },
        async ({ page }) => {
          const value: unknown = await page.evaluate(expression);
          const parsed = typeof value === "string" ? parseJson(value) : value;
          const shown = pageText(JSON.stringify(parsed ?? null) ?? "null");
          const result = shown.length > MAX_EVAL_CHARS ? `${shown.slice(0, MAX_EVAL_CHARS)}… (${shown.length} chars, cut)` : shown;
          const resultType = pythonType(parsed);
          const payload = { result: result === shown ? redactValue(parsed) : result, result_type: resultType };
          return { payload, details: { url: page.url(), expression, result: result.slice(0, 2_000), resultType } };
        },
        (error) => ({ error, expression }),
      );
    }
    return runBrowserTool<BrowserConsoleDetails>(
      ctx,
      { requirePage: true },
      async ({ page, session }) => {
        const messages = session.messages.map((entry) => ({ type: entry.type, text: pageText(entry.text) }));
        const errors = session.errors.map((message) => pageText(message));
        const blocked = session.pageRefusals();
        if (args.clear) {
          session.messages.length = 0;
          session.errors.length = 0;
          session.clearRefusals();
        }
        const payload: Record<string, unknown> = {
          console_messages: messages.map((entry) => ({ ...entry, source: "console" })),
          js_errors: errors.map((message) => ({ message, source: "exception" })),
          total_messages: messages.length,
          total_errors: errors.length,
        };
        if (blocked.length) payload.blocked_requests = blocked;
        return {
          payload,
          details: {
            url: page.url(),
            messages: messages.slice(-CONSOLE_DETAILS_MAX),
            errors: errors.slice(-CONSOLE_DETAILS_MAX),
            blocked: blocked.slice(-CONSOLE_DETAILS_MAX),
            totalMessages: messages.length,
            totalErrors: errors.length,
            cleared: args.clear === true,
          },
        };
      },
      (error) => ({ error }),
    );
  },
});

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The value with every string in it masked for secrets. */
function redactValue(value: unknown): unknown {
  if (typeof value === "string") return pageText(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item)]));
  return value;
}

/** Hermes reports `type(result).__name__`. */
function pythonType(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (Array.isArray(value)) return "list";
  return "dict";
}
