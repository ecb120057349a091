import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { isMap, isSeq, parseDocument, type Document } from "yaml";
import { HermesError } from "../shared/errors.js";
import { homePaths } from "./paths.js";
import { registerCredentialUrls, registerSecret } from "./redact.js";

/** What the interactive setup chose. */
export interface ModelChoice {
  provider: string;
  model: string;
  base_url?: string;
  api_key?: string;
}

const FILE_MODE = 0o600;
const HOME_MODE = 0o700;
const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Sets `model.provider` and `model.default` in `<home>/config.yaml`, and sets or removes
 * `model.base_url` / `model.api_key` to match `choice` (a stale endpoint from an earlier choice
 * would otherwise win); the `model.model` alias is removed. Every other key and the comments the
 * YAML library keeps are preserved. Creates the home folder (0700) and the file; the file ends
 * with mode 0600. The file is replaced atomically.
 * Throws HermesError `invalid_params` for an empty provider or model, and `config_invalid` when the
 * existing file is not valid YAML or not a mapping (it is then left untouched).
 */
export function writeConfigModel(home: string, choice: ModelChoice): void {
  if (!choice.provider.trim() || !choice.model.trim()) {
    throw new HermesError("invalid_params", "Both a provider and a model are required.");
  }
  updateConfigDocument(home, (doc) => {
    if (!isMap(doc.get("model", true))) doc.set("model", doc.createNode({}));
    doc.setIn(["model", "provider"], choice.provider.trim());
    doc.setIn(["model", "default"], choice.model.trim());
    doc.deleteIn(["model", "model"]);
    for (const key of ["base_url", "api_key"] as const) {
      const value = choice[key]?.trim();
      if (value) doc.setIn(["model", key], value);
      else doc.deleteIn(["model", key]);
    }
  });
  registerSecret(choice.api_key);
}

/**
 * Appends `patternKey` to `command_allowlist` in config.yaml (once), keeping everything else.
 * Same file handling and errors as `writeConfigModel`.
 */
export function addCommandAllowlistEntry(home: string, patternKey: string): void {
  updateConfigDocument(home, (doc) => {
    const current = doc.get("command_allowlist");
    const list = isSeq(current) ? current.toJSON() : [];
    if (!list.includes(patternKey)) doc.set("command_allowlist", doc.createNode([...list, patternKey]));
  });
}

/** Reads config.yaml as a YAML document, lets `mutate` change it, and writes it back privately. */
export function updateConfigDocument(home: string, mutate: (doc: Document) => void): void {
  const path = homePaths(home).configFile;
  ensureHome(home);
  const text = readOptional(path);
  const doc: Document = parseDocument(text);
  if (doc.errors.length > 0) {
    const error = doc.errors[0];
    const where = error?.linePos?.[0] ? ` (line ${error.linePos[0].line})` : "";
    throw new HermesError("config_invalid", `Cannot update ${path}: it is not valid YAML${where}. Fix or remove it first.`, { path });
  }
  if (doc.contents === null) doc.contents = doc.createNode({});
  if (!isMap(doc.contents)) {
    throw new HermesError("config_invalid", `Cannot update ${path}: it does not hold a mapping of settings.`, { path });
  }
  mutate(doc);
  writePrivate(path, doc.toString());
}

/**
 * Sets each `KEY=value` in `<home>/.env`: the first existing line for a key is rewritten in place,
 * later duplicates of it are dropped, missing keys are appended; other lines and comments are kept.
 * Values are quoted so Node's `.env` parser reads them back unchanged. Does not change
 * `process.env`; every value is registered for redaction (as `loadDotenv` does). Creates the
 * home folder (0700); the file ends with mode 0600, replaced atomically.
 * Throws HermesError `invalid_params` for a key that is not a variable name or a value with a
 * line break.
 */
export function upsertEnvFile(home: string, values: Record<string, string>): void {
  const entries = Object.entries(values);
  for (const [key, value] of entries) {
    if (!ENV_KEY.test(key)) throw new HermesError("invalid_params", `Not an environment variable name: ${JSON.stringify(key)}`);
    if (/[\r\n\0]/.test(value)) throw new HermesError("invalid_params", `The value of ${key} must be a single line.`);
  }
  const path = homePaths(home).envFile;
  ensureHome(home);
  const existing = readOptional(path);
  const lines = existing === "" ? [] : existing.replace(/\r?\n$/, "").split(/\r?\n/);
  const pending = new Map(entries);
  const written = new Set<string>();
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const end = valueEnd(lines, i);
    const key = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    if (key !== undefined && pending.has(key)) {
      if (!written.has(key)) out.push(`${key}=${quoteEnvValue(pending.get(key) ?? "")}`);
      written.add(key);
    } else {
      out.push(...lines.slice(i, end + 1));
    }
    i = end;
  }
  for (const [key, value] of entries) {
    if (!written.has(key)) out.push(`${key}=${quoteEnvValue(value)}`);
  }
  // Every value in .env is a secret, whatever its key (see `loadDotenv`).
  for (const [, value] of entries) {
    registerSecret(value);
    registerCredentialUrls(value);
  }
  writePrivate(path, out.length > 0 ? `${out.join("\n")}\n` : "");
}

/** `value` written so `util.parseEnv` returns it unchanged. Throws when no quoting can. */
export function quoteEnvValue(value: string): string {
  if (/^[A-Za-z0-9_\-.:/+=@,~%^]*$/.test(value)) return value;
  if (!value.includes("'")) return `'${value}'`;
  if (!value.includes('"') && !value.includes("\\n")) return `"${value}"`;
  if (!value.includes("`")) return `\`${value}\``;
  throw new HermesError("invalid_params", "The value cannot be written to a .env file (it mixes every kind of quote).");
}

/** Index of the last line of the assignment starting at `start` (quoted values may span lines). */
export function valueEnd(lines: string[], start: number): number {
  const match = /^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=\s*(["'`])(.*)$/.exec(lines[start] ?? "");
  if (!match) return start;
  const [, quote = "", rest = ""] = match;
  if (rest.includes(quote)) return start;
  for (let i = start + 1; i < lines.length; i++) {
    if ((lines[i] ?? "").includes(quote)) return i;
  }
  return start;
}

function ensureHome(home: string): void {
  mkdirSync(home, { recursive: true, mode: HOME_MODE });
}

function readOptional(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
}

/** Replaces `path` (or the file a symlink at `path` points to) atomically with a 0600 file. */
export function writePrivate(path: string, content: string): void {
  const target = existsSync(path) ? realpathSync(path) : path;
  const temp = `${target}.${process.pid}.tmp`;
  writeFileSync(temp, content, { mode: FILE_MODE });
  chmodSync(temp, FILE_MODE);
  renameSync(temp, target);
}
