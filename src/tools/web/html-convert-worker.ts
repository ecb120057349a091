/**
 * The HTML-to-markdown conversion `html-markdown.ts` runs on a worker thread, kept as JavaScript
 * source (an `eval` worker: the CLI ships as one bundled file, so a worker cannot load a module
 * of it). The worker gets `workerData = { html, pageUrl, modules }` (`modules`: resolved paths of
 * linkedom, @mozilla/readability and turndown), posts one message — `{ ok: true, page: { title,
 * markdown, article } }` (markdown not yet tidied) or `{ ok: false, message }` — and ends.
 *
 * What it does: the main content picked by Readability on a linkedom DOM, converted by turndown;
 * when Readability finds no article, the body with its boilerplate removed. Links and images are
 * made absolute, `javascript:` links dropped, inline `data:` images left out, and no run of blank
 * output longer than MAX_BLANK_RUN characters reaches turndown (`capBlankRuns`): turndown and its
 * list rule trim their output with regexes (`/[\t\r\n\s]+$/`, `/\n+$/`) whose time grows with
 * the square of an inner blank run (a page of 100,000 `<br>` or a `<pre>` of spaces).
 */
export const HTML_CONVERT_WORKER = `
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const { parseHTML } = require(workerData.modules.linkedom);
const { Readability } = require(workerData.modules.readability);
const Turndown = require(workerData.modules.turndown);

const NON_CONTENT = "script,style,noscript,template,iframe,svg,canvas,form,button,[aria-hidden=true]";
const FURNITURE = "nav,header,footer,aside,[role=navigation],[role=banner],[role=contentinfo],[role=complementary],[role=search]";
const MAX_BLANK_RUN = 80;

const collapse = (text) => text.replace(/\\s+/g, " ").trim();
const stripTags = (html) => html.replace(/<[^<>]*>/g, " ");
const wrapDocument = (html) => (/<html[\\s>]/i.test(html) ? html : "<!doctype html><html><head></head><body>" + html + "</body></html>");
const parse = (source) => parseHTML(wrapDocument(source)).document;

function absolutize(document, pageUrl) {
  for (const [selector, attribute] of [["a[href]", "href"], ["img[src]", "src"]]) {
    for (const element of document.querySelectorAll(selector)) {
      const value = (element.getAttribute(attribute) || "").trim();
      if (/^javascript:/i.test(value)) {
        element.setAttribute(attribute, "#");
        continue;
      }
      if (/^data:/i.test(value)) continue;
      try {
        element.setAttribute(attribute, new URL(value, pageUrl).href);
      } catch {
        // left as written
      }
    }
  }
}

function stripFurniture(document, everywhere) {
  for (const element of [...document.querySelectorAll(NON_CONTENT)]) element.remove();
  for (const element of [...document.querySelectorAll(FURNITURE)]) {
    if (everywhere || !element.closest("article,main,[role=main]")) element.remove();
  }
}

function capBlankRuns(root) {
  let run = 0;
  const keep = (blank) => {
    const kept = blank.slice(0, Math.max(0, MAX_BLANK_RUN - run));
    run = Math.min(MAX_BLANK_RUN, run + blank.length);
    return kept;
  };
  const walk = (node, pre) => {
    for (const child of [...node.childNodes]) {
      if (child.nodeType === 3) {
        // Outside <pre> turndown collapses ASCII whitespace itself; done first so runs count as it will write them.
        const text = pre ? child.data : child.data.replace(/[ \\r\\n\\t]+/g, " ");
        const parts = text.split(/(\\s+)/);
        for (let index = 0; index < parts.length; index++) {
          if (index % 2 === 1) parts[index] = keep(parts[index]);
          else if (parts[index]) run = 0;
        }
        const capped = parts.join("");
        if (capped !== child.data) child.data = capped;
      } else if (child.nodeType === 1) {
        if (child.localName === "br") {
          if (run >= MAX_BLANK_RUN) child.remove();
          else keep("  \\n");
          continue;
        }
        walk(child, pre || child.localName === "pre");
      }
    }
  };
  walk(root, false);
  return root;
}

function markdownConverter() {
  const turndown = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "_" });
  turndown.remove(["script", "style", "noscript", "template", "iframe", "form", "button"]);
  // List items as "- item" / "1. item" (turndown's default pads the marker to four columns).
  turndown.addRule("compactListItem", {
    filter: "li",
    replacement: (content, node) => {
      const parent = node.parentNode;
      let prefix = "- ";
      if (parent && parent.tagName === "OL") {
        const start = Number(parent.getAttribute("start") || "1") || 1;
        prefix = start + Array.prototype.indexOf.call(parent.children, node) + ". ";
      }
      const body = content.replace(/^\\n+/, "").replace(/(?<!\\n)\\n+$/, "\\n").replace(/\\n/gm, "\\n" + " ".repeat(prefix.length));
      return prefix + body + (node.nextSibling && !/\\n$/.test(body) ? "\\n" : "");
    },
  });
  turndown.addRule("dropInlineImages", {
    filter: (node) => node.nodeName === "IMG" && /^\\s*data:/i.test(String(node.getAttribute("src") || "")),
    replacement: () => "",
  });
  return turndown;
}

function convert(html, pageUrl) {
  const document = parse(html);
  const pageTitle = collapse(document.title || "");
  absolutize(document, pageUrl);
  stripFurniture(document, false);
  const turndown = markdownConverter();
  const article = new Readability(document).parse();
  if (article && article.content && collapse(stripTags(article.content)).length > 0) {
    const body = parse("<body>" + article.content + "</body>").body;
    return { title: collapse(article.title || "") || pageTitle, markdown: body ? turndown.turndown(capBlankRuns(body)) : "", article: true };
  }
  const whole = parse(html);
  absolutize(whole, pageUrl);
  stripFurniture(whole, true);
  return { title: pageTitle, markdown: whole.body ? turndown.turndown(capBlankRuns(whole.body)) : "", article: false };
}

try {
  parentPort.postMessage({ ok: true, page: convert(workerData.html, workerData.pageUrl) });
} catch (error) {
  parentPort.postMessage({ ok: false, message: String((error && error.message) || error).split("\\n")[0] });
}
`;
