/**
 * Per-model tables of config.yaml (`agent.reasoning_overrides`, `pricing`): which entry a model id
 * takes. Pure; never throws.
 */

/**
 * The value `table` gives `model`, or undefined when no key matches. Keys and the model are
 * compared without case and with or without a `vendor/` prefix on either side
 * (`anthropic/claude-opus-4-6` and `claude-opus-4-6` match each other); a key ending in `*` matches
 * every id that starts with the rest (`claude-opus-*`). An exact key wins over every prefix key,
 * a longer prefix over a shorter one, and among equals the first key in the table.
 */
export function modelKeyValue<T>(table: Readonly<Record<string, T>>, model: string): T | undefined {
  const models = spellings(model);
  if (models.length === 0) return undefined;
  let exact: { value: T } | undefined;
  let prefix: { value: T; length: number } | undefined;
  for (const [key, value] of Object.entries(table)) {
    const trimmed = key.trim();
    if (trimmed.endsWith("*")) {
      const stems = spellings(trimmed.slice(0, -1));
      // ranked by the stem without its vendor, so `vendor/` does not make a prefix longer
      const length = stems.at(-1)?.length ?? 0;
      const matches = stems.length === 0 ? trimmed === "*" : stems.some((stem) => models.some((name) => name.startsWith(stem)));
      if (matches && (!prefix || length > prefix.length)) prefix = { value, length };
    } else if (!exact && spellings(trimmed).some((name) => models.includes(name))) {
      exact = { value };
    }
  }
  return exact ? exact.value : prefix?.value;
}

/** `id` lower-cased, and without its `vendor/` prefix when it has one. */
function spellings(id: string): string[] {
  const name = id.trim().toLowerCase();
  if (name === "") return [];
  const slash = name.lastIndexOf("/");
  const bare = slash === -1 ? name : name.slice(slash + 1);
  return bare !== name && bare !== "" ? [name, bare] : [name];
}
