/** A browser failure the model can act on; its message is what the model reads. */
export class BrowserUsageError extends Error {
  override readonly name = "BrowserUsageError";
}

/** The first line of an error's message, without Playwright's `page.goto: ` prefix and call log. */
export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split("\n")[0] ?? text).replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, "").trim();
}

/** Whether Playwright says the browser (or its page) is gone: the action hit a dead browser. */
export function isBrowserClosedError(error: unknown): boolean {
  return /Target page, context or browser has been closed|Browser has been closed|Target closed|has been disconnected/i.test(String(error));
}
