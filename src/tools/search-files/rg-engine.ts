import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";
import { abortError } from "../../shared/abort.js";
import {
  fileSearchGlob,
  hitText,
  MAX_COLLECTED,
  type EngineResult,
  type FileLineHits,
  type SearchRequest,
} from "./search-types.js";
import { ALWAYS_SKIPPED } from "./walk.js";
import { compileGlob, type CompiledGlob } from "./glob.js";

/**
 * ripgrep with only `.gitignore` files honoured (also outside git repositories), so the built-in
 * engine can match it exactly. Hidden entries, `.git` and `node_modules` are excluded with
 * negated globs (not rg's hidden-file default, which a `--type` match would override); symbolic
 * links and binary files keep rg's defaults.
 */
const BASE_ARGS = [
  "--no-config",
  "--no-require-git",
  "--no-ignore-dot",
  "--no-ignore-exclude",
  "--no-ignore-global",
  ...[".*", ...ALWAYS_SKIPPED].flatMap((name) => ["--glob", `!${name}`]),
];
/** The `--type` name a positive `file_glob` is registered under. */
const GLOB_TYPE = "hermesglob";
const MAX_STDERR = 8192;

/**
 * The first executable `rg` on `PATH` (looked up on every call, so an install mid-session is
 * seen), or undefined.
 */
export async function findRipgrep(envPath = process.env.PATH ?? ""): Promise<string | undefined> {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, process.platform === "win32" ? "rg.exe" : "rg");
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The rg arguments for a request, and the glob its output must still be filtered with. A user glob
 * never goes to rg as a plain `--glob`, because rg lets a matching `--glob` override `.gitignore`:
 * - file search lists every file (`--files`) and filters names here;
 * - a `!glob` becomes `--glob !glob` (exclusions override nothing);
 * - a glob without `/` or `:` becomes a `--type` (types match names and respect ignore rules);
 * - any other glob filters rg's output here.
 * A file given as the root is always searched; content search then ignores `file_glob`, as rg does.
 * rg runs with its cwd at the root, or at the root file's directory.
 */
export function ripgrepArgs(request: SearchRequest): { args: string[]; filter?: CompiledGlob } {
  const args = [...BASE_ARGS];
  let filter: CompiledGlob | undefined;
  if (request.target === "files") {
    const { glob, caseInsensitive } = fileSearchGlob(request.pattern);
    filter = compileGlob(glob, { caseInsensitive });
    args.push("--files", "--null");
  } else {
    const glob = request.rootIsFile ? undefined : request.fileGlob;
    if (glob?.startsWith("!")) args.push("--glob", glob);
    else if (glob && !glob.includes("/") && !glob.includes(":")) args.push("--type-add", `${GLOB_TYPE}:${glob}`, "--type", GLOB_TYPE);
    else if (glob) filter = compileGlob(glob);
    if (request.outputMode === "files_only") args.push("--files-with-matches", "--null");
    else if (request.outputMode === "count") args.push("--count", "--null");
    else {
      args.push("--json");
      if (request.context > 0) args.push("--context", String(request.context));
    }
    args.push("--regexp", request.pattern);
  }
  args.push("--");
  if (request.rootIsFile) args.push(path.basename(request.root));
  return filter ? { args, filter } : { args };
}

/**
 * Runs ripgrep for a request and parses its output into an `EngineResult`. The process is killed
 * when the signal fires (the promise then rejects with an AbortError) or when `MAX_COLLECTED`
 * entries were read. Exit code 2 with no results is an error result (rg's message, e.g. a regex
 * parse error); with results it is a partial failure (an unreadable file) and the results stand.
 */
export function searchWithRipgrep(rgPath: string, request: SearchRequest, signal?: AbortSignal): Promise<EngineResult> {
  if (signal?.aborted) return Promise.reject(abortError());
  const cwd = request.rootIsFile ? path.dirname(request.root) : request.root;
  const { args, filter } = ripgrepArgs(request);
  const keep = filter ? (rel: string): boolean => filter.matches(rel, false) : (): boolean => true;
  const parser = createParser(request, keep);
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    let settled = false;
    let capped = false;
    const finish = (action: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      action();
    };
    const onAbort = (): void => {
      child.kill("SIGKILL");
      finish(() => reject(abortError()));
    };
    signal?.addEventListener("abort", onAbort, { once: true });

    let pendingText = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (capped || settled) return;
      pendingText += chunk;
      if (!chunk.includes(parser.separator)) return;
      const records = pendingText.split(parser.separator);
      pendingText = records.pop() ?? "";
      for (const record of records) {
        if (parser.push(record) >= MAX_COLLECTED) {
          capped = true;
          child.kill("SIGKILL");
          break;
        }
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < MAX_STDERR) stderr += chunk;
    });
    child.on("error", (error) => finish(() => resolve({ kind: "error", message: `Could not run ripgrep: ${error.message}` })));
    child.on("close", (code) => {
      finish(() => {
        if (!capped && pendingText) parser.push(pendingText);
        const result = parser.result(capped);
        if (!capped && code === 2 && parser.count() === 0) {
          resolve({ kind: "error", message: ripgrepError(request.pattern, stderr) });
        } else {
          resolve(result);
        }
      });
    });
  });
}

