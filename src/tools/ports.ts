/**
 * What tools need from outside the tools layer, implemented by the runtime (bound to the session
 * that owns the turn) and faked in tests. Every approval port fails closed: a missing port, a
 * rejected promise, a timeout or any answer but an explicit allow is a deny.
 */
export interface CommandApprovalRequest {
  /** The tool call asking; the editor shows the request on it. */
  callId: string;
  /** The exact command, as the model wrote it. */
  command: string;
  /** Stable key of the dangerous pattern that matched ("allow for session" remembers it). */
  patternKey: string;
  /** Human description of why the command is dangerous. */
  description: string;
}

export interface FileEdit {
  /** Absolute path of the file the edit changes (for a move: the destination). */
  path: string;
  /** Current content; null when the file does not exist yet. */
  oldText: string | null;
  /** New content; null when the edit deletes the file. */
  newText: string | null;
  /** For a move: the absolute source path. */
  fromPath?: string;
}

/** One approval for everything a single tool call will change, asked before anything is written. */
export interface EditApprovalRequest {
  callId: string;
  toolName: string;
  edits: FileEdit[];
}

export interface ToolPorts {
  /** Reads a text file. The runtime may route this through the editor's buffers. */
  readTextFile?: (path: string) => Promise<string>;
  /** Writes a text file. The runtime may route this through the editor so its buffers stay in sync. */
  writeTextFile?: (path: string, content: string) => Promise<void>;
  /** True only when the user (or a standing allowance) allowed this dangerous command. */
  approveCommand?: (request: CommandApprovalRequest) => Promise<boolean>;
  /** True only when the edit may be written (user approval or the session's edit mode). */
  approveEdit?: (request: EditApprovalRequest) => Promise<boolean>;
}

export const noPorts: ToolPorts = {};

/** Asks a port and fails closed: no port, a throw, or anything but `true` is a deny. */
export async function askPort<R>(port: ((request: R) => Promise<boolean>) | undefined, request: R): Promise<boolean> {
  if (!port) return false;
  try {
    return (await port(request)) === true;
  } catch {
    return false;
  }
}
