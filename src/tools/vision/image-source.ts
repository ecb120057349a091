/**
 * Where `vision_analyze`'s `image_url` points, and its bytes: an http(s) URL (fetched under the
 * web tools' URL policy), a `data:` URL (base64), a `file://` URI or a path (absolute, `~/…` or
 * relative to the session's folder; the read rules of `read_file` apply: credential files and
 * process environments are refused, devices are never opened). Any other `scheme://` is refused.
 * Every source is capped at MAX_IMAGE_BYTES.
 */
import { stat, open } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { secretFileReason } from "../../config/secret-files.js";
import { abortError, isAbortError } from "../../shared/abort.js";
import { HermesError, errorMessage } from "../../shared/errors.js";
import { isDevicePath } from "../read-file/binary.js";
import { resolveReadPath } from "../read-file/read-file.js";
import type { HermesConfig } from "../../config/schema.js";
import type { Resolver } from "../web/url-policy.js";

/** Most bytes of one input image, from any source (before decoding; Hermes allows 50 MB). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** How long one download may take, unless `auxiliary.vision.download_timeout` (seconds) says otherwise. */
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 30_000;

export type ImageSourceKind = "url" | "data" | "file";

/** What `image_url` names, before anything is read. */
export type ImageSource =
  | { kind: "url"; url: string }
  | { kind: "data"; mediaType: string; payload: string }
  | { kind: "file"; path: string };

/**
 * Classifies `raw` without touching the disk or network. Throws HermesError `invalid_params` for
 * an empty value, a `data:` URL that is not base64, or an unsupported scheme.
 */
