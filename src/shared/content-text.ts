/**
 * "The text of a message", computed one way everywhere (titles, previews, search, summaries,
 * replay, export): text parts in order, each image part as IMAGE_PLACEHOLDER (or left out where
 * only the words matter), joined by `separator` (default a newline). Pure; never throws.
 */

/** What an image part leaves in text. */
export const IMAGE_PLACEHOLDER = "[image]";

/** The shape shared by ChatMessage and StoredMessage content parts (shared/ knows neither). */
export type ContentPartLike = { type: "text"; text: string } | { type: string };

export function contentText(
  content: string | readonly ContentPartLike[] | null | undefined,
  options: { images?: "placeholder" | "omit"; separator?: string } = {},
): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  const keepImages = (options.images ?? "placeholder") === "placeholder";
  const pieces: string[] = [];
  for (const part of content) {
    if (part.type === "text" && "text" in part) pieces.push(part.text);
    else if (keepImages) pieces.push(IMAGE_PLACEHOLDER);
  }
  return pieces.join(options.separator ?? "\n");
}
