import { readFileSync } from "node:fs";
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from "yaml";
import type { z } from "zod";
import { HermesError } from "../shared/errors.js";
import { homePaths } from "./paths.js";
import { redactSecrets, registerSecret } from "./redact.js";
import { configSchema, defaultConfig, providerConfigSchema, type HermesConfig, type ProviderConfig } from "./schema.js";

/** One problem found in config.yaml; `line`/`column` are 1-based when known. */
export interface ConfigProblem {
  /** Dotted key path (`agent.max_turns`), empty for the whole file or a syntax error. */
  key: string;
  line?: number;
  column?: number;
  message: string;
}

export type LoadConfigResult = { ok: true; config: HermesConfig } | { ok: false; error: HermesError };

/**
 * Reads and validates `<home>/config.yaml`. A missing file yields `defaultConfig()`; an empty or
 * comment-only file does too. Throws HermesError `config_invalid` whose message names the file
 * and lists every problem with its key path, line and what was expected; `error.data` holds
 * `{ path, problems: ConfigProblem[] }`. Every API key found in the config (model, providers,
 * custom_providers, fallbacks, auxiliary tasks) is registered for redaction. Entries of Hermes'
 * lists and per-model tables that cannot be read are skipped with a warning (see schema.ts).
 */
export function loadConfig(home: string): HermesConfig {
  const path = homePaths(home).configFile;
  const text = readConfigFile(path);
  return text === undefined ? defaultConfig() : parseConfigText(text, path);
}

/** config.yaml's text; undefined when there is no file. Throws HermesError `config_invalid` when it cannot be read. */
function readConfigFile(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new HermesError("config_invalid", `Cannot read config ${path}: ${(error as Error).message}`, { path });
  }
}

/** `loadConfig` without throwing: a HermesError comes back as `{ ok: false, error }`. */
export function tryLoadConfig(home: string): LoadConfigResult {
  return attempt(() => loadConfig(home));
}

/**
 * Only the keys that decide the configured provider (`model`, `providers`, `custom_providers`;
 * see `providerConfigSchema`), read and checked as `loadConfig` reads them, their API keys
 * registered for redaction; the other sections are neither built nor checked. Never throws.
 */
export function tryLoadProviderConfig(home: string): { ok: true; config: ProviderConfig } | { ok: false; error: HermesError } {
  return attempt(() => {
    const path = homePaths(home).configFile;
    const text = readConfigFile(path);
    const config = text === undefined ? providerConfigSchema.parse({}) : parseWithSchema(providerConfigSchema, text, path);
    for (const key of poolKeys(config)) registerSecret(key);
    return config;
  });
}

function attempt<T>(read: () => T): { ok: true; config: T } | { ok: false; error: HermesError } {
  try {
    return { ok: true, config: read() };
  } catch (error) {
    if (error instanceof HermesError) return { ok: false, error };
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: new HermesError("config_invalid", `Cannot load config: ${message}`) };
  }
}

/** Validates YAML text as config; `path` is only used in messages. Throws like `loadConfig`. */
export function parseConfigText(text: string, path: string): HermesConfig {
  const config = parseWithSchema(configSchema, text, path);
  for (const key of configKeys(config)) registerSecret(key);
  return config;
}

/** YAML text read with `schema`; every problem (syntax, shape, values) in one HermesError `config_invalid`. */
function parseWithSchema<S extends z.ZodType>(schema: S, text: string, path: string): z.output<S> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((error): ConfigProblem => {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      return { key: "", line, column: col, message: firstLine(error.message) };
    });
    throw invalid(path, problems);
  }
  const data: unknown = doc.toJS() ?? {};
  if (typeof data !== "object" || Array.isArray(data)) {
    throw invalid(path, [{ key: "", line: 1, message: `expected a mapping of settings, got ${describe(data)}` }]);
  }
  const result = schema.safeParse(data);
  if (!result.success) {
    const problems = result.error.issues.map((issue): ConfigProblem => {
      const where = locate(doc, issue.path, lineCounter);
      const key = issue.path.map(String).join(".");
      return { key, ...where, message: explain(issue, valueAt(data, issue.path)) };
    });
    problems.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
    throw invalid(path, problems);
  }
  return result.data;
}

