/** Order statistics for benchmark samples (milliseconds or any other unit). */

export interface Summary {
  median: number;
  min: number;
  max: number;
  count: number;
}

/** The median; the mean of the two middle values for an even count. Throws on an empty sample. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of an empty sample");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function summarize(values: readonly number[]): Summary {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), count: values.length };
}
