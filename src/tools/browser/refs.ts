/**
 * Element refs: `browser_snapshot` tags each element it numbers with `data-hermes-ref="eN"` and
 * shows it as `[ref=eN]`; the action tools take `@eN`. Refs are renumbered by every snapshot and
 * disappear with the page (a navigation), so a ref is good until the next snapshot or navigation.
 */

/** The DOM attribute holding an element's ref. */
export const REF_ATTRIBUTE = "data-hermes-ref";

/**
 * The ref id (`e3`) in what the model wrote: `@e3`, `e3`, `ref=e3`, `[ref=e3]`, or the number of
 * an annotated screenshot's label (`3`, `[3]`). Undefined when it is none of these.
 */
export function parseRef(input: string): string | undefined {
  const text = input.trim().replace(/^\[(.*)\]$/, "$1").trim();
  const match = /^(?:ref\s*=\s*)?@?e?(\d{1,6})$/i.exec(text);
  if (!match) return undefined;
  return `e${Number(match[1])}`;
}

/** The CSS selector of the element holding ref `id` (from `parseRef`). */
export function refSelector(id: string): string {
  return `[${REF_ATTRIBUTE}="${id}"]`;
}

/** The message for a ref the model wrote that is not one. */
export function badRefMessage(input: string): string {
  return `Invalid ref '${input.slice(0, 40)}': use a ref from the latest browser_snapshot, like @e3`;
}

/** The message for a ref that no element on the page holds (any more). */
export function staleRefMessage(id: string): string {
  return `Element @${id} not found on the page. Refs change whenever the page changes or a new snapshot is taken; call browser_snapshot and use a current ref.`;
}
