import { Blob } from "node:buffer";
import { Readable } from "node:stream";

/**
 * `Headers` and `Response` for `httpFetch` and the model SDKs (the build gives the SDKs' modules
 * this `Headers` in place of the global one: scripts/sdk-fetch-globals.mjs). Node's own classes
 * live in its bundled undici, and the first touch of either evaluates all of it, with http2, tls
 * and zlib (~40 ms of CPU and ~2 MB resident here), in the middle of a session's first prompt.
 *
 * Contract: each behaves as the Fetch standard's class for what it implements, errors included
 * (TypeError; an invalid name or value worded as undici words it). Names are checked as HTTP
 * tokens and lower-cased; values are stripped of surrounding HTTP whitespace and refused when
 * they hold NUL, CR, LF or a character above U+00FF; iteration is sorted by name, each
 * `set-cookie` value on its own. A body is read at most once (`bodyUsed`); `clone()` tees it.
 * `instanceof HttpHeaders` is also true for Node's own `Headers` (so the SDKs read one given to
 * them), asking the global only for a value that could be one. Not implemented: a guard
 * (immutable response headers), iterators that see changes made while they run (they iterate a
 * snapshot), and `formData()`, which rejects.
 */
export class HttpHeaders implements Headers {
  /** Lower-cased name → its values in the order they were added. */
  readonly #fields = new Map<string, string[]>();

  static [Symbol.hasInstance](value: unknown): boolean {
    return (typeof value === "object" && value !== null && HttpHeaders.prototype.isPrototypeOf(value)) || (!neverWebClass(value) && value instanceof globalThis.Headers);
  }

  constructor(init?: HeadersInit) {
    if (init === undefined) return;
    if (init === null || (typeof init !== "object" && typeof init !== "function")) throw new TypeError(CONSTRUCTOR_ARGUMENT);
    if (Symbol.iterator in init) {
      for (const pair of init as Iterable<Iterable<unknown>>) {
        if (pair === null || typeof pair !== "object" || !(Symbol.iterator in pair)) throw new TypeError(CONSTRUCTOR_ARGUMENT);
        const items = [...pair];
        if (items.length !== 2) throw new TypeError(`Headers constructor: expected name/value pair to be length 2, found ${items.length}.`);
        this.append(String(items[0]), String(items[1]));
      }
      return;
    }
    for (const name of Object.keys(init)) this.append(name, String((init as Record<string, unknown>)[name]));
  }

  append(name: string, value: string): void {
    required("append", arguments.length, 2);
    const [key, normalized] = nameAndValue("append", name, value);
    const existing = this.#fields.get(key);
    if (existing) existing.push(normalized);
    else this.#fields.set(key, [normalized]);
  }

  set(name: string, value: string): void {
    required("set", arguments.length, 2);
    const [key, normalized] = nameAndValue("set", name, value);
    this.#fields.set(key, [normalized]);
  }

  delete(name: string): void {
    required("delete", arguments.length, 1);
    this.#fields.delete(headerKey("delete", name));
  }

  get(name: string): string | null {
    required("get", arguments.length, 1);
    return this.#fields.get(headerKey("get", name))?.join(", ") ?? null;
  }

  has(name: string): boolean {
    required("has", arguments.length, 1);
    return this.#fields.has(headerKey("has", name));
  }

  getSetCookie(): string[] {
    return [...(this.#fields.get("set-cookie") ?? [])];
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    if (typeof callback !== "function") throw new TypeError("Failed to execute 'forEach' on 'Headers': parameter 1 is not of type 'Function'.");
    for (const [name, value] of this.sorted()) callback.call(thisArg, value, name, this);
  }

  *entries(): HeadersIterator<[string, string]> {
    yield* this.sorted();
  }

  *keys(): HeadersIterator<string> {
    for (const [name] of this.sorted()) yield name;
  }

  *values(): HeadersIterator<string> {
    for (const [, value] of this.sorted()) yield value;
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return "Headers";
  }

  /** The pairs iteration shows: sorted by name, values combined with ", " except `set-cookie`'s. */
  private sorted(): Array<[string, string]> {
    const pairs: Array<[string, string]> = [];
    for (const name of [...this.#fields.keys()].sort()) {
      const values = this.#fields.get(name) as string[];
      if (name === "set-cookie") for (const value of values) pairs.push([name, value]);
      else pairs.push([name, values.join(", ")]);
    }
    return pairs;
  }
}

const CONSTRUCTOR_ARGUMENT = "Headers constructor: Argument 1 could not be converted to one of: sequence<sequence<ByteString>>, record<ByteString, ByteString>.";
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SURROUNDING_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

const WIDE_CHARACTER = /[^\u0000-\u00ff]/;

function byteString(value: string): string {
  if (!WIDE_CHARACTER.test(value)) return value;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code > 255) throw new TypeError(`Cannot convert argument to a ByteString because the character at index ${index} has a value of ${code} which is greater than 255.`);
  }
  return value;
}

function required(method: string, given: number, needed: number): void {
  if (given >= needed) return;
  throw new TypeError(`Headers.${method}: ${needed === 1 ? "1 argument required, but" : `${needed} arguments required, but only`} ${given} found.`);
}

/** `name` (a ByteString) checked as a token and lower-cased. */
function headerName(method: string, name: string): string {
  if (!TOKEN.test(name)) throw new TypeError(`Headers.${method}: "${name}" is an invalid header name.`);
  return name.toLowerCase();
}

/** `name` converted to a ByteString, checked as a token and lower-cased. */
function headerKey(method: string, name: string): string {
  return headerName(method, byteString(String(name)));
}

/** Both converted to ByteStrings first (as WebIDL converts arguments), then checked. */
function nameAndValue(method: string, name: string, value: string): [string, string] {
  const rawName = byteString(String(name));
  const text = byteString(String(value)).replace(SURROUNDING_WHITESPACE, "");
  const key = headerName(method, rawName);
  if (/[\0\r\n]/.test(text)) throw new TypeError(`Headers.${method}: "${text}" is an invalid header value.`);
  return [key, text];
}

/** What `httpFetch` knows of a response when it hands it back. */
export interface HttpResponseInit {
  status: number;
  statusText: string;
  headers: HttpHeaders;
  url: string;
  redirected: boolean;
}

/** A response as `fetch` answers it (see `HttpHeaders` for the contract). `body` is null for a response without one (HEAD, 204, 304…). */
export class HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HttpHeaders;
  readonly url: string;
  readonly redirected: boolean;
  readonly type = "basic";
  private stream: ReadableStream<Uint8Array> | null;
  private used = false;

