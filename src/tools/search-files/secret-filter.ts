import { realpath } from "node:fs/promises";
import path from "node:path";
import { secretFileReason, secretFiles } from "../../config/secret-files.js";
import type { EngineResult, FileLineHits } from "./search-types.js";

/** Appended to content results whose root may hold credential files; the same whatever matched. */
export const SECRET_FILES_NOTE =
  "[Credential files under this path (HERMES_HOME's .env and auth.json, /proc/*/environ) are never searched.]";

/** How one search keeps away from credential files (see `secretSearchGuard`). */
export interface SecretSearchGuard {
  /** Set when the root itself is a credential file: the search must be refused with this reason. */
  refusal?: string;
  /**
   * The engine result without entries from credential files. Content search only (matching lines,
   * `files_only`, counts): a file search lists names, not content, so its result is unchanged.
   */
  filter(result: EngineResult, target: "content" | "files"): EngineResult;
  /** Whether `SECRET_FILES_NOTE` belongs on this search's results (decided by the root alone). */
  note: boolean;
}

/**
 * The guard for a search of `root` (an existing file or directory). Result paths are relative to
 * the root and neither engine follows symbolic links below it, so a result's real path is the
 * root's real path joined with it. Whether the note appears depends on the root only, never on
 * what matched, so it reveals nothing about the files' content. Never throws.
 */
export async function secretSearchGuard(root: string, rootIsFile: boolean, hermesHome: string): Promise<SecretSearchGuard> {
  if (rootIsFile) {
    const refusal = await secretFileReason(root, hermesHome);
    return { ...(refusal ? { refusal } : {}), filter: (result) => result, note: false };
  }
  const files = await secretFiles(hermesHome);
  let rootReal = root;
  try {
    rootReal = await realpath(root);
  } catch {
    // searched as given
  }
  const secret = (rel: string): boolean =>
    files.reasonFor(path.join(rootReal, rel)) !== undefined || files.reasonFor(path.join(root, rel)) !== undefined;
  return {
    filter: (result, target) => (target === "content" ? withoutSecretFiles(result, secret) : result),
    note: files.anyBelow(rootReal),
  };
}

function withoutSecretFiles(result: EngineResult, secret: (rel: string) => boolean): EngineResult {
  switch (result.kind) {
    case "lines": {
      const files = new Map<string, FileLineHits>();
      for (const [rel, hits] of result.files) if (!secret(rel)) files.set(rel, hits);
      return { ...result, files };
    }
    case "counts": {
      const counts = new Map<string, number>();
      for (const [rel, count] of result.counts) if (!secret(rel)) counts.set(rel, count);
      return { ...result, counts };
    }
    case "files":
      return { ...result, files: result.files.filter((rel) => !secret(rel)) };
    default:
      return result;
  }
}
