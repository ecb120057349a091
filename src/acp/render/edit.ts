import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import type { FileEdit } from "../../tools/ports.js";
import { errorText, textContent, truncate } from "./text.js";
import type { Completion, ToolRenderer } from "./types.js";

/** An ACP diff block for one file edit; a deletion shows an empty new text. */
export function editDiffContent(edit: FileEdit): ToolCallContent {
  return { type: "diff", path: edit.path, oldText: edit.oldText, newText: edit.newText ?? "" };
}

/** `<tool> failed[ for <path as given>]: <error>`, at most 3,000 chars. */
function failed(tool: string, path: string | undefined, error: string): Completion {
  return { content: [textContent(truncate(`${tool} failed${path ? ` for ${path}` : ""}: ${error}`, 3000))] };
}

/** Every changed file as a diff block (editors render them as diffs), then any moves. */
function edited(edits: readonly FileEdit[]): Completion {
  const moved = edits.filter((edit) => edit.fromPath).map((edit) => `Moved ${edit.fromPath} → ${edit.path}`);
  return { content: [...edits.map(editDiffContent), ...(moved.length ? [textContent(moved.join("\n"))] : [])] };
}

/** write_file: the start says what is being prepared (the approval shows the diff); the completion shows the diff. */
export const writeFileRenderer: ToolRenderer<"write_file"> = {
  start(event) {
    return [textContent(event.input ? `Preparing write to ${event.input.path}.` : "Preparing file write.")];
  },
  complete(event) {
    const details = event.details;
    if (event.isError) return failed(event.name, event.input?.path, details && "error" in details ? details.error : errorText(event.content));
    if (!details || "error" in details) return { content: [textContent(truncate(event.content, 3000))] };
    return edited([{ path: details.path, oldText: details.oldText, newText: details.newText }]);
  },
};

/** patch (both modes): like write_file, every changed file as a diff block. */
export const patchRenderer: ToolRenderer<"patch"> = {
  start(event) {
    const mode = event.input?.mode === "patch" ? "patch" : "replace";
    const path = event.input?.path;
    return [textContent(`Preparing ${mode} edit${path ? ` for ${path}` : ""}.`)];
  },
  complete(event) {
    const details = event.details;
    if (event.isError) return failed(event.name, event.input?.path, details && "error" in details ? details.error : errorText(event.content));
    if (!details || "error" in details || details.files.length === 0) return { content: [textContent(truncate(event.content, 3000))] };
    return edited(details.files);
  },
};
