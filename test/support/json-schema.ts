/**
 * A small JSON Schema (draft-07) checker for the keywords the vendored ACP registry schema uses:
 * `type`, `required`, `properties`, `additionalProperties` (boolean or schema), `minProperties`,
 * `propertyNames` (`enum`), `items`, `minLength`, `pattern`, `enum`, `format: uri` and local `$ref`
 * (`#/definitions/…`). A keyword it does not know fails the check, so a schema that grows a new
 * rule is not silently half-checked. Returns one line per problem, each with its JSON path; [] when valid.
 */
type Schema = Record<string, unknown>;

const KNOWN = new Set([
  "$schema", "$id", "title", "description", "definitions", "type", "required", "properties", "additionalProperties",
  "minProperties", "propertyNames", "items", "minLength", "pattern", "enum", "format", "$ref",
]);

export function schemaErrors(schema: Schema, value: unknown): string[] {
  const errors: string[] = [];
  check(schema, schema, value, "$", errors);
  return errors;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isInteger(value)) return "integer";
  return typeof value;
}

function check(root: Schema, schema: Schema, value: unknown, path: string, errors: string[]): void {
  for (const key of Object.keys(schema)) if (!KNOWN.has(key)) errors.push(`${path}: schema keyword "${key}" is not supported by this checker`);
  if (typeof schema.$ref === "string") {
    const match = /^#\/definitions\/(.+)$/.exec(schema.$ref);
    const target = match ? (root.definitions as Record<string, Schema> | undefined)?.[match[1]!] : undefined;
    if (!target) errors.push(`${path}: unresolvable $ref ${schema.$ref}`);
    else check(root, target, value, path, errors);
  }
  const actual = typeOf(value);
  if (typeof schema.type === "string" && schema.type !== actual && !(schema.type === "number" && actual === "integer")) {
    errors.push(`${path}: expected ${schema.type}, got ${actual}`);
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errors.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength) errors.push(`${path}: shorter than ${schema.minLength}`);
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) errors.push(`${path}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
    if (schema.format === "uri" && !URL.canParse(value)) errors.push(`${path}: ${JSON.stringify(value)} is not a URI`);
  }
  if (Array.isArray(value) && schema.items && typeof schema.items === "object") {
    value.forEach((item, index) => check(root, schema.items as Schema, item, `${path}[${index}]`, errors));
  }
  if (actual !== "object") return;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  for (const name of (schema.required as string[] | undefined) ?? []) if (!(name in object)) errors.push(`${path}: missing required "${name}"`);
  if (typeof schema.minProperties === "number" && keys.length < schema.minProperties) errors.push(`${path}: fewer than ${schema.minProperties} properties`);
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const names = schema.propertyNames as Schema | undefined;
  for (const key of keys) {
    if (names) check(root, names, key, `${path} key`, errors);
    if (key in properties) check(root, properties[key]!, object[key], `${path}.${key}`, errors);
    else if (schema.additionalProperties === false) errors.push(`${path}: unexpected property "${key}"`);
    else if (schema.additionalProperties && typeof schema.additionalProperties === "object") check(root, schema.additionalProperties as Schema, object[key], `${path}.${key}`, errors);
  }
}
