import type { ToolSessionState } from "../session-state.js";

/**
 * The `ctx.state` slot of a session's browser, and what `/reset` needs of it, in a module that
 * loads nothing heavy (the browser itself lives in `browser-session.ts`, loaded on first use).
 */
export const BROWSER_STATE = Symbol("browser-session");

/** What `resetBrowserSession` calls on the slot's value. */
export interface ResettableBrowser {
  reset(): Promise<void>;
}

/**
 * For `/reset`: closes the session's browser, if one was ever started, and forgets its pages,
 * cookies, storage and console logs; the next browser call starts a fresh one. Never throws.
 */
export async function resetBrowserSession(state: ToolSessionState): Promise<void> {
  await state
    .peek<ResettableBrowser>(BROWSER_STATE)
    ?.reset()
    .catch(() => undefined);
}
