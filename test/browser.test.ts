import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig } from "../src/config/schema.js";
import { browserConsoleTool, browserGetImagesTool, browserSnapshotTool } from "../src/tools/browser/inspect.js";
import { browserClickTool, browserPressTool, browserScrollTool, browserTypeTool } from "../src/tools/browser/interact.js";
import { browserBackTool, browserNavigateTool } from "../src/tools/browser/navigate.js";
import { resetBrowserSession } from "../src/tools/browser/state.js";
import { browserVisionTool } from "../src/tools/browser/vision.js";
import type { ChatMessage } from "../src/llm/types.js";
import type { AuxiliaryModelPort } from "../src/tools/ports.js";
import { ToolSessionState } from "../src/tools/session-state.js";
import type { ToolContext, ToolResult } from "../src/tools/types.js";
import { browserChildren, chromiumUsable } from "./support/chromium.js";
import { startPageServer, type PageServer } from "./support/page-server.js";
import { runtimeSuite } from "./support/runtime-suite.js";
import { createTempHome, type TempHome } from "./support/temp-home.js";
import { toolContext } from "./support/tool-context.js";

/**
 * The browser tools on the machine's real Chromium, against real pages served on 127.0.0.1. One
 * browser serves the whole first suite (CPU is shared); the suites that need their own (a crash,
 * separate sessions) start as few as they can. In CI a missing Chromium fails these suites.
 */
const usable = chromiumUsable();
/** Longest wait for something the page does on its own time (a bound, not a measurement). */
const POLL = 30_000;

const PAGES = {
  "/": `<!doctype html><title>Counter</title>
    <h1>Counter</h1>
    <button onclick="document.getElementById('out').textContent = 'Clicked ' + (++window.n || (window.n = 1)) + ' time(s)'">Count</button>
    <p id="out">Not clicked</p>
    <form action="/submitted" method="get">
      <label>Name <input name="name"></label>
      <label>Colour <select name="colour"><option>red</option><option>green</option></select></label>
    </form>
    <img src="/logo.png" alt="Logo" width="10" height="10">
    <a href="/second">Second page</a>
    <a href="/second" target="_blank">New tab</a>`,
  "/second": `<!doctype html><title>Second</title><p>Second page body</p>`,
  "/submitted": `<!doctype html><title>Submitted</title><p>Thanks</p>`,
  "/errors": `<!doctype html><title>Errors</title><script>
      console.error("render failed: missing prop");
      console.log("hello from the page");
      setTimeout(() => { throw new Error("Boom: uncaught in timer"); }, 0);
    </script><p>errors page</p>`,
  "/subrequests": `<!doctype html><title>Sub</title>
    <img src="http://10.255.0.1/tracker.png" alt="private">
    <script>
      fetch("http://169.254.169.254/latest/meta-data/").then(() => console.log("metadata fetched"), () => console.log("metadata fetch failed"));
    </script><p>sub page</p>`,
  "/to-metadata": (_req: unknown, res: import("node:http").ServerResponse) => {
    res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/iam" }).end();
  },
  "/big": `<!doctype html><title>Big</title>${Array.from({ length: 1500 }, (_, i) => `<p>Paragraph number ${i} with some filler words to make it long enough</p>`).join("")}`,
  "/tall": `<!doctype html><title>Tall</title><div style="height:5000px">top</div><p>bottom</p>`,
  "/logo.png": (_req: unknown, res: import("node:http").ServerResponse) => {
    res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e0a6b1f20000000049454e44ae426082", "hex"));
  },
  "/set": `<!doctype html><title>Set</title><script>document.cookie = "session=alpha; path=/"; localStorage.setItem("k", "alpha");</script>`,
  "/read": `<!doctype html><title>Read</title>`,
};

function json(result: ToolResult): Record<string, unknown> {
  return JSON.parse(result.content) as Record<string, unknown>;
}

/** The ref of the first element of `role` named `name` in a snapshot. */
function refOf(snapshot: unknown, role: string, name: string): string {
  const match = new RegExp(`- ${role} "${name}" \\[ref=(e\\d+)\\]`).exec(String(snapshot));
  if (!match) throw new Error(`no ${role} "${name}" in:\n${String(snapshot)}`);
  return `@${match[1]}`;
}

