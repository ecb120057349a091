import { UNCHANGED_MESSAGE } from "../read-file/read-file.js";

/** A line as read_file shows it: optional indentation, a line number, `|`. */
const NUMBERED_LINE = /^\s*(\d+)\|/;

/**
 * Why `content` looks like read_file's output rather than file text, or undefined when it does
 * not: read_file's "unchanged" notice, or mostly numbered lines (at least 2, more than half of the
 * non-blank lines) whose numbers mostly count up by one (at least 80 % of neighbouring pairs).
 * Guards against the classic corruption of writing the `12|` gutter into the file.
 */
export function displayFormatRefusal(content: string): string | undefined {
  if (content.includes(UNCHANGED_MESSAGE)) {
    return (
      "content is read_file's 'File unchanged since last read' notice, not file text. " +
      "Write the file's actual content."
    );
  }
  const lines = content.split("\n").filter((line) => line.trim() !== "");
  const numbers: number[] = [];
  for (const line of lines) {
    const match = NUMBERED_LINE.exec(line);
    if (match) numbers.push(Number(match[1]));
  }
  if (numbers.length < 2 || numbers.length * 2 <= lines.length) return undefined;
  let consecutive = 0;
  for (let i = 1; i < numbers.length; i++) if (numbers[i] === (numbers[i - 1] ?? 0) + 1) consecutive++;
  if (consecutive < 0.8 * (numbers.length - 1)) return undefined;
  return (
    `content looks like read_file output: ${numbers.length} of ${lines.length} lines start with a ` +
    "line-number prefix such as '12|'. Write the file's text without the 'N|' prefixes read_file adds."
  );
}