function ripgrepError(pattern: string, stderr: string): string {
  const text = stderr.trim();
  if (/regex parse error|error parsing regex|regex.*(?:not allowed|invalid)/i.test(text)) {
    const reason = text
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line && line !== "regex parse error:" && !/^\^+$/.test(line) && line !== pattern.trim());
    return `Invalid regex pattern '${pattern}': ${reason.join(" ").replace(/^error:\s*/, "")}`;
  }
  return `Search failed: ${text || "ripgrep exited with an error"}`;
}

interface OutputParser {
  separator: string;
  /** Adds one record; returns the number of entries collected so far. */
  push(record: string): number;
  count(): number;
  result(capped: boolean): EngineResult;
}

/** A parser for rg's output in the request's mode; paths failing `keep` are dropped before counting. */
function createParser(request: SearchRequest, keep: (rel: string) => boolean): OutputParser {
  if (request.target === "files" || request.outputMode === "files_only") {
    const files: string[] = [];
    return {
      separator: "\0",
      push: (record) => {
        const rel = normalizeRel(record);
        if (record && keep(rel)) files.push(rel);
        return files.length;
      },
      count: () => files.length,
      result: (capped) => ({ kind: "files", files, capped }),
    };
  }
  if (request.outputMode === "count") {
    // `path\0N\n` per file: split on newlines, then the last NUL.
    const counts = new Map<string, number>();
    return {
      separator: "\n",
      push: (record) => {
        const at = record.lastIndexOf("\0");
        const rel = normalizeRel(record.slice(0, at));
        if (at > 0 && keep(rel)) counts.set(rel, Number(record.slice(at + 1)));
        return counts.size;
      },
      count: () => counts.size,
      result: (capped) => ({ kind: "counts", counts, capped }),
    };
  }
  const files = new Map<string, FileLineHits>();
  let matches = 0;
  return {
    separator: "\n",
    push: (record) => {
      const event = parseJsonEvent(record);
      if (!event || !keep(event.path)) return matches;
      let hits = files.get(event.path);
      if (!hits) {
        hits = { matches: [], context: new Map() };
        files.set(event.path, hits);
      }
      if (event.type === "match") {
        hits.matches.push({ line: event.line, text: event.text });
        matches += 1;
      } else {
        hits.context.set(event.line, event.text);
      }
      return matches;
    },
    count: () => matches,
    result: (capped) => {
      for (const [file, hits] of files) if (hits.matches.length === 0) files.delete(file);
      return { kind: "lines", files, capped };
    },
  };
}

interface RgData {
  path?: { text?: string; bytes?: string };
  lines?: { text?: string; bytes?: string };
  line_number?: number;
}

function parseJsonEvent(record: string): { type: "match" | "context"; path: string; line: number; text: string } | undefined {
  if (!record.startsWith('{"type":"match"') && !record.startsWith('{"type":"context"')) return undefined;
  let parsed: { type: string; data: RgData };
  try {
    parsed = JSON.parse(record) as { type: string; data: RgData };
  } catch {
    return undefined;
  }
  const { data } = parsed;
  if (typeof data.line_number !== "number") return undefined;
  const line = decodeField(data.lines).replace(/\n$/, "");
  return {
    type: parsed.type === "match" ? "match" : "context",
    path: normalizeRel(decodeField(data.path)),
    line: data.line_number,
    text: hitText(line),
  };
}

function decodeField(field: { text?: string; bytes?: string } | undefined): string {
  if (!field) return "";
  if (typeof field.text === "string") return field.text;
  return Buffer.from(field.bytes ?? "", "base64").toString("utf8");
}

/** rg prints paths relative to its cwd; drop a `./` prefix and use `/` separators. */
function normalizeRel(file: string): string {
  const rel = file.split(path.sep).join("/");
  return rel.startsWith("./") ? rel.slice(2) : rel;
}
