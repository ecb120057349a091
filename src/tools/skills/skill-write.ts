/**
 * Writing skill files atomically: a temp file beside the target (created exclusively, 0600 until
 * renamed), flushed, renamed over it, so a reader (another session building its index, Python
 * Hermes) sees the old file or the new one, never half of one. Throws an Error naming the file
 * when the write fails; the temp file is removed.
 */
import { chmodSync, closeSync, constants, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

export function atomicWriteText(file: string, text: string): void {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true });
  let mode = 0o644;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    // a new file: the usual mode
  }
  const temp = path.join(dir, `.${path.basename(file)}.tmp.${process.pid}.${Date.now()}`);
  try {
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      // writes until every byte is out or throws (ENOSPC, EFBIG); a bare writeSync may stop short
      writeFileSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(temp, mode);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new Error(`cannot write ${file}: ${(error as Error).message}`);
  }
}
