import { PassThrough, Readable } from "node:stream";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempHome, type TempHome } from "../../test/support/temp-home.js";
import { RuntimeLoader } from "../runtime/lazy-runtime.js";
import { Runtime } from "../runtime/runtime.js";
import { answerInitializeEarly, EARLY_LINE_BYTES, earlyInitialize } from "./early-initialize.js";
import { ACP_PROTOCOL_VERSION, initializeResponse } from "./initialize.js";
import { serveAcp } from "./server.js";

let home: TempHome;
let runtime: Runtime;
beforeAll(() => {
  home = createTempHome({ baseUrl: "http://127.0.0.1:9/v1" });
  runtime = new Runtime({ home: home.home, env: home.env() });
});
afterAll(() => {
  runtime.directory.close();
  home.cleanup();
});

const SETUP = { command: "/usr/bin/node", args: ["/opt/hermes/hermes-acp.js", "--setup"] };
const respond = (params: { clientCapabilities?: unknown }) =>
  initializeResponse({ configuredProvider: runtime.config.configuredProvider(), clientCapabilities: (params.clientCapabilities ?? {}) as never, setupLaunch: SETUP });
const bytes = (text: string): Buffer => Buffer.from(text, "utf8");
const frame = (message: unknown): string => `${JSON.stringify(message)}\n`;
const initialize = (id: unknown, params: unknown): string => frame({ jsonrpc: "2.0", id, method: "initialize", params });

/** Every line `stream` yields until it ends, decoded. */
async function drain(stream: NodeJS.ReadableStream): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer | string>) parts.push(typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(parts).toString("utf8");
}

/** The first frame the normal path (the SDK's connection over the same runtime) writes for `line`. */
async function normalAnswer(line: string): Promise<unknown> {
  const input = new PassThrough();
  const output = new PassThrough();
  const served = serveAcp(runtime, input, output, { setupLaunch: SETUP });
  const first = new Promise<string>((resolve) => {
    let text = "";
    output.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (text.includes("\n")) resolve(text.slice(0, text.indexOf("\n")));
    });
  });
  input.write(line);
  const answer = await first;
  input.end();
  await served;
  return JSON.parse(answer);
}

/**
 * `text` written as the client's input, its first line answered early (`respond`) and the rest
 * served by `serveAcp` over `source`: every frame written until `count` have come, then the input ends.
 */
async function serveAfterEarly(source: Runtime | RuntimeLoader, text: string, count: number): Promise<Array<{ id?: unknown; result?: unknown; error?: { message: string } }>> {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: string[] = [];
  let pending = "";
  output.on("data", (chunk: Buffer) => {
    const parts = (pending + chunk.toString("utf8")).split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts);
  });
  const started = answerInitializeEarly(input, output, respond);
  input.write(text);
  const early = await started;
  const served = serveAcp(source, early.input, output, { setupLaunch: SETUP, early });
  await new Promise<void>((resolve) => {
    const poll = (): void => (lines.length >= count ? resolve() : void setTimeout(poll, 5));
    poll();
  });
  input.end();
  await served;
  return lines.map((line) => JSON.parse(line) as { id?: unknown; result?: unknown; error?: { message: string } });
}

describe("earlyInitialize: which first lines are answered before the SDK loads", () => {
  it("takes a plain initialize, with LF or CRLF, string or integer id", () => {
    const params = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } };
    expect(earlyInitialize(bytes(initialize(0, params).trimEnd()))).toEqual({ id: 0, params });
    expect(earlyInitialize(bytes(`${initialize("a-1", params).trimEnd()}\r`))).toEqual({ id: "a-1", params });
  });

  it.each([
    ["another method", frame({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } })],
    ["a notification", frame({ jsonrpc: "2.0", method: "initialize", params: { protocolVersion: 1 } })],
    ["a null id", initialize(null, { protocolVersion: 1 })],
    ["a fractional id", initialize(1.5, { protocolVersion: 1 })],
    ["an extra top-level key", frame({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 }, extra: true })],
    ["a __proto__ key", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1},"__proto__":{}}\n`],
    ["jsonrpc 1.0", frame({ jsonrpc: "1.0", id: 1, method: "initialize", params: { protocolVersion: 1 } })],
    ["no params", frame({ jsonrpc: "2.0", id: 1, method: "initialize" })],
    ["array params", frame({ jsonrpc: "2.0", id: 1, method: "initialize", params: [1] })],
    ["params the checks reject", initialize(1, { protocolVersion: 1, clientCapabilities: "x" })],
    ["a protocol version out of range", initialize(1, { protocolVersion: 70000 })],
    ["not JSON", "{ initialize\n"],
    ["a batch", `[${initialize(1, { protocolVersion: 1 }).trimEnd()}]\n`],
    ["a blank line", "   \n"],
    ["nesting past the frame reader's limit", initialize(1, { protocolVersion: 1, _meta: JSON.parse(`${"{\"a\":".repeat(200)}1${"}".repeat(200)}`) })],
  ])("leaves %s to the normal path", (_what, line) => {
    expect(earlyInitialize(bytes(line.replace(/\n$/, "")))).toBeUndefined();
  });

  it("leaves a line that is not UTF-8 to the normal path", () => {
    const line = Buffer.concat([bytes(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"`), Buffer.from([0xff, 0xfe]), bytes(`","version":"1"}}}`)]);
    expect(earlyInitialize(line)).toBeUndefined();
  });

  it("speaks the SDK's protocol version", () => {
    expect(ACP_PROTOCOL_VERSION).toBe(PROTOCOL_VERSION);
  });
});

