/** Hermes' limits (`checkpoints:` in config.yaml), in bytes; 0 turns the size limits off. */
export interface CheckpointLimits {
  maxSnapshots: number;
  maxTotalBytes: number;
  maxFileBytes: number;
}

/** One snapshot of a workspace. */
export interface Checkpoint {
  /** Full commit id in the shadow store. */
  hash: string;
  short: string;
  /** When it was taken (ISO 8601 with the local offset). */
  time: string;
  /** What triggered it (`write_file: src/a.ts`). */
  reason: string;
}

/** What restoring a checkpoint does to one file: brings its content back, recreates it (it was deleted since), or deletes it (it was created since). */
export type RestoreKind = "restored" | "created" | "deleted";

export interface RestoreChange {
  /** Relative to the workspace, `/`-separated. */
  path: string;
  kind: RestoreKind;
}
