/** One mount of the plan: later entries override earlier ones on the same or a deeper path. */
export interface SandboxMount {
  path: string;
  access: "read-only" | "writable" | "hidden";
}
