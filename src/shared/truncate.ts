/** Keeps `limit - 100` chars and appends a note with the total length, as Hermes' renderers do. */
export function truncateForDisplay(text: string, limit = 5000): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, Math.max(0, limit - 100))}\n... (${text.length} chars total, truncated)`;
}

/** Cuts a single line to `max` chars with a marker. */
export function truncateLine(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max)}... [truncated]` : line;
}
