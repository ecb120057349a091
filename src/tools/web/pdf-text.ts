/**
 * A PDF's text, page by page, with pdf.js through `unpdf` (its dependency-free serverless build
 * of pdf.js: no canvas, no worker, nothing downloaded at install or run time; ~2.3 MB installed).
 * Chosen over `pdfjs-dist` (37 MB, plus a 33 MB native canvas as an optional dependency, and
 * Node ≥ 22 from 6.x) and `pdf-parse` (2.x pulls both of those; 1.x bundles a 2018 pdf.js and is
 * unmaintained). `unpdf` is pinned to 1.7.x: 1.8 declares Node ≥ 22; 1.7's pdf.js 5.6 runs on
 * Node 20.19+. Font programs are never evaluated (`isEvalSupported: false`).
 *
 * The library loads on first call (`loadPackage`; it then imports its pdf.js build itself).
 * Throws an Error with a readable message for a password-protected or damaged file.
 */
import { loadPackage } from "./load-package.js";

export interface PdfText {
  title: string;
  /** Pages joined by blank lines. */
  text: string;
  pages: number;
}

type Unpdf = typeof import("unpdf");
let unpdf: Unpdf | undefined;

async function load(): Promise<Unpdf> {
  unpdf ??= loadPackage<Unpdf>("unpdf");
  return unpdf;
}

/** True when `body` starts like a PDF file, whatever the server said it is. */
export function looksLikePdf(body: Uint8Array): boolean {
  return body.length > 4 && body[0] === 0x25 && body[1] === 0x50 && body[2] === 0x44 && body[3] === 0x46 && body[4] === 0x2d;
}

export async function pdfToText(body: Uint8Array): Promise<PdfText> {
  const { getDocumentProxy, extractText, getMeta } = await load();
  let pdf: Awaited<ReturnType<Unpdf["getDocumentProxy"]>>;
  try {
    pdf = await getDocumentProxy(new Uint8Array(body), { isEvalSupported: false, useSystemFonts: false, disableFontFace: true, verbosity: 0 });
  } catch (error) {
    const name = (error as Error).name;
    if (name === "PasswordException") throw new Error("the PDF is password-protected");
    throw new Error(`not a readable PDF (${(error as Error).message})`);
  }
  try {
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    const pages = (Array.isArray(text) ? text : [text]).map((page) => page.replace(/(?<![ \t])[ \t]+\n/g, "\n").trim());
    let title = "";
    try {
      const meta = await getMeta(pdf);
      const value: unknown = meta.info.Title;
      title = typeof value === "string" ? value.trim() : "";
    } catch {
      // no metadata
    }
    return { title, text: pages.filter(Boolean).join("\n\n"), pages: totalPages };
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}
