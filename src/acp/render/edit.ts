import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import type { FileEdit } from "../../tools/ports.js";
import { errorText, isRecord, textContent, truncate } from "./text.js";
import type { ToolEnd, ToolRenderer } from "./types.js";

/** An ACP diff block for one file edit; a deletion shows an empty new text. */
export function editDiffContent(edit: FileEdit): ToolCallContent {
  return { type: "diff", path: edit.path, oldText: edit.oldText, newText: edit.newText ?? "" };
}

function editsOf(details: unknown): FileEdit[] {
  if (!isRecord(details)) return [];
  if (Array.isArray(details.files)) {
    return details.files.filter(isRecord).map((file) => ({
      path: String(file.path),
      oldText: typeof file.oldText === "string" ? file.oldText : null,
      newText: typeof file.newText === "string" ? file.newText : null,
      ...(typeof file.fromPath === "string" ? { fromPath: file.fromPath } : {}),
    }));
  }
  if (typeof details.path === "string" && typeof details.newText === "string") {
    return [{ path: details.path, oldText: typeof details.oldText === "string" ? details.oldText : null, newText: details.newText }];
  }
  return [];
}

function targetPath(event: ToolEnd): string {
  const args = isRecord(event.args) ? event.args : {};
  return typeof args.path === "string" ? args.path : "";
}

/**
 * write_file and patch: the start says what is being prepared (the approval shows the diff); the
 * completion shows every changed file as a diff block, so editors render them as diffs.
 */
export const editRenderer: ToolRenderer = {
  start(event) {
    const args = isRecord(event.args) ? event.args : {};
    if (event.name === "write_file") {
      return [textContent(typeof args.path === "string" ? `Preparing write to ${args.path}.` : "Preparing file write.")];
    }
    const mode = args.mode === "patch" ? "patch" : "replace";
    return [textContent(`Preparing ${mode} edit${typeof args.path === "string" ? ` for ${args.path}` : ""}.`)];
  },
  complete(event) {
    if (event.isError) {
      const path = targetPath(event);
      return { content: [textContent(truncate(`${event.name} failed${path ? ` for ${path}` : ""}: ${errorText(event.content)}`, 3000))] };
    }
    const edits = editsOf(event.details);
    if (!edits.length) return { content: [textContent(truncate(event.content, 3000))] };
    const moved = edits.filter((edit) => edit.fromPath).map((edit) => `Moved ${edit.fromPath} → ${edit.path}`);
    return { content: [...edits.map(editDiffContent), ...(moved.length ? [textContent(moved.join("\n"))] : [])] };
  },
};
