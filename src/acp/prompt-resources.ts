import { open, stat } from "node:fs/promises";
import { basename, extname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { UserContentPart } from "../llm/types.js";
import { errorMessage } from "../shared/errors.js";
import { binaryTypeByExtension } from "../tools/read-file/binary.js";

/**
 * Attachments of a prompt (ACP `resource_link`, `resource` and `image` blocks) as model content,
 * following Hermes' `content.py`: every text below is the model-facing wording. Nothing here
 * throws: a file that cannot be read becomes a note for the model.
 */

/** Bytes inlined per resource (DESIGN §6: 512 KiB). */
export const MAX_RESOURCE_BYTES = 524_288;

const IMAGE_SUFFIXES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".bmp": "image/bmp",
  ".svg": "image/svg+xml",
};

const TEXT_MIME_WORDS = ["json", "javascript", "typescript", "xml", "x-yaml", "yaml", "toml", "sql"];

export const NON_FILE_LINK_NOTE = "[Resource link only; Hermes cannot read non-file ACP resource URIs directly.]";

/** What attachments may produce: images only when the model takes them. */
export interface AttachmentOptions {
  /** False when the model does not accept images: images become a note instead of a part. */
  images: boolean;
  /** Directory bare relative paths resolve against (the session's cwd). */
  cwd?: string;
}

export type Parts = UserContentPart[];

const text = (value: string): UserContentPart => ({ type: "text", text: value });
const imagePart = (url: string): UserContentPart => ({ type: "image_url", image_url: { url } });

/** `text/*` and the structured text types (json, javascript, typescript, xml, yaml, toml, sql). */
export function isTextMime(mime: string | undefined | null): boolean {
  if (!mime) return false;
  const lower = mime.toLowerCase().split(";")[0]?.trim() ?? "";
  if (lower.startsWith("text/")) return true;
  if (!lower.startsWith("application/")) return false;
  const subtype = lower.slice("application/".length);
  return TEXT_MIME_WORDS.some((word) => subtype === word || subtype.endsWith(`+${word}`) || subtype === `x-${word}`);
}

