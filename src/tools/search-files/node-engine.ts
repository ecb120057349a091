import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { throwIfAborted } from "../../shared/abort.js";
import { errorMessage } from "../../shared/errors.js";
import { compileGlob } from "./glob.js";
import {
  fileSearchGlob,
  hitText,
  MAX_COLLECTED,
  type EngineResult,
  type FileLineHits,
  type SearchRequest,
} from "./search-types.js";
import { walkFiles, type FileFilter, type WalkedFile } from "./walk.js";

/** Files larger than this are skipped by the fallback (it reads whole files). */
export const NODE_ENGINE_MAX_FILE_BYTES = 64 * 1024 * 1024;
const READ_CONCURRENCY = 8;

/**
 * Compiles a ripgrep-style regex as a JavaScript RegExp: leading inline flags `(?i)` (and the
 * no-op `(?m)`, `(?s)` for line-oriented search) become flags; Unicode mode is used when the
 * pattern allows it. Returns the error text for an invalid pattern instead of throwing.
 */
export function compileRegex(pattern: string): { regex: RegExp } | { error: string } {
  let source = pattern;
  let flags = "";
  const inline = /^\(\?([ims]+)\)/.exec(source);
  if (inline) {
    if (inline[1]?.includes("i")) flags += "i";
    source = source.slice(inline[0].length);
  }
  try {
    return { regex: new RegExp(source, `${flags}u`) };
  } catch {
    try {
      return { regex: new RegExp(source, flags) };
    } catch (error) {
      return { error: errorMessage(error) };
    }
  }
}

/**
 * The built-in engine, used when `rg` is not on PATH: the same walk rules, filters and results as
 * the ripgrep engine (see `walkFiles`). Binary files (a NUL byte) are skipped in content search;
 * a UTF-8 BOM is ignored. Throws only an AbortError, when the signal fires.
 */
export async function searchWithNode(request: SearchRequest, signal?: AbortSignal): Promise<EngineResult> {
  if (request.target === "files") return listFiles(request, signal);
  const compiled = compileRegex(request.pattern);
  if ("error" in compiled) return { kind: "error", message: `Invalid regex pattern '${request.pattern}': ${compiled.error}` };
  const regex = compiled.regex;

  const lines = new Map<string, FileLineHits>();
  const counts = new Map<string, number>();
  const files: string[] = [];
  let collected = 0;
  let capped = false;

  const searchOne = async (file: WalkedFile): Promise<void> => {
    const hits = await scanFile(file.abs, regex, request.outputMode === "content" ? request.context : 0);
    if (!hits || hits.matches.length === 0 || capped) return;
    if (request.outputMode === "files_only") {
      files.push(file.rel);
      collected += 1;
    } else if (request.outputMode === "count") {
      counts.set(file.rel, hits.matches.length);
      collected += 1;
    } else {
      // Keep the file's first matches up to the cap, as ripgrep (killed at the cap) would have.
      hits.matches = hits.matches.slice(0, MAX_COLLECTED - collected);
      lines.set(file.rel, hits);
      collected += hits.matches.length;
    }
    if (collected >= MAX_COLLECTED) capped = true;
  };

  const pending = new Set<Promise<void>>();
  for await (const file of candidateFiles(request, signal)) {
    if (capped) break;
    const task = searchOne(file).finally(() => pending.delete(task));
    pending.add(task);
    if (pending.size >= READ_CONCURRENCY) await Promise.race(pending);
    throwIfAborted(signal);
  }
  await Promise.all(pending);
  throwIfAborted(signal);

  if (request.outputMode === "files_only") return { kind: "files", files, capped };
  if (request.outputMode === "count") return { kind: "counts", counts, capped };
  return { kind: "lines", files: lines, capped };
}

async function listFiles(request: SearchRequest, signal?: AbortSignal): Promise<EngineResult> {
  const { glob, caseInsensitive } = fileSearchGlob(request.pattern);
  const filter = compileGlob(glob, { caseInsensitive });
  const files: string[] = [];
  if (request.rootIsFile) {
    const name = path.basename(request.root);
    return { kind: "files", files: filter.matches(name, false) ? [name] : [], capped: false };
  }
  for await (const file of walkFiles(request.root, { globs: [{ glob: filter, exclude: false }], signal })) {
    files.push(file.rel);
    if (files.length >= MAX_COLLECTED) return { kind: "files", files, capped: true };
  }
  return { kind: "files", files, capped: false };
}

/** The files a content search reads: the root file itself, or the filtered walk. */
async function* candidateFiles(request: SearchRequest, signal?: AbortSignal): AsyncGenerator<WalkedFile> {
  if (request.rootIsFile) {
    yield { abs: request.root, rel: path.basename(request.root) };
    return;
  }
  const globs: FileFilter[] = [];
  if (request.fileGlob) {
    const exclude = request.fileGlob.startsWith("!");
    globs.push({ glob: compileGlob(exclude ? request.fileGlob.slice(1) : request.fileGlob), exclude });
  }
  yield* walkFiles(request.root, { globs, signal });
}

/** Matching lines of one file plus the context lines around them; undefined for binary or unreadable files. */
async function scanFile(abs: string, regex: RegExp, context: number): Promise<FileLineHits | undefined> {
  let buffer: Buffer;
  try {
    if ((await stat(abs)).size > NODE_ENGINE_MAX_FILE_BYTES) return undefined;
    buffer = await readFile(abs);
  } catch {
    return undefined;
  }
  if (buffer.includes(0)) return undefined;
  let text = buffer.toString("utf8");
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  const fileLines = text.split("\n");
  if (fileLines.length > 0 && fileLines[fileLines.length - 1] === "") fileLines.pop();

  const hits: FileLineHits = { matches: [], context: new Map() };
  const matched = new Set<number>();
  fileLines.forEach((line, index) => {
    if (regex.test(line)) {
      matched.add(index);
      hits.matches.push({ line: index + 1, text: hitText(line) });
    }
  });
  if (context > 0) {
    for (const index of matched) {
      const from = Math.max(0, index - context);
      const to = Math.min(fileLines.length - 1, index + context);
      for (let at = from; at <= to; at += 1) {
        if (!matched.has(at)) hits.context.set(at + 1, hitText(fileLines[at] as string));
      }
    }
  }
  return hits;
}
