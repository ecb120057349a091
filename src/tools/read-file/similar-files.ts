import { readdir } from "node:fs/promises";
import path from "node:path";

/** At most this many directory entries are scored, so a huge directory stays cheap. */
const MAX_ENTRIES_SCORED = 1000;

/**
 * Up to `max` absolute paths of entries in the directory of `missingPath` whose names resemble its
 * base name, best first (ties by name). Scoring, case-insensitive: same name 100, same stem 90,
 * one name a prefix of the other 70, contains it 60, contained in it 40, edit distance ≤ 2 35,
 * shared prefix of ≥ 3 chars 20. Never throws: an unreadable or missing directory gives [].
 */
export async function similarFiles(missingPath: string, max = 5): Promise<string[]> {
  const dir = path.dirname(missingPath);
  let names: string[];
  try {
    names = (await readdir(dir)).slice(0, MAX_ENTRIES_SCORED);
  } catch {
    return [];
  }
  const wanted = path.basename(missingPath).toLowerCase();
  if (wanted === "") return [];
  return names
    .map((name) => ({ name, score: similarity(wanted, name.toLowerCase()) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
    .slice(0, max)
    .map((entry) => path.join(dir, entry.name));
}

function similarity(wanted: string, name: string): number {
  if (name === wanted) return 100;
  if (stem(name) === stem(wanted)) return 90;
  if (name.startsWith(wanted) || wanted.startsWith(name)) return 70;
  if (name.includes(wanted)) return 60;
  if (name.length > 2 && wanted.includes(name)) return 40;
  if (editDistance(wanted, name, 2) <= 2) return 35;
  if (sharedPrefixLength(wanted, name) >= 3) return 20;
  return 0;
}

function stem(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

function sharedPrefixLength(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Levenshtein distance, giving up (returning `cap + 1`) as soon as it must exceed `cap`. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > cap) return cap + 1;
    previous = current;
  }
  return previous[b.length] ?? cap + 1;
}
