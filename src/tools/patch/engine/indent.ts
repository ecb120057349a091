import { leadingWhitespace } from "./normalize.js";

/**
 * Re-indenting replacement text after a match that ignored indentation, so the new lines follow
 * the file's indentation rather than the model's. Pure functions.
 */

/**
 * `line` moved from indentation `from` to `to`: by the difference in width when all three are
 * spaces, else by swapping the `from` prefix for `to` (or putting the line at `to` when it lacks it).
 */
export function shiftIndent(line: string, from: string, to: string): string {
  if (from === to) return line;
  const own = leadingWhitespace(line);
  if (!/\t/.test(own + from + to)) return " ".repeat(Math.max(0, own.length + to.length - from.length)) + line.slice(own.length);
  return line.startsWith(from) ? to + line.slice(from.length) : to + line.trimStart();
}

/**
 * How to turn the model's indentation widths into the file's, learnt from aligned old/file line
 * pairs (space indentation only): a constant shift (2 → 6, 4 → 8) or a constant factor (2 → 4,
 * 4 → 8). Undefined when the pairs agree on neither, or use tabs.
 */
function widthMapping(pairs: ReadonlyArray<readonly [string, string]>): ((width: number) => number) | undefined {
  if (pairs.length === 0 || pairs.some(([model, file]) => /\t/.test(model + file))) return undefined;
  const shifts = new Set(pairs.map(([model, file]) => file.length - model.length));
  if (shifts.size === 1) {
    const shift = [...shifts][0] ?? 0;
    return (width) => Math.max(0, width + shift);
  }
  const scaled = pairs.filter(([model]) => model.length > 0);
  const factors = new Set(scaled.map(([model, file]) => file.length / model.length));
  const zeroKept = pairs.every(([model, file]) => model.length > 0 || file.length === 0);
  if (factors.size === 1 && zeroKept) {
    const factor = [...factors][0] ?? 1;
    return (width) => Math.round(width * factor);
  }
  return undefined;
}

/**
 * `replacement` re-indented from the model's indentation (as in `oldString`) to the file's (as in
 * `region`, the text `oldString` matched). When both have the same number of lines, the widths are
 * mapped as the aligned non-blank lines show (`widthMapping`); otherwise, or when they disagree,
 * the base indentation of the first non-blank line is swapped. Blank lines are kept as they are.
 */
export function reindent(region: string, oldString: string, replacement: string): string {
  if (replacement === "") return replacement;
  const regionLines = region.split("\n");
  const oldLines = oldString.split("\n");
  if (regionLines.length === oldLines.length) {
    const pairs = oldLines
      .map((line, i) => [line, regionLines[i] ?? ""] as const)
      .filter(([model, file]) => model.trim() !== "" && file.trim() !== "")
      .map(([model, file]) => [leadingWhitespace(model), leadingWhitespace(file)] as const);
    const mapping = widthMapping(pairs);
    const replacementIndents = replacement.split("\n").map(leadingWhitespace);
    if (mapping && !replacementIndents.some((indent) => indent.includes("\t"))) {
      if (pairs.every(([model, file]) => model === file)) return replacement;
      return replacement
        .split("\n")
        .map((line) => {
          if (line.trim() === "") return line;
          const own = leadingWhitespace(line);
          return " ".repeat(mapping(own.length)) + line.slice(own.length);
        })
        .join("\n");
    }
  }
  const oldFirst = oldLines.find((line) => line.trim() !== "");
  const fileFirst = regionLines.find((line) => line.trim() !== "");
  if (oldFirst === undefined || fileFirst === undefined) return replacement;
  const from = leadingWhitespace(oldFirst);
  const to = leadingWhitespace(fileFirst);
  if (from === to) return replacement;
  return replacement
    .split("\n")
    .map((line) => (line.trim() === "" ? line : line.startsWith(from) ? to + line.slice(from.length) : to + line.trimStart()))
    .join("\n");
}