describe.skipIf(!usable)("browser tools on a real Chromium", () => {
  let server: PageServer;
  let home: TempHome;
  let ctx: ToolContext;
  const asked: ChatMessage[][] = [];
  const vision: AuxiliaryModelPort = {
    describe: () => ({ provider: "fake", model: "fake-vision", configured: true }),
    complete: async (_task, messages) => {
      asked.push(messages);
      return "A page titled Counter with a Count button.";
    },
  };

  beforeAll(async () => {
    server = await startPageServer(PAGES);
    home = createTempHome({ baseUrl: "http://127.0.0.1:9/v1" });
    ctx = toolContext({ hermesHome: home.home, state: new ToolSessionState(), ports: { auxiliaryModel: vision } });
  });

  afterAll(async () => {
    await ctx?.state.dispose();
    await server?.close();
    home?.cleanup();
  });

  it("navigates to a local page and answers with its title, url and a compact snapshot with refs", async () => {
    const result = json(await browserNavigateTool.execute({ url: `${server.url}/` }, ctx));
    expect(result).toMatchObject({ success: true, url: `${server.url}/`, title: "Counter" });
    expect(result.snapshot).toContain('- heading "Counter" [ref=e1] [level=1]');
    expect(result.snapshot).toMatch(/- button "Count" \[ref=e\d+\]/);
    expect(result.snapshot).toMatch(/- textbox "Name" \[ref=e\d+\]/);
    expect(result.element_count).toBeGreaterThanOrEqual(5);
  });

  it("clicks a button by its ref and the next snapshot shows the page changed", async () => {
    const before = json(await browserSnapshotTool.execute({}, ctx));
    const ref = refOf(before.snapshot, "button", "Count");
    expect(json(await browserClickTool.execute({ ref }, ctx))).toEqual({ success: true, clicked: ref });
    const after = json(await browserSnapshotTool.execute({}, ctx));
    expect(after.snapshot).toContain("Clicked 1 time(s)");
    expect(after.snapshot).not.toContain("Not clicked");
  });

  it("types into an input (replacing what was there), picks a dropdown option, and Enter submits the form", async () => {
    const snapshot = json(await browserSnapshotTool.execute({}, ctx)).snapshot;
    const name = refOf(snapshot, "textbox", "Name");
    expect(json(await browserTypeTool.execute({ ref: name, text: "first" }, ctx))).toEqual({ success: true, typed: "first", element: name });
    await browserTypeTool.execute({ ref: name, text: "Ada Lovelace" }, ctx);
    await browserTypeTool.execute({ ref: refOf(snapshot, "combobox", "Colour"), text: "green" }, ctx);
    const filled = json(await browserSnapshotTool.execute({}, ctx)).snapshot;
    expect(filled).toContain(`- textbox "Name" [ref=${name.slice(1)}]: Ada Lovelace`);
    expect(filled).toMatch(/- combobox "Colour" \[ref=e\d+\] \[value="green"\]/);
    await browserClickTool.execute({ ref: name }, ctx);
    expect(json(await browserPressTool.execute({ key: "Enter" }, ctx))).toEqual({ success: true, pressed: "Enter" });
    await expect.poll(async () => json(await browserConsoleTool.execute({ expression: "document.readyState === 'complete' && document.title" }, ctx)).result, { timeout: POLL }).toBe("Submitted");
    expect(server.requests).toContain("/submitted?name=Ada+Lovelace&colour=green");
  });

  it("goes back in history, and says so when there is nothing to go back to", async () => {
    await browserNavigateTool.execute({ url: `${server.url}/second` }, ctx);
    expect(json(await browserBackTool.execute({}, ctx))).toMatchObject({ success: true, url: expect.stringContaining(`${server.url}/submitted`) });
  });

  it("follows a link that opens a new tab, and says so", async () => {
    const snapshot = json(await browserNavigateTool.execute({ url: `${server.url}/` }, ctx)).snapshot;
    const notes: unknown[] = [json(await browserClickTool.execute({ ref: refOf(snapshot, "link", "New tab") }, ctx)).note];
    await expect
      .poll(async () => {
        const read = json(await browserSnapshotTool.execute({}, ctx));
        notes.push(read.note);
        return read.snapshot;
      }, { timeout: POLL })
      .toContain("Second page body");
    expect(notes.join(" ")).toContain("opened a new tab");
  });

  it("refuses a bad ref and a ref no element holds any more, saying what to do", async () => {
    expect(json(await browserClickTool.execute({ ref: "the button" }, ctx))).toMatchObject({ success: false, error: expect.stringContaining("Invalid ref") });
    const stale = await browserClickTool.execute({ ref: "@e999" }, ctx);
    expect(stale.isError).toBe(true);
    expect(json(stale).error).toContain("call browser_snapshot");
  });

  it("reports the page's console.error, its uncaught errors, and clears them on request", async () => {
    await browserConsoleTool.execute({ clear: true }, ctx);
    await browserNavigateTool.execute({ url: `${server.url}/errors` }, ctx);
    await expect.poll(async () => json(await browserConsoleTool.execute({}, ctx)).total_errors, { timeout: POLL }).toBe(1);
    const read = json(await browserConsoleTool.execute({ clear: true }, ctx));
    expect(read.console_messages).toEqual(
      expect.arrayContaining([
        { type: "error", text: "render failed: missing prop", source: "console" },
        { type: "log", text: "hello from the page", source: "console" },
      ]),
    );
    expect(read.js_errors).toEqual([{ message: "Boom: uncaught in timer", source: "exception" }]);
    expect(json(await browserConsoleTool.execute({}, ctx))).toMatchObject({ total_messages: 0, total_errors: 0 });
  });

  it("evaluates an expression in the page and returns its value as JSON", async () => {
    expect(json(await browserConsoleTool.execute({ expression: "document.title" }, ctx))).toEqual({ success: true, result: "Errors", result_type: "str" });
    expect(json(await browserConsoleTool.execute({ expression: "({ n: 1 + 1, list: [1, 2] })" }, ctx))).toMatchObject({ result: { n: 2, list: [1, 2] }, result_type: "dict" });
  });

  it("refuses private addresses and a redirect to the metadata address before anything is shown", async () => {
    expect(json(await browserNavigateTool.execute({ url: "http://10.255.0.1/admin" }, ctx))).toMatchObject({ success: false, error: expect.stringContaining("private or internal") });
    const redirected = json(await browserNavigateTool.execute({ url: `${server.url}/to-metadata` }, ctx));
    expect(redirected).toMatchObject({ success: false, error: expect.stringContaining("169.254.169.254") });
    expect(json(await browserConsoleTool.execute({ expression: "location.href" }, ctx)).result).toBe("about:blank");
    const off = toolContext({ ...ctx, config: { ...defaultConfig(), browser: { ...defaultConfig().browser, allow_localhost: false } } });
    expect(json(await browserNavigateTool.execute({ url: `${server.url}/` }, off))).toMatchObject({ success: false, error: expect.stringContaining("browser.allow_localhost is off") });
  });

  it("blocks the page's own requests to refused addresses and lists them", async () => {
    await browserConsoleTool.execute({ clear: true }, ctx);
    await browserNavigateTool.execute({ url: `${server.url}/subrequests` }, ctx);
    await expect.poll(async () => JSON.stringify(json(await browserConsoleTool.execute({}, ctx)).console_messages), { timeout: POLL }).toContain("metadata fetch failed");
    const read = json(await browserConsoleTool.execute({}, ctx));
    const blocked = read.blocked_requests as Array<{ url: string; reason: string }>;
    expect(blocked.map((request) => request.url)).toEqual(expect.arrayContaining(["http://10.255.0.1/tracker.png", "http://169.254.169.254/latest/meta-data/"]));
    expect(blocked.find((request) => request.url.includes("169.254"))?.reason).toContain("metadata");
  });

  it("lists images and scrolls", async () => {
    await browserNavigateTool.execute({ url: `${server.url}/` }, ctx);
    expect(json(await browserGetImagesTool.execute({}, ctx))).toMatchObject({ success: true, count: 1, images: [{ src: `${server.url}/logo.png`, alt: "Logo", width: 1, height: 1 }] });
    await browserNavigateTool.execute({ url: `${server.url}/tall` }, ctx);
    expect(json(await browserScrollTool.execute({ direction: "down" }, ctx))).toEqual({ success: true, scrolled: "down" });
    expect(json(await browserConsoleTool.execute({ expression: "window.scrollY" }, ctx)).result).toBeGreaterThan(0);
  });

  it("cuts a snapshot over 15,000 chars and stores the whole one for read_file", async () => {
    await browserNavigateTool.execute({ url: `${server.url}/big` }, ctx);
    const result = await browserSnapshotTool.execute({ full: true }, ctx);
    const snapshot = String(json(result).snapshot);
    expect(snapshot.length).toBeLessThanOrEqual(15_000);
    const stored = /read_file path="([^"]+)"/.exec(snapshot)?.[1];
    expect(stored).toBeDefined();
    expect(readFileSync(stored!, "utf8")).toContain("Paragraph number 1499");
    expect(result.details).toMatchObject({ truncated: true, storedPath: stored });
  });

  it("sends a screenshot to the vision model and keeps it for the user and the editor", async () => {
    await browserNavigateTool.execute({ url: `${server.url}/` }, ctx);
    const result = await browserVisionTool.execute({ question: "What buttons are there?", annotate: true }, ctx);
    const answer = json(result);
    expect(answer).toMatchObject({ success: true, analysis: "A page titled Counter with a Count button." });
    expect(existsSync(String(answer.screenshot_path))).toBe(true);
    expect(readFileSync(String(answer.screenshot_path)).subarray(1, 4).toString()).toBe("PNG");
    expect(answer.annotations).toEqual(expect.arrayContaining([expect.objectContaining({ ref: "@e1", label: "[1]" })]));
    const parts = asked.at(-1)![0]!.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(parts[0]!.text).toContain("What buttons are there?");
    expect(parts[1]!.image_url!.url).toMatch(/^data:image\/png;base64,/);
    expect(result.details).toMatchObject({ model: "fake-vision", image: { mimeType: "image/jpeg", data: expect.any(String) } });
    expect(json(await browserConsoleTool.execute({ expression: "document.getElementById('__hermes_annotations')" }, ctx)).result).toBeNull();
  });

  it("notices a crashed browser and starts a new one on the next call, with a note", async () => {
    const [pid] = browserChildren();
    expect(pid).toBeDefined();
    process.kill(pid!, "SIGKILL");
    await expect.poll(() => browserChildren().includes(pid!), { timeout: POLL }).toBe(false);
    const result = json(await browserNavigateTool.execute({ url: `${server.url}/second` }, ctx));
    expect(result).toMatchObject({ success: true, title: "Second", note: expect.stringContaining("started again") });
    expect(browserChildren()).toHaveLength(1);
  });

  it("closes the browser on /reset (nothing left running) and starts afresh afterwards", async () => {
    await resetBrowserSession(ctx.state);
    expect(browserChildren()).toEqual([]);
    expect(json(await browserSnapshotTool.execute({}, ctx))).toMatchObject({ success: false, error: "No page is open: call browser_navigate first." });
    expect(browserChildren()).toEqual([]);
  });
});

