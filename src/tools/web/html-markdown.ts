/**
 * An HTML page as markdown: the main content picked by Mozilla's Readability (the Firefox reader
 * view) on a DOM built by linkedom, converted by turndown. Navigation, sidebars, ads, footers and
 * scripts do not survive Readability; when it finds no article (a listing, a short page) the body
 * is converted with the usual boilerplate elements removed instead. Links and images are made
 * absolute against the page's URL; inline `data:` images are dropped (Hermes' base64 cleaning).
 *
 * The conversion runs on a worker thread (`html-convert-worker.ts`), one per page, under a time
 * and memory limit: the page is hostile input, and the libraries' time on some pages grows much
 * faster than their size (entity-heavy text, thousands of `<br>`), which on this thread would
 * hold every session's event loop for minutes. The libraries are never loaded at start-up.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { abortError } from "../../shared/abort.js";
import { HTML_CONVERT_WORKER } from "./html-convert-worker.js";

export interface MarkdownPage {
  title: string;
  markdown: string;
  /** True when Readability found the article; false when the whole body was converted. */
  article: boolean;
}

export interface ConvertOptions {
  /** Cancels the conversion (rejects with an AbortError). */
  signal?: AbortSignal;
  /** Longest a conversion may take; DEFAULT_CONVERT_TIMEOUT_MS by default. */
  timeoutMs?: number;
}

/** Longest one page's conversion may take. */
export const DEFAULT_CONVERT_TIMEOUT_MS = 30_000;
/** Heap of the converting worker, in MB (a 10 MB page's DOM fits several times over). */
const WORKER_HEAP_MB = 1024;

type ModulePaths = { linkedom: string; readability: string; turndown: string };
let modulePaths: ModulePaths | undefined;
/** Settles when the conversion running now is done (see `htmlToMarkdown`). */
let turn: Promise<void> = Promise.resolve();

/** The libraries' resolved paths, from the running file (as `loadPackage` resolves them). Throws when one is missing. */
function libraries(): ModulePaths {
  if (!modulePaths) {
    const require = createRequire(import.meta.url);
    modulePaths = { linkedom: require.resolve("linkedom"), readability: require.resolve("@mozilla/readability"), turndown: require.resolve("turndown") };
  }
  return modulePaths;
}

/** Finds the libraries without converting anything (for measuring first use). */
export async function preloadHtmlLibraries(): Promise<void> {
  libraries();
}

/**
 * `html` (from `pageUrl`) as markdown. Rejects with an Error saying why when the libraries fail
 * on the page, it takes longer than `timeoutMs` or needs more memory than the worker has; with an
 * AbortError when `signal` fires. Never blocks the event loop on the page; conversions run one
 * at a time (the time limit counts from a conversion's start).
 */
export async function htmlToMarkdown(html: string, pageUrl: string, options: ConvertOptions = {}): Promise<MarkdownPage> {
  const { signal } = options;
  if (signal?.aborted) throw abortError();
  const modules = libraries();
  // One conversion at a time, as on this thread before: five pages may arrive together, and each DOM can take hundreds of MB.
  const previous = turn;
  let release = (): void => undefined;
  turn = new Promise<void>((resolve) => (release = resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(abortError());
      signal?.addEventListener("abort", onAbort, { once: true });
      void previous.then(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
    });
    return await convert(html, pageUrl, modules, options);
  } finally {
    // A caller cancelled while waiting hands its turn on only once the one before it is done.
    void previous.then(release);
  }
}

async function convert(html: string, pageUrl: string, modules: ModulePaths, options: ConvertOptions): Promise<MarkdownPage> {
  const { signal } = options;
  if (signal?.aborted) throw abortError();
  const timeoutMs = options.timeoutMs ?? DEFAULT_CONVERT_TIMEOUT_MS;
  const worker = new Worker(HTML_CONVERT_WORKER, { eval: true, workerData: { html, pageUrl, modules }, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const page = await new Promise<{ title: string; markdown: string; article: boolean }>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`the page took longer than ${Math.round(timeoutMs / 1000)} s to convert`)), timeoutMs);
      onAbort = () => reject(abortError());
      signal?.addEventListener("abort", onAbort, { once: true });
      worker.once("message", (answer: { ok: true; page: MarkdownPage } | { ok: false; message: string }) => {
        if (answer.ok) resolve(answer.page);
        else reject(new Error(answer.message));
      });
      worker.once("error", (error: Error & { code?: string }) => {
        reject(new Error(error.code === "ERR_WORKER_OUT_OF_MEMORY" ? "the page needs too much memory to convert" : error.message.split("\n")[0]));
      });
      worker.once("exit", (code) => reject(new Error(`the converter stopped (exit code ${code})`)));
    });
    return { title: String(page.title), markdown: tidy(String(page.markdown)), article: page.article === true };
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    void worker.terminate();
  }
}

/**
 * Inline base64 images replaced by a marker, as Hermes cleans every extracted page (they are
 * large and say nothing to the model). For pages from backends too.
 */
export function stripBase64Images(text: string): string {
  // The media subtype is bounded: an open-ended one made a page of `data:image/` repeated take quadratic time.
  return text
    .replace(/\(data:image\/[\w.+-]{1,100};base64,[A-Za-z0-9+/=]+\)/g, "([BASE64_IMAGE_REMOVED])")
    .replace(/data:image\/[\w.+-]{1,100};base64,[A-Za-z0-9+/=]+/g, "[BASE64_IMAGE_REMOVED]");
}

/** Markdown with runs of blank lines collapsed, trailing spaces and leftover base64 images removed. */
export function tidy(markdown: string): string {
  return (
    stripBase64Images(markdown)
      // Anchored after a non-blank: `/[ \t]+$/` alone retries at every blank of a long run (quadratic).
      .replace(/(?<![ \t])[ \t]+$/gm, "")
      .replace(/\n{3,}/g, "\n\n")
      .trim()
  );
}
