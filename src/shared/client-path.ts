/**
 * A folder path as an editor sends it, in this machine's form. On Windows editors may send
 * `C:\Users\me\project`, `C:/Users/me/project` or a URL-style `/C:/Users/me/project`; all three
 * become `C:\Users\me\project` (drive letter upper-cased). Elsewhere the path is kept as sent.
 * Pure; never throws.
 */
import path from "node:path";

export function clientPath(value: string, platform: NodeJS.Platform = process.platform): string {
  if (platform !== "win32") return value;
  const unslashed = /^[\\/][A-Za-z]:([\\/]|$)/.test(value) ? value.slice(1) : value;
  const normalized = path.win32.normalize(unslashed);
  return /^[a-z]:/.test(normalized) ? `${normalized[0]!.toUpperCase()}${normalized.slice(1)}` : normalized;
}

/** Whether `value` is an absolute path on `platform` (drive-letter and UNC paths on Windows). */
export function isAbsoluteClientPath(value: string, platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== "win32") return path.posix.isAbsolute(value);
  const local = clientPath(value, platform);
  // `\foo` is relative to the current drive: not a folder an editor can mean
  // device and verbatim namespaces (`\\.\pipe\x`, `\\?\C:\x`, `\\.\COM1`) are not folders an editor opens
  if (/^\\\\[.?]\\/.test(local)) return false;
  return /^[A-Za-z]:\\/.test(local) || /^\\\\[^\\]+\\[^\\]+/.test(local);
}
