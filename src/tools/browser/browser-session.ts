/**
 * One session's browser: started on first use (playwright-core loaded then, never before), one
 * Chromium process with one context behind its own policy proxy, nothing shared with any other
 * session. Actions run one at a time. A browser that died (crashed, killed) is noticed, and the
 * next call starts a new one and says so; an idle one is closed after `browser.inactivity_timeout`.
 * Disposal (session close, process exit through the session's disposal) and `reset` (`/reset`)
 * close the browser and never throw.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { abortError, throwIfAborted } from "../../shared/abort.js";
import type { Resolver } from "../web/url-policy.js";
import { systemResolver } from "../web/url-policy.js";
import type { DisposableState, ToolSessionState } from "../session-state.js";
import type { ToolContext } from "../types.js";
import { BrowserUsageError, firstLine, isBrowserClosedError } from "./errors.js";
import { findBrowserExecutable } from "./executable.js";
import { launchBrowser } from "./launch.js";
import { PolicyProxy, type ProxyRefusal } from "./policy-proxy.js";
import { vetBrowserUrl, type BrowserUrlPolicy, type BrowserVetResult } from "./request-policy.js";
import { browserSettings, type BrowserSettings } from "./settings.js";
import { BROWSER_STATE, type ResettableBrowser } from "./state.js";

export interface ConsoleEntry {
  type: string;
  text: string;
}

/** Most console messages, page errors and blocked requests kept (the oldest go first). */
const MAX_ENTRIES = 500;
/** Tabs named in one result's note; a page opening more is summed up (a pop-up loop must not flood the model's context). */
const MAX_POPUP_NOTES = 3;
/** Longest console message or error kept. */
const MAX_ENTRY_TEXT = 2_000;
/** How long a URL-policy verdict for a host is reused by the proxy. */
const VERDICT_TTL_MS = 5_000;
/** Longest wait for a browser to close before it is left to Playwright's exit hook. */
const CLOSE_WAIT_MS = 10_000;

export const NO_PAGE_MESSAGE = "No page is open: call browser_navigate first.";
const CRASH_NOTE = "The browser had stopped (it crashed or was closed) and was started again: earlier pages, cookies and element refs are gone.";
const STUCK_NOTE = "The browser was restarted after a page stopped responding: earlier pages, cookies and element refs are gone.";
const DIED_MESSAGE = "The browser stopped while running this action (it crashed or was killed); the next browser call starts a new one.";

interface Live {
  browser: Browser;
  context: BrowserContext;
  proxy: PolicyProxy;
  closing: boolean;
}

export interface RunOptions {
  /** Refuse (without starting a browser) when nothing was ever opened in this session. */
  requirePage?: boolean;
  /**
   * When the browser turns out to be dead only once the action runs (it died unnoticed), start a
   * new one and run the action again (for actions that start from nothing: navigation).
   */
  restartable?: boolean;
}

/** What an action gets: the current page, the session's settings, and a note to pass on (once). */
export interface ActionScope {
  page: Page;
  settings: BrowserSettings;
  note: string | undefined;
}

export class BrowserSession implements DisposableState, ResettableBrowser {
  private live: Live | undefined;
  private starting: Promise<Live> | undefined;
  private queue: Promise<void> = Promise.resolve();
  private active = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  private used = false;
  private pending: string[] = [];
  /** Tabs pages opened since the notes were last taken (only the first few are named). */
  private popups = 0;
  private page: Page | undefined;
  private policy: BrowserUrlPolicy | undefined;
  private readonly verdicts = new Map<string, { at: number; result: BrowserVetResult }>();
  private readonly adopted = new WeakSet<Page>();
  readonly messages: ConsoleEntry[] = [];
  readonly errors: string[] = [];
  /** Every refusal of the proxy, the browser's own background requests included (see `pageRefusals`). */
  readonly blocked: ProxyRefusal[] = [];
  /** Total refusals so far (an action compares before and after to find its own). */
  blockedCount = 0;
  /** Origins pages asked for (Playwright's request events), to tell their refusals from Chromium's own traffic. */
  private readonly pageOrigins = new Set<string>();