  constructor(body: ReadableStream<Uint8Array> | null, init: HttpResponseInit) {
    if (init.status < 200 || init.status > 599) throw new RangeError(`init["status"] must be in the range of 200 to 599, inclusive.`);
    this.stream = body && withKeptReaderIteration(body);
    this.status = init.status;
    this.statusText = init.statusText;
    this.headers = init.headers;
    this.url = init.url;
    this.redirected = init.redirected;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.stream;
  }

  /** True once a reading method has started, or the body stream is locked or has been read from or cancelled. */
  get bodyUsed(): boolean {
    return this.used || (this.stream !== null && (this.stream.locked || Readable.isDisturbed(this.stream as unknown as Readable)));
  }

  async bytes(): Promise<Uint8Array> {
    if (this.bodyUsed) throw new TypeError("Body is unusable: Body has already been read");
    this.used = true;
    if (!this.stream) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    const reader = this.stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    // Copied into an ArrayBuffer of its own: a small Buffer.concat lives in Node's shared pool.
    return new Uint8Array(Buffer.concat(chunks));
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get("content-type") ?? "" });
  }

  formData(): Promise<never> {
    return Promise.reject(new TypeError("formData() is not supported for a model or model-list response"));
  }

  /** A second response over the same body, each reading it in full (the body is teed). */
  clone(): HttpResponse {
    if (this.bodyUsed) throw new TypeError("Response.clone: Body has already been consumed.");
    let copy: ReadableStream<Uint8Array> | null = null;
    if (this.stream) {
      const [kept, teed] = this.stream.tee();
      this.stream = withKeptReaderIteration(kept);
      copy = teed;
    }
    const headers = new HttpHeaders(this.headers);
    return new HttpResponse(copy, { status: this.status, statusText: this.statusText, headers, url: this.url, redirected: this.redirected });
  }

  get [Symbol.toStringTag](): string {
    return "Response";
  }
}

/**
 * `body` with an async iterator of its own (what the SDKs read a streamed answer through): the
 * same chunks, errors and early-`return` cancel as the stream's own, except that it never releases
 * its reader. Node builds the error a released reader's `closed` rejects with once per process, in
 * a fresh vm context (~6 ms and ~2.7 MB resident here), which the first streamed answer would pay.
 * The stream stays locked once iterated, as a read body is. Answers `body`.
 */
function withKeptReaderIteration(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  Object.defineProperty(body, Symbol.asyncIterator, {
    configurable: true,
    writable: true,
    value: (): AsyncIterableIterator<Uint8Array> => {
      const reader = body.getReader();
      let finished = false;
      const iterator: AsyncIterableIterator<Uint8Array> = {
        next: async () => {
          if (finished) return { done: true, value: undefined };
          try {
            const result = await reader.read();
            if (result.done) finished = true;
            return result;
          } catch (error) {
            finished = true;
            throw error;
          }
        },
        return: async () => {
          if (!finished) {
            finished = true;
            await reader.cancel();
          }
          return { done: true, value: undefined };
        },
        [Symbol.asyncIterator]: () => iterator,
      };
      return iterator;
    },
  });
  return body;
}

/** A value no instance of a web class (Headers, FormData) can be: a primitive, a plain object or an array. */
function neverWebClass(value: unknown): boolean {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null || Array.isArray(value);
}

/**
 * `FormData` as the bundled SDKs see it (scripts/sdk-fetch-globals.mjs): `new` makes Node's own, and
 * `instanceof` answers as the global's does, except that a primitive, a plain object or an array
 * (every request body the SDKs build for a model call) answers false without evaluating undici.
 */
export const SdkFormData: typeof FormData = Object.defineProperty(
  function FormData(...args: ConstructorParameters<typeof globalThis.FormData>): FormData {
    return new globalThis.FormData(...args);
  },
  Symbol.hasInstance,
  { value: (value: unknown): boolean => !neverWebClass(value) && value instanceof globalThis.FormData },
) as unknown as typeof FormData;
