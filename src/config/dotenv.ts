import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { HermesError } from "../shared/errors.js";
import { registerCredentialUrls, registerSecret } from "./redact.js";

/**
 * Loads `KEY=VALUE` lines from `path` into `env` (Node's `.env` syntax: comments, quotes,
 * `export` prefixes; a leading byte-order mark ignored). Variables already present in `env` are
 * never overridden, even when empty. Returns the keys it set (in no particular order). A missing
 * file sets nothing and returns `[]`. Every value in the file is registered for redaction
 * whatever its key is called (values under 8 characters excepted), also when the environment
 * already had the key: the file holds the user's credentials, and its values must not reach the
 * model or the editor in any spelling.
 * The passwords of credential URLs in values (`postgres://app:pw@db`) are registered as well.
 * Throws HermesError `config_invalid` when the file exists but cannot be read.
 */
export function loadDotenv(path: string, env: NodeJS.ProcessEnv = process.env): string[] {
  let content: string;
  try {
    content = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new HermesError("config_invalid", `Cannot read ${path}: ${(error as Error).message}`, { path });
  }
  // A byte-order mark (Windows editors) would otherwise become part of the first variable's name.
  const parsed = parseEnv(content.startsWith("\uFEFF") ? content.slice(1) : content);
  const set: string[] = [];
  for (const [key, value] of Object.entries(parsed)) {
    if (value === undefined) continue;
    registerSecret(value);
    registerCredentialUrls(value);
    if (env[key] !== undefined) continue;
    env[key] = value;
    set.push(key);
  }
  return set;
}