function invalid(path: string, problems: ConfigProblem[]): HermesError {
  const lines = problems.map((problem) => {
    const position =
      problem.line === undefined ? "" : problem.column === undefined ? `line ${problem.line}` : `line ${problem.line}, column ${problem.column}`;
    const head = problem.key ? (position ? `${problem.key} (${position})` : problem.key) : position;
    return head ? `${head}: ${problem.message}` : problem.message;
  });
  const message =
    lines.length === 1 ? `Invalid config ${path}: ${lines[0]}` : `Invalid config ${path}:\n${lines.map((l) => `  - ${l}`).join("\n")}`;
  return new HermesError("config_invalid", message, { path, problems });
}

/** Line of the deepest existing YAML node on `path` (the value, or its key when the value has no position). */
function locate(doc: Document, path: readonly PropertyKey[], counter: LineCounter): { line?: number } {
  let node: unknown = doc.contents;
  let offset: number | undefined = rangeStart(node);
  for (const segment of path) {
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
      if (pair) {
        next = pair.value;
        offset = rangeStart(pair.value) ?? rangeStart(pair.key) ?? offset;
      }
    } else if (isSeq(node) && typeof segment === "number") {
      next = node.items[segment];
      offset = rangeStart(next) ?? offset;
    }
    if (next === undefined) break;
    node = next;
  }
  return offset === undefined ? {} : { line: counter.linePos(offset).line };
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let value = data;
  for (const segment of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment as string];
  }
  return value;
}

/** What was expected and what was found, e.g. `expected number, got string "abc"`. */
function explain(issue: z.core.$ZodIssue, value: unknown): string {
  const got = `got ${describe(value)}`;
  switch (issue.code) {
    case "invalid_type":
      return value === undefined ? `required, expected ${typeName(issue.expected)}` : `expected ${typeName(issue.expected)}, ${got}`;
    case "invalid_value":
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, ${got}`;
    case "too_small":
      return `expected ${bound(issue.origin, issue.inclusive ? ">=" : ">", issue.minimum)}, ${got}`;
    case "too_big":
      return `expected ${bound(issue.origin, issue.inclusive ? "<=" : "<", issue.maximum)}, ${got}`;
    default:
      return `${issue.message}, ${got}`;
  }
}

function typeName(expected: string): string {
  if (expected === "object" || expected === "record" || expected === "map") return "a mapping";
  if (expected === "array") return "a list";
  if (expected === "int") return "an integer";
  return expected;
}

function bound(origin: string, op: string, limit: number | bigint): string {
  if (origin === "string") return op.startsWith(">") ? `a string of at least ${limit} character(s)` : `a string of at most ${limit} characters`;
  if (origin === "array") return op.startsWith(">") ? `at least ${limit} item(s)` : `at most ${limit} items`;
  return `a number ${op} ${limit}`;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null (empty value)";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `string ${redactSecrets(JSON.stringify(shown))}`;
  }
  if (typeof value === "object") return "a mapping";
  if (typeof value === "number" && !Number.isInteger(value)) return `number ${value}`;
  return `${typeof value} ${String(value)}`;
}

function firstLine(message: string): string {
  return message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "") ?? message;
}

/** The keys of the model's pool and of the named endpoints'. */
function poolKeys(config: ProviderConfig): (string | undefined)[] {
  const pools = [config.model, ...Object.values(config.providers), ...config.custom_providers];
  return pools.flatMap((entry) => [entry.api_key, ...(entry.api_keys ?? [])]);
}

/** Every key written in config.yaml: the model's pool, named endpoints', fallbacks' and auxiliary tasks'. */
function configKeys(config: HermesConfig): (string | undefined)[] {
  const tasks = Object.values(config.auxiliary).map((task) => (isRecord(task) && typeof task.api_key === "string" ? task.api_key : undefined));
  return [...poolKeys(config), ...[...config.fallback_providers, ...(config.fallback_model ?? [])].map((entry) => entry.api_key), ...tasks];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