/** A seeded generator of JSON values shaped like what clients put in `initialize` (and worse). */
function generator(seed: number): () => string {
  let state = seed >>> 0;
  const next = (n: number): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state >>> 16) % n;
  };
  const pick = <T>(values: readonly T[]): T => values[next(values.length)] as T;
  const scalar = (): unknown => pick([true, false, null, 0, 1, -1, 2.5, "", "x", "true", [], [true], {}]);
  const object = (keys: readonly string[], depth: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const key of keys) if (next(3) === 0) out[key] = value(depth + 1);
    return out;
  };
  const value = (depth: number): unknown => {
    if (depth > 3 || next(3) > 0) return scalar();
    return object(["terminal", "terminal-auth", "readTextFile", "writeTextFile", "fs", "auth", "_meta", "form", "url", "extra"], depth);
  };
  const capabilities = (): unknown => {
    if (next(8) === 0) return scalar();
    const caps: Record<string, unknown> = {};
    for (const key of ["fs", "terminal", "session", "auth", "elicitation", "plan", "subagents", "_meta", "unknownCapability"]) {
      if (next(2) === 0) continue;
      caps[key] =
        key === "auth" ? (next(4) === 0 ? scalar() : { terminal: pick([true, false, true, false, null, "yes", 1]), ...(next(3) === 0 ? { _meta: value(2) } : {}) })
        : key === "_meta" ? (next(4) === 0 ? scalar() : { "terminal-auth": pick([true, false, null, "true", { command: "x" }]), other: value(2) })
        : key === "fs" ? (next(4) === 0 ? scalar() : { readTextFile: pick([true, false, true, null, "yes"]), writeTextFile: pick([true, false, undefined]) })
        : key === "terminal" ? pick([true, false, true, false, null, "yes", 1])
        : next(2) === 0 ? object(["form", "url", "_meta", "extra"], 2) : value(1);
    }
    return caps;
  };
  return () => {
    const params: Record<string, unknown> = { protocolVersion: next(3) > 0 ? 1 : pick([0, 2, 65535, 65536, -1, 1.5, "1", null]) };
    if (next(5) > 0) params.clientCapabilities = capabilities();
    if (next(2) === 0) params.clientInfo = pick([{ name: "zed", version: "1.0" }, { name: "zed", title: "Zed", version: "1" }, { name: 3 }, "zed", null, {}]);
    if (next(4) === 0) params._meta = value(1);
    return initialize(pick([0, 1, 42, "init", "0"]), params);
  };
}

describe("the early answer is the normal path's answer", () => {
  it("for every initialize it takes, byte for byte as JSON, and it takes every one the SDK answers with a result", async () => {
    const nextLine = generator(17);
    // What editors send (Zed's opt-in to terminal auth in _meta, the spec's auth.terminal), then generated ones.
    const fixed = [
      initialize(0, { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, _meta: { "terminal-auth": true, terminal_output: true } }, clientInfo: { name: "zed", title: "Zed", version: "0.210.0" } }),
      initialize(1, { protocolVersion: 1, clientCapabilities: { auth: { terminal: true }, elicitation: { form: {} } } }),
      initialize("x", { protocolVersion: 1 }),
      initialize(2, { protocolVersion: 1, clientCapabilities: null, clientInfo: null, _meta: null }),
    ];
    let taken = 0;
    for (let round = 0; round < 160; round += 1) {
      const line = fixed[round] ?? nextLine();
      const normal = (await normalAnswer(line)) as { result?: unknown; error?: unknown };
      const early = earlyInitialize(bytes(line.trimEnd()));
      if (early) {
        taken += 1;
        expect({ line, answer: { jsonrpc: "2.0", id: early.id, result: respond(early.params) } }).toEqual({ line, answer: normal });
      } else {
        expect({ line, answered: "error" in normal }).toEqual({ line, answered: true });
      }
    }
    // The generator makes both kinds; most of its lines are valid.
    expect(taken).toBeGreaterThan(40);
    expect(taken).toBeLessThan(160);
  });
});

