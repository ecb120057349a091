/**
 * An HTML page as markdown: the main content picked by Mozilla's Readability (the Firefox reader
 * view) on a DOM built by linkedom, converted by turndown. Navigation, sidebars, ads, footers and
 * scripts do not survive Readability; when it finds no article (a listing, a short page) the body
 * is converted with the usual boilerplate elements removed instead. Links and images are made
 * absolute against the page's URL; inline `data:` images are dropped (Hermes' base64 cleaning).
 *
 * The three libraries load on first call (`loadPackage`), never at start-up. Pure apart from
 * that; throws only for bugs in the libraries (callers turn that into a page error).
 */
import { loadPackage } from "./load-package.js";

/** The few DOM members this module uses (linkedom's, typed here: the project has no DOM lib). */
interface DomElement {
  readonly tagName: string;
  textContent: string | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  remove(): void;
  closest(selector: string): DomElement | null;
}
interface DomDocument {
  title: string;
  body: DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
}

export interface MarkdownPage {
  title: string;
  markdown: string;
  /** True when Readability found the article; false when the whole body was converted. */
  article: boolean;
}

/** Never content. */
const NON_CONTENT = "script,style,noscript,template,iframe,svg,canvas,form,button,[aria-hidden=true]";
/** Site furniture: removed unless inside an `article` or `main` (where it may belong to the text). */
const FURNITURE = "nav,header,footer,aside,[role=navigation],[role=banner],[role=contentinfo],[role=complementary],[role=search]";

type Modules = {
  parseHTML: (html: string) => { document: unknown };
  Readability: new (document: never, options?: { charThreshold?: number }) => { parse(): { title?: string | null; content?: string | null } | null };
  Turndown: typeof import("turndown");
};
let modules: Modules | undefined;

/** The libraries, loaded once. Async so callers need not change if loading ever becomes asynchronous. */
async function load(): Promise<Modules> {
  modules ??= {
    parseHTML: loadPackage<{ parseHTML: Modules["parseHTML"] }>("linkedom").parseHTML,
    Readability: loadPackage<{ Readability: Modules["Readability"] }>("@mozilla/readability").Readability,
    Turndown: loadPackage<Modules["Turndown"]>("turndown"),
  };
  return modules;
}

/** Loads the libraries without converting anything (for measuring first use). */
export async function preloadHtmlLibraries(): Promise<void> {
  await load();
}

export async function htmlToMarkdown(html: string, pageUrl: string): Promise<MarkdownPage> {
  const { parseHTML, Readability, Turndown } = await load();
  const parse = (source: string): DomDocument => parseHTML(wrapDocument(source)).document as DomDocument;
  const document = parse(html);
  const pageTitle = collapse(document.title ?? "");
  absolutize(document, pageUrl);
  stripFurniture(document, false);
  const turndown = markdownConverter(Turndown);
  const article = new Readability(document as never).parse();
  if (article?.content && collapse(stripTags(article.content)).length > 0) {
    const content = parse(`<body>${article.content}</body>`);
    const body = content.body;
    return { title: collapse(article.title ?? "") || pageTitle, markdown: tidy(body ? turndown.turndown(body as never) : ""), article: true };
  }
  const whole = parse(html);
  absolutize(whole, pageUrl);
  stripFurniture(whole, true);
  return { title: pageTitle, markdown: tidy(whole.body ? turndown.turndown(whole.body as never) : ""), article: false };
}

function markdownConverter(Turndown: Modules["Turndown"]): InstanceType<Modules["Turndown"]> {
  const turndown = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "_" });
  turndown.remove(["script", "style", "noscript", "template", "iframe", "form", "button"]);
  // List items as `- item` / `1. item` (turndown's default pads the marker to four columns).
  turndown.addRule("compactListItem", {
    filter: "li",
    replacement: (content, node) => {
      const item = node as unknown as DomElement & { parentNode: (DomElement & { children: ArrayLike<unknown> }) | null; nextSibling: unknown };
      const parent = item.parentNode;
      let prefix = "- ";
      if (parent?.tagName === "OL") {
        const start = Number(parent.getAttribute("start") ?? "1") || 1;
        prefix = `${start + Array.prototype.indexOf.call(parent.children, item)}. `;
      }
      const body = content.replace(/^\n+/, "").replace(/\n+$/, "\n").replace(/\n/gm, `\n${" ".repeat(prefix.length)}`);
      return prefix + body + (item.nextSibling && !/\n$/.test(body) ? "\n" : "");
    },
  });
  turndown.addRule("dropInlineImages", {
    filter: (node) => node.nodeName === "IMG" && /^\s*data:/i.test(String((node as unknown as DomElement).getAttribute("src") ?? "")),
    replacement: () => "",
  });
  return turndown;
}

/** Removes scripts and the like, and site furniture outside the main text (`everywhere`: inside it too). */
function stripFurniture(document: DomDocument, everywhere: boolean): void {
  for (const element of [...document.querySelectorAll(NON_CONTENT)]) element.remove();
  for (const element of [...document.querySelectorAll(FURNITURE)]) {
    if (everywhere || !element.closest("article,main,[role=main]")) element.remove();
  }
}

/** A full document around `html`, so the parser always gives a head and a body. */
function wrapDocument(html: string): string {
  return /<html[\s>]/i.test(html) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`;
}

/** `href` / `src` made absolute; `javascript:` links dropped. */
function absolutize(document: DomDocument, pageUrl: string): void {
  for (const [selector, attribute] of [["a[href]", "href"], ["img[src]", "src"]] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute)?.trim() ?? "";
      if (/^javascript:/i.test(value)) {
        element.setAttribute(attribute, "#");
        continue;
      }
      if (/^data:/i.test(value)) continue;
      try {
        element.setAttribute(attribute, new URL(value, pageUrl).href);
      } catch {
        // leave it as written
      }
    }
  }
}

/**
 * Inline base64 images replaced by a marker, as Hermes cleans every extracted page (they are
 * large and say nothing to the model). For pages from backends too.
 */
export function stripBase64Images(text: string): string {
  return text.replace(/\(data:image\/[^;)]+;base64,[A-Za-z0-9+/=]+\)/g, "([BASE64_IMAGE_REMOVED])").replace(/data:image\/[^;\s]+;base64,[A-Za-z0-9+/=]+/g, "[BASE64_IMAGE_REMOVED]");
}

/** Markdown with runs of blank lines collapsed, trailing spaces and leftover base64 images removed. */
export function tidy(markdown: string): string {
  return stripBase64Images(markdown)
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, " ");
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