/** The image mime type of an attachment (declared `image/*`, else by suffix), or undefined. */
export function imageMime(mime: string | undefined | null, pathOrUri: string): string | undefined {
  if (mime && mime.toLowerCase().startsWith("image/")) return mime.toLowerCase();
  return IMAGE_SUFFIXES[extname(pathOrUri.split(/[?#]/)[0] ?? "").toLowerCase()];
}

/** `title (name)` when both exist and differ, else title, else name, else the URI's basename, else `resource`. */
export function displayName(link: { title?: string | null; name?: string | null; uri?: string | null }): string {
  const title = link.title?.trim();
  const name = link.name?.trim();
  if (title && name && title !== name) return `${title} (${name})`;
  if (title) return title;
  if (name) return name;
  const base = link.uri ? basename(link.uri.split(/[?#]/)[0] ?? "") : "";
  return base || "resource";
}

/**
 * The local path a URI names: `file://` (host empty or `localhost`) or a bare path (relative ones
 * against `cwd`). A Windows drive path maps to `/mnt/<drive>/…` (WSL). Undefined for anything else.
 */
export function localPath(uri: string, cwd?: string): string | undefined {
  let path: string;
  if (/^file:/i.test(uri)) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return undefined;
    }
    if (url.hostname !== "" && url.hostname.toLowerCase() !== "localhost") return undefined;
    url.hostname = "";
    const drive = /^\/([A-Za-z]):(\/.*)?$/.exec(decodeURIComponent(url.pathname));
    if (drive) return wslPath(drive[1] ?? "", drive[2] ?? "/");
    try {
      path = fileURLToPath(url);
    } catch {
      return undefined;
    }
    return path;
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(uri)) return undefined;
  const drive = /^([A-Za-z]):[\\/](.*)$/.exec(uri);
  if (drive) return wslPath(drive[1] ?? "", `/${(drive[2] ?? "").replace(/\\/g, "/")}`);
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) return undefined;
  if (!uri.trim()) return undefined;
  return isAbsolute(uri) ? uri : resolve(cwd ?? process.cwd(), uri);
}

function wslPath(drive: string, rest: string): string {
  return `/mnt/${drive.toLowerCase()}${rest}`;
}

/**
 * Text of `bytes`: a UTF-8 BOM is dropped; valid UTF-8 is decoded as such (a multi-byte character
 * cut at the end of a `truncated` read is dropped); anything else is read as latin-1.
 */
export function decodeText(bytes: Uint8Array, truncated: boolean): string {
  let body = bytes;
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) body = body.subarray(3);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(body, { stream: truncated });
  } catch {
    return Buffer.from(body).toString("latin1");
  }
}

/** A `resource_link` to a local file: text inlined (capped), images as parts, binaries described. */
export async function linkedFileParts(
  link: { uri: string; name?: string | null; title?: string | null; mimeType?: string | null },
  path: string,
  options: AttachmentOptions,
): Promise<Parts> {
  const display = displayName(link);
  const image = imageMime(link.mimeType, path);
  const kind = image ? "image" : "file";
  let read: { bytes: Buffer; size: number };
  try {
    read = await readHead(path, image ? MAX_RESOURCE_BYTES + 1 : MAX_RESOURCE_BYTES);
  } catch (error) {
    return [text(`[Could not read attached ${kind}: ${errorMessage(error)}]`)];
  }
  if (image) {
    if (read.size > MAX_RESOURCE_BYTES) return [text(`[Image too large to inline: ${read.size} bytes, cap=${MAX_RESOURCE_BYTES}]`)];
    return imageParts(`[Attached image: ${display}]\nURI: ${link.uri}`, image, read.bytes, options);
  }
  const mime = link.mimeType || "application/octet-stream";
  if (isBinary(read.bytes, path, link.mimeType)) {
    return [text(`[Binary file omitted: ${read.size} bytes, mime=${mime}]`)];
  }
  const truncated = read.size > read.bytes.length;
  const note = truncated ? ` (truncated to ${MAX_RESOURCE_BYTES} of ${read.size} bytes)` : "";
  return [text(`[Attached file: ${display}]${note}\nURI: ${link.uri}\n\n${decodeText(read.bytes, truncated)}`)];
}

/** An embedded `resource` block: text (capped with a note), an image blob, a text blob or a binary blob. */
export function embeddedParts(
  resource: { uri: string; mimeType?: string | null } & ({ text: string } | { blob: string }),
  options: AttachmentOptions,
): Parts {
  const display = displayName({ uri: resource.uri });
  const header = `[Attached file: ${display}]\nURI: ${resource.uri}\n\n`;
  if ("text" in resource) {
    const bytes = Buffer.from(resource.text, "utf8");
    if (bytes.length <= MAX_RESOURCE_BYTES) return [text(header + resource.text)];
    const kept = decodeText(bytes.subarray(0, MAX_RESOURCE_BYTES), true);
    return [text(`${header}${kept}\n\n[Truncated to ${MAX_RESOURCE_BYTES} of ${bytes.length} bytes]`)];
  }
  const bytes = Buffer.from(resource.blob, "base64");
  const mime = resource.mimeType || "application/octet-stream";
  const image = imageMime(resource.mimeType, resource.uri);
  if (image) {
    if (bytes.length > MAX_RESOURCE_BYTES) return [text(`[Embedded image too large to inline: ${bytes.length} bytes, cap=${MAX_RESOURCE_BYTES}]`)];
    return imageParts(`[Attached image: ${display}]\nURI: ${resource.uri}`, image, bytes, options);
  }
  if (isBinary(bytes, resource.uri, resource.mimeType)) {
    return [text(`[Binary embedded file omitted: ${bytes.length} bytes, mime=${mime}]`)];
  }
  if (bytes.length <= MAX_RESOURCE_BYTES) return [text(header + decodeText(bytes, false))];
  const kept = decodeText(bytes.subarray(0, MAX_RESOURCE_BYTES), true);
  return [text(`${header}${kept}\n\n[Truncated to ${MAX_RESOURCE_BYTES} of ${bytes.length} bytes]`)];
}

/**
 * Binary, not to be inlined: a NUL byte in what was read (Hermes' rule) or a known binary
 * extension (pdf, zip, executables…), unless the declared mime type says text.
 */
function isBinary(bytes: Uint8Array, pathOrUri: string, mime: string | undefined | null): boolean {
  if (isTextMime(mime)) return false;
  return bytes.includes(0) || binaryTypeByExtension(pathOrUri.split(/[?#]/)[0] ?? "") !== undefined;
}

/** The note, then the image as a data URL part (or, for a model without images, a note instead). */
export function imageParts(note: string, mime: string, bytes: Uint8Array, options: AttachmentOptions): Parts {
  if (!options.images) return [text(`${note}\n${IMAGES_UNSUPPORTED_NOTE}`)];
  return [text(note), imagePart(`data:${mime};base64,${Buffer.from(bytes).toString("base64")}`)];
}

export const IMAGES_UNSUPPORTED_NOTE = "[Image not sent: the current model does not accept images]";

/** The first `limit` bytes of the file at `path` and its size. Rejects with the file system's error. */
async function readHead(path: string, limit: number): Promise<{ bytes: Buffer; size: number }> {
  const before = await stat(path);
  if (before.isDirectory()) throw new Error(`${path} is a directory`);
  if (!before.isFile()) throw new Error(`${path} is not a regular file`);
  const handle = await open(path, "r");
  try {
    const stats = await handle.stat();
    const buffer = Buffer.alloc(Math.min(limit, stats.size) || Math.min(limit, 65_536));
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return { bytes: buffer.subarray(0, length), size: Math.max(stats.size, length) };
  } finally {
    await handle.close();
  }
}
