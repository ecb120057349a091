import type { Page } from "playwright-core";
import { z } from "zod";
import { defineTool, type ToolContext, type ToolResult } from "../types.js";
import type { ActionScope, BrowserSession } from "./browser-session.js";
import { firstLine, isBrowserClosedError } from "./errors.js";
import { failure, runBrowserTool, shortUrl, type BrowserOutcome } from "./common.js";
import { SNAPSHOT_PREVIEW_CHARS, type BrowserBackDetails, type BrowserNavigateDetails } from "./details.js";
import { normalizeNavigationUrl, urlSecretReason, vetBrowserUrl } from "./request-policy.js";
import { browserSettings } from "./settings.js";
import { takeSnapshot } from "./snapshot.js";

/** Hermes' title patterns that suggest the site blocked an automated browser. */
const BOT_PATTERNS = ["access denied", "access to this page has been denied", "blocked", "bot detected", "verification required", "please verify", "are you a robot", "captcha", "cloudflare", "ddos protection", "checking your browser", "just a moment", "attention required"];

const navigateParams = z.lazy(() => z.object({
  url: z.string().trim().min(1).describe("e.g. 'https://example.com' or 'localhost:3000'"),
}));
export type BrowserNavigateArgs = z.infer<typeof navigateParams>;

const backParams = z.lazy(() => z.object({}));
export type BrowserBackArgs = z.infer<typeof backParams>;

/**
 * Why the page at `url` (where a navigation ended up) must not be shown: refused by the URL policy
 * itself, or answered by the proxy's refusal page for it. Undefined when it may be shown.
 */
async function landingRefusal(scope: ActionScope & { session: BrowserSession }, requested: string, before: number): Promise<string | undefined> {
  const url = scope.page.url();
  if (!/^https?:/i.test(url)) return undefined;
  const blocked = newRefusals(scope.session, before).find((refusal) => refusal.url === url);
  if (blocked) return blocked.reason;
  if (url === requested) return undefined;
  const verdict = await vetBrowserUrl(url, scope.settings.policy);
  return verdict.ok ? undefined : verdict.reason;
}

function newRefusals(session: BrowserSession, before: number): ReturnType<BrowserSession["pageRefusals"]> {
  return session.pageRefusals(before);
}

/** A refusal's reason without its own `Blocked: `, to nest in another message. */
function detail(reason: string): string {
  return reason.replace(/^Blocked: /, "");
}

async function leave(page: Page): Promise<void> {
  await page.goto("about:blank").catch(() => undefined);
}

/** Loads `url` in the page; what the model gets back (Hermes' shape, with a compact snapshot). */
async function open(scope: ActionScope & { session: BrowserSession }, url: string, ctx: ToolContext): Promise<BrowserOutcome<BrowserNavigateDetails>> {
  const { page, settings, session } = scope;
  const before = session.blockedCount;
  let loadNote: string | undefined;
  try {
    await page.goto(url, { waitUntil: "load", timeout: settings.navigationTimeoutMs }).catch(async (error: unknown) => {
      // A navigation the page was still making (a submitted form, a click) got in the way: once more.
      if (!/interrupted by another navigation|ERR_ABORTED/i.test(String(error))) throw error;
      await page.waitForLoadState("load", { timeout: settings.actionTimeoutMs }).catch(() => undefined);
      return page.goto(url, { waitUntil: "load", timeout: settings.navigationTimeoutMs });
    });
  } catch (error) {
    if (isBrowserClosedError(error)) throw error;
    const message = firstLine(error);
    const blocked = newRefusals(session, before).at(-1);
    if (blocked && /ERR_TUNNEL_CONNECTION_FAILED|ERR_BLOCKED|ERR_ABORTED/.test(message)) {
      return failed(`Blocked: the navigation was redirected to a refused address (${detail(blocked.reason)})`);
    }
    const timedOut = error instanceof Error && error.name === "TimeoutError" && page.url() !== "about:blank";
    if (!timedOut) return failed(`Navigation failed: ${message}`);
    loadNote = `The page was still loading after ${Math.round(settings.navigationTimeoutMs / 1000)} s; this is what had loaded.`;
  }
  const refusal = await landingRefusal(scope, url, before);
  if (refusal) {
    await leave(page);
    return failed(page.url() === url ? refusal : `Blocked: redirect landed on a refused address (${detail(refusal)})`);
  }
  const finalUrl = page.url();
  const title = await page.title().catch(() => "");
  const payload: Record<string, unknown> = { url: finalUrl, title };
  const lowered = title.toLowerCase();
  if (BOT_PATTERNS.some((pattern) => lowered.includes(pattern))) {
    payload.bot_detection_warning = `Page title '${title}' suggests bot detection. The site may have blocked this request. Options: 1) Try adding delays between actions, 2) Access different pages first, 3) Some sites have very aggressive bot detection that may be unavoidable.`;
  }
  const blocked = newRefusals(session, before);
  if (blocked.length) payload.blocked_requests = blocked.slice(-10);
  if (loadNote) payload.warning = loadNote;
  const details: BrowserNavigateDetails = { url: finalUrl, title, elementCount: 0 };
  try {
    const snapshot = await takeSnapshot(page, false, ctx.hermesHome);
    payload.snapshot = snapshot.text;
    payload.element_count = snapshot.elementCount;
    Object.assign(details, {
      elementCount: snapshot.elementCount,
      preview: snapshot.text.slice(0, SNAPSHOT_PREVIEW_CHARS),
      ...(snapshot.truncated ? { truncated: true } : {}),
      ...(snapshot.storedPath ? { storedPath: snapshot.storedPath } : {}),
    });
  } catch {
    // Hermes: a failed auto-snapshot leaves the navigation's result as it is
  }
  return { payload, details };

  function failed(error: string): BrowserOutcome<BrowserNavigateDetails> {
    return { payload: { error }, details: { error, url }, failed: true };
  }
}

