/**
 * Splits streamed assistant content into visible text and inline reasoning: `<think>…</think>`,
 * `<thinking>…</thinking>`, `<reasoning>…</reasoning>` and `<REASONING_SCRATCHPAD>…</REASONING_SCRATCHPAD>`
 * (tag names case-insensitive), wherever they appear, with tags split across chunks at any position.
 * Pure and synchronous.
 */

export interface ContentSegment {
  kind: "text" | "reasoning";
  text: string;
}

const TAG_NAMES = ["think", "thinking", "reasoning", "reasoning_scratchpad"] as const;
const OPEN_TAGS = TAG_NAMES.map((name) => `<${name}>`);
const OPEN_TAG = new RegExp(`<(${TAG_NAMES.join("|")})>`, "i");

/**
 * Stateful splitter for one streamed answer. `push` returns the segments that are certain so far (text
 * that might be the start of a tag is held back until the next chunk decides); `finish` returns what is
 * held back at the end (an unclosed block counts as reasoning). Whitespace right after a closing tag is
 * dropped, so `<think>…</think>\n\nAnswer` shows `Answer`. Adjacent segments of one kind are merged;
 * empty segments are never returned.
 */
export class ThinkTagSplitter {
  /** Lower-case name of the open block, when inside one. */
  private inside: string | undefined;
  private held = "";
  private trimLeading = false;

  push(chunk: string): ContentSegment[] {
    const out: ContentSegment[] = [];
    let buffer = this.held + chunk;
    this.held = "";
    while (buffer !== "") {
      if (this.inside === undefined) {
        const open = OPEN_TAG.exec(buffer);
        if (open) {
          this.text(out, buffer.slice(0, open.index));
          this.inside = (open[1] ?? "").toLowerCase();
          buffer = buffer.slice(open.index + open[0].length);
          continue;
        }
        const hold = partialTagLength(buffer, OPEN_TAGS);
        this.text(out, buffer.slice(0, buffer.length - hold));
        this.held = buffer.slice(buffer.length - hold);
        break;
      }
      const closeTag = `</${this.inside}>`;
      const close = new RegExp(closeTag, "i").exec(buffer);
      if (close) {
        add(out, "reasoning", buffer.slice(0, close.index));
        this.inside = undefined;
        this.trimLeading = true;
        buffer = buffer.slice(close.index + closeTag.length);
        continue;
      }
      const hold = partialTagLength(buffer, [closeTag]);
      add(out, "reasoning", buffer.slice(0, buffer.length - hold));
      this.held = buffer.slice(buffer.length - hold);
      break;
    }
    return out;
  }

  /** Flushes what is held back; the splitter is then ready for a new answer. */
  finish(): ContentSegment[] {
    const out: ContentSegment[] = [];
    if (this.inside !== undefined) add(out, "reasoning", this.held);
    else this.text(out, this.held);
    this.held = "";
    this.inside = undefined;
    this.trimLeading = false;
    return out;
  }

  private text(out: ContentSegment[], text: string): void {
    let visible = text;
    if (this.trimLeading) {
      visible = visible.replace(/^\s+/, "");
      if (visible !== "") this.trimLeading = false;
    }
    add(out, "text", visible);
  }
}

function add(out: ContentSegment[], kind: ContentSegment["kind"], text: string): void {
  if (text === "") return;
  const last = out.at(-1);
  if (last?.kind === kind) last.text += text;
  else out.push({ kind, text });
}

/** Length of the longest suffix of `text` that is a proper prefix of one of `tags` (case-insensitive). */
function partialTagLength(text: string, tags: readonly string[]): number {
  const longest = Math.max(...tags.map((tag) => tag.length)) - 1;
  for (let length = Math.min(longest, text.length); length > 0; length--) {
    const suffix = text.slice(text.length - length).toLowerCase();
    if (suffix.startsWith("<") && tags.some((tag) => tag.length > length && tag.startsWith(suffix))) return length;
  }
  return 0;
}
