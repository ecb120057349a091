import { runInFreshProcess } from "../../test/support/fresh-process.js";
import { describe, expect, it } from "vitest";
import { HttpHeaders, HttpResponse, SdkFormData } from "./fetch-classes.js";

/** What a call gives back, or the error it throws (class and message), for comparing two classes' behaviour. */
function outcome(run: () => unknown): unknown {
  try {
    const value = run();
    return { value: value instanceof Object && Symbol.iterator in value ? [...(value as Iterable<unknown>)] : value };
  } catch (error) {
    return { error: `${(error as Error).constructor.name}: ${(error as Error).message}` };
  }
}

type Op = [method: "append" | "set" | "delete" | "get" | "has", name: string, value?: string];

/** Every operation on both classes, the state compared after each. */
function compare(init: HeadersInit | undefined, ops: Op[]): void {
  // Refused inits are TypeErrors as Node's are; the wording of those may differ.
  const errorClass = (value: unknown): unknown => ("error" in (value as object) ? String((value as { error: string }).error).split(":")[0] : value);
  const ours = outcome(() => new HttpHeaders(init));
  const node = outcome(() => new Headers(init));
  expect(errorClass(ours), `constructor ${JSON.stringify(init)}`).toEqual(errorClass(node));
  if ("error" in (node as object)) return;
  const a = new HttpHeaders(init);
  const b = new Headers(init);
  for (const [method, name, value] of ops) {
    const call = (headers: Headers): unknown => (value === undefined ? (headers[method] as (n: string) => unknown)(name) : (headers[method] as (n: string, v: string) => unknown)(name, value));
    expect(outcome(() => call(a)), `${method}(${JSON.stringify(name)}, ${JSON.stringify(value)})`).toEqual(outcome(() => call(b)));
    expect([...a]).toEqual([...b]);
    expect([...a.keys()]).toEqual([...b.keys()]);
    expect([...a.values()]).toEqual([...b.values()]);
    expect(a.getSetCookie()).toEqual(b.getSetCookie());
  }
}

describe("HttpHeaders behaves as Node's Headers", () => {
  it("for each form of init, valid or not", () => {
    const inits: unknown[] = [
      undefined,
      {},
      { A: "1", b: " two ", "X-Y": "\t3\r\n" },
      [["a", "1"], ["A", "2"], ["set-cookie", "x=1"], ["Set-Cookie", "y=2"]],
      new Map([["k", "v"]]),
      new Headers({ from: "node" }),
      { num: 12 as unknown as string },
      null,
      "abc",
      5,
      [["a"]],
      [["a", "1", "2"]],
      [5],
      { "bad name": "x" },
      { a: "x\ny" },
      { a: "nul\0" },
      { a: "é" },
      { a: "€" },
      { "€": "a" },
      { "": "a" },
    ];
    for (const init of inits) compare(init as HeadersInit, []);
  });

  it("through appends, sets, deletes and reads, set-cookie and odd names and values included", () => {
    compare(undefined, [
      ["append", "Content-Type", "text/plain"],
      ["append", "content-type", "charset=utf-8"],
      ["get", "CONTENT-TYPE"],
      ["append", "Set-Cookie", "a=1"],
      ["append", "set-cookie", "b=2"],
      ["get", "set-cookie"],
      ["set", "X-Z", "  padded  "],
      ["append", "x-a", ""],
      ["get", "x-a"],
      ["has", "X-A"],
      ["delete", "X-Z"],
      ["has", "x-z"],
      ["get", "missing"],
      ["append", "bad name", "1"],
      ["set", "ok", "bad\rvalue"],
      ["get", "bad:name"],
      ["append", "ok", "ü"],
      ["append", "ok", "☃"],
      ["delete", "set-cookie"],
      ["append", "~!#$%&'*+-.^_`|", "token chars"],
    ]);
  });

  it("for missing arguments, a non-function forEach, an invalid name with a wide value", () => {
    const calls: Array<(headers: Headers) => unknown> = [
      (h) => (h.set as (name: string) => void)("x"),
      (h) => (h.append as (name: string) => void)("x"),
      (h) => (h.get as () => unknown)(),
      (h) => (h.has as () => unknown)(),
      (h) => (h.delete as () => unknown)(),
      (h) => h.forEach("no" as unknown as () => void),
      (h) => h.append("bad name", "\u20ac"),
      (h) => h.set("\u20ac", "x"),
    ];
    for (const call of calls) expect(outcome(() => call(new HttpHeaders()))).toEqual(outcome(() => call(new Headers())));
  });

  it("keeps its fields private, and counts Node's own Headers as an instance without loading them for plain values", () => {
    const headers = new HttpHeaders({ a: "1" });
    expect([Object.keys(headers), JSON.stringify(headers)]).toEqual([[], "{}"]);
    expect(headers instanceof HttpHeaders).toBe(true);
    expect(new Headers({ a: "1" }) instanceof HttpHeaders).toBe(true);
    for (const value of [{}, [], null, "a", Object.create(null), new Map()]) expect(value instanceof HttpHeaders).toBe(false);
  });

  it("calls forEach with value, name and the headers, on thisArg", () => {
    const headers = new HttpHeaders({ b: "2", a: "1" });
    const seen: unknown[] = [];
    headers.forEach(function (this: unknown, value, name, parent) {
      seen.push([value, name, parent === headers, this]);
    }, "that");
    expect(seen).toEqual([["1", "a", true, "that"], ["2", "b", true, "that"]]);
    expect(Object.prototype.toString.call(headers)).toBe("[object Headers]");
  });
});