/**
 * `browser_navigate`: the URL is checked before anything starts (secrets in it, the URL policy),
 * then loaded (waiting for `load`, up to the navigation timeout); where it ended up is checked
 * again (redirects), and a refused landing page is left for `about:blank`. Returns Hermes'
 * `{success, url, title, snapshot, element_count}` plus `blocked_requests` when the page's own
 * requests were refused.
 */
export const browserNavigateTool = defineTool({
  name: "browser_navigate",
  description:
    "Open a URL in the browser (headless Chromium); call it before the other browser tools. For plain reading prefer web_extract; " +
    "use the browser to interact with pages (click, fill forms, JavaScript apps) or to check a dev server on localhost. " +
    "Returns url, title and a compact snapshot with element refs (@e1…).",
  kind: "fetch",
  mutating: true,
  params: navigateParams,
  describe: (args) => ({ title: `browser: navigate ${shortUrl(normalizeNavigationUrl(args.url))}`, locations: [] }),
  async execute(args, ctx): Promise<ToolResult<BrowserNavigateDetails>> {
    const url = normalizeNavigationUrl(args.url);
    const secret = urlSecretReason(url);
    if (secret) return failure(secret, { error: secret, url });
    const verdict = await vetBrowserUrl(url, browserSettings(ctx.config).policy);
    if (!verdict.ok) return failure(verdict.reason, { error: verdict.reason, url });
    return runBrowserTool(ctx, { restartable: true }, (scope) => open(scope, verdict.url.href, ctx), (error) => ({ error, url }));
  },
});

/** `browser_back`: one step back in the tab's history, checked like a navigation. */
export const browserBackTool = defineTool({
  name: "browser_back",
  description: "Go back to the previous page.",
  kind: "fetch",
  mutating: true,
  params: backParams,
  describe: () => ({ title: "browser: back", locations: [] }),
  execute(_args, ctx): Promise<ToolResult<BrowserBackDetails>> {
    return runBrowserTool<BrowserBackDetails>(
      ctx,
      { requirePage: true },
      async (scope) => {
        const before = scope.session.blockedCount;
        const from = scope.page.url();
        const response = await scope.page.goBack({ waitUntil: "load", timeout: scope.settings.navigationTimeoutMs });
        if (!response && scope.page.url() === from) {
          const error = "Could not go back: there is no previous page in this tab's history.";
          return { payload: { error }, details: { error }, failed: true };
        }
        const refusal = await landingRefusal(scope, "", before);
        if (refusal) {
          await leave(scope.page);
          const error = `Blocked: going back landed on a refused address (${detail(refusal)})`;
          return { payload: { error }, details: { error }, failed: true };
        }
        const url = scope.page.url();
        const title = await scope.page.title().catch(() => "");
        return { payload: { url }, details: { url, title } };
      },
      (error) => ({ error }),
    );
  },
});
