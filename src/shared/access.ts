import { accessSync, constants } from "node:fs";

/** Whether this process may access `path` as `mode` asks (`"w"` write, `"x"` execute). Never throws. */
export function canAccess(path: string, mode: "w" | "x"): boolean {
  try {
    accessSync(path, mode === "w" ? constants.W_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
