const MAX_TITLE = 60;

/**
 * A session title from the first user message: whitespace collapsed, code fences and markdown
 * markers dropped, cut at a word boundary to about 60 characters with an ellipsis. Empty when
 * nothing readable is left.
 */
export function titleFromPrompt(text: string): string {
  const clean = text
    .replace(/```[\s\S]*?(```|$)/g, " ")
    .replace(/[#*_>`]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (clean.length <= MAX_TITLE) return clean;
  const cut = clean.slice(0, MAX_TITLE);
  const space = cut.lastIndexOf(" ");
  return `${(space > MAX_TITLE / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
