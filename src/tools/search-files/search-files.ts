import { stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { throwIfAborted } from "../../shared/abort.js";
import { defineTool, type AnyTool, type DescribeContext, type ToolContext, type ToolDescription, type ToolResult } from "../types.js";
import type { SearchFilesDetails } from "./details.js";
import { formatSearchResult } from "./format.js";
import { searchWithNode } from "./node-engine.js";
import { findRipgrep, searchWithRipgrep } from "./rg-engine.js";
import { patternHasNewline, type EngineResult, type SearchRequest } from "./search-types.js";
import { SECRET_FILES_NOTE, secretSearchGuard } from "./secret-filter.js";

export type { SearchFilesDetails, SearchMatch } from "./details.js";

/** Which engine runs a search. Tests force either one; the default prefers ripgrep. */
export interface SearchEngineOptions {
  /** `false`: always the built-in Node engine. Default: ripgrep when found. */
  useRipgrep?: boolean;
  /** A ripgrep binary to use instead of looking `rg` up on PATH. */
  ripgrepPath?: string;
}

const searchFilesParams = z.lazy(() => z.object({
  pattern: z.string().min(1).describe("Regex to find in file contents, or a glob of file names (target 'files')"),
  target: z.enum(["content", "files"]).optional().describe("'content' (default): search inside files; 'files': find files by name"),
  path: z.string().optional().describe("Directory or file to search (default: the working directory)"),
  file_glob: z.string().optional().describe("Content search: only the files matching this glob, e.g. '*.ts' or 'src/**/*.py'"),
  limit: z.coerce.number().int().min(1).optional().describe("Maximum results (default 50)"),
  offset: z.coerce.number().int().min(0).optional().describe("Results to skip, for paging (default 0)"),
  output_mode: z
    .enum(["content", "files_only", "count"])
    .optional()
    .describe("Content search: 'content' (default) matching lines, 'files_only' paths, 'count' matches per file"),
  context: z.coerce.number().int().min(0).optional().describe("Content search: lines of context around each match (default 0)"),
}));

export type SearchFilesArgs = z.infer<typeof searchFilesParams>;

const DESCRIPTION = [
  "Search file contents with a regex, or find files by name with a glob; use it instead of grep, rg, find or ls.",
  "Content results are 'path:line:text' lines (context lines 'path-line-text'); files_only lists paths; count gives 'path:N'.",
  "Paths are relative to the searched directory, sorted. Line-oriented: a regex cannot match across lines.",
  "A glob without '/' matches names at any depth ('*.ts'); with '/' it is relative to the searched directory ('src/**/*.ts');",
  "a plain name finds files whose name contains it.",
  "Hidden files, .git, node_modules, binary and .gitignore'd files are skipped unless path points at them.",
  "50 results by default; when more exist the output ends with the offset to continue from.",
].join(" ");

/** `~`, `~/…` or a path relative to `cwd`, made absolute. */
export function resolveSearchPath(given: string | undefined, cwd: string): string {
  const value = given?.trim() || ".";
  if (value === "~") return os.homedir();
  if (value.startsWith("~/")) return path.join(os.homedir(), value.slice(2));
  return path.resolve(cwd, value);
}

/** Title `search: <pattern>`; the searched path as the one location when `path` was given. */
function describeSearch(args: SearchFilesArgs, ctx: DescribeContext): ToolDescription {
  return {
    title: `search: ${args.pattern}`,
    locations: args.path?.trim() ? [{ path: resolveSearchPath(args.path, ctx.cwd) }] : [],
  };
}

/**
 * Runs one search with ripgrep (`options.ripgrepPath`, else `rg` on PATH) or, when there is none
 * or `useRipgrep` is false, the built-in engine; both give the same results. Rejects only with an
 * AbortError when the signal fires (ripgrep is killed first).
 */
export async function runSearch(
  request: SearchRequest,
  options: SearchEngineOptions = {},
  signal?: AbortSignal,
): Promise<{ engine: "ripgrep" | "node"; result: EngineResult }> {
  const rgPath = options.useRipgrep === false ? undefined : (options.ripgrepPath ?? (await findRipgrep()));
  if (rgPath) return { engine: "ripgrep", result: await searchWithRipgrep(rgPath, request, signal) };
  return { engine: "node", result: await searchWithNode(request, signal) };
}

/**
 * The `search_files` tool with a chosen engine. Every mistake the model can fix (missing path,
 * invalid regex, a regex with `\n`) is an `isError` result; only cancellation throws (AbortError).
 * Credential files (`$HERMES_HOME/.env`, `auth.json`, `/proc/<pid>/environ`) are never searched: a
 * search rooted at one is refused, and their matches never appear in a wider one (see
 * `secretSearchGuard`).
 * Results: see `formatSearchResult`; `details` is a `SearchFilesDetails`.
 */
export function createSearchFilesTool(options: SearchEngineOptions = {}): AnyTool {
  return defineTool({
    name: "search_files",
    description: DESCRIPTION,
    kind: "search",
    mutating: false,
    params: searchFilesParams,
    describe: describeSearch,
    execute: (args, ctx) => executeSearch(args, ctx, options),
  });
}

/** `search_files` as the toolset registers it: ripgrep when on PATH, else the built-in engine. */
export const searchFilesTool = createSearchFilesTool();

async function executeSearch(args: SearchFilesArgs, ctx: ToolContext, options: SearchEngineOptions): Promise<ToolResult<SearchFilesDetails>> {
  throwIfAborted(ctx.signal);
  const root = resolveSearchPath(args.path, ctx.cwd);
  const displayRoot = args.path?.trim() || ".";
  let rootIsFile: boolean;
  try {
    const stats = await stat(root);
    if (!stats.isDirectory() && !stats.isFile()) {
      return { content: `Cannot search ${displayRoot}: not a file or directory.`, isError: true };
    }
    rootIsFile = stats.isFile();
  } catch {
    return { content: `Path not found: ${displayRoot} (resolved to ${root}).`, isError: true };
  }
  const target = args.target ?? "content";
  const guard = await secretSearchGuard(root, rootIsFile, ctx.hermesHome);
  if (guard.refusal) {
    return { content: `Refused to search ${displayRoot}: ${guard.refusal}. Its values are never shown to the model.`, isError: true };
  }
  if (target === "content" && patternHasNewline(args.pattern)) {
    return {
      content:
        `Invalid regex pattern '${args.pattern}': search_files is line-oriented, so '\\n' can never match. ` +
        "Search for one line's text and use context=N to see the lines around it.",
      isError: true,
    };
  }
  const request: SearchRequest = {
    root,
    rootIsFile,
    target,
    pattern: args.pattern,
    ...(target === "content" && args.file_glob?.trim() ? { fileGlob: args.file_glob.trim() } : {}),
    outputMode: args.output_mode ?? "content",
    context: args.context ?? 0,
  };
  const { result } = await runSearch(request, options, ctx.signal);
  throwIfAborted(ctx.signal);
  const page = { offset: args.offset ?? 0, limit: args.limit ?? ctx.config.search_files.limit };
  const formatted = formatSearchResult(request, guard.filter(result, target), page, displayRoot);
  if (!guard.note || target !== "content" || formatted.isError) return formatted;
  return { ...formatted, content: `${formatted.content}\n${SECRET_FILES_NOTE}` };
}