  constructor(private readonly resolve: Resolver = systemResolver) {}

  /**
   * Runs `action` on the session's page once every earlier action has finished, starting the
   * browser first when needed. Rejects with BrowserUsageError for what the model can fix (no page
   * yet, no browser installed, the browser died mid-action, the page stopped responding),
   * Playwright's error for a failed action, or an AbortError as soon as `ctx.signal` fires (the
   * action itself is left to finish or time out; the next one waits for it). Every action is
   * bounded (`actionDeadlineMs`): Playwright's own timeouts do not cover scripts run in the page,
   * which never return while the page's main thread is kept busy, so past the deadline the browser
   * is restarted and the action fails.
   */
  run<T>(ctx: ToolContext, action: (scope: ActionScope) => Promise<T>, options: RunOptions = {}): Promise<T> {
    throwIfAborted(ctx.signal);
    const task = this.queue.then(() => this.runNow(ctx, action, options));
    this.queue = task.then(
      () => undefined,
      () => undefined,
    );
    return raceAbort(task, ctx.signal);
  }

  /** Closes the browser and forgets the session's pages and logs; the next call starts afresh. Never throws. */
  async reset(): Promise<void> {
    this.used = false;
    this.messages.length = 0;
    this.errors.length = 0;
    this.blocked.length = 0;
    this.pageOrigins.clear();
    await this.closeLive();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.closeLive();
  }

  /** Notes that came up while the last action ran (a tab it opened), for its result; each is given once. */
  takeNotes(): string | undefined {
    if (this.popups > MAX_POPUP_NOTES) this.pending.push(`(${this.popups - MAX_POPUP_NOTES} more tabs were opened; browser tools act on the newest.)`);
    const note = this.pending.length ? this.pending.join(" ") : undefined;
    this.pending = [];
    this.popups = 0;
    return note;
  }

  private async runNow<T>(ctx: ToolContext, action: (scope: ActionScope) => Promise<T>, options: RunOptions): Promise<T> {
    clearTimeout(this.idleTimer);
    this.active++;
    const settings = browserSettings(ctx.config);
    this.policy = settings.policy;
    try {
      if (this.disposed) throw new BrowserUsageError("The session is closing; the browser is not available.");
      if (options.requirePage && !this.used) throw new BrowserUsageError(NO_PAGE_MESSAGE);
      for (let attempt = 0; ; attempt++) {
        const live = await this.ensureLive(settings);
        try {
          const page = await this.currentPage(live);
          return await this.bounded(live, action({ page, settings, note: this.takeNotes() }), actionDeadlineMs(settings, options));
        } catch (error) {
          const died = !live.closing && (!live.browser.isConnected() || isBrowserClosedError(error));
          if (!died) throw error;
          this.forget(live, CRASH_NOTE);
          if (!options.restartable || attempt > 0) throw new BrowserUsageError(DIED_MESSAGE);
        }
      }
    } finally {
      this.active--;
      this.scheduleIdle(settings.idleCloseMs);
    }
  }

  /**
   * `work`, or — when it has not settled within `ms` — a BrowserUsageError after the browser is
   * dropped (and closed in the background), so the next action starts a fresh one instead of
   * waiting behind a page that never answers. The whole browser goes, not just the page: pages
   * of one site share a renderer, which a page that keeps its main thread busy holds for all.
   */
  private async bounded<T>(live: Live, work: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<"expired">((resolve) => {
      timer = setTimeout(() => resolve("expired"), ms);
    });
    try {
      const outcome = await Promise.race([work.then((value) => ({ value })), expired]);
      if (outcome !== "expired") return outcome.value;
    } finally {
      clearTimeout(timer);
    }
    work.catch(() => undefined);
    this.forget(live, STUCK_NOTE);
    void this.close(live);
    throw new BrowserUsageError(`The page stopped responding (its scripts kept it busy for more than ${Math.round(ms / 1000)} s), so the browser was closed; the next browser call starts a fresh one: navigate again.`);
  }