describe("answerInitializeEarly", () => {
  const plain = initialize(7, { protocolVersion: 1, clientCapabilities: { auth: { terminal: true } } });
  const next = frame({ jsonrpc: "2.0", id: 8, method: "session/list", params: {} });

  it("answers an initialize split across chunks once, and puts back every byte it read", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const started = answerInitializeEarly(input, output, respond);
    input.write(plain.slice(0, 10));
    input.write(plain.slice(10) + next.slice(0, 5));
    const early = await started;
    expect(early.answered).toBe(7);
    const written = output.read()?.toString("utf8") as string;
    expect(JSON.parse(written)).toEqual({ jsonrpc: "2.0", id: 7, result: respond({ clientCapabilities: { auth: { terminal: true } } }) });
    expect(written.endsWith("\n")).toBe(true);
    input.end(next.slice(5));
    expect(await drain(early.input)).toBe(plain + next);
  });

  it("reads an input handed on paused, with bytes put back in front (as the launcher leaves stdin)", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    input.on("data", () => undefined);
    input.pause();
    input.unshift(Buffer.from(plain));
    const early = await answerInitializeEarly(input, output, respond);
    expect(early.answered).toBe(7);
    input.end(next);
    expect(await drain(early.input)).toBe(plain + next);
  });

  it("answers nothing when the first line is something else, and hands it on whole", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const started = answerInitializeEarly(input, output, respond);
    input.write(next);
    const early = await started;
    expect(early.answered).toBeUndefined();
    expect(output.read()).toBeNull();
    input.end(plain);
    expect(await drain(early.input)).toBe(next + plain);
  });

  it("hands on a last line without a line end when the input ends", async () => {
    const input = Readable.from([bytes(plain.trimEnd())], { objectMode: false });
    const early = await answerInitializeEarly(input, new PassThrough(), respond);
    expect(early.answered).toBeUndefined();
    expect(await drain(early.input)).toBe(plain.trimEnd());
  });

  it("gives up past EARLY_LINE_BYTES without a line end, keeping what it read", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const started = answerInitializeEarly(input, output, respond);
    const long = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"_meta":{"pad":"${"x".repeat(EARLY_LINE_BYTES)}`;
    input.write(long);
    const early = await started;
    expect(early.answered).toBeUndefined();
    input.end('"}}}\n');
    expect(await drain(early.input)).toBe(`${long}"}}}\n`);
  });

  it("resolves at once when its signal aborts, answering nothing", async () => {
    const input = new PassThrough();
    const controller = new AbortController();
    const started = answerInitializeEarly(input, new PassThrough(), respond, controller.signal);
    controller.abort();
    const early = await started;
    expect(early.answered).toBeUndefined();
    input.end(plain);
    expect(await drain(early.input)).toBe(plain);
  });

  it("leaves the request to the normal path when the answer cannot be built", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const started = answerInitializeEarly(input, output, () => {
      throw new Error("config unreadable");
    });
    input.write(plain);
    const early = await started;
    expect(early.answered).toBeUndefined();
    expect(output.read()).toBeNull();
    input.end();
    expect(await drain(early.input)).toBe(plain);
  });

  it("composed with serveAcp: a rejected frame reusing the answered id keeps its error, and the SDK's answer alone is dropped", async () => {
    const frames = await serveAfterEarly(runtime, `${plain}{"id":7,oops\n${next}`, 3);
    expect(frames.filter((one) => one.id === 7).map((one) => (one.error ? one.error.message : "result"))).toEqual(["result", "Parse error"]);
    expect(frames.filter((one) => one.id === 8)).toHaveLength(1);
  });

  it("composed with serveAcp: the replayed initialize does not detect the provider again; a later initialize does, and answers alike", async () => {
    class CountingLoader extends RuntimeLoader {
      detections = 0;
      override configuredProvider(): string | undefined {
        this.detections += 1;
        return super.configuredProvider();
      }
    }
    const loader = new CountingLoader({ home: home.home, env: home.env() });
    const again = initialize(9, { protocolVersion: 1, clientCapabilities: { auth: { terminal: true } } });
    const frames = (await serveAfterEarly(loader, plain + again, 2)) as Array<{ id?: unknown; result?: { authMethods?: unknown } }>;
    loader.loaded()?.directory.close();
    expect(frames.map((one) => one.id)).toEqual([7, 9]);
    expect(loader.detections).toBe(1);
    expect(frames[1]?.result?.authMethods).toEqual(frames[0]?.result?.authMethods);
    expect(frames[1]).toEqual(await normalAnswer(again));
  });

  it("composed with serveAcp: one answer per request, the early one first, and the session goes on", async () => {
    const frames = await serveAfterEarly(runtime, plain + next, 2);
    expect(frames.map((one) => one.id)).toEqual([7, 8]);
    expect(frames[0]).toEqual(await normalAnswer(plain));
    expect(frames[1]).toMatchObject({ id: 8, result: { sessions: [] } });
  });
});
