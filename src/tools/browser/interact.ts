import type { Locator, Page } from "playwright-core";
import { z } from "zod";
import { defineTool, type ToolResult } from "../types.js";
import { failure, oneLine, pageText, runBrowserTool, type BrowserOutcome } from "./common.js";
import type { BrowserClickDetails, BrowserPressDetails, BrowserScrollDetails, BrowserTypeDetails } from "./details.js";
import { badRefMessage, parseRef, refSelector, staleRefMessage } from "./refs.js";
import { refsAreCurrent } from "./snapshot.js";

/** Hermes scrolls ~500 px, about half a viewport. */
const SCROLL_PIXELS = 500;

const refParam = z.lazy(() => z.string().trim().min(1));

const clickParams = z.lazy(() => z.object({ ref: refParam.describe("Element ref, e.g. '@e5'") }));
export type BrowserClickArgs = z.infer<typeof clickParams>;

const typeParams = z.lazy(() => z.object({
  ref: refParam.describe("Element ref, e.g. '@e3'"),
  text: z.string(),
}));
export type BrowserTypeArgs = z.infer<typeof typeParams>;

const scrollParams = z.lazy(() => z.object({ direction: z.enum(["up", "down"]) }));
export type BrowserScrollArgs = z.infer<typeof scrollParams>;

const pressParams = z.lazy(() => z.object({ key: z.string().trim().min(1) }));
export type BrowserPressArgs = z.infer<typeof pressParams>;

/** The element holding ref `id`, or undefined when the page has none (any more) or is not the document the refs were given for. */
async function element(page: Page, id: string): Promise<Locator | undefined> {
  if (!(await refsAreCurrent(page))) return undefined;
  const target = page.locator(refSelector(id)).first();
  return (await target.count()) > 0 ? target : undefined;
}

function stale<D>(id: string, details: D): BrowserOutcome<D> {
  return { payload: { error: staleRefMessage(id) }, details, failed: true };
}

/** `browser_click`: clicks the element of a ref (Playwright waits until it can be clicked, up to the action timeout). */
export const browserClickTool = defineTool({
  name: "browser_click",
  description: "Click an element by its ref from the latest snapshot.",
  kind: "execute",
  mutating: true,
  params: clickParams,
  describe: (args) => ({ title: `browser: click @${parseRef(args.ref) ?? oneLine(args.ref, 20)}`, locations: [] }),
  async execute(args, ctx): Promise<ToolResult<BrowserClickDetails>> {
    const id = parseRef(args.ref);
    if (!id) return failure(badRefMessage(args.ref), { error: badRefMessage(args.ref), ref: args.ref });
    const ref = `@${id}`;
    return runBrowserTool<BrowserClickDetails>(
      ctx,
      { requirePage: true },
      async ({ page, settings }) => {
        const target = await element(page, id);
        if (!target) return stale(id, { error: staleRefMessage(id), ref });
        await target.click({ timeout: settings.actionTimeoutMs });
        return { payload: { clicked: ref }, details: { ref, url: page.url() } };
      },
      (error) => ({ error, ref }),
    );
  },
});

/**
 * `browser_type`: fills the element of a ref (cleared first, as agent-browser's `fill`); a
 * `<select>` gets the option whose value or label is `text`. The typed text is reported back
 * with secrets masked, and the editor sees only its length.
 */
export const browserTypeTool = defineTool({
  name: "browser_type",
  description: "Type text into a field by its ref (cleared first; a <select> gets the matching option).",
  kind: "execute",
  mutating: true,
  params: typeParams,
  describe: (args) => ({ title: `browser: type into @${parseRef(args.ref) ?? oneLine(args.ref, 20)}`, locations: [] }),
  async execute(args, ctx): Promise<ToolResult<BrowserTypeDetails>> {
    const id = parseRef(args.ref);
    if (!id) return failure(badRefMessage(args.ref), { error: badRefMessage(args.ref), ref: args.ref });
    const ref = `@${id}`;
    return runBrowserTool<BrowserTypeDetails>(
      ctx,
      { requirePage: true },
      async ({ page, settings }) => {
        const target = await element(page, id);
        if (!target) return stale(id, { error: staleRefMessage(id), ref });
        const tag = await target.evaluate((el: { localName: string }) => el.localName, undefined, { timeout: settings.actionTimeoutMs });
        if (tag === "select") await target.selectOption(args.text, { timeout: settings.actionTimeoutMs });
        else await target.fill(args.text, { timeout: settings.actionTimeoutMs });
        return { payload: { typed: pageText(args.text), element: ref }, details: { ref, chars: args.text.length, url: page.url() } };
      },
      (error) => ({ error, ref }),
    );
  },
});

/** `browser_scroll`: one wheel turn of ~500 px over the middle of the viewport. */
export const browserScrollTool = defineTool({
  name: "browser_scroll",
  description: "Scroll the page up or down by half a screen.",
  kind: "execute",
  mutating: true,
  params: scrollParams,
  describe: (args) => ({ title: `browser: scroll ${args.direction}`, locations: [] }),
  execute(args, ctx): Promise<ToolResult<BrowserScrollDetails>> {
    return runBrowserTool<BrowserScrollDetails>(
      ctx,
      { requirePage: true },
      async ({ page }) => {
        const viewport = page.viewportSize() ?? { width: 1280, height: 720 };
        await page.mouse.move(viewport.width / 2, viewport.height / 2);
        await page.mouse.wheel(0, args.direction === "down" ? SCROLL_PIXELS : -SCROLL_PIXELS);
        // Let the scroll land before anything reads the page.
        await page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(undefined))))");
        return { payload: { scrolled: args.direction }, details: { direction: args.direction, url: page.url() } };
      },
      (error) => ({ error }),
    );
  },
});

/** `browser_press`: one key (or chord) on whatever has focus. */
export const browserPressTool = defineTool({
  name: "browser_press",
  description: "Press a key: Enter, Tab, Escape, ArrowDown, Control+A…",
  kind: "execute",
  mutating: true,
  params: pressParams,
  describe: (args) => ({ title: `browser: press ${oneLine(args.key, 30)}`, locations: [] }),
  execute(args, ctx): Promise<ToolResult<BrowserPressDetails>> {
    return runBrowserTool<BrowserPressDetails>(
      ctx,
      { requirePage: true },
      async ({ page }) => {
        await page.keyboard.press(args.key);
        return { payload: { pressed: args.key }, details: { key: args.key, url: page.url() } };
      },
      (error) => ({ error }),
    );
  },
});
