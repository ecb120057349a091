/**
 * What tools need from outside the tools layer, implemented by the runtime and faked in tests.
 * Grows with later tools (approvals, session search, memory); each port fails closed.
 */
export interface ToolPorts {
  /** Reads a text file. The runtime may route this through the editor's buffers. */
  readTextFile?: (path: string) => Promise<string>;
}

export const noPorts: ToolPorts = {};