describe.skipIf(!usable)("the browser through the runtime and the scripted model", () => {
  const suite = runtimeSuite();
  let server: PageServer;

  beforeAll(async () => {
    server = await startPageServer(PAGES);
  });
  afterAll(async () => {
    await server?.close();
  });

  const toolResults = (): Array<Record<string, unknown>> =>
    suite.llm.requests
      .at(-1)!
      .body.messages.filter((message: { role: string }) => message.role === "tool")
      .map((message: { content: string }) => JSON.parse(message.content) as Record<string, unknown>);

  it("navigates, clicks by ref and reads the result; closing the session leaves no Chromium behind", async () => {
    const session = await suite.open();
    expect(session.tools.names()).toEqual(expect.arrayContaining(["browser_navigate", "browser_snapshot", "browser_click", "browser_console"]));
    suite.llm.push(
      { tool_calls: [{ id: "n1", name: "browser_navigate", arguments: { url: `${server.url}/` } }] },
      { tool_calls: [{ id: "c1", name: "browser_click", arguments: { ref: "@e2" } }] },
      { tool_calls: [{ id: "s1", name: "browser_snapshot", arguments: {} }] },
      { text: "The counter says it was clicked once." },
    );
    await suite.ask(session, "Open my dev server and press the Count button");
    const [navigated, clicked, snapshot] = toolResults();
    expect(navigated).toMatchObject({ success: true, title: "Counter" });
    expect(navigated!.snapshot).toContain('- button "Count" [ref=e2]');
    expect(clicked).toEqual({ success: true, clicked: "@e2" });
    expect(snapshot!.snapshot).toContain("Clicked 1 time(s)");
    expect(browserChildren()).toHaveLength(1);
    await session.dispose();
    expect(browserChildren()).toEqual([]);
  });

  it("gives each session its own browser: no cookies or storage are shared", async () => {
    const first = await suite.open();
    const second = await suite.open();
    const read = { name: "browser_console", arguments: { expression: "document.cookie + '|' + localStorage.getItem('k')" } };
    suite.llm.push(
      { tool_calls: [{ id: "a1", name: "browser_navigate", arguments: { url: `${server.url}/set` } }] },
      { tool_calls: [{ id: "a2", ...read }] },
      { text: "set" },
    );
    await suite.ask(first, "set a cookie");
    expect(toolResults()[1]).toMatchObject({ success: true, result: "session=alpha|alpha" });
    suite.llm.push(
      { tool_calls: [{ id: "b1", name: "browser_navigate", arguments: { url: `${server.url}/read` } }] },
      { tool_calls: [{ id: "b2", ...read }] },
      { text: "read" },
    );
    await suite.ask(second, "read the cookie");
    expect(toolResults()[1]).toMatchObject({ success: true, result: "|null" });
    expect(browserChildren()).toHaveLength(2);
    await first.dispose();
    await second.dispose();
    expect(browserChildren()).toEqual([]);
  });
});