  private async ensureLive(settings: BrowserSettings): Promise<Live> {
    if (this.live && this.live.browser.isConnected()) return this.live;
    if (this.live) this.forget(this.live, CRASH_NOTE);
    this.starting ??= this.start(settings).finally(() => {
      this.starting = undefined;
    });
    const live = await this.starting;
    if (this.disposed) {
      await this.close(live);
      throw new BrowserUsageError("The session is closing; the browser is not available.");
    }
    return live;
  }

  private async start(settings: BrowserSettings): Promise<Live> {
    const executable = findBrowserExecutable(settings.executablePath, process.env);
    if (!executable.ok) throw new BrowserUsageError(`The browser tools ${executable.reason}.`);
    const proxy = await PolicyProxy.start(
      (url) => this.check(url),
      (refusal) => this.recordBlocked(refusal),
    );
    let launched: { browser: Browser; context: BrowserContext };
    try {
      launched = await launchBrowser({ executablePath: executable.path, headless: settings.headless, proxyUrl: proxy.url, timeoutMs: settings.navigationTimeoutMs });
    } catch (error) {
      await proxy.close();
      throw new BrowserUsageError(`Could not start the browser (${executable.path}): ${firstLine(error)}`);
    }
    const live: Live = { ...launched, proxy, closing: false };
    live.browser.on("disconnected", () => {
      if (this.live === live && !live.closing) this.forget(live, CRASH_NOTE);
    });
    live.context.on("page", (page) => this.adopt(page, true));
    live.context.on("request", (request) => {
      if (this.pageOrigins.size > 2_000) this.pageOrigins.clear();
      this.pageOrigins.add(originOf(request.url()));
    });
    this.live = live;
    this.used = true;
    this.page = undefined;
    return live;
  }

  /** The page actions act on: the newest open one, or a new blank one. */
  private async currentPage(live: Live): Promise<Page> {
    if (this.page && !this.page.isClosed()) return this.page;
    const open = live.context.pages().filter((page) => !page.isClosed());
    const page = open.at(-1) ?? (await live.context.newPage());
    this.adopt(page, false);
    return page;
  }

  /** Listens to a page's console, errors and dialogs, and makes it the current page. */
  private adopt(page: Page, popup: boolean): void {
    if (this.page === page) return;
    if (!this.adopted.has(page)) {
      this.adopted.add(page);
      page.on("console", (message) => push(this.messages, { type: message.type(), text: clip(message.text()) }));
      page.on("pageerror", (error) => push(this.errors, clip(error.message || String(error))));
      page.on("dialog", (dialog) => {
        push(this.messages, { type: "dialog", text: clip(`${dialog.type()}: ${dialog.message()}`) });
        const answer = dialog.type() === "alert" || dialog.type() === "beforeunload" ? dialog.accept() : dialog.dismiss();
        answer.catch(() => undefined);
      });
      page.on("crash", () => {
        if (this.page === page) {
          this.page = undefined;
          this.pending.push("The page crashed and was replaced by a blank one; navigate again.");
        }
      });
      page.on("close", () => {
        if (this.page === page) this.page = undefined;
      });
    }
    if (popup && this.page && ++this.popups <= MAX_POPUP_NOTES) this.pending.push(`The page opened a new tab (${clip(page.url() || "about:blank")}); browser tools now act on it.`);
    this.page = page;
  }

