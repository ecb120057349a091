import type { ToolResult } from "../types.js";
import type { SearchFilesDetails, SearchMatch } from "./details.js";
import { MAX_COLLECTED, type EngineResult, type FileLineHits, type SearchRequest } from "./search-types.js";

export type { SearchFilesDetails, SearchMatch } from "./details.js";

export interface Page {
  offset: number;
  limit: number;
}

/** Sort key: `/` sorts before any other character, so a directory's files stay together. */
function pathKey(file: string): string {
  return file.replaceAll("/", "\0");
}

export function comparePaths(a: string, b: string): number {
  const ka = pathKey(a);
  const kb = pathKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * Turns an engine result into the tool result: entries sorted by path (then line), the page at
 * `offset`/`limit` rendered for the model (`path:line:text`, context as `path-line-text` with
 * `--` between groups; `path` lines; `path:N` lines), followed by
 * `[Showing results O-P of T. Use offset=P to see more.]` when more follow.
 * `displayRoot` names the root in messages.
 */
export function formatSearchResult(
  request: SearchRequest,
  result: EngineResult,
  page: Page,
  displayRoot: string,
): ToolResult<SearchFilesDetails> {
  if (result.kind === "error") return { content: result.message, isError: true };
  const base = {
    mode: request.target === "files" ? ("files_only" as const) : request.outputMode,
    target: request.target,
    pattern: request.pattern,
    path: request.root,
  };

  let total: number;
  let render: (from: number, to: number) => { lines: string[]; extra: Partial<SearchFilesDetails> };

  if (result.kind === "files") {
    const files = [...result.files].sort(comparePaths);
    total = files.length;
    render = (from, to) => {
      const slice = files.slice(from, to);
      return { lines: slice, extra: { files: slice } };
    };
  } else if (result.kind === "counts") {
    const counts = [...result.counts].map(([path, count]) => ({ path, count })).sort((a, b) => comparePaths(a.path, b.path));
    total = counts.length;
    render = (from, to) => {
      const slice = counts.slice(from, to);
      return { lines: slice.map((entry) => `${entry.path}:${entry.count}`), extra: { counts: slice } };
    };
  } else {
    const byFile = result.files;
    const matches = sortedMatches(byFile);
    total = matches.length;
    render = (from, to) => {
      const slice = matches.slice(from, to);
      return { lines: renderLines(slice, byFile, request.context), extra: { matches: slice } };
    };
  }

  const capped = result.capped;
  const totalLabel = capped ? `${total}+` : `${total}`;
  if (total === 0) {
    return { content: emptyMessage(request, displayRoot), details: { ...base, total, truncated: false } };
  }
  if (page.offset >= total) {
    return {
      content: `No results at offset ${page.offset}: the search found ${totalLabel} ${total === 1 && !capped ? "result" : "results"}. Use a smaller offset.`,
      details: { ...base, total, truncated: false, ...(capped ? { capped } : {}) },
    };
  }
  const to = Math.min(total, page.offset + page.limit);
  const { lines, extra } = render(page.offset, to);
  const truncated = to < total;
  if (truncated) lines.push("", `[Showing results ${page.offset + 1}-${to} of ${totalLabel}. Use offset=${to} to see more.]`);
  else if (page.offset > 0) lines.push("", `[Showing results ${page.offset + 1}-${to} of ${totalLabel}.]`);
  if (capped) {
    lines.push(`[Search stopped after ${MAX_COLLECTED} results; narrow the pattern, path or file_glob.]`);
  }
  const details: SearchFilesDetails = {
    ...base,
    total,
    truncated,
    ...(truncated ? { nextOffset: to } : {}),
    ...(capped ? { capped } : {}),
    ...extra,
  };
  return { content: lines.join("\n"), details };
}

function sortedMatches(byFile: Map<string, FileLineHits>): SearchMatch[] {
  const files = [...byFile.keys()].sort(comparePaths);
  const out: SearchMatch[] = [];
  for (const file of files) {
    const hits = [...(byFile.get(file) as FileLineHits).matches].sort((a, b) => a.line - b.line);
    for (const hit of hits) out.push({ path: file, line: hit.line, text: hit.text });
  }
  return out;
}

/** Matching lines with up to `context` lines around each, grouped like `rg --context`. */
function renderLines(page: SearchMatch[], byFile: Map<string, FileLineHits>, context: number): string[] {
  if (context <= 0) return page.map((match) => `${match.path}:${match.line}:${match.text}`);
  const out: string[] = [];
  let lastFile: string | undefined;
  let lastLine = 0;
  let index = 0;
  while (index < page.length) {
    const file = (page[index] as SearchMatch).path;
    const hits = byFile.get(file) as FileLineHits;
    const matchText = new Map(hits.matches.map((hit) => [hit.line, hit.text]));
    const wanted = new Set<number>();
    for (; index < page.length && (page[index] as SearchMatch).path === file; index += 1) {
      const line = (page[index] as SearchMatch).line;
      for (let at = line - context; at <= line + context; at += 1) {
        if (matchText.has(at) || hits.context.has(at)) wanted.add(at);
      }
    }
    for (const line of [...wanted].sort((a, b) => a - b)) {
      if (out.length > 0 && (file !== lastFile || line !== lastLine + 1)) out.push("--");
      const text = matchText.get(line);
      out.push(text !== undefined ? `${file}:${line}:${text}` : `${file}-${line}-${hits.context.get(line) ?? ""}`);
      lastFile = file;
      lastLine = line;
    }
  }
  return out;
}

function emptyMessage(request: SearchRequest, displayRoot: string): string {
  if (request.target === "files") {
    return `No files matching '${request.pattern}' in ${displayRoot}. Hidden files, node_modules and files ignored by .gitignore are not listed.`;
  }
  const filter = request.fileGlob ? ` (files matching '${request.fileGlob}')` : "";
  return `No matches for '${request.pattern}' in ${displayRoot}${filter}. Hidden files, node_modules, binary files and files ignored by .gitignore are not searched.`;
}
