/**
 * How much of its tool results the model is sent (hermes-agent-core §3.9, "large results"): a result
 * over `perResultChars` is spilled, i.e. written whole to a file in the session's temp area, and the
 * model gets its head, its tail and the file's path with a note on how to read the rest; when the
 * results of one assistant message together pass `perBatchChars`, the largest spill first until they
 * fit. What the editor is shown (the `tool_end` event) never changes; history and state.db keep what
 * the model was sent. The writing itself is the caller's (`SpillWriter`); this file does no I/O.
 */

export interface ToolResultLimits {
  /** Longest result sent whole, in characters (Hermes: ~100,000). */
  perResultChars: number;
  /** Most characters all results of one assistant message are sent together (Hermes: ~200,000). */
  perBatchChars: number;
}

export const DEFAULT_TOOL_RESULT_LIMITS: ToolResultLimits = { perResultChars: 100_000, perBatchChars: 200_000 };

/** Characters per token assumed when the limits are scaled to a window (as `context.ts` counts). */
const CHARS_PER_TOKEN = 4;

/**
 * The limits for a model with a `windowTokens` window: a quarter of the window per result and half
 * of it per batch, in characters, never above the defaults nor below 4,000 / 8,000 characters
 * (Hermes scales the budgets down for small windows the same way).
 */
export function toolResultLimitsFor(windowTokens: number): ToolResultLimits {
  const chars = Math.max(0, Math.floor(windowTokens)) * CHARS_PER_TOKEN;
  return {
    perResultChars: Math.min(DEFAULT_TOOL_RESULT_LIMITS.perResultChars, Math.max(4_000, Math.floor(chars / 4))),
    perBatchChars: Math.min(DEFAULT_TOOL_RESULT_LIMITS.perBatchChars, Math.max(8_000, Math.floor(chars / 2))),
  };
}

/**
 * Writes one result whole to a file the model can read; resolves with its absolute path, rejects
 * when it cannot be written (the model then gets the head and tail and a note saying so).
 */
export type SpillWriter = (callId: string, toolName: string, content: string) => Promise<string>;

/** One delivered result: the call it answers and the text the tool returned (already redacted). */
export interface BudgetedResult {
  callId: string;
  name: string;
  content: string;
}

/**
 * The result budget of one assistant message's tool calls. Results arrive in groups (the calls
 * run together; a mutating call is a group of one), in call order; a group's results are fitted
 * together, and groups already fitted count against the batch cap but are never revisited (they
 * are stored by then). Not safe for overlapping `fit` calls: await each before the next.
 */
export class ResultBudget {
  private used = 0;

  constructor(
    private readonly limits: ToolResultLimits,
    private readonly write: SpillWriter,
  ) {}

  /**
   * The texts to send for `group`, in its order: each result as it is, or its spilled preview when
   * it passes `perResultChars`, or when the batch would pass `perBatchChars` with it (largest
   * first; a result no longer than a preview is never spilled). Never rejects.
   */
  async fit(group: readonly BudgetedResult[]): Promise<string[]> {
    const { perResultChars, perBatchChars } = this.limits;
    const previewChars = headChars(perResultChars) + tailChars(perResultChars) + NOTE_CHARS;
    const spill = group.map((result) => result.content.length > perResultChars);
    const size = (index: number): number => (spill[index] ? previewChars : (group[index]?.content.length ?? 0));
    let total = this.used + group.reduce((sum, _result, index) => sum + size(index), 0);
    while (total > perBatchChars) {
      let largest = -1;
      group.forEach((result, index) => {
        if (spill[index] || result.content.length <= previewChars) return;
        if (largest < 0 || result.content.length > (group[largest]?.content.length ?? 0)) largest = index;
      });
      if (largest < 0) break;
      total -= (group[largest]?.content.length ?? 0) - previewChars;
      spill[largest] = true;
    }
    const texts = await Promise.all(group.map((result, index) => (spill[index] ? this.spilled(result) : Promise.resolve(result.content))));
    for (const text of texts) this.used += text.length;
    return texts;
  }

  private async spilled(result: BudgetedResult): Promise<string> {
    try {
      const file = await this.write(result.callId, result.name, result.content);
      return spillPreview(result.content, this.limits.perResultChars, { file });
    } catch (error) {
      return spillPreview(result.content, this.limits.perResultChars, { failure: error instanceof Error ? error.message : String(error) });
    }
  }
}

/** Room the note of a preview takes at most, counted before the note is written (paths are short). */
const NOTE_CHARS = 900;

function headChars(perResultChars: number): number {
  return Math.min(3_000, Math.floor(perResultChars * 0.3));
}

function tailChars(perResultChars: number): number {
  return Math.min(2_000, Math.floor(perResultChars * 0.2));
}

/**
 * What the model gets for a spilled result: a note (size, where the whole result is, how to read
 * the rest, which lines are shown), the head, a marker for what was left out, and the tail. With
 * `failure` (the file could not be written) the note says the rest is lost. Pure.
 */
export function spillPreview(content: string, perResultChars: number, where: { file: string } | { failure: string }): string {
  const head = content.slice(0, cutPoint(content, headChars(perResultChars)));
  const tail = content.slice(cutPoint(content, content.length - tailChars(perResultChars)));
  const lines = lineCount(content);
  const headLines = lineCount(head);
  const tailFirstLine = lines - lineCount(tail) + 1;
  const omitted = content.length - head.length - tail.length;
  const size = `${grouped(content.length)} characters, ${grouped(lines)} line${lines === 1 ? "" : "s"}`;
  const shown = `Shown below: the first ${grouped(head.length)} characters (line${headLines === 1 ? "" : "s"} 1${headLines > 1 ? `-${grouped(headLines)}` : ""}) and the last ${grouped(tail.length)} (from line ${grouped(tailFirstLine)}).`;
  const note =
    "file" in where
      ? `[Tool result too large to send whole (${size}). The whole result is saved in ${where.file}. ${shown} ` +
        `Read the rest with read_file on that path (offset and limit are line numbers; continue at offset ${head.endsWith("\n") ? headLines + 1 : Math.max(1, headLines)}), ` +
        "or search it with search_files; do not run the tool again just to see it.]"
      : `[Tool result too large to send whole (${size}), and saving it to a file failed (${where.failure.slice(0, 200)}). ${shown} The middle is lost; run a narrower call if you need it.]`;
  return `${note}\n\n${head}\n\n[... ${grouped(omitted)} characters omitted ...]\n\n${tail}`;
}

/** `index` moved back off the second half of a surrogate pair, clamped to the text. */
function cutPoint(text: string, index: number): number {
  const at = Math.max(0, Math.min(text.length, index));
  const code = text.charCodeAt(at);
  return at > 0 && at < text.length && code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}

function lineCount(text: string): number {
  if (text === "") return 0;
  let count = 1;
  for (let index = text.indexOf("\n"); index >= 0 && index < text.length - 1; index = text.indexOf("\n", index + 1)) count += 1;
  return count;
}

/** Formats 12345 as "12,345" (locale-independent). */
function grouped(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