describe.skipIf(!usable)("hostile pages against the policy proxy and element refs", () => {
  let site: PageServer;
  let refused: import("node:http").Server;
  let refusedHost = "";
  const refusedHits: string[] = [];
  let ctx: ToolContext;
  let home: TempHome;
  const forcedLoopback = process.env.PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK;
  const wedge = { go: false, stuck: false };

  beforeAll(async () => {
    // A host the policy refuses (a blocked domain) that is reachable on this machine: any request that slips past the proxy arrives here.
    const { createServer } = await import("node:http");
    refused = createServer((req, res) => {
      refusedHits.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "content-type": "text/html", "access-control-allow-origin": "*" }).end("<title>Refused host</title>REFUSED-HOST-CONTENT");
    });
    refused.on("connection", () => refusedHits.push("connection"));
    await new Promise<void>((resolve) => refused.listen(0, "127.0.0.2", resolve));
    refusedHost = `127.0.0.2:${(refused.address() as import("node:net").AddressInfo).port}`;
    const R = `http://${refusedHost}`;
    site = await startPageServer({
      "/hostile": `<!doctype html><title>Hostile</title>
        <link rel="stylesheet" href="${R}/style.css"><link rel="prefetch" href="${R}/prefetch"><link rel="preconnect" href="${R}">
        <style>@import url("${R}/import.css"); body { background: url("${R}/bg.png") }</style>
        <video src="${R}/video.mp4"></video>
        <form id="f" action="${R}/form" method="post" target="_blank"><input name="a" value="b"></form>
        <script>
          const settle = (make) => new Promise((done) => { try { make(done); } catch { done(); } setTimeout(done, 20000); });
          const probes = [
            settle((done) => fetch("${R}/fetch").then(done, done)),
            settle((done) => fetch("${R}/no-cors", { mode: "no-cors" }).then(done, done)),
            settle((done) => { const x = new XMLHttpRequest(); x.onloadend = done; x.open("GET", "${R}/xhr"); x.send(); }),
            settle((done) => { const img = new Image(); img.onload = img.onerror = done; img.src = "${R}/img.png"; }),
            settle((done) => { const s = document.createElement("script"); s.onload = s.onerror = done; s.src = "${R}/script.js"; document.head.append(s); }),
            settle((done) => { const f = document.createElement("iframe"); f.onload = done; f.src = "${R}/frame"; document.body.append(f); }),
            settle((done) => { const ws = new WebSocket("ws://${refusedHost}/ws"); ws.onerror = ws.onclose = ws.onopen = done; }),
            settle((done) => { const es = new EventSource("${R}/events"); es.onerror = () => { es.close(); done(); }; es.onopen = done; }),
          ];
          navigator.sendBeacon("${R}/beacon", "x");
          if (navigator.serviceWorker) navigator.serviceWorker.register("/sw.js").catch(() => {});
          Promise.all(probes).then(() => console.log("probes done"));
        </script><p>hostile page</p>`,
      "/sw.js": (_req: unknown, res: import("node:http").ServerResponse) => {
        res.writeHead(200, { "content-type": "text/javascript" }).end(`fetch("${R}/from-worker");`);
      },
      "/popups": `<!doctype html><title>Popups</title><script>window.open("${R}/popup");</script>
        <form id="f" action="${R}/form" method="post" target="_blank"><input name="a" value="b"></form>
        <script>document.getElementById("f").submit(); setTimeout(() => { location.href = "${R}/self-navigation"; }, 50);</script>`,
      // Navigates itself away as soon as a snapshot has numbered its elements.
      "/moves-on": `<!doctype html><title>A</title><button onclick="document.title = 'good clicked'">Good</button>
        <script>new MutationObserver(() => { if (document.querySelector("[data-hermes-ref]")) location.href = "/forged"; }).observe(document.documentElement, { attributes: true, subtree: true });</script>`,
      "/tab-bomb": `<!doctype html><title>Tabs</title><script>for (let i = 0; i < 40; i++) window.open("/forged?" + i);</script>`,
      // Keeps its main thread blocked (a synchronous request that is never answered) once told to.
      "/wedges": `<!doctype html><title>Wedges</title><p>about to hang</p><script>
        const poll = () => fetch("/go").then((r) => r.text()).then((go) => {
          if (go !== "1") return setTimeout(poll, 50);
          const x = new XMLHttpRequest(); x.open("GET", "/never", false); x.send();
        });
        poll();</script>`,
      "/go": (_req: unknown, res: import("node:http").ServerResponse) => {
        res.writeHead(200, { "content-type": "text/plain", "cache-control": "no-store" }).end(wedge.go ? "1" : "0");
      },
      "/never": () => {
        wedge.stuck = true;
      },
      // Ships its own ref attributes, hoping a ref from the previous page's snapshot lands on its button.
      "/forged": `<!doctype html><title>B</title><button data-hermes-ref="e1" onclick="document.title = 'forged clicked'">Delete everything</button>`,
    });
    process.env.PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK = "1";
    home = createTempHome({ baseUrl: "http://127.0.0.1:9/v1" });
    const config = defaultConfig();
    ctx = toolContext({ hermesHome: home.home, state: new ToolSessionState(), config: { ...config, web: { ...config.web, blocked_domains: ["127.0.0.2"] } } });
  });

  afterAll(async () => {
    if (forcedLoopback === undefined) delete process.env.PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK;
    else process.env.PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK = forcedLoopback;
    await ctx?.state.dispose();
    await site?.close();
    refused?.closeAllConnections();
    await new Promise<void>((resolve) => (refused ? refused.close(() => resolve()) : resolve()));
    home?.cleanup();
  });

  it("lets no subresource, fetch, socket, stream, beacon or worker reach a refused host, whatever Playwright's environment says", async () => {
    expect(json(await browserNavigateTool.execute({ url: `${site.url}/hostile` }, ctx))).toMatchObject({ success: true, title: "Hostile" });
    await expect.poll(async () => JSON.stringify(json(await browserConsoleTool.execute({}, ctx)).console_messages), { timeout: POLL }).toContain("probes done");
    expect(refusedHits).toEqual([]);
    const blocked = (json(await browserConsoleTool.execute({}, ctx)).blocked_requests as Array<{ url: string }>).map((request) => request.url);
    expect(blocked).toEqual(expect.arrayContaining([`http://${refusedHost}/fetch`, `http://${refusedHost}/img.png`, `http://${refusedHost}/frame`]));
  });

  it("lets no pop-up, form post or self-navigation reach it either", async () => {
    await browserConsoleTool.execute({ clear: true }, ctx);
    await browserNavigateTool.execute({ url: `${site.url}/popups` }, ctx);
    await expect
      .poll(async () => (json(await browserConsoleTool.execute({}, ctx)).blocked_requests as Array<{ url: string }> | undefined)?.map((request) => request.url) ?? [], { timeout: POLL })
      .toEqual(expect.arrayContaining([`http://${refusedHost}/popup`, `http://${refusedHost}/form`, `http://${refusedHost}/self-navigation`]));
    expect(refusedHits).toEqual([]);
    // the refused self-navigation ends on the "Blocked" page; let it commit so it cannot land on the next test's page
    await expect.poll(async () => json(await browserConsoleTool.execute({ expression: "document.readyState === 'complete' && document.title" }, ctx)).result, { timeout: POLL }).toBe("Blocked");
    // The tabs it opened are adopted as they appear, and one can appear later still (browser tools
    // act on the newest): a fresh browser keeps them out of the next test (a flake seen in CI).
    await resetBrowserSession(ctx.state);
  });

  it("does not let a ref from the last snapshot click an element of the page that replaced it", async () => {
    const opened = json(await browserNavigateTool.execute({ url: `${site.url}/moves-on` }, ctx));
    expect(opened.snapshot).toContain('- button "Good" [ref=e1]');
    await expect.poll(async () => json(await browserConsoleTool.execute({ expression: "document.readyState === 'complete' && document.title" }, ctx)).result, { timeout: POLL }).toBe("B");
    const clicked = json(await browserClickTool.execute({ ref: "@e1" }, ctx));
    expect(clicked).toMatchObject({ success: false, error: expect.stringContaining("call browser_snapshot") });
    expect(json(await browserConsoleTool.execute({ expression: "document.title" }, ctx)).result).toBe("B");
    // A fresh snapshot of the new page numbers it, and its refs work.
    const snapshot = json(await browserSnapshotTool.execute({}, ctx)).snapshot;
    expect(json(await browserClickTool.execute({ ref: refOf(snapshot, "button", "Delete everything") }, ctx))).toMatchObject({ success: true });
    expect(json(await browserConsoleTool.execute({ expression: "document.title" }, ctx)).result).toBe("forged clicked");
  });

  it("sums up a pop-up loop in a short note instead of naming every tab", async () => {
    const notes = [String(json(await browserNavigateTool.execute({ url: `${site.url}/tab-bomb` }, ctx)).note ?? "")];
    await expect
      .poll(async () => {
        notes.push(String(json(await browserSnapshotTool.execute({}, ctx)).note ?? ""));
        return site.requests.filter((path) => path.startsWith("/forged?")).length === 40 && notes.join(" ").includes("more tabs were opened");
      }, { timeout: POLL })
      .toBe(true);
    for (const note of notes) expect(note.length).toBeLessThan(1_000);
  });

  it("fails an action on a page that stopped responding, closes that page, and carries on", async () => {
    const fast = toolContext({ ...ctx, config: { ...ctx.config, browser: { ...ctx.config.browser, command_timeout: 5 } } });
    expect(json(await browserNavigateTool.execute({ url: `${site.url}/wedges` }, fast))).toMatchObject({ success: true, title: "Wedges" });
    wedge.go = true;
    await expect.poll(() => wedge.stuck, { timeout: POLL }).toBe(true);
    expect(json(await browserSnapshotTool.execute({}, fast))).toMatchObject({ success: false, error: expect.stringContaining("stopped responding") });
    expect(json(await browserNavigateTool.execute({ url: `${site.url}/forged` }, fast))).toMatchObject({ success: true, title: "B" });
  });
});
