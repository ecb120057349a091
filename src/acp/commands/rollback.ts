import { diffLines } from "diff";
import { join } from "node:path";
import { CheckpointChanged, type Checkpoint, type RestoreChange } from "../../runtime/checkpoints/store.js";
import { newId } from "../../shared/ids.js";
import type { FileEdit } from "../../tools/ports.js";
import type { CommandContext, CommandResult, SlashCommand } from "./types.js";

/** Files larger than this are shown as a note in the confirmation, not as a diff. */
const DIFF_MAX_BYTES = 512 * 1024;
/** Changed lines beyond which no line counts are given (Myers' cost grows with them). */
const COUNT_MAX_EDIT = 2000;

export const TERMINAL_NOTE =
  "Terminal side effects are not undone: commands the agent ran (installs, builds, network calls, processes, changes outside this folder or in ignored files) stay as they are.";

const NOT_ENABLED = "Checkpoints are not enabled. Turn them on in config.yaml (new sessions pick it up):\n\ncheckpoints:\n  enabled: true";

/** `2025-03-04 10:07` from git's ISO time (the offset it was taken with). */
function shownTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]}` : iso;
}

function listReply(checkpoints: readonly Checkpoint[], workspace: string): string {
  if (checkpoints.length === 0) return `No checkpoints found for ${workspace}`;
  const lines = [`📸 Checkpoints for ${workspace}:`, ""];
  checkpoints.forEach((checkpoint, index) => lines.push(`  ${index + 1}. ${checkpoint.short}  ${shownTime(checkpoint.time)}  ${checkpoint.reason}`));
  lines.push("", "  /rollback <N>    restore the files to checkpoint N (asks first, showing the diff)");
  return lines.join("\n");
}

/** The file's text for a diff, or a note when it is binary or large; null when absent. */
function shownText(content: Buffer | null): string | null {
  if (content === null) return null;
  if (content.length > DIFF_MAX_BYTES) return `(large file, ${content.length} bytes: not shown)\n`;
  if (content.subarray(0, 8192).includes(0)) return `(binary file, ${content.length} bytes)\n`;
  return content.toString("utf8");
}

/** `+3/-1` for a text change, "" when not counted. */
function lineCounts(before: string | null, after: string | null): string {
  const parts = diffLines(before ?? "", after ?? "", { maxEditLength: COUNT_MAX_EDIT });
  if (!parts) return "";
  let added = 0;
  let removed = 0;
  for (const part of parts) {
    if (part.added) added += part.count ?? 0;
    if (part.removed) removed += part.count ?? 0;
  }
  return ` (+${added}/-${removed})`;
}

function summaryLine(change: RestoreChange, counts = ""): string {
  return `  ${change.kind.padEnd(8)} ${change.path}${counts}`;
}

async function rollbackTo(number: number, ctx: CommandContext): Promise<CommandResult> {
  const checkpoints = ctx.session.checkpoints!;
  const list = await checkpoints.list();
  if (list.length === 0) return { reply: `No checkpoints found for ${checkpoints.workspace}` };
  const checkpoint = list[number - 1];
  if (!checkpoint) return { reply: `Invalid checkpoint number. Use 1-${list.length}.` };
  const changes = await checkpoints.preview(checkpoint);
  const title = `checkpoint ${number} (${checkpoint.short}, ${checkpoint.reason})`;
  if (changes.length === 0) return { reply: `Nothing to restore: the files already match ${title}.` };
  if (!ctx.confirmEdits) return { reply: "Cannot ask for confirmation here, so nothing was restored." };
  const summary = changes.map((change) => {
    const before = shownText(change.current);
    const after = shownText(change.restored);
    return { change, before, after, counts: lineCounts(before, after) };
  });
  const edits: FileEdit[] = summary.map(({ change, before, after }) => ({ path: join(checkpoints.workspace, change.path), oldText: before, newText: after }));
  const allowed = await ctx.confirmEdits({ callId: `rollback-${newId()}`, toolName: "rollback", edits, label: `/rollback ${number}:` });
  if (!allowed) return { reply: `Rollback cancelled. No files were changed.` };
  let done: Awaited<ReturnType<typeof checkpoints.restore>>;
  try {
    done = await checkpoints.restore(checkpoint, changes);
  } catch (error) {
    if (!(error instanceof CheckpointChanged)) throw error;
    return { reply: `The files changed after the diff you confirmed, so nothing was restored. Run /rollback ${number} again to see what it would change now.` };
  }
  const counts = new Map(summary.map((item) => [item.change.path, item.counts]));
  const lines = [`⏪ Restored the files to ${title}:`, ...done.changes.map((change) => summaryLine(change, counts.get(change.path)))];
  if (done.changes.length === 0) lines.push("  (nothing needed restoring)");
  if (done.skipped.length > 0) lines.push("", "Left alone:", ...done.skipped.map((item) => `  ${item}`));
  lines.push("", "A pre-rollback snapshot was saved first: /rollback 1 brings back the files as they were.", TERMINAL_NOTE);
  return { reply: lines.join("\n") };
}

/**
 * `/rollback`: lists the session folder's filesystem checkpoints (newest first, as Hermes numbers
 * them); `/rollback N` shows what restoring checkpoint N changes, asks the user (a permission
 * request with one diff per file, whatever the edit mode), then restores (files brought back,
 * recreated or deleted) and says that terminal side effects stay. A deny changes nothing.
 * Restoring holds the session (never beside a running turn).
 */
export const rollbackCommand: SlashCommand = {
  name: "rollback",
  description: "List or restore filesystem checkpoints",
  help: "List filesystem checkpoints, or restore the files to checkpoint N (asks first)",
  hint: "[number]",
  exclusive: (args) => args.trim() !== "",
  async run(args, ctx) {
    const checkpoints = ctx.session.checkpoints;
    if (!checkpoints?.enabled) return { reply: NOT_ENABLED };
    const text = args.trim();
    if (text === "") return { reply: listReply(await checkpoints.list(), checkpoints.workspace) };
    if (!/^\d+$/.test(text)) return { reply: "Usage: /rollback to list checkpoints, /rollback <N> to restore checkpoint N." };
    return rollbackTo(Number(text), ctx);
  },
};
