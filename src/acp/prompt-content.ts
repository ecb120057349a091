import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";
import type { UserContentPart } from "../llm/types.js";
import { contentText } from "../shared/content-text.js";
import {
  embeddedParts,
  imageMime,
  IMAGES_UNSUPPORTED_NOTE,
  linkedFileParts,
  localPath,
  NON_FILE_LINK_NOTE,
  type AttachmentOptions,
  type Parts,
} from "./prompt-resources.js";

export { MAX_RESOURCE_BYTES } from "./prompt-resources.js";

/** The note an audio block becomes (Hermes sends no audio to models). */
export const AUDIO_IGNORED_NOTE = "[Audio attachment ignored: Hermes does not send audio to the model]";

/** A prompt as the model gets it. */
export interface PromptContent {
  /** The user's typed text: every `text` block joined by newlines, trimmed (slash commands, titles). */
  text: string;
  /** A plain string when every part is text (text-only providers and slash handling stay simple), else parts. */
  content: string | UserContentPart[];
  /** True when the prompt was only `text` blocks. */
  textOnly: boolean;
  /** True when nothing is left to send (no text, no attachment); the turn ends at once. */
  empty: boolean;
}

/**
 * The user's text from ACP prompt blocks: the `text` blocks joined by newlines, trimmed.
 * Attachments are not included; `promptContent` converts them.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  return blocks
    .flatMap((block) => (block.type === "text" && block.text ? [block.text] : []))
    .join("\n")
    .trim();
}

/**
 * Converts ACP prompt blocks to model content, in block order (Hermes `content.py` rules):
 * - `text`: kept when non-empty.
 * - `image`: base64 `data` becomes a `data:<mime>;base64,…` URL part (mime default `image/png`;
 *   a `data:` value passes through); without data, an http(s) `uri` is used as the URL and a
 *   local file URI is read like a linked image; nothing usable → dropped.
 * - `resource_link`: `file://` (local host) URIs and bare paths are read from disk: text inlined
 *   up to 512 KiB with a truncation note, images (≤ 512 KiB) as parts, binaries (a NUL byte, or a
 *   known binary extension such as .pdf, unless the mime type says text) described, read errors
 *   noted; other schemes become a note that Hermes cannot read them, with the URI.
 * - `resource` (embedded): text inlined (capped), image blobs as parts, text blobs decoded,
 *   binary blobs described.
 * - `audio`: a note that it was ignored.
 * With `images: false` (a model without vision) images become notes. Never throws.
 */
export async function promptContent(blocks: readonly ContentBlock[], options: Partial<AttachmentOptions> = {}): Promise<PromptContent> {
  const settings: AttachmentOptions = { images: options.images ?? true, ...(options.cwd ? { cwd: options.cwd } : {}) };
  const parts: Parts = [];
  for (const block of blocks) parts.push(...(await blockParts(block, settings)));
  const text = promptText(blocks);
  const textOnly = blocks.every((block) => block.type === "text");
  const allText = parts.every((part) => part.type === "text");
  const content = allText
    ? contentText(parts).trim()
    : parts;
  return { text, content, textOnly, empty: typeof content === "string" ? content === "" : parts.length === 0 };
}

async function blockParts(block: ContentBlock, options: AttachmentOptions): Promise<Parts> {
  switch (block.type) {
    case "text":
      return block.text ? [{ type: "text", text: block.text }] : [];
    case "image":
      return imageBlockParts(block, options);
    case "resource_link": {
      const path = localPath(block.uri, options.cwd);
      if (!path) return [{ type: "text", text: `${NON_FILE_LINK_NOTE}\nURI: ${block.uri}` }];
      return linkedFileParts(block, path, options);
    }
    case "resource":
      return embeddedParts(block.resource, options);
    case "audio":
      return [{ type: "text", text: AUDIO_IGNORED_NOTE }];
    default:
      return [];
  }
}

async function imageBlockParts(block: Extract<ContentBlock, { type: "image" }>, options: AttachmentOptions): Promise<Parts> {
  const data = block.data?.trim();
  if (data) {
    const url = data.startsWith("data:") ? data : `data:${block.mimeType || "image/png"};base64,${data}`;
    return options.images ? [{ type: "image_url", image_url: { url } }] : [{ type: "text", text: IMAGES_UNSUPPORTED_NOTE }];
  }
  const uri = block.uri?.trim();
  if (!uri) return [];
  if (/^https?:\/\//i.test(uri) || uri.startsWith("data:")) {
    return options.images ? [{ type: "image_url", image_url: { url: uri } }] : [{ type: "text", text: IMAGES_UNSUPPORTED_NOTE }];
  }
  const path = localPath(uri, options.cwd);
  if (!path) return [{ type: "text", text: `${NON_FILE_LINK_NOTE}\nURI: ${uri}` }];
  return linkedFileParts({ uri, name: null, mimeType: imageMime(block.mimeType, path) ?? block.mimeType }, path, options);
}
