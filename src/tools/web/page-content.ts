/**
 * A downloaded resource as text for the model: HTML as markdown (`html-markdown.ts`), PDF as its
 * text (`pdf-text.ts`, also when the server mislabels it), text, JSON, XML and markdown as they
 * are. Anything else (images, archives, binaries) is refused with the media type named.
 */
import { htmlToMarkdown } from "./html-markdown.js";
import { looksLikePdf, pdfToText } from "./pdf-text.js";
import type { FetchedResource } from "./safe-fetch.js";

export interface PageText {
  title: string;
  content: string;
  kind: "html" | "pdf" | "text";
}

/** Rejects with an Error whose message says why the resource cannot be read as text; with an AbortError when `signal` fires. */
export async function resourceText(resource: FetchedResource, signal?: AbortSignal): Promise<PageText> {
  const type = resource.mediaType;
  if (type === "application/pdf" || looksLikePdf(resource.body)) {
    const pdf = await pdfToText(resource.body);
    return { title: pdf.title || fileName(resource.url), content: pdf.text, kind: "pdf" };
  }
  const html = type === "text/html" || type === "application/xhtml+xml" || (!type && /^\s*(<!doctype html|<html)/i.test(decode(resource.body.subarray(0, 512), "utf-8")));
  if (html) {
    const page = await htmlToMarkdown(decode(resource.body, resource.charset ?? sniffHtmlCharset(resource.body)), resource.url, signal ? { signal } : {});
    return { title: page.title, content: page.markdown, kind: "html" };
  }
  if (isTextual(type) || (!type && !hasBinaryBytes(resource.body))) {
    return { title: fileName(resource.url), content: decode(resource.body, resource.charset ?? "utf-8").trim(), kind: "text" };
  }
  throw new Error(`unsupported content type ${type || "(none)"}: only HTML pages, PDFs and text can be extracted`);
}

function isTextual(type: string): boolean {
  return type.startsWith("text/") || /^application\/([\w.+-]+\+)?(json|xml|javascript|x-yaml|yaml|toml|x-ndjson|markdown)$/.test(type);
}

/** Text in `charset` (a label TextDecoder knows, else UTF-8), BOM dropped. */
export function decode(body: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset.trim().toLowerCase()).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

/** The charset a page declares in its first 2 KB (`<meta charset>` or `http-equiv`), else UTF-8. */
function sniffHtmlCharset(body: Uint8Array): string {
  const head = new TextDecoder("latin1").decode(body.subarray(0, 2048));
  return /<meta[^>]+charset\s*=\s*["']?\s*([\w-]+)/i.exec(head)?.[1] ?? "utf-8";
}

function hasBinaryBytes(body: Uint8Array): boolean {
  const sample = body.subarray(0, 1024);
  return sample.includes(0);
}

/** The last path segment of a URL, decoded, for titling files without one. */
function fileName(url: string): string {
  try {
    const segment = new URL(url).pathname.split("/").filter(Boolean).pop() ?? "";
    return decodeURIComponent(segment);
  } catch {
    return "";
  }
}
