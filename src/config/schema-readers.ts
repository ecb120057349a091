/**
 * How config.yaml values are read, Hermes' spellings included: YAML nulls and blank strings as
 * absent, lists written as one string or a JSON string, boolean tokens, key lists, and lists and
 * tables whose bad entries are skipped with a warning instead of failing the whole file.
 */
import { z } from "zod";
import { log } from "../shared/logger.js";

/** Treats YAML `null` (a key with no value) as absent, so defaults apply. */
export const orAbsent = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === null ? undefined : value), schema);

/**
 * A list of names or paths as Hermes accepts it: a YAML list, one string, or a list written as a
 * JSON string (`hermes config set` stores `'["a","b"]'`); absent or null is empty.
 */
const listOfStrings = (value: unknown): unknown => {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string") {
    const text = value.trim();
    if (text.startsWith("[")) {
      try {
        const parsed: unknown = JSON.parse(text.replace(/'/g, '"'));
        if (Array.isArray(parsed)) return parsed.map(String);
      } catch {
        // one name that happens to start with "["
      }
    }
    return [value];
  }
  return Array.isArray(value) ? value.map(String) : value;
};
export const stringList = z.preprocess(listOfStrings, z.array(z.string()).default([]));

/** Blank text (`''`, as Hermes writes unset fields) and null count as absent. */
export const blankAbsent = (value: unknown): unknown => (value === null || (typeof value === "string" && value.trim() === "") ? undefined : value);
/** An optional non-empty string; Hermes' `''` is unset. */
export const optionalText = z.preprocess(blankAbsent, z.string().min(1).optional());

/**
 * A list of keys (`api_keys`): `stringList`'s spellings, with items that are no key (null, blank,
 * a mapping) left out rather than sent as `"null"`; stays absent when absent (so a rewritten
 * section keeps its shape).
 */
export const keyList = z.preprocess((value) => {
  const list = listOfStrings(Array.isArray(value) ? value.filter((item) => typeof item === "string" || typeof item === "number") : value);
  return Array.isArray(list) ? list.filter((item) => typeof item === "string" && item.trim() !== "") : list;
}, z.array(z.string()).optional());

/** `key_env`: one variable name or several; blank names (and non-names in a list) are left out, an empty result is unset. */
export const keyEnvNames = z.preprocess((value) => {
  if (!Array.isArray(value)) return blankAbsent(value);
  const names = value.filter((item): item is string => typeof item === "string" && item.trim() !== "").map((item) => item.trim());
  return names.length > 0 ? names : undefined;
}, z.union([z.string().trim().min(1), z.array(z.string().min(1))]).optional());

/** `custom_providers[2]: base_url: Invalid input…` — where an entry is wrong, never its values. */
function entryProblem(where: string, error: z.ZodError): string {
  const first = error.issues[0];
  const path = first?.path.length ? `${first.path.map(String).join(".")}: ` : "";
  return `${where}: ${path}${first?.message ?? "invalid"}`;
}

/** Whether `item` passes `schema`; when not, logs that `where` is skipped and why. */
function keepEntry(schema: z.ZodType, item: unknown, where: string): boolean {
  const result = schema.safeParse(item);
  if (!result.success) log.warn(`config.yaml ${entryProblem(where, result.error)}; this entry is skipped`);
  return result.success;
}

const isMapping = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
/** A mapping whose every value is blank (Hermes' unset `fallback_model: {provider: '', model: ''}`): off, not wrong. */
const isBlankEntry = (value: unknown): boolean => isMapping(value) && Object.values(value).every((field) => blankAbsent(field) === undefined);

/**
 * A list read entry by entry, as Hermes reads its lists: an entry `entry` rejects is skipped with
 * a warning naming it (`custom_providers[2]: …`), the others are kept; an entry with only blank
 * values is off and left out quietly; one mapping counts as a one-entry list; absent or null is empty. Any other value (a string, a number) is still an error
 * naming the key: the user relies on the section, and nothing of it can be read.
 */
export const lenientList = <T extends z.ZodType>(key: string, entry: T) =>
  z.preprocess((value) => {
    if (value === null || value === undefined) return undefined;
    const items: unknown = isMapping(value) ? [value] : value;
    return Array.isArray(items) ? items.filter((item, index) => !isBlankEntry(item) && keepEntry(entry, item, `${key}[${index}]`)) : items;
  }, z.array(entry).default([]));

/**
 * A table keyed by model id read entry by entry: a value `entry` rejects is skipped with a warning
 * naming it (`pricing.gpt-5: …`). A section that is not a mapping at all is ignored with a warning
 * (these tables only tune a model: a cost shown, an effort sent), so the agent still starts.
 */
export const lenientTable = <T extends z.ZodType>(key: string, entry: T) =>
  z.preprocess((value) => {
    if (value === null || value === undefined) return undefined;
    if (!isMapping(value)) {
      log.warn(`config.yaml ${key}: expected a mapping of model ids, got ${Array.isArray(value) ? "a list" : typeof value}; ignored`);
      return undefined;
    }
    return Object.fromEntries(Object.entries(value).filter(([name, item]) => keepEntry(entry, item, `${key}.${name}`)));
  }, z.record(z.string(), entry).default({}));

/** A boolean flag as Hermes coerces it (`_coerce_capability_bool`): booleans, 0/1 and YAML tokens; anything else → absent. */
export const capabilityFlag = (value: unknown): boolean | undefined => {
  if (typeof value === "boolean") return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value !== "string") return undefined;
  const token = value.trim().toLowerCase();
  if (["true", "yes", "on", "1"].includes(token)) return true;
  if (["false", "no", "off", "0"].includes(token)) return false;
  return undefined;
};

export const count = (fallback: number) => z.number().int().min(1).default(fallback);
export const seconds = (fallback: number) => z.number().positive().default(fallback);