/** A body stream of these chunks. */
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
}

const init = (status = 200): ConstructorParameters<typeof HttpResponse>[1] => ({
  status,
  statusText: "OK",
  headers: new HttpHeaders({ "content-type": "application/json" }),
  url: "http://127.0.0.1/x",
  redirected: true,
});

describe("HttpResponse", () => {
  it("reads its body once, as text, JSON, bytes, an ArrayBuffer or a Blob, and says so in bodyUsed", async () => {
    const response = new HttpResponse(body('{"a":', "1}"), init());
    expect([response.ok, response.status, response.statusText, response.url, response.redirected, response.type]).toEqual([true, 200, "OK", "http://127.0.0.1/x", true, "basic"]);
    expect(response.bodyUsed).toBe(false);
    expect(await response.json()).toEqual({ a: 1 });
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(new TypeError("Body is unusable: Body has already been read"));

    expect(new TextDecoder().decode(await new HttpResponse(body("é", "x"), init()).bytes())).toBe("éx");
    expect(new Uint8Array(await new HttpResponse(body("ab"), init()).arrayBuffer())).toEqual(new Uint8Array([97, 98]));
    const blob = await new HttpResponse(body("hi"), init()).blob();
    expect([blob.type, await blob.text()]).toEqual(["application/json", "hi"]);
    await expect(new HttpResponse(body("not json"), init()).json()).rejects.toThrow(SyntaxError);
    await expect(new HttpResponse(body(""), init()).formData()).rejects.toThrow(TypeError);
  });

  it("has no body for a null stream, reads it as empty, and is not ok outside 2xx", async () => {
    const empty = new HttpResponse(null, init(204));
    expect([empty.body, empty.bodyUsed, empty.ok]).toEqual([null, false, true]);
    expect(await empty.text()).toBe("");
    expect(new HttpResponse(null, init(404)).ok).toBe(false);
    expect(() => new HttpResponse(null, init(101))).toThrow(RangeError);
    expect(() => new HttpResponse(null, init(600))).toThrow(RangeError);
  });

  it("counts a locked, read or cancelled body stream as used, and clones by teeing the body", async () => {
    const read = new HttpResponse(body("x", "y"), init());
    const reader = read.body?.getReader();
    await reader?.read();
    reader?.releaseLock();
    expect(read.bodyUsed).toBe(true);
    await expect(read.text()).rejects.toThrow(TypeError);
    const cancelled = new HttpResponse(body("x"), init());
    await cancelled.body?.cancel();
    expect(cancelled.bodyUsed).toBe(true);
    expect(() => cancelled.clone()).toThrow(TypeError);

    const locked = new HttpResponse(body("x"), init());
    locked.body?.getReader();
    expect(locked.bodyUsed).toBe(true);
    await expect(locked.text()).rejects.toThrow(TypeError);
    expect(() => locked.clone()).toThrow(TypeError);

    const original = new HttpResponse(body("same ", "bytes"), init());
    const copy = original.clone();
    expect([await copy.text(), await original.text()]).toEqual(["same bytes", "same bytes"]);
    expect(copy.headers).not.toBe(original.headers);
    expect(copy.headers.get("content-type")).toBe("application/json");
    expect(Object.prototype.toString.call(copy)).toBe("[object Response]");
  });
});

