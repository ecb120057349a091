import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { isAbortError } from "../../shared/abort.js";
import { defineTool, type ToolContext, type ToolResult } from "../types.js";
import { askAboutImage } from "../vision/ask-image.js";
import type { ActionScope } from "./browser-session.js";
import { browserSession, failure, oneLine, pageText, success } from "./common.js";
import { BrowserUsageError, firstLine } from "./errors.js";
import type { BrowserVisionDetails } from "./details.js";
import { ANNOTATE_SCRIPT, ANNOTATION_CLEAR_SCRIPT } from "./page-scripts.js";
import { refsAreCurrent, takeSnapshot } from "./snapshot.js";

/** Tallest full-page screenshot taken, in CSS pixels (the rest of a very long page is left out). */
const MAX_SHOT_HEIGHT = 10_000;
/** Largest editor preview kept in details (base64 chars); a bigger one is left out. */
const MAX_PREVIEW_BASE64 = 400_000;
/** Screenshots older than this are removed (Hermes keeps 24 hours). */
const SCREENSHOT_MAX_AGE_MS = 24 * 3600_000;

let lastPrune = 0;

const visionParams = z.lazy(() => z.object({
  question: z.string().trim().min(1).describe("What to find out from the screenshot"),
  annotate: z.boolean().optional().describe("Label interactive elements [N] (= ref @eN)"),
}));
export type BrowserVisionArgs = z.infer<typeof visionParams>;

interface Capture {
  png: Buffer;
  preview: Buffer | undefined;
  annotations: unknown[] | undefined;
  url: string;
  title: string;
  note: string | undefined;
}

/** The screenshot (full page, ≤ 10,000 px tall), a viewport JPEG for the editor, and the labels when annotated. */
async function capture({ page, settings, note }: ActionScope, args: BrowserVisionArgs, ctx: ToolContext): Promise<Capture> {
  let annotations: unknown[] | undefined;
  if (args.annotate) {
    if (!(await refsAreCurrent(page))) await takeSnapshot(page, false, ctx.hermesHome);
    const labels: unknown = await page.evaluate(`(${ANNOTATE_SCRIPT})()`);
    annotations = Array.isArray(labels) ? labels : [];
  }
  try {
    const height = Number(await page.evaluate("Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)")) || 0;
    const width = page.viewportSize()?.width ?? 1280;
    const png = await page.screenshot({
      type: "png",
      fullPage: true,
      timeout: settings.actionTimeoutMs,
      ...(height > MAX_SHOT_HEIGHT ? { clip: { x: 0, y: 0, width, height: MAX_SHOT_HEIGHT } } : {}),
    });
    const preview = await page.screenshot({ type: "jpeg", quality: 60, timeout: settings.actionTimeoutMs }).catch(() => undefined);
    return { png, preview, annotations, url: page.url(), title: await page.title().catch(() => ""), note };
  } finally {
    if (args.annotate) await page.evaluate(`(${ANNOTATION_CLEAR_SCRIPT})()`).catch(() => undefined);
  }
}

/** Saves the screenshot under `$HERMES_HOME/cache/screenshots/` (pruning day-old ones at most hourly); undefined when it cannot. */
function saveScreenshot(png: Buffer, hermesHome: string): string | undefined {
  const dir = join(hermesHome, "cache", "screenshots");
  try {
    mkdirSync(dir, { recursive: true });
    if (Date.now() - lastPrune > 3600_000) {
      lastPrune = Date.now();
      for (const name of readdirSync(dir)) {
        if (!/^browser_screenshot_[0-9a-f]+\.png$/.test(name)) continue;
        const path = join(dir, name);
        if (Date.now() - statSync(path).mtimeMs > SCREENSHOT_MAX_AGE_MS) unlinkSync(path);
      }
    }
    const path = join(dir, `browser_screenshot_${randomUUID().replace(/-/g, "")}.png`);
    writeFileSync(path, png, { mode: 0o600 });
    return path;
  } catch {
    return undefined;
  }
}

function visionPrompt(question: string): string {
  return (
    "You are analyzing a screenshot of a web browser.\n\n" +
    `User's question: ${question}\n\n` +
    "Provide a detailed and helpful answer based on what you see in the screenshot. If there are interactive elements, describe them. " +
    "If there are verification challenges or CAPTCHAs, describe what type they are and what action might be needed. Focus on answering the user's specific question."
  );
}

/**
 * `browser_vision`: screenshots the page, saves it (`screenshot_path`), and asks the vision model
 * (`auxiliary.vision`, else the session's model) the question, as Hermes does for a model without
 * native vision. The browser is free again while the model answers. A failed analysis still
 * reports the saved screenshot. The editor gets a viewport JPEG to show.
 */
export const browserVisionTool = defineTool({
  name: "browser_vision",
  description:
    "Screenshot the page and ask a vision model about it (layout, visual state, charts, CAPTCHAs). Returns the analysis and screenshot_path.",
  kind: "read",
  mutating: false,
  params: visionParams,
  describe: (args) => ({ title: `browser: vision — ${oneLine(args.question)}`, locations: [] }),
  async execute(args, ctx): Promise<ToolResult<BrowserVisionDetails>> {
    const question = args.question;
    let shot: Capture;
    try {
      shot = await (await browserSession(ctx)).run(ctx, (scope) => capture(scope, args, ctx), { requirePage: true });
    } catch (error) {
      if (isAbortError(error) || ctx.signal.aborted) throw error;
      const message = error instanceof BrowserUsageError ? error.message : `Failed to take screenshot: ${firstLine(error)}`;
      return failure(message, { question, error: message });
    }
    const screenshotPath = saveScreenshot(shot.png, ctx.hermesHome);
    const preview = shot.preview ? shot.preview.toString("base64") : undefined;
    const details: BrowserVisionDetails = {
      question,
      url: shot.url,
      title: shot.title,
      ...(screenshotPath ? { screenshotPath } : {}),
      ...(preview && preview.length <= MAX_PREVIEW_BASE64 ? { image: { data: preview, mimeType: "image/jpeg" } } : {}),
      ...(shot.note ? { note: shot.note } : {}),
    };
    const extra: Record<string, unknown> = {};
    if (screenshotPath) extra.screenshot_path = screenshotPath;
    if (shot.annotations) extra.annotations = shot.annotations;
    try {
      const { answer, model } = await askAboutImage(ctx, { data: shot.png, mimeType: "image/png" }, visionPrompt(question));
      const analysis = pageText(answer.trim()) || "Vision analysis returned no content.";
      return success({ analysis, ...extra, ...(shot.note ? { note: shot.note } : {}) }, { ...details, analysis, model });
    } catch (error) {
      if (isAbortError(error) || ctx.signal.aborted) throw error;
      const message = `Error during vision analysis: ${firstLine(error)}`;
      const notes = [shot.note, screenshotPath ? "Screenshot was captured but vision analysis failed; it is saved at screenshot_path." : undefined].filter(Boolean);
      return failure(message, { ...details, error: message }, { ...extra, ...(notes.length ? { note: notes.join(" ") } : {}) });
    }
  },
});