export function classifySource(raw: string, cwd: string): ImageSource {
  const value = raw.trim();
  if (!value) throw new HermesError("invalid_params", "image_url is required");
  if (/^data:/i.test(value)) {
    const comma = value.indexOf(",");
    const header = comma < 0 ? value : value.slice(0, comma);
    if (comma < 0 || !/;base64$/i.test(header)) throw new HermesError("invalid_params", "A data: URL must be base64-encoded (data:image/png;base64,…).");
    return { kind: "data", mediaType: header.slice(5, -7).split(";")[0]!.trim().toLowerCase(), payload: value.slice(comma + 1) };
  }
  if (/^https?:\/\//i.test(value)) return { kind: "url", url: value };
  if (/^file:\/\//i.test(value)) {
    try {
      return { kind: "file", path: fileURLToPath(value) };
    } catch (error) {
      throw new HermesError("invalid_params", `Not a usable file:// URI: ${errorMessage(error)}`);
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw new HermesError("invalid_params", "Unrecognized image source scheme. Use an http(s) URL, a local file path, a file:// URI, or a data: URL.");
  }
  return { kind: "file", path: resolveReadPath(value, cwd) };
}

/** Decodes a base64 `data:` payload (whitespace allowed). Throws HermesError `invalid_params` when it is too large or not base64. */
export function decodeDataPayload(payload: string): Buffer {
  const compact = payload.replace(/\s+/g, "");
  if (Math.floor((compact.length * 3) / 4) > MAX_IMAGE_BYTES) throw tooLarge("The data: URL");
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw new HermesError("invalid_params", "The data: URL is not valid base64.");
  }
  const data = Buffer.from(compact, /[-_]/.test(compact) ? "base64url" : "base64");
  if (data.length === 0) throw new HermesError("invalid_params", "The data: URL is empty.");
  return data;
}

/**
 * Reads a local image under `read_file`'s rules. Throws HermesError `invalid_params` naming the
 * path when it is a credential file, a device, missing, not a regular file, empty or over
 * MAX_IMAGE_BYTES; an AbortError when `signal` fires.
 */
export async function readImageFile(absolute: string, hermesHome: string, signal: AbortSignal): Promise<Buffer> {
  const secret = await secretFileReason(absolute, hermesHome);
  if (secret) throw new HermesError("invalid_params", `Refused to read ${absolute}: ${secret}. Its values are never shown to the model.`);
  if (isDevicePath(absolute)) throw new HermesError("invalid_params", `Cannot read ${absolute}: device and process file-descriptor paths are not images`);
  let size: number;
  try {
    const stats = await stat(absolute);
    if (stats.isDirectory()) throw new HermesError("invalid_params", `${absolute} is a directory, not an image file.`);
    if (!stats.isFile()) throw new HermesError("invalid_params", `Cannot read ${absolute}: not a regular file (device, FIFO or socket)`);
    size = stats.size;
  } catch (error) {
    if (error instanceof HermesError) throw error;
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new HermesError("invalid_params", `Image file not found: ${absolute}`);
    throw new HermesError("invalid_params", `Cannot read ${absolute}: ${errorMessage(error)}`);
  }
  if (size > MAX_IMAGE_BYTES) throw tooLarge(absolute);
  if (size === 0) throw new HermesError("invalid_params", `${absolute} is empty.`);
  // Read at most one byte past the cap, in case the file grew since stat.
  const handle = await open(absolute, "r");
  try {
    const buffer = Buffer.alloc(Math.min(size, MAX_IMAGE_BYTES) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      if (signal.aborted) throw abortError();
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > MAX_IMAGE_BYTES) throw tooLarge(absolute);
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** The image's download options (tests pass their own resolver). */
export interface DownloadOptions {
  signal: AbortSignal;
  timeoutMs: number;
  resolve?: Resolver;
}

/**
 * Downloads an image under the URL policy config.yaml sets (`web.allow_private_urls`,
 * `web.blocked_domains`, Hermes' `security.*`). Throws HermesError `invalid_params` when the
 * policy refuses the URL (or a redirect), the server answers an HTTP error or a non-image type,
 * or the body passes MAX_IMAGE_BYTES; an AbortError when `signal` fires.
 */
export async function downloadImage(url: string, config: Partial<Pick<HermesConfig, "web">> & { security?: unknown }, options: DownloadOptions): Promise<Buffer> {
  const { urlPolicyFromConfig } = await import("../web/url-policy.js");
  const { safeFetch, WebFetchError } = await import("../web/safe-fetch.js");
  try {
    const response = await safeFetch(url, {
      policy: urlPolicyFromConfig(config),
      signal: options.signal,
      maxBytes: MAX_IMAGE_BYTES,
      timeoutMs: options.timeoutMs,
      accept: "image/*,*/*;q=0.8",
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });
    if (response.status >= 400) throw new HermesError("invalid_params", `Downloading ${url} failed: HTTP ${response.status}`);
    if (/^(text\/html|application\/json)/.test(response.mediaType)) {
      throw new HermesError("invalid_params", `${url} is not an image (the server sent ${response.mediaType}).`);
    }
    if (response.body.length === 0) throw new HermesError("invalid_params", `${url} answered with an empty body.`);
    return response.body;
  } catch (error) {
    if (error instanceof HermesError || isAbortError(error) || options.signal.aborted) throw error;
    if (error instanceof WebFetchError) throw new HermesError("invalid_params", error.kind === "refused" ? error.message : `Downloading ${url} failed: ${error.message}`);
    throw new HermesError("invalid_params", `Downloading ${url} failed: ${errorMessage(error)}`);
  }
}

/** The file name or `host/path` shown in titles (at most 100 chars). */
export function sourceLabel(raw: string): string {
  const value = raw.trim();
  if (/^data:/i.test(value)) return `${value.slice(0, Math.max(5, value.indexOf(";"))).toLowerCase()} image`;
  if (/^https?:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      return cut(`${url.host}${url.pathname === "/" ? "" : url.pathname}`);
    } catch {
      return cut(value);
    }
  }
  return cut(path.basename(value.replace(/^file:\/\//i, "")) || value);
}

function cut(text: string): string {
  const line = text.replace(/\s+/g, " ");
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

function tooLarge(what: string): HermesError {
  return new HermesError("invalid_params", `${what} is larger than ${MAX_IMAGE_BYTES / (1024 * 1024)} MB; not read.`);
}
