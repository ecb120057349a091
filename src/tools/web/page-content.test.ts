import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { longArticle, makePdf } from "../../../test/support/fake-web.js";
import { htmlToMarkdown } from "./html-markdown.js";
import { resourceText } from "./page-content.js";
import { pdfToText } from "./pdf-text.js";
import type { FetchedResource } from "./safe-fetch.js";

const article = readFileSync(new URL("../../../test/fixtures/web/article.html", import.meta.url), "utf8");
const resource = (mediaType: string, body: Buffer | string, url = "https://blog.example/posts/rust"): FetchedResource => ({
  url,
  status: 200,
  headers: {},
  mediaType,
  body: Buffer.from(body),
});

describe("htmlToMarkdown", () => {
  it("keeps the article and drops navigation, sidebar ads, footer and scripts", async () => {
    const page = await htmlToMarkdown(article, "https://blog.example/posts/rust");
    expect(page.article).toBe(true);
    expect(page.title).toBe("Understanding Rust ownership | The Dev Blog");
    expect(page.markdown).toContain("## The three rules");
    expect(page.markdown).toContain("Each value in Rust has a single owner.");
    expect(page.markdown).toMatch(/```\nfn main\(\) \{\n {4}let s = String::from\("hello"\);/);
    expect(page.markdown).toContain("- Moves transfer ownership.");
    expect(page.markdown).toContain("`&`");
    for (const boilerplate of ["NAV-ARCHIVE-LINK", "SIDEBAR-AD", "FOOTER-TEXT", "TRACKING-SCRIPT-TEXT", "Popular posts"]) expect(page.markdown).not.toContain(boilerplate);
  });

  it("makes links absolute against the page's URL", async () => {
    const page = await htmlToMarkdown(article, "https://blog.example/posts/rust");
    expect(page.markdown).toContain("[the lifetimes post](https://blog.example/posts/lifetimes)");
    expect(page.markdown).toContain("[the Rust book](https://doc.rust-lang.org/book/ch04-01-what-is-ownership.html)");
  });

  it("keeps the text of a page that is no article, without its boilerplate or inline images", async () => {
    const html = `<html><head><title>Links</title></head><body><nav>MENU</nav><p>Short.</p><img src="data:image/png;base64,iVBORw0KGgo="><a href="/x">x</a><footer>FOOT</footer></body></html>`;
    const page = await htmlToMarkdown(html, "https://site.example/a/");
    expect(page.title).toBe("Links");
    expect(page.markdown).toContain("Short.");
    expect(page.markdown).toContain("[x](https://site.example/x)");
    expect(page.markdown).not.toMatch(/MENU|FOOT|base64/);
  });

  it("keeps a long article whole (it is condensed later)", async () => {
    const page = await htmlToMarkdown(longArticle(), "https://survey.example/2025");
    expect(page.markdown.length).toBeGreaterThan(50_000);
    expect(page.markdown).toContain("Section 120 of the survey");
  });

  it("converts pages built to stall a converter (runs of <br>, blanks in <pre>, spaces between tags, data:image/ repeated)", async () => {
    const hostile = [
      `<p>top${"<br>".repeat(50_000)}after the breaks</p>`,
      `<pre>${" ".repeat(300_000)}after the blanks</pre>`,
      `<p>${"&nbsp;<i></i>".repeat(20_000)}after the spaces</p>`,
      `<ul><li><pre>${"\n".repeat(200_000)}in the list</pre></li></ul>`,
      `<p>${"(data:image/".repeat(30_000)}</p>`,
    ].join("");
    const page = await htmlToMarkdown(`<html><head><title>Stall</title></head><body>${hostile}</body></html>`, "https://hostile.example/");
    for (const text of ["top", "after the breaks", "after the blanks", "after the spaces", "in the list"]) expect(page.markdown).toContain(text);
    expect(page.markdown).not.toMatch(/\s{200}/);
  });

  it("converts off the event loop: timers run while a heavy page is converted", async () => {
    const heavy = `<html><body><p>${"&nbsp;".repeat(40_000)}word</p>${"<p>filler text here</p>".repeat(2_000)}</body></html>`;
    const converting = htmlToMarkdown(heavy, "https://heavy.example/");
    const timer = new Promise<string>((resolve) => setTimeout(() => resolve("timer"), 0));
    expect(await Promise.race([converting.then(() => "page"), timer])).toBe("timer");
    expect((await converting).markdown).toContain("filler text here");
  });

  it("gives up on a page past its time limit, and stops when cancelled", async () => {
    const heavy = `<html><body>${"<p>&nbsp;&nbsp;filler</p>".repeat(20_000)}</body></html>`;
    await expect(htmlToMarkdown(heavy, "https://heavy.example/", { timeoutMs: 50 })).rejects.toThrow(/took longer than/);
    const controller = new AbortController();
    const converting = htmlToMarkdown(heavy, "https://heavy.example/", { signal: controller.signal });
    controller.abort();
    await expect(converting).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("pdfToText", () => {
  it("reads the text and title of a PDF", async () => {
    const pdf = await pdfToText(makePdf(["First line (with parentheses)", "Second line"]));
    expect(pdf).toMatchObject({ title: "Quarterly report", pages: 1 });
    expect(pdf.text).toBe("First line (with parentheses)\nSecond line");
  });

  it("says when the bytes are not a readable PDF", async () => {
    await expect(pdfToText(Buffer.from("%PDF-1.4\nthis is not really a pdf"))).rejects.toThrow(/not a readable PDF/);
  });
});

describe("resourceText", () => {
  it("dispatches on the media type, and spots a PDF whatever the server calls it", async () => {
    expect(await resourceText(resource("text/html", article))).toMatchObject({ kind: "html", title: "Understanding Rust ownership | The Dev Blog" });
    expect(await resourceText(resource("application/octet-stream", makePdf(["Mislabelled"]), "https://x.example/files/report.pdf"))).toMatchObject({ kind: "pdf", content: "Mislabelled" });
    expect(await resourceText(resource("application/json", '{"a": 1}\n', "https://api.example/v1/thing.json"))).toEqual({ kind: "text", title: "thing.json", content: '{"a": 1}' });
    await expect(resourceText(resource("image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0])))).rejects.toThrow("unsupported content type image/png");
  });

  it("decodes the charset the server or the page declares", async () => {
    const latin1 = Buffer.from("<html><head><meta charset=\"iso-8859-1\"><title>Caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e.</p></body></html>", "latin1");
    expect(await resourceText(resource("text/html", latin1))).toMatchObject({ title: "Café", content: "Crème brûlée." });
  });
});