  /** The URL-policy verdict for a URL the browser wants, cached per scheme and host for a few seconds. */
  private async check(url: URL): Promise<BrowserVetResult> {
    const policy = this.policy;
    if (!policy) return { ok: false, kind: "invalid", reason: "Blocked: the browser has no URL policy yet" };
    const key = `${url.protocol}//${url.host}`;
    const cached = this.verdicts.get(key);
    if (cached && Date.now() - cached.at < VERDICT_TTL_MS) return cached.result;
    const result = await vetBrowserUrl(url, policy, this.resolve);
    if (this.verdicts.size > 500) this.verdicts.clear();
    this.verdicts.set(key, { at: Date.now(), result });
    return result;
  }

  /**
   * The refusals of requests pages made (Chromium's own update, sign-in and autofill traffic goes
   * through the proxy too, and is left out), optionally only those after the `since`-th refusal.
   */
  pageRefusals(since = 0): ProxyRefusal[] {
    const added = Math.min(this.blockedCount - since, this.blocked.length);
    const recent = added > 0 ? this.blocked.slice(-added) : [];
    return recent.filter((refusal) => this.pageOrigins.has(originOf(refusal.url)));
  }

  /** Forgets the recorded refusals. */
  clearRefusals(): void {
    this.blocked.length = 0;
  }

  private recordBlocked(refusal: ProxyRefusal): void {
    this.blockedCount++;
    push(this.blocked, { url: clip(refusal.url), reason: refusal.reason });
  }

  private scheduleIdle(ms: number): void {
    clearTimeout(this.idleTimer);
    if (ms <= 0 || !this.live || this.active > 0 || this.disposed) return;
    this.idleTimer = setTimeout(() => {
      if (this.active > 0 || !this.live) return;
      const live = this.live;
      this.forget(live, `The browser was closed after ${Math.round(ms / 1000)} s without use and started again: earlier pages and element refs are gone.`);
      void this.close(live);
    }, ms);
    this.idleTimer.unref();
  }

  /** Drops `live` as the session's browser, remembering `note` for the next call. */
  private forget(live: Live, note: string): void {
    if (this.live !== live) return;
    this.live = undefined;
    this.page = undefined;
    this.verdicts.clear();
    if (!this.disposed) this.pending.push(note);
    void live.proxy.close();
  }

  private async closeLive(): Promise<void> {
    clearTimeout(this.idleTimer);
    const starting = this.starting;
    if (starting) await starting.then((live) => this.close(live)).catch(() => undefined);
    const live = this.live;
    this.live = undefined;
    this.page = undefined;
    this.pending = [];
    this.popups = 0;
    if (live) await this.close(live);
  }

  private async close(live: Live): Promise<void> {
    live.closing = true;
    if (this.live === live) this.live = undefined;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
      timer.unref();
    });
    await Promise.race([live.browser.close().catch(() => undefined), waited]);
    clearTimeout(timer);
    await live.proxy.close();
  }
}

/**
 * How long one action may take in all: generous multiples of the configured timeouts (a
 * navigation may wait for load twice, then snapshot; other tools make a few bounded calls), so
 * it only ends actions that Playwright's own timeouts cannot.
 */
function actionDeadlineMs(settings: BrowserSettings, options: RunOptions): number {
  return options.restartable ? 2 * (settings.navigationTimeoutMs + settings.actionTimeoutMs) : 3 * settings.actionTimeoutMs;
}

/** The session's browser (created, not started, on first use). */
export function browserSessionOf(state: ToolSessionState): BrowserSession {
  return state.get(BROWSER_STATE, () => new BrowserSession());
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function push<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > MAX_ENTRIES) list.splice(0, list.length - MAX_ENTRIES);
}

function clip(text: string): string {
  return text.length > MAX_ENTRY_TEXT ? `${text.slice(0, MAX_ENTRY_TEXT - 1)}…` : text;
}

/** `task`, or an AbortError as soon as `signal` fires (`task` keeps running). */
function raceAbort<T>(task: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError());
    signal.addEventListener("abort", onAbort, { once: true });
    task.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
