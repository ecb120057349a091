/** Longest summary of a script or an inner call, in characters. */
const SUMMARY_CHARS = 100;

/** The argument that says what an inner call is about, per tool (the first one present wins). */
const MAIN_ARGUMENTS = ["path", "command", "pattern", "query", "urls"];

/**
 * What a script is about, for its title: the text of a leading comment, else its first line that
 * is not blank, a `#!` line, an import or a docstring quote, cut to one short line; "(empty)" for blank code. Pure.
 */
export function scriptSummary(code: string): string {
  const lines = code.split("\n").map((line) => line.trim());
  const meaningful = lines.filter((line) => line !== "" && !line.startsWith("#!") && !/^(?:import\s|from\s+\S+\s+import\s)/.test(line) && !/^(?:"""|''')/.test(line));
  const first = meaningful[0] ?? lines.find((line) => line !== "");
  if (first === undefined) return "(empty)";
  const text = first.startsWith("#") ? first.replace(/^#+\s*/, "") || first : first;
  return cut(text);
}

/** `read_file src/a.ts`: the tool and its main argument on one line, cut short. Pure. */
export function callSummary(tool: string, args: Record<string, unknown>): string {
  for (const key of MAIN_ARGUMENTS) {
    const value = args[key];
    if (typeof value === "string" && value.trim()) return cut(`${tool} ${value}`);
    if (Array.isArray(value) && value.length > 0) {
      const more = value.length > 1 ? ` (+${value.length - 1} more)` : "";
      return cut(`${tool} ${String(value[0])}${more}`);
    }
  }
  return tool;
}

function cut(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SUMMARY_CHARS ? `${flat.slice(0, SUMMARY_CHARS - 1)}…` : flat;
}
