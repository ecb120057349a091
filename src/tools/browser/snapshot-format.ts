/**
 * A page's accessibility tree as text, in the ARIA-snapshot shape agent-browser (and so Hermes)
 * gives the model:
 *
 *     - heading "Example Domain" [ref=e1] [level=1]
 *     - paragraph: This domain is for use in examples.
 *     - textbox "Email" [ref=e2]: ada@example.com
 *     - list:
 *       - listitem:
 *         - link "More information" [ref=e3]
 *
 * The tree comes from the page (`page-scripts.ts`) and is untrusted: anything that is not the
 * expected shape is skipped, never thrown on. Compact mode (the default) cuts long text and names
 * and leaves out link URLs; full mode keeps every text whole (up to what the page walk returned)
 * and shows `- /url:` under links.
 */

export interface SnapshotNode {
  role: string;
  name?: string;
  ref?: string;
  level?: number;
  checked?: boolean | "mixed";
  pressed?: boolean | "mixed";
  disabled?: boolean;
  expanded?: boolean;
  selected?: boolean;
  required?: boolean;
  value?: string;
  url?: string;
  children?: SnapshotChild[];
}

export type SnapshotChild = SnapshotNode | string;

/** Longest text run and name in compact mode. */
const COMPACT_TEXT = 100;
/** Longest text run and name in full mode. */
const FULL_TEXT = 2_000;
/** Deepest nesting shown; deeper content is lifted to this depth. */
const MAX_DEPTH = 40;

/** Hermes' SNAPSHOT_SUMMARIZE_THRESHOLD: a longer snapshot is cut (and stored whole). */
export const SNAPSHOT_CHAR_LIMIT = 15_000;

/** The snapshot of `children` as text lines (no trailing newline). Never throws. */
export function formatSnapshot(children: unknown, options: { full: boolean }): string {
  const lines: string[] = [];
  const limit = options.full ? FULL_TEXT : COMPACT_TEXT;
  const visit = (items: unknown, depth: number): void => {
    if (!Array.isArray(items)) return;
    const indent = "  ".repeat(Math.min(depth, MAX_DEPTH));
    for (const item of items) {
      if (typeof item === "string") {
        const text = cut(item, limit);
        if (text) lines.push(`${indent}- text: ${text}`);
        continue;
      }
      const node = asNode(item);
      if (!node) continue;
      const kids = Array.isArray(node.children) ? node.children : [];
      const hasElements = kids.some((kid) => asNode(kid) !== undefined);
      const value = typeof node.value === "string" ? cut(node.value, limit) : "";
      const url = options.full && typeof node.url === "string" ? cut(node.url, FULL_TEXT) : "";
      if (!hasElements) {
        const text = cut(kids.filter((kid): kid is string => typeof kid === "string").join(" "), limit);
        const inline = [value, text].filter(Boolean).join(" ");
        const head = `${indent}- ${headOf(node, limit)}`;
        if (!url) {
          if (inline || options.full || !isEmptyStructure(node)) lines.push(inline ? `${head}: ${inline}` : head);
          continue;
        }
        lines.push(`${head}:`);
        if (inline) lines.push(`${indent}  - text: ${inline}`);
        lines.push(`${indent}  - /url: ${url}`);
        continue;
      }
      const head = `${indent}- ${headOf(node, limit)}${value ? ` [value=${JSON.stringify(value)}]` : ""}`;
      const before = lines.length;
      lines.push(`${head}:`);
      if (url) lines.push(`${indent}  - /url: ${url}`);
      visit(kids, depth + 1);
      if (lines.length === before + 1) {
        if (!options.full && isEmptyStructure(node)) lines.pop();
        else lines[before] = head;
      }
    }
  };
  visit(children, 0);
  return lines.join("\n");
}

/** `role "name" [ref=eN] [level=2] [checked]…` */
function headOf(node: SnapshotNode, limit: number): string {
  const parts = [safeRole(node.role)];
  const name = node.name ? cut(node.name, limit) : "";
  if (name) parts.push(JSON.stringify(name));
  if (node.ref && /^e\d+$/.test(node.ref)) parts.push(`[ref=${node.ref}]`);
  if (typeof node.level === "number" && Number.isInteger(node.level)) parts.push(`[level=${node.level}]`);
  if (node.checked === true) parts.push("[checked]");
  if (node.checked === "mixed") parts.push("[checked=mixed]");
  if (node.pressed === true) parts.push("[pressed]");
  if (node.pressed === "mixed") parts.push("[pressed=mixed]");
  if (node.selected === true) parts.push("[selected]");
  if (node.expanded === true) parts.push("[expanded]");
  if (node.expanded === false) parts.push("[expanded=false]");
  if (node.disabled === true) parts.push("[disabled]");
  if (node.required === true) parts.push("[required]");
  return parts.join(" ");
}

/** A node that shows nothing of its own (no name, ref, value or state), left out of compact snapshots when empty. */
function isEmptyStructure(node: SnapshotNode): boolean {
  return !node.name && !node.ref && !node.value && node.level === undefined && node.checked === undefined;
}

function asNode(value: unknown): SnapshotNode | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const node = value as SnapshotNode;
  return typeof node.role === "string" && node.role ? node : undefined;
}

function safeRole(role: string): string {
  return role.replace(/[^a-z0-9_-]/gi, "").slice(0, 40) || "generic";
}

/** Whitespace collapsed, trimmed, cut to `limit` chars with `…`. */
export function cut(text: string, limit: number): string {
  const clean = String(text).replace(/\s+/g, " ").trim();
  return clean.length > limit ? `${clean.slice(0, limit - 1)}…` : clean;
}

/**
 * Cuts a snapshot longer than `max` at a line boundary (elements are never split) and appends
 * Hermes' note: where the whole snapshot is stored (`read_file path=… offset=<next line>`) when
 * `storedPath` is given, else to call `browser_snapshot` for the rest. Shorter text is returned
 * unchanged.
 */
export function truncateSnapshot(text: string, max: number = SNAPSHOT_CHAR_LIMIT, storedPath?: string): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const lines = text.split("\n");
  const kept: string[] = [];
  const reserve = Math.min(110 + (storedPath?.length ?? 0), Math.floor(max / 2));
  let chars = 0;
  for (const line of lines) {
    if (chars + line.length + 1 > max - reserve) break;
    kept.push(line);
    chars += line.length + 1;
  }
  const remaining = lines.length - kept.length;
  kept.push(
    storedPath
      ? `\n[... ${remaining} more lines truncated — full snapshot: read_file path="${storedPath}" offset=${kept.length + 1} limit=200]`
      : `\n[... ${remaining} more lines truncated, use browser_snapshot for full content]`,
  );
  return { text: kept.join("\n"), truncated: true };
}