describe("HttpResponse body iteration", () => {
  const decode = (chunks: Uint8Array[]): string[] => chunks.map((chunk) => new TextDecoder().decode(chunk));

  it("yields the body's chunks, errors as the stream does, and never releases its reader", async () => {
    const released: unknown[] = [];
    const releaseLock = ReadableStreamDefaultReader.prototype.releaseLock;
    ReadableStreamDefaultReader.prototype.releaseLock = function (this: ReadableStreamDefaultReader) {
      released.push(this);
      releaseLock.call(this);
    };
    try {
      const response = new HttpResponse(body("a", "b", "c"), init());
      const chunks: Uint8Array[] = [];
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
      expect(decode(chunks)).toEqual(["a", "b", "c"]);
      expect(response.bodyUsed).toBe(true);
      expect(() => (response.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]()).toThrow(TypeError);

      let pulls = 0;
      const failing = new HttpResponse(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            pulls += 1;
            if (pulls === 1) controller.enqueue(new TextEncoder().encode("x"));
            else controller.error(new Error("connection reset"));
          },
        }),
        init(),
      );
      const seen: Uint8Array[] = [];
      await expect(
        (async () => {
          for await (const chunk of failing.body as unknown as AsyncIterable<Uint8Array>) seen.push(chunk);
        })(),
      ).rejects.toThrow("connection reset");
      expect(decode(seen)).toEqual(["x"]);
      expect(released).toEqual([]);
    } finally {
      ReadableStreamDefaultReader.prototype.releaseLock = releaseLock;
    }
  });

  it("cancels the body when the reader stops early, and iterates both halves of a clone", async () => {
    let cancelled: unknown = "not cancelled";
    const endless = new HttpResponse(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(new TextEncoder().encode("tick"));
        },
        cancel(reason) {
          cancelled = reason;
        },
      }),
      init(),
    );
    for await (const chunk of endless.body as unknown as AsyncIterable<Uint8Array>) {
      expect(decode([chunk])).toEqual(["tick"]);
      break;
    }
    expect(cancelled).toBeUndefined();

    const original = new HttpResponse(body("same ", "bytes"), init());
    const copy = original.clone();
    const read = async (response: HttpResponse): Promise<string> => {
      const chunks: Uint8Array[] = [];
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
      return decode(chunks).join("");
    };
    expect([await read(copy), await read(original)]).toEqual(["same bytes", "same bytes"]);
  });
});

describe("SdkFormData", () => {
  it("makes Node's FormData and answers instanceof as the global does", () => {
    const form = new SdkFormData();
    expect(form).toBeInstanceOf(globalThis.FormData);
    expect(form instanceof SdkFormData).toBe(true);
    for (const value of [{}, [], Object.create(null), "text", 1, null, undefined, new Uint8Array(1), new URLSearchParams(), Object.create(globalThis.FormData.prototype)]) {
      expect(value instanceof SdkFormData).toBe(value instanceof globalThis.FormData);
    }
  });

  it("answers a plain request body without loading Node's fetch (undici)", () => {
    const script = [
      'import { HttpHeaders, SdkFormData } from "./src/llm/fetch-classes.ts";',
      "const headers = new HttpHeaders({ authorization: 'Bearer x' });",
      "const plain = ({ model: 'm', messages: [] }) instanceof SdkFormData;",
      "console.log(JSON.stringify({ plain, headers: [...headers], undici: process.moduleLoadList.some((m) => m.includes('undici')) }));",
    ].join("\n");
    expect(runInFreshProcess(script)).toEqual({ plain: false, headers: [["authorization", "Bearer x"]], undici: false });
  });
});
