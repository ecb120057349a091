import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { isMap, parseDocument } from "yaml";
import { errorMessage } from "../shared/errors.js";
import { homePaths } from "./paths.js";
import { updateConfigDocument, valueEnd, writePrivate } from "./write.js";

/** What logging out forgot and what it deliberately left, one line each, never a value. */
export interface ForgetReport {
  forgotten: string[];
  kept: string[];
}

/** Tokens (besides every `*_API_KEY`) that hold model-provider credentials. */
const PROVIDER_TOKENS = new Set(["ANTHROPIC_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"]);

/** True for a variable holding a model-provider credential: `*_API_KEY`, the provider tokens, or a `providers:` entry's `key_env`. */
export function isProviderCredential(name: string, keyEnvs: ReadonlySet<string> = new Set()): boolean {
  return name.endsWith("_API_KEY") || PROVIDER_TOKENS.has(name) || keyEnvs.has(name);
}

/**
 * Logs Hermes out of its model providers by forgetting the credentials Hermes itself stores,
 * and nothing else:
 * - in `<home>/.env`: every provider credential assignment (`*_API_KEY`, Anthropic tokens, the
 *   `key_env` of `providers:` entries) is removed; other lines and comments stay (file 0600,
 *   replaced atomically);
 * - in `<home>/config.yaml`: `model.api_key` (what `--setup` writes for a custom endpoint) is
 *   removed, everything else and its comments kept; `providers.<name>.api_key` entries are
 *   hand-written configuration and are kept (reported);
 * - in `env` (this process): a removed variable is deleted when its value is the one the file
 *   held (it was loaded from there); credentials set outside Hermes are kept (reported), since
 *   only the user can unset them where they are set.
 * Never throws: a file that cannot be read or written is reported as kept, with the reason.
 */
export function forgetStoredCredentials(home: string, env: NodeJS.ProcessEnv): ForgetReport {
  const paths = homePaths(home);
  const report: ForgetReport = { forgotten: [], kept: [] };
  const config = readConfigFacts(paths.configFile, report);

  const removed = forgetEnvFile(paths.envFile, config.keyEnvs, report);
  for (const [name, value] of removed) {
    if (env[name] === value) delete env[name];
  }
  if (config.modelApiKey) {
    try {
      updateConfigDocument(home, (doc) => doc.deleteIn(["model", "api_key"]));
      report.forgotten.push(`model.api_key (removed from ${paths.configFile})`);
    } catch (error) {
      report.kept.push(`model.api_key in ${paths.configFile} (could not be removed: ${errorMessage(error)})`);
    }
  }
  for (const name of config.providerKeys) {
    report.kept.push(`providers.${name}.api_key in ${paths.configFile} (hand-written configuration; remove it there to forget it)`);
  }
  for (const name of Object.keys(env).sort()) {
    if (env[name] && isProviderCredential(name, config.keyEnvs)) {
      report.kept.push(`${name} in the environment (set outside Hermes; unset it where it is set)`);
    }
  }
  return report;
}

interface ConfigFacts {
  modelApiKey: boolean;
  providerKeys: string[];
  keyEnvs: Set<string>;
}

function readConfigFacts(path: string, report: ForgetReport): ConfigFacts {
  const facts: ConfigFacts = { modelApiKey: false, providerKeys: [], keyEnvs: new Set() };
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") report.kept.push(`${path} (could not be read: ${errorMessage(error)})`);
    return facts;
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || !isMap(doc.contents)) {
    report.kept.push(`${path} (not valid YAML settings; not changed)`);
    return facts;
  }
  const data = doc.toJSON() as { model?: { api_key?: unknown }; providers?: Record<string, { api_key?: unknown; key_env?: unknown } | null> };
  facts.modelApiKey = data.model?.api_key !== undefined && data.model.api_key !== null;
  for (const [name, entry] of Object.entries(data.providers ?? {})) {
    if (entry?.api_key) facts.providerKeys.push(name);
    if (typeof entry?.key_env === "string" && entry.key_env) facts.keyEnvs.add(entry.key_env);
  }
  return facts;
}

/** Removes credential assignments from the .env file; answers the removed names with the values they had. */
function forgetEnvFile(path: string, keyEnvs: ReadonlySet<string>, report: ForgetReport): Map<string, string> {
  const removed = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") report.kept.push(`${path} (could not be read: ${errorMessage(error)})`);
    return removed;
  }
  const lines = text === "" ? [] : text.replace(/\r?\n$/, "").split(/\r?\n/);
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const end = valueEnd(lines, i);
    const assignment = lines.slice(i, end + 1);
    const name = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(lines[i] ?? "")?.[1];
    if (name !== undefined && isProviderCredential(name, keyEnvs)) {
      const value = parseEnv(assignment.join("\n").replace(/^\s*export\s+/, ""))[name];
      if (value !== undefined) removed.set(name, value);
      else removed.set(name, "");
    } else {
      out.push(...assignment);
    }
    i = end;
  }
  if (removed.size === 0) return removed;
  try {
    writePrivate(path, out.length > 0 ? `${out.join("\n")}\n` : "");
  } catch (error) {
    for (const name of removed.keys()) report.kept.push(`${name} in ${path} (could not be removed: ${errorMessage(error)})`);
    return new Map();
  }
  for (const name of removed.keys()) report.forgotten.push(`${name} (removed from ${path})`);
  return removed;
}
