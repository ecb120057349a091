import type { RequestPermissionRequest, ToolCallLocation } from "@agentclientprotocol/sdk/unstable";
import { hardLinkCount, realTarget } from "../../runtime/edit-policy.js";
import type { EditApprovalRequest, FileEdit } from "../../tools/ports.js";
import { editDiffContent } from "./edit.js";
import { textContent } from "./text.js";

/** Where a write to one path really lands, as the user is shown it. */
export interface EditTarget {
  /** The path as the tool was given it (absolute). */
  given: string;
  /** The real path: symlinks resolved (`realTarget`). */
  real: string;
  /** Hard links of the real target when it is an existing regular file, else 0 (`hardLinkCount`). */
  links: number;
}

/** Looks `path` up on disk now. Never throws. */
export function editTarget(path: string): EditTarget {
  return { given: path, real: realTarget(path), links: hardLinkCount(path) };
}

/**
 * One target for a title: the real path, then what differs from what was asked, e.g.
 * `/home/u/.gitconfig (via /w/link)` or `/w/a.txt (hard link: 2 links)`.
 */
export function describeTarget(target: EditTarget): string {
  const notes: string[] = [];
  if (target.real !== target.given) notes.push(`via ${target.given}`);
  if (target.links > 1) notes.push(`hard link: ${target.links} links`);
  return notes.length ? `${target.real} (${notes.join("; ")})` : target.real;
}

/** Titles name at most this many files, then "and N more". */
const TITLE_FILES = 3;

function verbOf(edit: FileEdit): string {
  if (edit.fromPath) return "Move";
  if (edit.newText === null) return "Delete";
  return edit.oldText === null ? "Create" : "Edit";
}

function describeEdit(edit: FileEdit, lookup: (path: string) => EditTarget): string {
  const to = describeTarget(lookup(edit.path));
  return edit.fromPath ? `${describeTarget(lookup(edit.fromPath))} → ${to}` : to;
}

function titleOf(edits: readonly FileEdit[], lookup: (path: string) => EditTarget): string {
  const [only] = edits;
  if (!only) return "Edit (no files)";
  if (edits.length === 1) return `${verbOf(only)} ${describeEdit(only, lookup)}`;
  const named = edits.slice(0, TITLE_FILES).map((edit) => describeEdit(edit, lookup));
  const more = edits.length > TITLE_FILES ? ` and ${edits.length - TITLE_FILES} more` : "";
  return `Edit ${edits.length} files: ${named.join(", ")}${more}`;
}

/** Plain-language warnings for targets that are not simply the file named; empty when there are none. */
export function targetWarnings(targets: readonly EditTarget[]): string[] {
  const lines: string[] = [];
  for (const target of targets) {
    if (target.real !== target.given) {
      lines.push(`${target.given} is (or goes through) a symbolic link: this change is written to ${target.real}.`);
    }
    if (target.links > 1) {
      lines.push(
        `${target.real} is a hard link (${target.links} links): the same file also exists under another name, ` +
          "possibly outside the workspace, and changes there too.",
      );
    }
  }
  return lines;
}

/**
 * The tool call a `session/request_permission` for an edit shows: kind `edit`, status `pending`,
 * one diff per file exactly as the tool prepared it, then (only when some target is a symlink or
 * a hard link) a text block saying where the write really lands. The title names the real target
 * and, when it differs, the path as given and the hard-link count, after the request's `label` (who
 * asks, e.g. a delegated child) when it has one; locations point at the real
 * paths (destination, then source for a move), without repeats. Reads the file system once per
 * distinct path; never throws.
 */
export function editApprovalToolCall(request: EditApprovalRequest): RequestPermissionRequest["toolCall"] {
  const seen = new Map<string, EditTarget>();
  const lookup = (path: string): EditTarget => {
    let target = seen.get(path);
    if (!target) {
      target = editTarget(path);
      seen.set(path, target);
    }
    return target;
  };
  const paths = request.edits.flatMap((edit) => (edit.fromPath ? [edit.path, edit.fromPath] : [edit.path]));
  const targets = paths.map(lookup);
  const title = `${request.label ? `${request.label} ` : ""}${titleOf(request.edits, lookup)}`;
  const warnings = targetWarnings([...new Set(targets)]);
  const locations: ToolCallLocation[] = [...new Set(targets.map((target) => target.real))].map((path) => ({ path }));
  return {
    toolCallId: request.callId,
    title,
    kind: "edit",
    status: "pending",
    content: [...request.edits.map(editDiffContent), ...(warnings.length ? [textContent(warnings.join("\n"))] : [])],
    locations,
  };
}
