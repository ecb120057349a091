import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JSHandle, Page } from "playwright-core";
import { SNAPSHOT_MAX_ELEMENTS, SNAPSHOT_SCRIPT } from "./page-scripts.js";
import { formatSnapshot, SNAPSHOT_CHAR_LIMIT, truncateSnapshot } from "./snapshot-format.js";
import { pageText } from "./common.js";

/** Hermes' MAX_STORED_SNAPSHOT_CHARS: the stored whole snapshot is cut beyond this. */
const MAX_STORED_CHARS = 2_000_000;

export interface TakenSnapshot {
  /** What the model gets: redacted, cut at 15,000 chars with a note. */
  text: string;
  /** Elements that got a ref. */
  elementCount: number;
  truncated: boolean;
  /** Where the whole (redacted) snapshot was saved when it was cut. */
  storedPath?: string;
}

/**
 * Snapshots `page` (see `page-scripts.ts` and `snapshot-format.ts`): renumbers the refs, formats
 * the tree, masks secrets, and when the text is over 15,000 chars saves it whole to
 * `$HERMES_HOME/cache/web/browser-snapshot-<hash>.txt` (best effort) and cuts it with a pointer
 * there. Retries once when a navigation destroyed the page's context mid-walk. Rejects with
 * Playwright's error when the page cannot be read.
 */
export async function takeSnapshot(page: Page, full: boolean, hermesHome: string): Promise<TakenSnapshot> {
  const raw = await walk(page).catch(async (error: unknown) => {
    if (!/context was destroyed|navigat/i.test(String(error))) throw error;
    await page.waitForLoadState("domcontentloaded").catch(() => undefined);
    return walk(page);
  });
  const result = raw && typeof raw === "object" ? (raw as { children?: unknown; refs?: unknown; truncated?: unknown }) : {};
  let text = formatSnapshot(result.children, { full });
  if (result.truncated === true) text += `\n[... the page has more than ${SNAPSHOT_MAX_ELEMENTS.toLocaleString("en-US")} elements; the rest is not shown]`;
  text = pageText(text || "(the page shows no content)");
  const elementCount = typeof result.refs === "number" && Number.isFinite(result.refs) ? result.refs : 0;
  if (text.length <= SNAPSHOT_CHAR_LIMIT) return { text, elementCount, truncated: false };
  const storedPath = storeFullSnapshot(text, hermesHome);
  const cut = truncateSnapshot(text, SNAPSHOT_CHAR_LIMIT, storedPath);
  return { text: cut.text, elementCount, truncated: true, ...(storedPath ? { storedPath } : {}) };
}

/**
 * The document each page's latest snapshot numbered. Refs are DOM attributes a page can set
 * itself, so they count only while that document is still the page's: after a navigation (the
 * page's own included) the handle's context is gone, and a page that prepared `data-hermes-ref`
 * attributes of its own cannot have its elements clicked for refs it never showed.
 */
const snapshotDocuments = new WeakMap<Page, JSHandle>();

/** True when the page's document is the one its latest snapshot numbered (refs may be used). Never throws. */
export async function refsAreCurrent(page: Page): Promise<boolean> {
  const document = snapshotDocuments.get(page);
  if (!document) return false;
  try {
    return (await document.evaluate((numbered: unknown) => numbered === (globalThis as { document?: unknown }).document)) === true;
  } catch {
    return false;
  }
}

async function walk(page: Page): Promise<unknown> {
  // The document first: if the page navigates mid-walk, the refs are stale rather than pointing into the new page.
  const document = await page.evaluateHandle("document");
  let result: unknown;
  try {
    result = await page.evaluate(`(${SNAPSHOT_SCRIPT})(${JSON.stringify({ maxElements: SNAPSHOT_MAX_ELEMENTS })})`);
  } catch (error) {
    await document.dispose().catch(() => undefined);
    throw error;
  }
  const previous = snapshotDocuments.get(page);
  snapshotDocuments.set(page, document);
  if (previous) await previous.dispose().catch(() => undefined);
  return result;
}

/** Saves a whole snapshot for `read_file` paging; the name is its content hash, so repeats share a file. */
function storeFullSnapshot(text: string, hermesHome: string): string | undefined {
  try {
    const content = text.length > MAX_STORED_CHARS ? `${text.slice(0, MAX_STORED_CHARS)}\n\n[... stored copy truncated at ${MAX_STORED_CHARS.toLocaleString("en-US")} chars of ${text.length.toLocaleString("en-US")} ...]` : text;
    const dir = join(hermesHome, "cache", "web");
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `browser-snapshot-${createHash("sha256").update(content).digest("hex").slice(0, 10)}.txt`);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  } catch {
    return undefined;
  }
}
